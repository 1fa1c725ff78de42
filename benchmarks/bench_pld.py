"""The PLD accountant (``class-aware-pld``): speed beside dp_accounting, and the README numbers.

    /work/venv/bin/python benchmarks/bench_pld.py            # timings + numbers (~minutes)
    /work/venv/bin/python benchmarks/bench_pld.py --quick    # timings only, one repeat

Timings (wall and process CPU time, with the 1-minute load average: a busy machine shows):
- one epsilon at MNIST scale, N_k = T_k = 6000, delta = 1e-5, l = 4 (sigma 0.228) and l = 64
  (sigma 0.0354): ``pld_bounds`` upper only (what calibration evaluates) and upper + lower
  (what ``compute_epsilon`` reports), caches cleared; beside dp_accounting 0.6
  ``from_gaussian_mechanism(sigma, 2/l, sampling_prob=l/N_k).self_compose(T_k)
  .get_epsilon_for_delta(delta)`` at the same grid step 1e-4 (its pair, both directions);
- one calibration (MNIST class counts, T = N = 60000) for epsilon = 1 and 10 at l = 4 and 64;
- the Figure-4 family: ``epsilon_grid`` for 10 values of l x 100 sigmas (coarse grid 1e-3).
Targets: one epsilon <= 50 ms, calibration <= 0.5 s.

Numbers (MNIST class counts, T = N = 60000, delta = 1e-5, c = 1): epsilon at the sigma that
the class-aware RDP accountant and the published (paper) accountant calibrate for epsilon = 10
and 1 (l = 4, 64); sigma needed for epsilon = 10 and 1 under each accountant; the issue's points
at N_k = T_k = 6000 (symmetrised pair, and the per-direction maximum dp_accounting computes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.privacy import (
    PrivacyParams,
    calibrate,
    compute_epsilon,
    epsilon_grid,
    pld,
)

MNIST = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)
DELTA = 1e-5


def clear():
    pld._upper.cache_clear()
    pld._lower.cache_clear()


def timed(fn, repeats):
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        clear()
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return out, min(walls), min(cpus)


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def timings(repeats: int) -> None:
    print("## timings (min over repeats; wall / CPU)")
    try:
        from dp_accounting.pld import privacy_loss_distribution as dpl
    except ImportError:
        dpl = None
    for l, sig in ((4, 0.228), (64, 0.0354)):
        kw = {"s": 2.0 / (l * sig), "gamma": l / 6000, "T": 6000, "delta": DELTA}
        up, w1, c1 = timed(lambda kw=kw: pld.pld_bounds(lower=False, **kw), repeats)
        both, w2, c2 = timed(lambda kw=kw: pld.pld_bounds(**kw), repeats)
        line = (f"l={l:3d} sigma={sig}: upper {up.epsilon:.4f} in {w1 * 1e3:.0f} ms "
                f"(CPU {c1 * 1e3:.0f}); upper+lower [{both.epsilon_lower:.4f}, "
                f"{both.epsilon:.4f}] in {w2 * 1e3:.0f} ms (CPU {c2 * 1e3:.0f})")
        if dpl is not None:
            def ref(sig=sig, l=l):
                return dpl.from_gaussian_mechanism(
                    standard_deviation=sig, sensitivity=2.0 / l, sampling_prob=l / 6000,
                    value_discretization_interval=1e-4).self_compose(6000
                                                                     ).get_epsilon_for_delta(DELTA)
            e_ref, w3, c3 = timed(ref, repeats)
            mine, w4, _ = timed(lambda kw=kw: pld.directional_epsilon(**kw), repeats)
            line += (f"; dp_accounting (both directions) {e_ref:.4f} in {w3 * 1e3:.0f} ms "
                     f"(CPU {c3 * 1e3:.0f}), ours for that pair {mine:.4f} in {w4 * 1e3:.0f} ms "
                     f"-> {w3 / w4:.1f}x")
        print(line + f" [{load()}]", flush=True)
    for eps in (1.0, 10.0):
        for l in (4, 64):
            cal, w, c = timed(lambda eps=eps, l=l: calibrate(epsilon=eps, delta=DELTA, l=l, T=60000,
                                                class_counts=MNIST,
                                                accountant="class-aware-pld"), repeats)
            print(f"calibrate eps={eps:g} l={l}: sigma={cal.sigma_x:.5g} eps={cal.epsilon:.5f} "
                  f"in {w:.2f} s (CPU {c:.2f}) [{load()}]", flush=True)
    ls = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    sig = np.geomspace(0.01, 10, 100)
    _, w, c = timed(lambda: epsilon_grid(ls=ls, sigmas=sig, T=60000, class_counts=MNIST,
                                         delta=DELTA, accountant="class-aware-pld"), 1)
    print(f"epsilon_grid 10 l x 100 sigma: {w:.1f} s (CPU {c:.1f}) [{load()}]", flush=True)


def eps(acc, l, s, conv="mironov"):
    p = PrivacyParams(l=l, sigma_x=s, sigma_y=s, T=60000, class_counts=MNIST, delta=DELTA)
    return compute_epsilon(p, accountant=acc, conversion=conv)


def numbers() -> None:
    print("\n## epsilon of class-aware-pld at the noise other accountants calibrate (MNIST)")
    print("| l | target | accountant that set sigma | sigma | PLD epsilon [lower, upper] "
          "| class-aware RDP (mironov / improved) |")
    for target in (10.0, 1.0):
        for l in (4, 64):
            for acc in ("class-aware", "paper"):
                s = calibrate(epsilon=target, delta=DELTA, l=l, T=60000, class_counts=MNIST,
                              accountant=acc).sigma_x
                r = eps("class-aware-pld", l, s)
                ca = (eps("class-aware", l, s).epsilon,
                      eps("class-aware", l, s, "improved").epsilon)
                print(f"| {l} | {target:g} | {acc} | {s:.4g} | {r.epsilon:.3f} "
                      f"[{r.epsilon_lower:.3f}, {r.epsilon:.3f}] | {ca[0]:.2f} / {ca[1]:.2f} |",
                      flush=True)
    print("\n## sigma needed (MNIST, T = N = 60000, delta = 1e-5, c = 1)")
    print("| l | target | class-aware-pld | class-aware RDP (mironov) | class-aware RDP "
          "(improved) | paper (as published, not a bound) |")
    for target in (10.0, 1.0):
        for l in (4, 64):
            row = [calibrate(epsilon=target, delta=DELTA, l=l, T=60000, class_counts=MNIST,
                             accountant=a, conversion=c).sigma_x
                   for a, c in (("class-aware-pld", "mironov"), ("class-aware", "mironov"),
                                ("class-aware", "improved"), ("paper", "mironov"))]
            print(f"| {l} | {target:g} | " + " | ".join(f"{v:.4g}" for v in row) + " |",
                  flush=True)
    print("\n## the issue's points, N_k = T_k = 6000 (symmetrised pair vs per-direction max)")
    for l, s in ((4, 0.228), (64, 0.0354), (64, 0.1)):
        kw = {"s": 2.0 / (l * s), "gamma": l / 6000, "T": 6000, "delta": DELTA}
        b = pld.pld_bounds(**kw)
        print(f"l={l} sigma={s}: class-aware-pld {b.epsilon:.3f} [{b.epsilon_lower:.3f}]; "
              f"per-direction max (dp_accounting's) {pld.directional_epsilon(**kw):.3f}",
              flush=True)
    print("\n## at the sigma the paper's accountant calibrates for epsilon = 1 and 3 (MNIST)")
    for l in (64, 512):
        for target in (1.0, 3.0):
            s = calibrate(epsilon=target, delta=DELTA, l=l, T=60000, class_counts=MNIST,
                          accountant="paper").sigma_x
            r = eps("class-aware-pld", l, s)
            kw = {"s": 2.0 / (l * s), "gamma": l / min(MNIST), "T": 6000, "delta": DELTA}
            print(f"l={l} paper eps={target:g} (sigma {s:.4g}): class-aware-pld {r.epsilon:.3f}; "
                  f"per-direction max {pld.directional_epsilon(**kw):.3f}; class-aware RDP "
                  f"{eps('class-aware', l, s).epsilon:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="timings only, one repeat")
    args = ap.parse_args()
    timings(1 if args.quick else 3)
    if not args.quick:
        numbers()


if __name__ == "__main__":
    main()
