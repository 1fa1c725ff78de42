"""Empirical privacy audit of DP-CDA: run the project's mixing kernel many times with and
without a worst-case canary and turn the outcomes into (a) a rigorous lower bound on epsilon
(Clopper-Pearson) and (b) a Gaussian-DP point estimate (Nasr et al. 2023).

>>> from dpcda.audit import AuditSettings, run_audit
>>> r = run_audit(AuditSettings(l=4, sigma_x=0.5, n_class=20, T_class=20, trials=2000))
>>> r["epsilon_lower"], r["epsilon_gdp"], r["claimed"]            # doctest: +SKIP

Pure numpy/scipy; torch is imported only when trials run (the mixing kernel). The derivation
of the worst case and of the statistics is in ``docs/audit.md``.
"""

from dpcda.audit.run import claim_params, claimed_epsilons, json_safe, run_audit
from dpcda.audit.settings import STATISTICS, AuditSettings, default_trials
from dpcda.audit.stats import (bounds_from_statistics, clopper_pearson_upper, epsilon_from_rates,
                               gdp_delta, gdp_epsilon, gdp_mu)

__all__ = ["STATISTICS", "AuditSettings", "bounds_from_statistics", "claim_params", "json_safe",
           "claimed_epsilons", "clopper_pearson_upper", "default_trials", "epsilon_from_rates",
           "gdp_delta", "gdp_epsilon", "gdp_mu", "run_audit"]
