"""Coded notices: every warning the library emits is a code plus a message.

A :class:`Notice` is still the ``str`` it always was (its message: ``" ".join(warnings)``, JSON
and the command line keep working), with a stable ``code`` (a key of :data:`NOTICES`), a
``severity`` and the numbers it is about in ``fields``. The message text comes from the one
table below, so a rewording changes what is shown and never what a page, a card or the report
decides: they branch on ``notice.code`` (``"non_private"``), never on the words. Refused inputs
are the other half of this vocabulary (:data:`dpcda.util.checks.CHECK_CODES`, turned into plain
words by :func:`dpcda.util.messages.problem_of`, which also reads notices).

>>> n = notice("max_alpha_edge", max_alpha=256)
>>> n.code, n.severity, n.startswith("the minimizing order")
('max_alpha_edge', 'warning', True)
>>> n.to_json()["code"]
'max_alpha_edge'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: How much a notice matters: ``info`` (worth knowing), ``warning`` (the result stands, read
#: this), ``danger`` (the release is not private).
SEVERITIES = ("info", "warning", "danger")


@dataclass(frozen=True)
class NoticeKind:
    """One row of :data:`NOTICES`: ``severity``, the message ``template`` (``str.format`` with
    the notice's fields and what ``derived`` computes from them) and what the code means."""

    severity: str
    template: str
    meaning: str
    derived: Callable[[dict], dict] | None = None  # more template values, from the fields


#: code -> :class:`NoticeKind`. The one table of the library's warnings; codes are stable (pages,
#: cards and stored results keep them), messages may be reworded here.
NOTICES: dict[str, NoticeKind] = {
    "non_private": NoticeKind(
        "danger", "sigma_x = sigma_y = 0: the non-private setting, epsilon = infinity (no privacy)",
        "sigma_x = sigma_y = 0: no privacy, epsilon is infinite"),
    "max_alpha_edge": NoticeKind(
        "warning", "the minimizing order is max_alpha={max_alpha}: a larger max_alpha would give a "
                   "smaller epsilon",
        "the best Renyi order is the largest one tried"),
    "delta_not_below_1_over_n": NoticeKind(
        "warning", "delta={delta:g} is not below 1/N={inv_n:.3g}: a mechanism that publishes a "
                   "random record meets it; choose delta < 1/N",
        "delta >= 1/N: too weak to mean anything", lambda f: {"inv_n": 1.0 / f["n"]}),
    "pld_rdp_cap": NoticeKind(
        "info", "the class-aware RDP bound (improved conversion), also valid, is shown: here it is "
                "smaller than the PLD or the PLD is out of its numerical range (above {trusted_max:g})",
        "the RDP bound is shown: smaller than the PLD, or the PLD out of its range"),
    "seeded_release": NoticeKind(
        "danger", "seeded release: {seeded_text}",
        "a seeded (reproducible) release: not private, anyone who knows the seed replays every draw"),
    "class_sizes_from_data": NoticeKind(
        "warning", "the class sizes were read from the data and used as the public lower bounds "
                   "n_k, and the card publishes them: a change of one record's label changes them "
                   "visibly, so this release protects a record's features only, among datasets "
                   "with these class sizes (the features-only promise), whatever the whole-record "
                   "epsilon says; give class_bounds (public lower bounds), or a target epsilon "
                   "on data large enough for a DP label histogram, for the whole-record promise",
        "whole-record: the class sizes were read from the data (treated as public)"),
    "classes_from_labels": NoticeKind(
        "warning", "the number of classes K was read from the labels (the largest label plus "
                   "one): a change of one record's label can change it visibly, so the DP label "
                   "histogram's promise covers the pairs of neighbours with this K; give "
                   "n_classes or class_names (public) for every pair",
        "whole-record with a DP label histogram: K was read from the labels (treated as public)"),
    "float_no_bound": NoticeKind(
        "danger", "floating point: at epsilon = {epsilon:.4g} the released floats' delta term "
                  "makes delta_total = {delta_total:.3g}, at least 1, so no guarantee is "
                  "established here (the ideal mechanism's epsilon does not carry over to the "
                  "floats); more noise (a smaller epsilon) restores one",
        "floating point: delta_total >= 1, no guarantee for the released floats"),
    # fidelity of a release against the real data (dpcda.evaluation.fidelity)
    "marginal-far": NoticeKind(
        "warning", "{name}: the released {what} is far from the real one ({measure} {value} > "
                   "{limit:g})",
        "a column's marginal (or a class's mean image) is far from the real one"),
    "class-absent": NoticeKind(
        "warning", "{name}: no released (or no real) row has this label",
        "a class has no row on one side, so its mean image cannot be compared"),
}

#: code -> what it means (the codes a :class:`Notice` may carry).
NOTICE_CODES = {code: kind.meaning for code, kind in NOTICES.items()}


class Notice(str):
    """A warning as a value: the message (a ``str``), a ``code`` (a key of :data:`NOTICES`;
    ``""`` for an uncoded text, e.g. from an old card) and its ``fields``."""

    def __new__(cls, text: str, code: str = "", **fields):
        obj = super().__new__(cls, text)
        obj.code, obj.fields = code, fields
        return obj

    @property
    def message(self) -> str:
        return str(self)

    @property
    def severity(self) -> str:
        kind = NOTICES.get(self.code)
        return kind.severity if kind else "warning"

    def to_json(self) -> dict:
        """``{code, message, severity}``: how a card or a result stores it."""
        return {"code": self.code, "message": str(self), "severity": self.severity}

    @classmethod
    def from_json(cls, obj) -> Notice:
        """From :meth:`to_json` (or a bare message string, which gets no code)."""
        if isinstance(obj, str):
            return obj if isinstance(obj, Notice) else cls(obj)
        if not isinstance(obj, dict) or not isinstance(obj.get("message"), str):
            raise ValueError(f"a notice must be {{code, message}} or a string, got {obj!r}")
        return cls(obj["message"], str(obj.get("code") or ""))

    def __reduce__(self):  # pickles (st.cache_data, job results) with its code
        return (_notice, (str(self), self.code, self.fields))


def _notice(text: str, code: str, fields: dict) -> Notice:
    return Notice(text, code, **fields)


def notice(code: str, **fields) -> Notice:
    """The notice ``code`` with its message from :data:`NOTICES` (``fields`` fill the template
    and stay on the notice). An unknown code is a ValueError naming the known ones."""
    if code not in NOTICES:
        raise ValueError(f"code must be one of {', '.join(NOTICES)}, got code={code!r}")
    kind = NOTICES[code]
    values = {**fields, **(kind.derived(fields) if kind.derived else {})}
    return Notice(kind.template.format(**values), code, **fields)


def notices_json(warnings) -> list[dict]:
    """The ``notices`` list of a card or a result: ``[{code, message, severity}]`` for each of
    ``warnings`` (Notices, or plain strings, which get the empty code)."""
    return [Notice.from_json(w).to_json() for w in warnings]


def codes(notices) -> set[str]:
    """The codes among ``notices`` (Notices or ``{code, message}`` dicts): what to branch on."""
    return {(n.get("code") if isinstance(n, dict) else getattr(n, "code", "")) or "" for n in notices}
