"""Time DP-CDA generation at MNIST scale, side by side with the thesis's per-sample loop.

    python benchmarks/bench_generate.py                  # N = T = 60000, d = 784, l = 1..512
    python benchmarks/bench_generate.py --ls 1,4,64 --baseline-samples 500

Data: the real MNIST training split when ``DPCDA_DATA_DIR`` (or the cache) has it, otherwise
random pixels of the same shape with MNIST's class counts (``--synthetic`` forces that).
For each l it prints

* ``generate``: one full ``generate_dpcda`` call (z-score, clipping, accounting for the given
  sigmas, mixing, noise, shuffling) on the raw data;
* ``kernel``: the same mixing + noise on the preprocessed data (``mix_classwise``), the work
  the thesis loop does;
* ``thesis``: the thesis's Appendix A.1 loop run class by class on the same preprocessed data
  (:mod:`thesis_loop`), timed on ``--baseline-samples`` samples (spread evenly over the
  classes) and extrapolated linearly to T, since its cost is one fixed step per sample;
* ``speed-up``: thesis (extrapolated) / kernel.

Timings are wall-clock on whatever else the machine is running; the output says how many
threads torch used and the load average when it started.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from thesis_loop import thesis_dpcda  # noqa: E402

MNIST_COUNTS = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)


def load_data(synthetic: bool):
    if not synthetic:
        try:
            from dpcda.data import load_dataset

            ds = load_dataset("mnist")
            return ds.X_train, ds.y_train, "MNIST training split (real)"
        except ValueError as exc:
            print(f"(MNIST not available: {exc}; using random data of the same shape)")
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(10), MNIST_COUNTS)
    rng.shuffle(y)
    X = rng.integers(0, 256, size=(len(y), 784)).astype(np.float32)
    return X, y.astype(np.int64), "random pixels, 60000 x 784, MNIST class counts"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ls", default="1,2,4,8,16,32,64,128,256,512")
    ap.add_argument("--T", type=int, default=60000)
    ap.add_argument("--sigma", type=float, default=0.3)
    ap.add_argument("--baseline-samples", type=int, default=1000,
                    help="thesis-loop samples timed per l (then extrapolated to T)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch intra-op threads (default: torch's choice). On a CPU shared with "
                         "other work, 1 thread is often faster than 2")
    ap.add_argument("--synthetic", action="store_true", help="random data even if MNIST is there")
    args = ap.parse_args(argv)
    ls = [int(v) for v in args.ls.split(",")]

    import torch

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    from dpcda.mechanisms import generate_dpcda
    from dpcda.mechanisms._torch import make_generator, resolve_device
    from dpcda.mechanisms.mixing import mix_classwise
    from dpcda.mechanisms.prepare import fit_preprocessor

    X, y, what = load_data(args.synthetic)
    K = int(y.max()) + 1
    dev = resolve_device(args.device)
    print(f"data: {what}; N = {len(X)}, d = {X.shape[1]}, K = {K}, T = {args.T}")
    print(f"device: {dev}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{os.cpu_count()} CPUs; {platform.processor() or platform.machine()}; load average "
          f"{', '.join(f'{v:.1f}' for v in os.getloadavg())} (other work on this machine)")
    t0 = time.perf_counter()
    Xp = fit_preprocessor(X, "zscore", c=1.0)(X)
    print(f"preprocessing (z-score + clip, numpy): {time.perf_counter() - t0:.2f} s")
    gen = make_generator(dev, 0)
    mix_classwise(Xp[:2000], y[:2000], K, 2, 10, args.sigma, args.sigma, generator=gen,
                  device=dev)  # warm-up
    sub = max(K, args.baseline_samples)
    print(f"thesis loop timed on {sub // K * K} samples ({sub // K} per class) per l and "
          f"extrapolated linearly to T = {args.T}\n")
    head = f"{'l':>5} {'generate s':>11} {'kernel s':>9} {'thesis s (extrap.)':>19} {'speed-up':>9}"
    print(head)
    print("-" * len(head))
    rows = []
    for l in ls:
        t0 = time.perf_counter()
        rel = generate_dpcda(X, y, l=l, T=args.T, sigma_x=args.sigma, sigma_y=args.sigma,
                             normalize="zscore", c=1.0, device=dev, compare_accountants=False)
        t_gen = time.perf_counter() - t0
        assert rel.X.shape == (args.T // K * K, X.shape[1])
        t0 = time.perf_counter()
        mix_classwise(Xp, y, K, l, args.T // K, args.sigma, args.sigma, generator=gen, device=dev)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t_kernel = time.perf_counter() - t0
        t0 = time.perf_counter()
        thesis_dpcda(Xp, y, K, sub, l, args.sigma, args.sigma)
        t_sub = time.perf_counter() - t0
        t_thesis = t_sub * (args.T // K) / (sub // K)
        rows.append((l, t_gen, t_kernel, t_thesis))
        print(f"{l:>5} {t_gen:>11.2f} {t_kernel:>9.2f} {t_thesis:>19.1f} "
              f"{t_thesis / t_kernel:>8.0f}x", flush=True)
    worst = max(r[1] for r in rows)
    print(f"\nslowest full generation: {worst:.2f} s (target <= 5 s); smallest speed-up over "
          f"the thesis loop: {min(r[3] / r[2] for r in rows):.0f}x (target >= 100x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
