"""The findings of the privacy audit (README, "Privacy audit"): validity and tightness.

    /work/venv/bin/python benchmarks/audit_findings.py validity
    /work/venv/bin/python benchmarks/audit_findings.py tightness [--trials 200000]
    /work/venv/bin/python benchmarks/audit_findings.py default --l 4 --sigma-x 0.228

``validity``: audits over a grid of settings (small classes with many trials, and the MNIST-like
class N_k = T_k = 6000 at its default trial count); for each, the audited lower bound, the GDP
estimate and the PLD epsilon (the registered ``class-aware-pld`` accountant if present, else
dp_accounting's PLD of the valid pair), and whether lower <= PLD. ``tightness``: one setting with
PLD epsilon ~3 (N_k = 4, T_k = 20, l = 2, sigma calibrated), many trials. ``default``: one run
at the CLI defaults (N_k = T_k = 6000), timed (wall and CPU seconds). One torch thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from dpcda.evaluation.audit import AuditSettings, run_audit

TIGHT = dict(l=2, n_class=4, T_class=20, sigma_x=3.323)
GRID = [
    dict(l=1, n_class=1, T_class=1, sigma_x=2.5, trials=100000),
    dict(l=2, n_class=4, T_class=20, sigma_x=1.5, trials=50000),
    dict(l=5, n_class=10, T_class=10, sigma_x=0.99, trials=50000),
    dict(l=4, n_class=40, T_class=40, sigma_x=0.5, trials=20000),
    dict(l=16, n_class=64, T_class=64, sigma_x=0.2, trials=20000),
    dict(l=4, n_class=6000, T_class=6000, sigma_x=0.228),
    dict(l=64, n_class=6000, T_class=6000, sigma_x=0.1),
]


def pld_epsilon(s: AuditSettings) -> tuple[float, str]:
    from dpcda.evaluation.audit import claimed_epsilons

    c = claimed_epsilons(s)
    if "class-aware-pld" in c["claimed"]:
        return c["claimed"]["class-aware-pld"], "class-aware-pld"
    from dp_accounting.pld import privacy_loss_distribution as pld

    return pld.from_gaussian_mechanism(standard_deviation=s.sigma_x, sensitivity=s.shift,
                                       sampling_prob=s.gamma).self_compose(
        s.T_class).get_epsilon_for_delta(s.delta), "dp_accounting"


def report(s: AuditSettings) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    r = run_audit(s)
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    pld, src = pld_epsilon(s)
    row = dict(l=s.l, N_k=s.n_class, T_k=s.T_class, sigma=s.sigma_x, trials=s.trials,
               pld=pld, lower=r["epsilon_lower"], gdp=r["epsilon_gdp"],
               lower_over_pld=r["epsilon_lower"] / pld, gdp_over_pld=r["epsilon_gdp"] / pld,
               valid=r["epsilon_lower"] <= pld, seconds=sec, cpu_seconds=cpu, pld_from=src,
               claimed={k: round(v, 3) for k, v in r["claimed"].items()})
    print("  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in row.items()), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("validity", "tightness", "default"))
    ap.add_argument("--trials", type=int, default=200000)
    ap.add_argument("--l", type=int, default=4)
    ap.add_argument("--sigma-x", type=float, default=0.228)
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.what == "validity":
        rows = [report(AuditSettings(**kw)) for kw in GRID]
        print(f"lower <= PLD in {sum(r['valid'] for r in rows)} of {len(rows)} settings")
    elif a.what == "tightness":
        r = report(AuditSettings(**TIGHT, trials=a.trials))
        print(f"GDP within 25%: {abs(r['gdp_over_pld'] - 1) <= 0.25}; "
              f"lower >= PLD/2: {r['lower_over_pld'] >= 0.5}")
    else:
        report(AuditSettings(l=a.l, sigma_x=a.sigma_x))


if __name__ == "__main__":
    main()
