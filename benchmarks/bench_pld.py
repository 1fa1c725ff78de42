"""The PLD accountant (``class-aware-pld``): speed against the previous implementation, and the
README numbers.

    /work/venv/bin/python benchmarks/bench_pld.py            # timings + numbers (~minutes)
    /work/venv/bin/python benchmarks/bench_pld.py --quick    # timings only, one repeat

Timings: this implementation beside the **baseline** (``dpcda/privacy/pld.py`` and
``calibration.py`` of commit ``BASELINE``, loaded with ``git show`` into this process, so both run
on the same machine at the same moment), caches cleared before every call; min over repeats of
wall and process CPU time, with the ratio baseline / new (CPU) and the 1-minute load average.
Setting: MNIST class counts, T = N = 60,000 (equal allocation, T_k = 6000), delta = 1e-5, c = 1.

- calibration for epsilon = 1 and 10 at l = 4, 16, 64, 512 (``calibrate``);
- one epsilon (``compute_epsilon``: upper and lower bound) at the sigma found, with both
  implementations' [lower, upper];
- the Privacy page's library work: the Figure-4 curves (``epsilon_grid``, l = 1..512 x 61 sigma),
  a calibration table read off them (``calibrate_on_curve`` per l), one epsilon after a slider
  move (a new sigma, cold);
- one epsilon under proportional allocation (10 classes, each its own T_k).
Targets (issue 9 / 10): one epsilon <= 50 ms, calibration <= 0.5 s, slider -> epsilon <= 150 ms,
first page load <= 2 s.

Numbers (MNIST class counts, T = N = 60000, delta = 1e-5, c = 1): epsilon at the sigma that
the class-aware RDP accountant and the published (paper) accountant calibrate for epsilon = 10
and 1 (l = 4, 64); sigma needed for epsilon = 10 and 1 under each accountant; the issue's points
at N_k = T_k = 6000 (symmetrised pair, and the per-direction maximum dp_accounting computes).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpcda.privacy import (  # noqa: E402
    PrivacyParams,
    accountants,
    calibrate,
    calibration,
    compute_epsilon,
    pld,
)

MNIST = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)
DELTA = 1e-5
#: main before the speed-up (session 3's accountant: fixed grid 1e-4, Hoeffding lower bound).
BASELINE = "e309358"
PAGE_SIGMAS = np.geomspace(0.01, 10.0, 121)[::2]            # pages/common.py SIGMA_GRID[::2]
PAGE_LS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def _load(path: str, name: str):
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASELINE}:{path}"], check=True,
                         capture_output=True, text=True).stdout
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    exec(compile(src, f"{BASELINE}:{path}", "exec"), mod.__dict__)
    return mod


def _old_direct():
    """The baseline's ``_pld_class_aware`` (accountants.py at BASELINE), run on today's RDP."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASELINE}:dpcda/privacy/accountants.py"],
                         check=True, capture_output=True, text=True).stdout
    start = src.index("def _pld_class_aware(")
    end = src.index("\nregister_accountant(", start)
    ns = dict(vars(accountants))
    exec(compile(src[start:end], f"{BASELINE}:accountants.py", "exec"), ns)
    old = ns["_pld_class_aware"]

    def direct(p, l, sx, sy, value_interval, lower):  # today's callers also take the step
        eps, low = old(p, l, sx, sy, value_interval, lower)
        return eps, low, np.full(len(eps), float(value_interval))
    return direct


class Impl:
    """One implementation: its pld module, its calibration module, its accountant function
    (``direct``), and how to switch to it."""

    def __init__(self, name, pld_mod, cal_mod, interval, direct):
        self.name, self.pld, self.cal, self.interval = name, pld_mod, cal_mod, interval
        self.direct = direct

    @contextlib.contextmanager
    def active(self):
        saved, saved_interval = sys.modules["dpcda.privacy.pld"], accountants._interval
        acc = accountants.ACCOUNTANTS["class-aware-pld"]
        sys.modules["dpcda.privacy.pld"] = self.pld      # accountants import it lazily per call
        accountants._interval = self.interval
        accountants.ACCOUNTANTS["class-aware-pld"] = dataclasses.replace(acc, direct=self.direct)
        try:
            yield
        finally:
            sys.modules["dpcda.privacy.pld"] = saved
            accountants._interval = saved_interval
            accountants.ACCOUNTANTS["class-aware-pld"] = acc

    def clear(self):
        for name in ("_upper", "_lower", "auto_value_intervals"):
            f = getattr(self.pld, name, None)
            if f is not None:
                f.cache_clear()
        for name in ("_RECENT", "_WINDOWS"):
            getattr(self.pld, name, {}).clear()


def implementations():
    new = Impl("new", pld, calibration, accountants._interval,
               accountants.ACCOUNTANTS["class-aware-pld"].direct)
    try:
        old_pld = _load("dpcda/privacy/pld.py", "pld_baseline")
        old_cal = _load("dpcda/privacy/calibration.py", "calibration_baseline")
        old_direct = _old_direct()
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"(baseline {BASELINE} not available: {exc}; timing the new one only)")
        return None, new

    def old_interval(v):
        return old_pld.VALUE_INTERVAL if v is None else old_pld.check_value_interval(v)

    return Impl("baseline", old_pld, old_cal, old_interval, old_direct), new


