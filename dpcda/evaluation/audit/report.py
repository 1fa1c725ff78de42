"""What the Privacy page shows about audits: the audited setting of a release (and canary), the
accountants' claims over l and for the audited pair, the audited points of finished jobs and
the gap between the published accountant and the exact (PLD) one. Pure data; the page draws."""

from __future__ import annotations

import math

from dpcda.evaluation.audit.settings import AuditSettings

#: The exact accountant for Algorithm 1 (privacy loss distributions), once registered.
PLD_ACCOUNTANT = "class-aware-pld"


def settings_for_release(*, l: int, sigma_x: float, c: float, T: int, delta: float,
                         class_counts, trials: int | None = None,
                         canary: str = "label") -> AuditSettings:
    """The audit of a release with these public facts: the smallest class (the worst one under
    the equal allocation T_k = floor(T/K); the label canary moves a record between two classes
    of that size), K classes."""
    counts = tuple(int(k) for k in class_counts)
    return AuditSettings(l=l, sigma_x=sigma_x, n_class=min(counts), T_class=int(T) // len(counts),
                         n_classes=len(counts), c=c, delta=delta, trials=trials, canary=canary)


def claim_rows(claims: dict) -> list[dict]:
    """One row per claim of :func:`~dpcda.evaluation.audit.run.claimed_epsilons`: accountant,
    epsilon, whether it bounds the audited pair (or why not), and whether the audit is set
    against it."""
    from dpcda.evaluation.audit.run import claim_note

    return [{"accountant": n, "epsilon": e, "bound for this pair": claim_note(n, claims) or "yes",
             "audited against": n == claims.get("against")} for n, e in claims["claimed"].items()]


def job_config(s: AuditSettings, device: str = "cpu") -> dict:
    """The ``audit`` job config of these settings."""
    return {**s.to_dict(), "device": device}


def claims_over_l(s: AuditSettings, ls) -> dict[str, list[float | None]]:
    """Every applicable accountant's epsilon at each l (None where it cannot be computed)."""
    from dpcda.evaluation.audit.run import claimed_epsilons

    out: dict[str, list[float | None]] = {}
    for i, l in enumerate(ls):
        try:
            c = claimed_epsilons(AuditSettings(**{**s.to_dict(), "l": int(l), "trials": 200}))
        except ValueError:
            c = {"claimed": {}}
        for name, eps in c["claimed"].items():
            out.setdefault(name, [None] * len(ls))[i] = eps if math.isfinite(eps) else None
    return out


def same_setting(a: dict, s: AuditSettings) -> bool:
    """Whether an audit result's settings match ``s`` in everything but l and trials (the canary
    included)."""
    keys = ("sigma_x", "n_class", "T_class", "c", "delta", "n_classes", "statistic")
    want = s.to_dict()
    # Audits from before the label canary ran the features one.
    return all(a.get(k) == want[k] for k in keys) and a.get("canary", "features") == s.canary


def audited_points(results: list[dict], s: AuditSettings) -> list[dict]:
    """``{"l", "epsilon_lower", "epsilon_gdp", "trials"}`` for every finished audit of this
    setting (any l), sorted by l; the newest result wins for each l."""
    by_l: dict[int, dict] = {}
    for r in results:
        st = (r or {}).get("settings") or {}
        if same_setting(st, s):
            by_l[int(st["l"])] = {"l": int(st["l"]), "epsilon_lower": _num(r["epsilon_lower"]),
                                  "epsilon_gdp": _num(r.get("epsilon_gdp")),
                                  "trials": int(st["trials"])}
    return [by_l[k] for k in sorted(by_l)]


def _num(x):
    if isinstance(x, str):
        return math.inf if x == "inf" else None
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def paper_gap(params) -> dict | None:
    """Where the published ``paper`` epsilon is below the exact PLD epsilon of Algorithm 1:
    ``{"paper", "pld", "difference", "ratio"}``; None when it is not below, or when no PLD
    accountant is registered or it cannot be computed for ``params``."""
    from dpcda.privacy import compute_epsilon, list_accountants

    if PLD_ACCOUNTANT not in list_accountants():
        return None
    try:
        pld = float(compute_epsilon(params, accountant=PLD_ACCOUNTANT).epsilon)
        paper = float(compute_epsilon(params, accountant="paper").epsilon)
    except ValueError:
        return None
    if not (math.isfinite(pld) and math.isfinite(paper)) or paper >= pld:
        return None
    return {"paper": paper, "pld": pld, "difference": pld - paper, "ratio": pld / paper}
