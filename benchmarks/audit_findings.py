"""The findings of the privacy audit (docs/audit.md, "Findings"): validity and tightness.

    /work/main/.venv/bin/python benchmarks/audit_findings.py validity [--canary label|features|both]
    /work/main/.venv/bin/python benchmarks/audit_findings.py tightness [--trials 200000]
    /work/main/.venv/bin/python benchmarks/audit_findings.py default --l 4 --sigma-x 0.228 [--trials N]

Every row is one audit (:func:`dpcda.evaluation.audit.run_audit`) set against the epsilon of the
**default accountant** ``whole-record`` (the audit's class sizes as public lower bounds, equal
T_k, K = 10 classes), beside:

- the **realised lower bound** (:func:`dpcda.privacy.realised.epsilon_realised_lower`): a proven
  lower bound on what Algorithm 1 spends on the dataset pairs that real data realise, the
  per-direction pairs (the label-changing ones for the label canary, the label-kept ones for the
  features canary). The audited pair is one of these pairs, so its exact epsilon lies between
  this value and the whole-record epsilon; dp_accounting's PLD of the features pair (what the
  README used to call "PLD ε") is this per-direction value, computed without a proof of rounding;
- the features-only ``class-aware-pld`` epsilon (label kept, class counts public: not a bound for
  the label canary's pair) and the published ``paper`` epsilon (not a bound for this
  implementation).

``validity``: a grid of small settings with many trials (both canaries by default) and whether
lower <= whole-record. ``tightness``: one small setting with many trials. ``default``: one run at
the CLI defaults (N_k = T_k = 6000), timed. Wall and CPU seconds are printed per row (the machine
is shared: note its load). One torch thread.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from dpcda.evaluation.audit import AuditSettings, claim_params, run_audit
from dpcda.privacy.realised import epsilon_realised_lower

TIGHT = dict(l=2, n_class=4, T_class=20, sigma_x=3.323)
GRID = [
    dict(l=1, n_class=2, T_class=1, sigma_x=2.5, trials=100000),
    dict(l=2, n_class=4, T_class=20, sigma_x=1.5, trials=50000),
    dict(l=5, n_class=10, T_class=10, sigma_x=0.99, trials=50000),
    dict(l=4, n_class=40, T_class=40, sigma_x=0.5, trials=20000),
    dict(l=16, n_class=64, T_class=64, sigma_x=0.2, trials=20000),
    dict(l=3, n_class=4, T_class=10, sigma_x=2.0, delta=1e-2, trials=50000),
]


def realised(s: AuditSettings) -> float:
    """The realised lower bound of the canary's relation (``nan`` where it does not compute)."""
    rel = "whole-record" if s.canary == "label" else "features"
    v = epsilon_realised_lower(claim_params(s), rel)
    return v if v is not None and math.isfinite(v) else math.nan


def report(s: AuditSettings) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    r = run_audit(s)
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    whole = r["claimed"]["whole-record"]
    row = dict(canary=s.canary, l=s.l, N_k=s.n_class, T_k=s.T_class, sigma=s.sigma_x,
               delta=s.delta, trials=s.trials, whole_record=whole, realised_lower=realised(s),
               lower=r["epsilon_lower"], gdp=r["epsilon_gdp"],
               lower_over_whole=r["epsilon_lower"] / whole, gdp_over_whole=r["epsilon_gdp"] / whole,
               class_aware_pld=r["claimed"].get("class-aware-pld", math.nan),
               paper=r["claimed"]["paper"], valid=r["epsilon_lower"] <= whole,
               seconds=sec, cpu_seconds=cpu, load=os.getloadavg()[0])
    print("  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in row.items()), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("validity", "tightness", "default"))
    ap.add_argument("--trials", type=int, default=None,
                    help="per arm (tightness: 200000; default: the CLI's default count)")
    ap.add_argument("--l", type=int, default=4)
    ap.add_argument("--sigma-x", type=float, default=0.228)
    ap.add_argument("--canary", choices=("label", "features", "both"), default="both")
    a = ap.parse_args()
    torch.set_num_threads(1)
    canaries = ("label", "features") if a.canary == "both" else (a.canary,)
    if a.what == "validity":
        rows = [report(AuditSettings(**kw, canary=c)) for kw in GRID for c in canaries]
        print(f"lower <= whole-record in {sum(r['valid'] for r in rows)} of {len(rows)} audits")
    elif a.what == "tightness":
        for c in canaries:
            r = report(AuditSettings(**TIGHT, trials=a.trials or 200000, canary=c))
            print(f"{c}: lower / whole-record = {r['lower_over_whole']:.2f}, "
                  f"GDP / whole-record = {r['gdp_over_whole']:.2f}")
    else:
        for c in canaries:
            report(AuditSettings(l=a.l, sigma_x=a.sigma_x, canary=c, trials=a.trials))


if __name__ == "__main__":
    main()