def timed(impl, fn, repeats):
    walls, cpus, out = [], [], None
    with impl.active():
        for _ in range(repeats):
            impl.clear()
            w, c = time.perf_counter(), time.process_time()
            out = fn()
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
    return out, min(walls), min(cpus)


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def params(l, s, **kw):
    return PrivacyParams(l=l, sigma_x=s, sigma_y=s, T=60000, class_counts=MNIST, delta=DELTA,
                         **kw)


def side_by_side(label, fn, impls, repeats, show=None):
    """Time ``fn(impl)`` for every implementation; one line with both and the ratio."""
    parts, cpu = [], {}
    for impl in impls:
        if impl is None:
            continue
        out, w, c = timed(impl, lambda impl=impl: fn(impl), repeats)
        cpu[impl.name] = c
        parts.append(f"{impl.name} {w * 1e3:.0f} ms (CPU {c * 1e3:.0f})"
                     + (f" {show(out)}" if show else ""))
    ratio = (f" -> {cpu['baseline'] / cpu['new']:.1f}x" if "baseline" in cpu and cpu["new"] > 0
             else "")
    print(f"{label}: " + "; ".join(parts) + ratio + f" [{load()}]", flush=True)


def fmt_eps(r):
    return f"{r.epsilon:.4f} [{r.epsilon_discretisation_lower:.4f}]"


def timings(repeats: int) -> None:
    base, new = implementations()
    impls = (base, new)
    for impl in impls:  # imports and first-call costs outside the timings
        if impl is not None:
            timed(impl, lambda impl=impl: impl.cal.calibrate(
                epsilon=3.0, delta=DELTA, l=8, T=60000, class_counts=MNIST,
                accountant="class-aware-pld"), 1)
    print(f"## timings: baseline = {BASELINE}, min over {repeats} repeat(s), caches cleared")
    for target in (1.0, 10.0):
        for l in (4, 16, 64, 512):
            def cal(impl, l=l, target=target):
                return impl.cal.calibrate(epsilon=target, delta=DELTA, l=l, T=60000,
                                          class_counts=MNIST, accountant="class-aware-pld")
            side_by_side(f"calibrate eps={target:g} l={l}", cal, impls, repeats,
                         show=lambda c: f"sigma={c.sigma_x:.5g} eps={c.epsilon:.4f}")
            with new.active():
                sigma = cal(new).sigma_x

            def one(impl, l=l, sigma=sigma):
                return compute_epsilon(params(l, sigma), accountant="class-aware-pld")
            side_by_side(f"  one epsilon l={l} sigma={sigma:.5g}", one, impls, repeats,
                         show=fmt_eps)
    side_by_side("one epsilon, proportional allocation (10 T_k), l=4 sigma=0.3",
                 lambda impl: compute_epsilon(params(4, 0.3, allocation="proportional"),
                                              accountant="class-aware-pld"),
                 impls, repeats, show=fmt_eps)
    print("## the Privacy page's library work (MNIST, l = 1..512, 61 sigmas)")
    side_by_side("Figure-4 curves (epsilon_grid 10 l x 61 sigma)",
                 lambda impl: impl.cal.epsilon_grid(ls=PAGE_LS, sigmas=PAGE_SIGMAS, T=60000,
                                                    class_counts=MNIST, delta=DELTA,
                                                    accountant="class-aware-pld"), impls, 1)

    def first_load(impl):
        e = compute_epsilon(params(4, 0.5), accountant="class-aware-pld")
        grid = impl.cal.epsilon_grid(ls=PAGE_LS, sigmas=PAGE_SIGMAS, T=60000,
                                     class_counts=MNIST, delta=DELTA,
                                     accountant="class-aware-pld")
        for l, row in zip(PAGE_LS, grid):
            impl.cal.calibrate_on_curve(epsilon=10.0, sigmas=PAGE_SIGMAS, curve=row, l=l, T=60000,
                               class_counts=MNIST, delta=DELTA, accountant="class-aware-pld")
        return e
    side_by_side("first load (one epsilon + curves + calibration table)", first_load, impls, 1)
    for l, sigma in ((4, 0.27), (64, 0.06), (512, 0.02)):
        side_by_side(f"slider -> new epsilon l={l} sigma={sigma}",
                     lambda impl, l=l, sigma=sigma: compute_epsilon(
                         params(l, sigma), accountant="class-aware-pld"),
                     impls, repeats, show=fmt_eps)


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
                      f"[{r.epsilon_discretisation_lower:.3f}, {r.epsilon:.3f}] | "
                      f"{ca[0]:.2f} / {ca[1]:.2f} |",
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
        print(f"l={l} sigma={s}: class-aware-pld {b.epsilon:.3f} [{b.epsilon_discretisation_lower:.3f}]; "
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
