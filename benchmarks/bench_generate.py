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
* ``speed-up``: thesis (extrapolated) / kernel;
* ``legacy kernel``: the same kernel as it was before issue 17 (:mod:`legacy_release`: one
  MT19937 ``torch.Generator``, float32 means and ``torch.randn`` float32 noise), same data,
  same run: the price of the secure source, float64 means and the grid together.

Before the table, the noise alone for a T x (d + K) release, in one run: the legacy float32
``torch.randn``; the secure source's keystream (two 64-bit words per value); float64 normals
from it (inverse CDF); the same rounded to the public grid (:func:`dpcda.randomness.add_gaussian`).

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

from legacy_release import make_generator as legacy_generator  # noqa: E402
from legacy_release import mix_classwise as legacy_mix  # noqa: E402
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


def _timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def noise_costs(T: int, width: int, sigma: float) -> None:
    """Print the noise's cost for ``T x width`` values: legacy, source, normals, grid."""
    import torch

    from dpcda.randomness import SecureRandom, add_gaussian
    from dpcda.randomness.noise import standard_normal

    n = T * width
    x32 = torch.zeros(n)
    x64 = np.zeros(n)
    src = SecureRandom()
    legacy = _timed(lambda: x32.add_(torch.randn(n, generator=legacy_generator(1)), alpha=sigma))
    words = _timed(lambda: src.words((2, n)))
    normals = _timed(lambda: standard_normal(src, n))
    grid = _timed(lambda: add_gaussian(x64, sigma, src, bound=1.0))
    print(f"noise for {T} x {width} = {n / 1e6:.1f} M values: legacy float32 torch.randn "
          f"{legacy:.2f} s; secure source (ChaCha20 keystream, 2 words/value) {words:.2f} s; "
          f"+ float64 inverse-CDF normals {normals:.2f} s; + public grid (add_gaussian, all "
          f"included) {grid:.2f} s; ratio {grid / legacy:.1f}x the legacy noise")


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
    from dpcda.mechanisms._torch import resolve_device
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
    from dpcda.randomness import SecureRandom

    gen = SecureRandom()
    mix_classwise(Xp[:2000], y[:2000], K, 2, 10, args.sigma, args.sigma, generator=gen,
                  device=dev)  # warm-up
    noise_costs(args.T, X.shape[1] + K, args.sigma)
    sub = max(K, args.baseline_samples)
    print(f"thesis loop timed on {sub // K * K} samples ({sub // K} per class) per l and "
          f"extrapolated linearly to T = {args.T}\n")
    head = (f"{'l':>5} {'generate s':>11} {'kernel s':>9} {'legacy kernel s':>16} "
            f"{'thesis s (extrap.)':>19} {'speed-up':>9}")
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
        legacy_mix(Xp, y, K, l, args.T // K, args.sigma, args.sigma,
                   generator=legacy_generator(int.from_bytes(os.urandom(8), "little")))
        t_legacy = time.perf_counter() - t0
        t0 = time.perf_counter()
        thesis_dpcda(Xp, y, K, sub, l, args.sigma, args.sigma)
        t_sub = time.perf_counter() - t0
        t_thesis = t_sub * (args.T // K) / (sub // K)
        rows.append((l, t_gen, t_kernel, t_thesis))
        print(f"{l:>5} {t_gen:>11.2f} {t_kernel:>9.2f} {t_legacy:>16.2f} {t_thesis:>19.1f} "
              f"{t_thesis / t_kernel:>8.0f}x", flush=True)
    worst = max(r[1] for r in rows)
    print(f"\nslowest full generation: {worst:.2f} s (target <= 5 s); smallest speed-up over "
          f"the thesis loop: {min(r[3] / r[2] for r in rows):.0f}x (target >= 100x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
