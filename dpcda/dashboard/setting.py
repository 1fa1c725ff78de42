"""The dashboard's one setting, shared by every page and carried in the address.

A :class:`Setting` is what a reader chooses once (the dataset, l, the noise as σ or a target ε,
c, T, δ, the accountant, the allocation of T over the classes, the normalisation) and every page
reads: Privacy, Samples, Utility and the "Reproduce this" command line state the same ε for it.
:meth:`Setting.to_query` writes it as query parameters named like the command line's flags
(``?dataset=mnist&l=16&sigma_x=0.5``: ``--sigma-x`` is ``sigma_x``), so a link reproduces a view;
:meth:`Setting.from_query` reads such a link back, refusing each bad value on its own (a
:class:`~dpcda.util.checks.CheckError` naming the parameter and the allowed values, for a page
to show in plain words) and keeping the rest. No Streamlit here.

>>> s, problems = Setting.from_query({"dataset": "mnist", "l": "16", "sigma_x": "0.5"})
>>> (s.dataset, s.l, s.sigma_x, s.epsilon, s.allocation, problems)
('mnist', 16, 0.5, None, 'equal', [])
>>> s.to_query()["sigma_x"]
'0.5'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dpcda.util.checks import CheckError, check_choice, check_float, check_int

#: The one range of T on every page: 1 to a billion; ``None`` is T = N (the paper's choice).
T_RANGE = dict(lo=1, hi=10**9)
#: The one allocation of T over the classes the dashboard uses by default: the library's and the
#: experiments' (issue 26): proportional to the public class bounds (a built-in dataset's
#: published counts), so a release keeps the class balance without reading private sizes.
DEFAULT_ALLOCATION = "proportional"
#: The most characters of one value a link's setting is read with (issue 29): a longer value is
#: read as its first ones and an ellipsis, so it is refused in the usual words, quoted short.
MAX_VALUE_CHARS = 64
#: Query parameter names (the command line's flags without ``--``, ``-`` as ``_``), in order.
FIELDS = ("dataset", "l", "sigma_x", "sigma_y", "epsilon", "c", "T", "delta", "accountant",
          "allocation", "normalize", "conversion", "max_alpha")


def _datasets() -> tuple[str, ...]:
    from dpcda.data.presets import list_presets

    return tuple(list_presets())


def _accountants() -> tuple[str, ...]:
    from dpcda.mechanisms import MECHANISMS

    return tuple(MECHANISMS.get("dp-cda").accountants)


def _default_accountant() -> str:
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    return DEFAULT_ACCOUNTANT


@dataclass(frozen=True)
class Setting:
    """One DP-CDA setting as every page reads it.

    ``sigma_x``: the feature noise; ``sigma_y``: the label noise (``None``: equal to
    ``sigma_x``); ``epsilon``: a target ε (``None``: the noise is ``sigma_x`` as chosen; else
    the noise is calibrated to it under ``accountant`` and ``sigma_x`` is only remembered).
    ``c`` and ``normalize``: ``None`` is the dataset's default; ``T``: ``None`` is N.
    """

    dataset: str = "mnist"
    l: int = 4
    sigma_x: float = 0.25
    sigma_y: float | None = None
    epsilon: float | None = None
    c: float | None = None
    T: int | None = None
    delta: float = 1e-5
    accountant: str = dataclasses.field(default_factory=_default_accountant)
    allocation: str = DEFAULT_ALLOCATION
    normalize: str | None = None
    conversion: str = "mironov"
    max_alpha: int = 256

    def __post_init__(self) -> None:
        for name in FIELDS:
            object.__setattr__(self, name, check_field(name, getattr(self, name)))

    # --- reading ---------------------------------------------------------------------------
    @property
    def noise_mode(self) -> str:
        """``"epsilon"`` (calibrated to a target) or ``"sigma"`` (as chosen)."""
        return "sigma" if self.epsilon is None else "epsilon"

    @property
    def sigma_y_value(self) -> float:
        """The label noise (``sigma_x`` when tied)."""
        return self.sigma_x if self.sigma_y is None else self.sigma_y

    def clip_norm(self) -> float:
        """``c``, or the dataset's default clip norm."""
        from dpcda.data.presets import default_clip_norm

        return default_clip_norm(self.dataset) if self.c is None else self.c

    def T_for(self, n: int) -> int:
        """T for a dataset of ``n`` training records (``None`` is N)."""
        return int(n) if self.T is None else self.T

    def replace(self, **changes) -> Setting:
        """A copy with ``changes`` (checked as the constructor checks them)."""
        return dataclasses.replace(self, **changes)

    # --- the address -------------------------------------------------------------------------
    def to_query(self) -> dict[str, str]:
        """The setting as query parameters (text); ``None`` fields (a default) are left out."""
        return {name: value if isinstance(value, str) else f"{value:.12g}"
                for name in FIELDS if (value := getattr(self, name)) is not None}

    @classmethod
    def from_query(cls, params, base: Setting | None = None) -> tuple[Setting, list[CheckError]]:
        """The setting of query parameters ``params`` (a mapping of text), over ``base``
        (default: :class:`Setting`'s defaults). Each refused value is left at ``base``'s and its
        ``CheckError`` (naming the parameter and the allowed values) returned with the others;
        unknown names are ignored (other page state lives in the address too)."""
        base = base or cls()
        values, problems = {}, []
        for name in FIELDS:
            if name not in params:
                continue
            try:
                values[name] = check_field(name, _parse(name, params[name]))
            except CheckError as exc:
                problems.append(exc)
        try:
            return dataclasses.replace(base, **values), problems
        except CheckError as exc:  # a combination refused (none today): keep the base
            return base, problems + [exc]


