"""Whole-record vs class-aware-pld epsilon at MNIST training counts (docs/whole-record.md §8).

    .venv/bin/python benchmarks/bench_whole_record.py

T = 60,000 split equally (T_k = 6000), delta = 1e-5, c = 1, public lower bounds n_k = N_k (the
true MNIST counts). For each l and each target, sigma is calibrated so that today's
``class-aware-pld`` epsilon (maximum over classes; with equal T_k the smallest class, 5,421) is
the target; the whole-record epsilon (PLD upper and lower bound, and the RDP bound) is reported
at the same sigma, with the sigma that whole-record calibration would need. Timings: one
whole-record epsilon (first call, then repeated) and one calibration.
"""

from __future__ import annotations

import math
import time

from scipy.optimize import brentq

from dpcda.privacy import pld
from dpcda.privacy import whole_record as wr
from dpcda.privacy import whole_record_calibration as wrc
from dpcda.privacy import whole_record_rdp as wrr


def mnist_counts() -> tuple[int, ...]:
    """MNIST's published training class counts (public facts of the built-in dataset)."""
    from dpcda.data.presets import PRESETS

    return tuple(int(k) for k in PRESETS.get("mnist").class_counts)


def class_aware(sigma: float, l: int, counts, T_k: int, delta: float) -> float:
    """Today's class-aware-pld epsilon (PLD part; equal T_k: the smallest class is the worst)."""
    return pld.pld_bounds(s=2.0 / (l * sigma), gamma=l / min(counts), T=T_k, delta=delta,
                          lower=False).epsilon


def calibrate_class_aware(target: float, l: int, counts, T_k: int, delta: float) -> float:
    f = lambda x: math.log(class_aware(math.exp(x), l, counts, T_k, delta) / target)  # noqa: E731
    lo, hi = math.log(2.0 / (l * 12.0)), math.log(2.0 / (l * 0.01))   # s from 12 to 0.01
    root = brentq(f, lo, hi, xtol=1e-6)
    while f(root) > 0:
        root += 1e-6
    return math.exp(root)


def main() -> None:
    counts = mnist_counts()
    K, T, delta = len(counts), 60_000, 1e-5
    steps = [T // K] * K
    kw = dict(lower_counts=counts, steps=steps, delta=delta)
    print(f"MNIST counts {counts}; T_k = {T // K}; delta = {delta:g}; c = 1")
    print(f"{'l':>4} {'target':>6} {'sigma':>9} {'class-aware':>11} {'whole PLD':>10} "
          f"{'[lower]':>8} {'whole RDP':>9} {'pair':>7} {'sigma_whole':>11}")
    for l in (4, 16, 64, 256):
        for target in (1.0, 10.0):
            sigma = calibrate_class_aware(target, l, counts, T // K, delta)
            ca = class_aware(sigma, l, counts, T // K, delta)
            w = wr.whole_record_pld(sigma=sigma, l=l, **kw)
            r = wrr.whole_record_rdp(sigma=sigma, l=l, **kw)
            s_w, _ = wrc.calibrate_whole_record(epsilon=target, l=l, **kw)
            print(f"{l:>4} {target:>6g} {sigma:>9.5f} {ca:>11.4f} {w.epsilon:>10.4f} "
                  f"{w.epsilon_discretisation_lower:>8.4f} {r.epsilon:>9.4f} {str(w.pair):>7} {s_w:>11.5f}")
    # timings (2-core machine; first call includes building the one-step grids)
    for l, sigma in ((4, 0.3), (64, 0.05)):
        t0 = time.perf_counter()
        wr.whole_record_pld(sigma=sigma, l=l, **kw)
        t1 = time.perf_counter()
        wr.whole_record_pld(sigma=sigma * 1.001, l=l, **kw)
        t2 = time.perf_counter()
        wr.whole_record_pld(sigma=sigma * 1.002, l=l, lower=False, **kw)
        t3 = time.perf_counter()
        wrr.whole_record_rdp(sigma=sigma, l=l, **kw)
        t4 = time.perf_counter()
        wrc.calibrate_whole_record(epsilon=3.0, l=l, **kw)
        t5 = time.perf_counter()
        print(f"l={l} sigma={sigma}: one epsilon (upper+lower) {1e3 * (t1 - t0):.0f} ms first, "
              f"{1e3 * (t2 - t1):.0f} ms next; upper only {1e3 * (t3 - t2):.0f} ms; RDP "
              f"{1e3 * (t4 - t3):.0f} ms; one calibration (eps = 3) {t5 - t4:.2f} s")


if __name__ == "__main__":
    main()
