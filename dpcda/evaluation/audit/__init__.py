"""Empirical privacy audit of DP-CDA: run the project's mixing kernel many times on two
neighbouring datasets of a worst-case canary (by default the label canary: one record moved to
another class, both classes run) and turn the outcomes into (a) a rigorous lower bound on
epsilon (Clopper-Pearson) and (b) a Gaussian-DP point estimate (Nasr et al. 2023), set against
the canary's accountant (``whole-record`` for the label canary).

>>> from dpcda.evaluation.audit import AuditSettings, run_audit
>>> r = run_audit(AuditSettings(l=4, sigma_x=0.5, n_class=20, T_class=20, trials=2000))
>>> r["epsilon_lower"], r["epsilon_gdp"], r["against"], r["epsilon_against"]  # doctest: +SKIP

Pure numpy/scipy; torch is imported only when trials run (the mixing kernel). The derivation
of the worst case and of the statistics is in ``docs/audit.md``.
"""

from __future__ import annotations

import importlib

#: Where each public name lives. The submodules are imported on first use (PEP 562), so that
#: ``from dpcda.evaluation.audit.report import ...`` (the Privacy page, on every first view) does not pay
#: for scipy.stats, which only the statistics need (about 0.9 s of CPU here).
_EXPORTS = {
    "claim_params": "run", "claim_note": "run", "claimed_epsilons": "run", "json_safe": "run",
    "run_audit": "run",
    "AUDITED_AGAINST": "settings", "CANARIES": "settings", "STATISTICS": "settings",
    "AuditSettings": "settings", "canary_classes": "settings", "default_trials": "settings",
    "bounds_from_statistics": "stats", "clopper_pearson_upper": "stats",
    "epsilon_from_rates": "stats", "gdp_delta": "stats", "gdp_epsilon": "stats", "gdp_mu": "stats",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'dpcda.evaluation.audit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"dpcda.evaluation.audit.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