def _parse(name: str, text):
    """Query text to a value (numbers read strictly; an empty value is ``None``)."""
    from dpcda.dashboard.inputs import parse_float_text, parse_int_text

    if text is None or (isinstance(text, str) and not text.strip()):
        if name in ("dataset", "l", "sigma_x", "delta", "accountant", "allocation",
                    "conversion", "max_alpha"):
            raise CheckError(f"{name} must not be empty", code="not_a_number", name=name,
                             value="")
        return None
    if not isinstance(text, str):
        return text
    if len(text) > MAX_VALUE_CHARS:  # never a setting: refused as read, at a bounded cost
        text = text[:MAX_VALUE_CHARS] + "…"
    if name in ("l", "T", "max_alpha"):  # the range named as typed (1e308, not its 309 digits)
        return parse_int_text(text, name=name, **_int_range(name))
    if name in ("sigma_x", "sigma_y", "epsilon", "c", "delta"):
        return parse_float_text(text, name=name)
    return text.strip()


def _int_range(name: str) -> dict:
    from dpcda.privacy.params import MAX_ALPHA_LIMIT

    return {"l": dict(lo=1, hi=512), "T": T_RANGE, "max_alpha": dict(lo=3, hi=MAX_ALPHA_LIMIT)}[name]


def check_field(name: str, value):
    """``value`` of setting field ``name`` checked (a CheckError naming it otherwise)."""
    from dpcda.privacy import ALLOCATIONS, list_conversions

    if value is None and name in ("sigma_y", "epsilon", "c", "T", "normalize"):
        return None
    if name == "dataset":
        return check_choice("dataset", value, _datasets())
    if name in ("l", "T", "max_alpha"):
        return check_int(name, value, **_int_range(name))
    if name in ("sigma_x", "sigma_y"):
        return check_float(name, value, lo=0.0, hi=10.0)
    if name == "epsilon":
        return check_float("epsilon", value, lo=0.0, lo_open=True, hi=1e4)
    if name == "c":
        return check_float("c", value, lo=0.1, hi=10.0)
    if name == "delta":
        return check_float("delta", value, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if name == "accountant":
        return check_choice("accountant", value, _accountants())
    if name == "allocation":
        return check_choice("allocation", value, ALLOCATIONS)
    if name == "normalize":
        return check_choice("normalize", value, ("scale", "none", "zscore", "dp-center"))
    if name == "conversion":
        return check_choice("conversion", value, list_conversions())
    raise ValueError(f"name must be one of {', '.join(FIELDS)}, got name={name!r}")


def target_words(target: float, epsilon: float, accountant: str) -> str | None:
    """Plain words when noise calibrated to ``target`` states ``epsilon`` far from it (``None``
    when the target is met): a target so small that the accountant reads ε = 0, or one above
    the largest ε it states at this setting (the calibration then stops below the target)."""
    from dpcda.report.formatting import fmt_eps

    if epsilon <= 0:
        return (f"The target ε = {target:g} asks for so much noise that the `{accountant}` "
                "accountant states ε = 0: apart from the small probability δ, the release says "
                "nothing measurable about anyone, and its samples are noise.")
    if epsilon < 0.99 * target:
        return (f"The target ε = {target:g} cannot be reached at this setting: the largest ε "
                f"the `{accountant}` accountant states here is about {fmt_eps(epsilon)} (its "
                "range ends there, so less noise would not be counted), and the noise is "
                f"calibrated to that. Choose a target up to {fmt_eps(epsilon)}.")
    return None


def other_accountant_words(name: str, other: dict, epsilon: float) -> str | None:
    """One plain sentence comparing another accountant's ε for the same noise (``other``: its
    entry of a card's ``other_accountants``) with the release's ``epsilon``; ``None`` where the
    number would mean nothing to a reader: a published analysis that is not a bound for this
    code and states an ε above 100 (no one publishes such an ε), or a headline of 0."""
    from dpcda.report.formatting import fmt_eps

    e = other.get("epsilon")
    if e is None or epsilon <= 0 or (other.get("bound_note") and e > 100):
        return None
    ratio = e / epsilon
    how = ("about the same" if 0.9 <= ratio <= 1.1 else
           f"about {ratio:.3g} times larger" if ratio > 1 else f"about {1 / ratio:.3g} times smaller")
    note = f" ({other['bound_note']})" if other.get("bound_note") else ""
    return (f"The `{name}` accountant{note} states ε = {fmt_eps(e)} for the same noise: {how} "
            "than this release's; the Privacy page explains why.")
