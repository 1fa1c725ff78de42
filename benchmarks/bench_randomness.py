"""Candidate random sources for private draws, side by side (docs/security.md, "The source").

    python benchmarks/bench_randomness.py            # n = 60000 x 794 (an MNIST release's noise)
    python benchmarks/bench_randomness.py --n 5e6 --repeat 3

For each candidate: time to produce ``n`` 64-bit words (the raw source) and, where it has one,
``n`` float64 standard normals; the legacy float32 ``torch.randn`` is the baseline of the ratio
column. Then the chosen path: ChaCha20 words -> inverse-CDF normals -> public grid
(:func:`dpcda.randomness.add_gaussian`). Best of ``--repeat`` runs (the machine is shared).
``randomgen`` is measured only where it is installed (it is not a dependency).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def best(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def keystream(algorithm_name: str, n: int):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if algorithm_name == "chacha20":
        enc = Cipher(algorithms.ChaCha20(os.urandom(32), bytes(16)), mode=None).encryptor()
    else:
        enc = Cipher(algorithms.AES(os.urandom(32)), modes.CTR(bytes(16))).encryptor()
    zeros, out = bytes(1 << 22), np.empty(8 * n, dtype=np.uint8)
    view = memoryview(out)

    def run():
        for s in range(0, 8 * n, 1 << 22):
            e = min(8 * n, s + (1 << 22))
            enc.update_into(zeros[:e - s], view[s:e])
    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=60000 * 794)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    n, r = int(args.n), args.repeat

    import torch

    from dpcda.randomness import SecureRandom, add_gaussian
    from dpcda.randomness.noise import standard_normal

    print(f"n = {n / 1e6:.1f} M values; torch {torch.__version__}, {torch.get_num_threads()} "
          f"threads; {os.cpu_count()} CPUs; load average "
          f"{', '.join(f'{v:.1f}' for v in os.getloadavg())}; best of {r}")
    g = torch.Generator().manual_seed(1)
    legacy = best(lambda: torch.randn(n, generator=g), r)
    rows = [("torch MT19937 (legacy; 32-bit seed, predictable)", None, legacy, "float32"),
            ("torch MT19937, float64", None, best(lambda: torch.randn(
                n, generator=g, dtype=torch.float64), r), "float64")]
    pcg = np.random.default_rng()
    rows.append(("numpy PCG64 (not cryptographic)",
                 best(lambda: pcg.integers(0, 2 ** 63, n, dtype=np.uint64), r),
                 best(lambda: pcg.standard_normal(n), r), "float64 ziggurat"))
    try:
        from randomgen import ChaCha

        rg = np.random.Generator(ChaCha(key=int.from_bytes(os.urandom(32), "little"), rounds=20))
        rows.append(("randomgen ChaCha20 behind numpy.random.Generator",
                     best(lambda: rg.integers(0, 2 ** 63, n, dtype=np.uint64), r),
                     best(lambda: rg.standard_normal(n), r), "float64 ziggurat"))
    except ImportError:
        print("(randomgen not installed: pip install randomgen to measure it too)")
    rows.append(("cryptography ChaCha20 keystream (chosen)", best(keystream("chacha20", n), r),
                 None, ""))
    rows.append(("cryptography AES-256-CTR keystream", best(keystream("aes", n), r), None, ""))
    src = SecureRandom()
    rows.append(("chosen: ChaCha20 -> inverse-CDF normals (3 words/value)", None,
                 best(lambda: standard_normal(src, n), r), "float64"))
    x = np.zeros(n)
    rows.append(("chosen: ... + rounded to the public grid (add_gaussian)", None,
                 best(lambda: add_gaussian(x, 0.3, src, bound=1.0), r), "float64, on a grid"))
    head = f"{'source':<60} {'words s':>8} {'normals s':>10} {'vs legacy':>10}  kind"
    print(head)
    print("-" * len(head))
    for name, w, z, kind in rows:
        ws = f"{w:8.2f}" if w is not None else f"{'-':>8}"
        zs = f"{z:10.2f}" if z is not None else f"{'-':>10}"
        ratio = f"{z / legacy:9.1f}x" if z is not None else f"{'-':>10}"
        print(f"{name:<60} {ws} {zs} {ratio}  {kind}")
    small_calls()
    return 0


def small_calls(calls: int = 200_000) -> None:
    """What the per-call guards cost: the fork check (``os.getpid()`` at every draw) against a
    smallest draw, and scipy's ``ndtri`` check (once per process). Best of 5 (shared machine)."""
    import timeit

    from dpcda.randomness import SecureRandom
    from dpcda.randomness.ndtri_reference import ndtri_error

    src = SecureRandom()
    pid = min(timeit.repeat(os.getpid, number=calls, repeat=5)) / calls
    draw = min(timeit.repeat(lambda: src.bytes(8), number=calls, repeat=5)) / calls
    nd = min(timeit.repeat(ndtri_error, number=20, repeat=5)) / 20
    print(f"\nfork check: os.getpid() {pid * 1e6:.2f} us per call into the cipher (not per "
          f"value); a whole bytes(8) draw, check included: {draw * 1e6:.2f} us")
    print(f"ndtri check: {nd * 1e3:.2f} ms once per process; largest relative error on its 61 "
          f"points {ndtri_error():.3g} (the proof's bound: 2e-15)")


if __name__ == "__main__":
    raise SystemExit(main())
