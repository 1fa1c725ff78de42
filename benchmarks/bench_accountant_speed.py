"""Speed of one epsilon and of one calibration at MNIST scale, in process (issue 20, item 5: one
epsilon <= 50 ms, a calibration <= 0.5 s, any l, either allocation).

    DPCDA_DATA_DIR=... python benchmarks/bench_accountant_speed.py [--repeat 3]

MNIST's published class counts, T = 60,000, delta = 1e-5, c = 1; the default accountant
(``whole-record``, equal split) and ``class-aware-pld`` under both allocations; sigma the
accountant's calibration for epsilon = 1 and 10. Each timing is the median of ``--repeat`` calls
on fresh caches (``functools`` caches cleared, so no call is answered from memory), with the load
average printed beside it: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _clear() -> None:
    import gc

    from dpcda.privacy import pld

    for name in dir(pld):
        obj = getattr(pld, name)
        if hasattr(obj, "cache_clear"):
            obj.cache_clear()
    for store in (getattr(pld, "_WINDOWS", None), getattr(pld, "_MASSES", None)):
        if isinstance(store, dict):
            store.clear()
    gc.collect()


def _time(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        _clear()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ls", default="4,16,64,256,1024")
    args = ap.parse_args()
    from dpcda.data.presets import PRESETS
    from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon

    counts = PRESETS.get("mnist").class_counts
    base = dict(T=60000, class_counts=counts, delta=1e-5, c=1.0)
    print(f"# load average {os.getloadavg()[0]:.1f}; median of {args.repeat}; MNIST counts, T = 60,000")
    print("| accountant | allocation | l | target ε | σ | one ε (ms) | calibration (s) |")
    print("|---|---|---|---|---|---|---|")
    for acc, alloc in (("whole-record", "equal"), ("class-aware-pld", "equal"),
                       ("class-aware-pld", "proportional")):
        for l in (int(v) for v in args.ls.split(",")):
            for target in (1.0, 10.0):
                kw = dict(base, allocation=alloc)
                cal = calibrate(epsilon=target, l=l, accountant=acc, **kw)
                p = PrivacyParams(l=l, sigma_x=cal.sigma_x, sigma_y=cal.sigma_x, **kw)
                one = _time(lambda p=p, a=acc: compute_epsilon(p, accountant=a), args.repeat)
                cal_s = _time(lambda t=target, n=l, a=acc, k=kw: calibrate(epsilon=t, l=n, accountant=a, **k),
                              args.repeat)
                print(f"| {acc} | {alloc} | {l} | {target:g} | {cal.sigma_x:.4g} | {1e3 * one:.0f} | "
                      f"{cal_s:.2f} |", flush=True)


if __name__ == "__main__":
    main()
