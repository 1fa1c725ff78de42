"""What the Privacy page says beside its headline ε: the same noise under both neighbouring
relations, one sentence each on what they protect, and where the exact ε of this code lies.

Pure Python over :mod:`dpcda.privacy`; no Streamlit. Every number names its accountant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from dpcda.privacy import PrivacyParams, compute_epsilon, is_bound_for
from dpcda.privacy.realised import epsilon_realised_lower, understatement
from dpcda.report.formatting import fmt_eps

WHOLE, FEATURES = "whole-record", "class-aware-pld"

#: One sentence per relation, for a class or a meeting.
PROTECTS = {
    WHOLE: "protects one person's whole record, label included: nobody can tell whether a given "
           "image (and its class) was in the data",
    FEATURES: "protects one record's features while its label is kept and the class sizes are "
              "public: a narrower promise than it sounds",
}


@dataclass(frozen=True)
class RelationRow:
    accountant: str
    epsilon: float | None
    protects: str
    problem: str = ""  # why this relation cannot account the setting (e.g. l too large for it)


def relation_epsilon(params: PrivacyParams, accountant: str, mu: float | None = None) -> float:
    """ε of the noise of ``params`` under ``accountant`` (ValueError when it cannot account
    them); with ``mu``, the ``dp-center`` statistics release (a ``mu``-GDP Gaussian) composed in,
    as the release's card states it (only the two relations' accountants compose it)."""
    if mu is None:
        return float(compute_epsilon(params, accountant=accountant).epsilon)
    from dpcda.mechanisms.dp_cda_account import composing

    return float(composing(accountant).composed_epsilon(params, mu=mu))


@lru_cache(maxsize=64)
def relation_rows(params: PrivacyParams, mu: float | None = None) -> tuple[RelationRow, ...]:
    """The same noise under the whole-record and the features-only accountant
    (:func:`relation_epsilon`, ``mu`` as there), each at the setting's own allocation (under
    whole-record a proportional split is by the public class bounds); a row that cannot be
    accounted says why."""
    rows = []
    for name in (WHOLE, FEATURES):
        try:
            rows.append(RelationRow(name, relation_epsilon(params, name, mu), PROTECTS[name]))
        except ValueError as exc:
            rows.append(RelationRow(name, None, PROTECTS[name], str(exc)))
    return tuple(rows)


@lru_cache(maxsize=64)
def realised(params: PrivacyParams, accountant: str) -> float | None:
    """The proven lower bound on what this code spends at ``params`` (label-changing pairs too
    under the whole-record accountant)."""
    relation = "whole-record" if accountant == WHOLE else "features"
    try:
        return epsilon_realised_lower(params, relation)
    except ValueError:
        return None


def bracket_sentence(params: PrivacyParams, accountant: str, epsilon: float) -> str | None:
    """"The exact ε ... lies between a and b" for a valid bound; "... understates by at least
    X%" for one that is not (the published accountant) when it does; None when nothing is
    known (no class counts, no privacy)."""
    if not params.private or not math.isfinite(epsilon):
        return None
    low = realised(params, accountant)
    if low is None or not math.isfinite(low):
        return None
    if is_bound_for(accountant, "dp-cda"):
        return (f"The exact ε this code can spend at this setting lies between **{fmt_eps(low)}** "
                f"(a pair of datasets it realises) and **{fmt_eps(epsilon)}** (`{accountant}`, a "
                "proven bound).")
    under = understatement(epsilon, low)
    if under is None:
        return None
    return (f"The published ε understates what this code spends by at least **{100 * under:.0f}%**: "
            f"it can spend at least {fmt_eps(low)} here (a pair of datasets it realises), not "
            f"{fmt_eps(epsilon)}.")
