"""Which accountant's epsilon is a bound for which mechanism, and the words shown next to it.

Every epsilon shown first (pages, CLI, data cards, jobs) comes from
:data:`~dpcda.privacy.accountants.DEFAULT_ACCOUNTANT`, read at call time so that a new default
propagates everywhere. An epsilon from an accountant that is not a valid bound for the mechanism
that ran (``Accountant.supports(event)`` false for the mechanism's
:class:`~dpcda.privacy.events.ReleaseEvent`) carries :data:`~dpcda.privacy.accountants.NOT_A_BOUND`.
A mechanism is given by name (resolved through :data:`dpcda.privacy.events.EVENTS`) or by its event.
"""

from __future__ import annotations

from dpcda.privacy import accountants as _acc
from dpcda.privacy.events import CLASS_MIXTURE, ReleaseEvent, event_of

Mechanism = str | ReleaseEvent

#: How the published accountant is offered in choices (it stays selectable for reproduction).
PAPER_CHOICE = "as published (for reproducing the paper's tables)"


def default_accountant() -> str:
    """The accountant behind every DP-CDA epsilon shown first (the module constant, read now)."""
    return _acc.DEFAULT_ACCOUNTANT


def is_bound_for(accountant: str, mechanism: Mechanism = "dp-cda") -> bool:
    """Whether ``accountant`` is a valid bound for ``mechanism`` (a name or its event) as
    implemented here: whether the accountant supports the mechanism's event."""
    return _acc.get_accountant(accountant).supports(event_of(mechanism))


def caveat(accountant: str, mechanism: Mechanism = "dp-cda") -> str:
    """``""`` for a valid bound, else the words every such epsilon must carry."""
    return "" if is_bound_for(accountant, mechanism) else _acc.NOT_A_BOUND


def relation(accountant: str) -> str:
    """The accountant's neighbouring relation in plain words."""
    return _acc.get_accountant(accountant).relation


def epsilon_note(accountant: str, mechanism: Mechanism = "dp-cda") -> str:
    """One sentence for next to an epsilon: the accountant, the caveat where it applies, and the
    neighbouring relation, e.g. ``"class-aware accountant. Two datasets are neighbours when ..."``.
    """
    c = caveat(accountant, mechanism)
    return (f"{accountant} accountant" + (f" ({c})" if c else "") + ". " + relation(accountant))


def choice_label(accountant: str, mechanism: Mechanism = "dp-cda") -> str:
    """How an accountant is offered in a selectbox or CLI help for ``mechanism``."""
    if accountant == "paper":
        return f"paper: {PAPER_CHOICE}"
    if accountant == _acc.DEFAULT_ACCOUNTANT and is_bound_for(accountant, mechanism):
        return f"{accountant} (default: a valid bound)"
    return accountant + ("" if is_bound_for(accountant, mechanism) else f" ({_acc.NOT_A_BOUND})")


def dpcda_accountants() -> tuple[str, ...]:
    """The accountants a DP-CDA release can be reported under, the default first, then the
    other valid bounds, then the published and DPMix ones (kept for reproduction)."""
    names = list(_acc.ACCOUNTANTS)
    valid = [a for a in names if is_bound_for(a, CLASS_MIXTURE)]
    return tuple(dict.fromkeys([_acc.DEFAULT_ACCOUNTANT, *valid, *names]))


def compared_accountants() -> tuple[str, ...]:
    """The accountants recorded side by side on a DP-CDA card: the default, every other valid
    bound, and the published one (labelled as not a bound)."""
    valid = [a for a in _acc.ACCOUNTANTS if is_bound_for(a, CLASS_MIXTURE)]
    return tuple(dict.fromkeys([_acc.DEFAULT_ACCOUNTANT, *valid, "paper"]))
