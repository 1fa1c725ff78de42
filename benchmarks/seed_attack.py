"""Issue 17's seed attack, before and after: brute-force a release's randomness, then its rows.

    .venv/bin/python benchmarks/seed_attack.py [--bits 16] [--l 16] [--epsilon 10] [--T-factor 4]

The attacker sees only a release (X, hard labels y) and public facts: the code, N, the class
counts, l, sigma, T_k (all on the data card). The private data are used here only to score what
the attacker recovers.

**Before** (``benchmarks/legacy_release.py``, the fbbefed kernel): one MT19937
``torch.Generator`` draws the row order (``randperm``) first, then the subsets and float32
noise. The shipped code seeded it with 63 OS bits of which MT19937 keeps 32; here the seed is
drawn below ``2**bits`` so the search takes seconds (the rate is extrapolated to 2^32). For each
candidate seed the attacker regenerates the first ``--check`` steps of ``randperm`` (vectorised
MT19937 over all candidates: slot i < check goes to output row ``pos[i]``, and slot i belongs
to a known class since slots ``first[k]:first[k+1]`` are class k) and counts how many released
hard labels ``y[pos[i]]`` agree. The seed that matches is replayed in full (a zero table through
the same kernel gives each output row's class, its l-subset and its noise), the noise is
subtracted, and each class's T_k x N_k mixing system (entries 1/l) is solved by least squares.

**After**: the same enumeration against a release of today's ``generate_dpcda`` (ChaCha20 keyed
with 256 OS bits), both as legacy torch seeds and as ``SecureRandom(seed)`` keys (its first draw
is ``SecureRandom.permutation(total)``, the order of 128-bit keys: the first ``check`` slots are
the ``check`` smallest keys). Nothing matches; replaying the noise of the best candidates leaves
a residual of the noise's own size. A release made with ``seed=s`` is found by the same
enumeration (seeded = reproducible = not private, as its card says).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import legacy_release  # noqa: E402

#: Released hard labels compared per candidate seed, and how many must agree for a match (a
#: label flips under the label noise with probability ~1e-3 at epsilon 10; a wrong seed agrees
#: on each with probability ~1/K, so 21 of 24 by chance is ~1e-18 per candidate).
CHECK = 24
MATCH = 21


# -- MT19937 as torch's CPU generator runs it, vectorised over candidate seeds -----------------
def mt19937_prefix(seeds: np.ndarray, n_out: int) -> np.ndarray:
    """The first ``n_out`` 32-bit outputs of ``torch.Generator().manual_seed(s)`` for every
    ``s`` in ``seeds`` (``(n_out, len(seeds))`` uint64; MT19937 keeps the low 32 bits of ``s``)."""
    if n_out > 227:
        raise ValueError("only the first 227 outputs come from one twist of the initial state")
    s = (np.asarray(seeds, dtype=np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    need = 397 + n_out
    low, high = [s], []
    cur = s
    with np.errstate(over="ignore"):
        for i in range(1, need):
            cur = (np.uint32(1812433253) * (cur ^ (cur >> np.uint32(30))) + np.uint32(i)).astype(
                np.uint32)
            if i <= n_out:
                low.append(cur)
            if i >= 397:
                high.append(cur)
    out = np.empty((n_out, len(s)), dtype=np.uint64)
    upper, lower = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
    for i in range(n_out):
        y = (low[i] & upper) | (low[i + 1] & lower)
        v = high[i] ^ (y >> np.uint32(1)) ^ np.where(y & np.uint32(1), np.uint32(0x9908B0DF),
                                                     np.uint32(0))
        v ^= v >> np.uint32(11)
        v ^= (v << np.uint32(7)) & np.uint32(0x9D2C5680)
        v ^= (v << np.uint32(15)) & np.uint32(0xEFC60000)
        v ^= v >> np.uint32(18)
        out[i] = v
    return out


def randperm_prefix(seeds: np.ndarray, n: int, check: int) -> np.ndarray:
    """``torch.randperm(n, generator=manual_seed(s))[:check]`` for every seed (``(check, S)``).

    torch's CPU randperm (n < 2^32 / 20) is Fisher-Yates: step i swaps slots i and
    ``i + random() % (n - i)``; slot i is final after step i, so the first ``check`` slots need
    the first ``check`` outputs only. Slot j >= i still holds j unless an earlier step swapped
    into it, in which case it holds what that step moved there."""
    z = mt19937_prefix(seeds, check)
    S = z.shape[1]
    target = np.empty((check, S), dtype=np.int64)
    moved = np.empty((check, S), dtype=np.int64)
    out = np.empty((check, S), dtype=np.int64)
    for i in range(check):
        j = i + (z[i] % np.uint64(n - i)).astype(np.int64)
        at_i = np.full(S, i, dtype=np.int64)
        at_j = j.copy()
        for p in range(i):  # later steps overwrite earlier ones
            at_i = np.where(target[p] == i, moved[p], at_i)
            at_j = np.where(target[p] == j, moved[p], at_j)
        out[i] = at_j
        target[i], moved[i] = j, at_i
    return out


def slot_classes(t_k, check: int) -> np.ndarray:
    """The class of each of the first ``check`` output slots (slots ``first[k]:first[k+1]``
    belong to class k, as in both kernels)."""
    return np.repeat(np.arange(len(t_k)), np.asarray(t_k, dtype=np.int64))[:check]


@dataclass
class Search:
    name: str
    space: int
    tried: int
    seconds: float
    best_seed: int
    best_score: int
    found: list

    @property
    def rate(self) -> float:
        return self.tried / max(self.seconds, 1e-9)


def search_torch_seeds(y_rel, t_k, bits: int, *, check: int = CHECK, chunk: int = 1 << 16
                       ) -> Search:
    """Every legacy torch seed below ``2**bits``: agreements of the released hard labels."""
    y_rel = np.asarray(y_rel)
    cls = slot_classes(t_k, check)[:, None]
    n, space = int(np.sum(t_k)), 1 << bits
    found, best = [], (-1, -1)
    t0 = time.perf_counter()
    for a in range(0, space, chunk):
        seeds = np.arange(a, min(space, a + chunk), dtype=np.uint64)
        score = (y_rel[randperm_prefix(seeds, n, check)] == cls).sum(axis=0)
        i = int(np.argmax(score))
        if score[i] > best[1]:
            best = (int(seeds[i]), int(score[i]))
        found += [int(s) for s in seeds[score >= MATCH]]
    return Search("legacy torch seeds", space, space, time.perf_counter() - t0, *best, found)


def secure_prefix(seed: int, n: int, check: int) -> np.ndarray:
    """``SecureRandom(seed=seed).permutation(n)[:check]`` (the first draw of today's
    ``mix_classwise``): the positions of the ``check`` smallest of n 128-bit keys."""
    from dpcda.randomness import SecureRandom

    hi, lo = SecureRandom(seed=seed).words((2, n))
    part = np.argpartition(hi, check - 1)[:check]
    return part[np.lexsort((lo[part], hi[part]))]


def search_secure_seeds(y_rel, t_k, bits: int, *, check: int = CHECK) -> Search:
    """Every ``SecureRandom(seed)`` key with seed below ``2**bits``."""
    y_rel = np.asarray(y_rel)
    cls = slot_classes(t_k, check)
    n, space = int(np.sum(t_k)), 1 << bits
    found, best = [], (-1, -1)
    t0 = time.perf_counter()
    for s in range(space):
        score = int((y_rel[secure_prefix(s, n, check)] == cls).sum())
        if score > best[1]:
            best = (s, score)
        if score >= MATCH:
            found.append(s)
    return Search("SecureRandom(seed) keys", space, space, time.perf_counter() - t0, *best, found)


# -- replay a candidate's draws and solve the mixing system -----------------------------------
def replay_legacy(seed: int, counts, t_k, l: int, sigma_x: float, sigma_y: float, d: int):
    """The legacy kernel run with ``seed`` on a zero table of the public shape: each output
    row's class (``source``), its l-subset (``indices``, class-sorted row numbers) and its
    noise (``X``). Needs no private data."""
    y_fake = np.repeat(np.arange(len(counts)), counts)
    return legacy_release.legacy_release(np.zeros((len(y_fake), d), np.float32), y_fake, l=l,
                                         per_class=t_k, sigma_x=sigma_x, sigma_y=sigma_y,
                                         seed=seed, return_indices=True)


def replay_new(seed: int, counts, t_k, l: int, sigma_x: float, sigma_y: float, d: int,
               c: float = 1.0):
    """Today's kernel run with ``SecureRandom(seed=seed)`` on a zero table: as
    :func:`replay_legacy` (``X`` is the noise rounded to the public grid)."""
    from dpcda.mechanisms.mixing import mix_classwise
    from dpcda.randomness import SecureRandom

    y_fake = np.repeat(np.arange(len(counts)), counts)
    return mix_classwise(np.zeros((len(y_fake), d)), y_fake, len(counts), l, t_k, sigma_x,
                         sigma_y, generator=SecureRandom(seed=seed), device="cpu", bound=c,
                         return_indices=True)


@dataclass
class Solved:
    rows: np.ndarray  # class-sorted recovered rows (N x d)
    residual_rms: float  # rms of A x - b over all equations (0 when the noise is right)
    full_rank: bool


def solve_rows(X_rel, replay, counts, l: int) -> Solved:
    """Subtract the replayed noise and solve each class's mixing system by least squares."""
    counts = np.asarray(counts)
    starts = np.concatenate([[0], np.cumsum(counts)])
    rows = np.zeros((int(counts.sum()), X_rel.shape[1]))
    sq, n_eq, full = 0.0, 0, True
    for k, n_k in enumerate(counts):
        r = np.flatnonzero(replay.source == k)
        A = np.zeros((len(r), n_k))
        np.put_along_axis(A, replay.indices[r] - starts[k], 1.0 / l, axis=1)
        b = X_rel[r].astype(np.float64) - replay.X[r].astype(np.float64)
        x, _, rank, _ = np.linalg.lstsq(A, b, rcond=None)
        full &= bool(rank == n_k)
        rows[starts[k]:starts[k + 1]] = x
        sq += float(((A @ x - b) ** 2).sum())
        n_eq += b.size
    return Solved(rows, (sq / n_eq) ** 0.5, full)


def raw_images(rows, high: float = 16.0) -> np.ndarray:
    """Raw pixels back from rows scaled by ``1/high`` and clipped to norm 1: unclipped rows are
    ``high * row``; a clipped row is scaled until its brightest pixel is an integer v (16 first)
    and every pixel is an integer. NaN where no scale fits."""
    out = np.full(rows.shape, np.nan)
    for i, r in enumerate(rows):
        if np.linalg.norm(r) < 1 - 1e-4:
            out[i] = np.round(high * r)
            continue
        for v in range(int(high), 0, -1):
            cand = r * (v / r.max())
            if np.abs(cand - np.round(cand)).max() < 0.02:
                out[i] = np.round(cand)
                break
    return out


# -- the experiment -----------------------------------------------------------------------------
def _digits():
    from dpcda.data import load_dataset

    ds = load_dataset("digits")
    return ds.X_train, ds.y_train, ds.feature_bounds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bits", type=int, default=16, help="seed space 2^bits (the real one: 32)")
    ap.add_argument("--l", type=int, default=16)
    ap.add_argument("--epsilon", type=float, default=10.0)
    ap.add_argument("--T-factor", type=int, default=4, help="T = factor x N (>= 1 for full rank)")
    ap.add_argument("--check", type=int, default=CHECK, help="hard labels compared per seed")
    args = ap.parse_args(argv)
    if not 1 <= args.bits <= 24:
        ap.error("--bits must be in [1, 24] (the SecureRandom search runs one key at a time)")

    from dpcda.mechanisms import generate_dpcda
    from dpcda.mechanisms.mixing import shrink_factor

    X, y, bounds = _digits()
    N, d, K = len(X), X.shape[1], int(y.max()) + 1
    counts = np.bincount(y, minlength=K)
    T, l = args.T_factor * N, args.l
    order = np.argsort(y, kind="stable")  # the kernels' class-sorted row order (scoring only)
    t_all = time.perf_counter()

    # The release as shipped today; its card gives sigma (public) for the legacy release too.
    new = generate_dpcda(X, y, l=l, T=T, epsilon=args.epsilon, normalize="scale", bounds=bounds)
    par = new.card["parameters"]
    sx, sy, t_k = par["sigma_x"], par["sigma_y"], np.asarray(par["T_per_class"])
    priv = new.card["privacy"]
    eps, acc = priv["epsilon"], priv["accountant"]
    print(f"digits: N = {N}, d = {d}, K = {K}; l = {l}, T = {T} (T_k {t_k.min()}..{t_k.max()}), "
          f"sigma_x = sigma_y = {sx:.4f} (epsilon {eps:.4f} at delta 1e-5 under today's default "
          f"accountant {acc!r})")
    print(f"seed space: 2^{args.bits} (the shipped legacy code: 2^32); {args.check} hard labels "
          f"compared per candidate, >= {MATCH} must agree\n")
    rows_table = []

    # ---- Before: the legacy kernel --------------------------------------------------------------
    Xp_legacy = legacy_release.preprocess(X, bounds)
    seed = secrets.randbelow(1 << args.bits)
    t0 = time.perf_counter()
    old = legacy_release.legacy_release(Xp_legacy, y, l=l, per_class=t_k, sigma_x=sx,
                                        sigma_y=sy, seed=seed)
    print(f"BEFORE  legacy release ({time.perf_counter() - t0:.2f} s), seed drawn below "
          f"2^{args.bits}")
    t_attack = time.perf_counter()
    s_old = search_torch_seeds(old.y, t_k, args.bits, check=args.check)
    print(f"  brute force: {s_old.tried:,} torch seeds in {s_old.seconds:.2f} s "
          f"({s_old.rate / 1e6:.2f} M seeds/s on one core); matches: {s_old.found} "
          f"(true seed {seed}: {'found' if seed in s_old.found else 'NOT found'})")
    print(f"  at this rate 2^32 seeds take {2**32 / s_old.rate / 60:.0f} min on one core "
          f"(vectorised numpy here; the issue's compiled search: 4 min)")
    recovered = raw_ok = 0
    if s_old.found:
        rp = replay_legacy(s_old.found[0], counts, t_k, l, sx, sy, d)
        sol = solve_rows(old.X, rp, counts, l)
        err = np.abs(sol.rows - Xp_legacy[order]).max(axis=1)
        recovered = int((err <= 1e-6).sum())
        raw = raw_images(sol.rows, bounds[1])
        raw_ok = int(np.all(raw == X[order], axis=1).sum())
        t_done = time.perf_counter() - t_attack
        print(f"  replayed subsets + noise, solved {K} systems (full rank: {sol.full_rank}; "
              f"residual rms {sol.residual_rms:.1e}): {recovered}/{N} private rows to 1e-6 "
              f"({recovered / N:.1%}; max error {err.max():.1e}), {raw_ok}/{N} raw 8x8 images "
              f"exactly; whole attack {t_done:.2f} s")
    rows_table.append(("legacy (fbbefed), torch seed", s_old,
                       f"{recovered}/{N} ({recovered / N:.0%}) to 1e-6" if recovered else "0"))

    # ---- After: today's generate_dpcda, OS-keyed -------------------------------------------------
    print("\nAFTER   generate_dpcda, default randomness (ChaCha20, 256 OS bits)")
    a_t = search_torch_seeds(new.y, t_k, args.bits, check=args.check)
    a_s = search_secure_seeds(new.y, t_k, args.bits, check=args.check)
    for s in (a_t, a_s):
        print(f"  {s.name}: {s.tried:,} tried in {s.seconds:.2f} s; matches: {s.found or 'none'}"
              f" (best agreement {s.best_score}/{args.check}, seed {s.best_seed})")
    rp_t = replay_legacy(a_t.best_seed, counts, t_k, l, sx, sy, d)
    rp_s = replay_new(a_s.best_seed, counts, t_k, l, sx, sy, d)
    res_t = solve_rows(new.X, rp_t, counts, l).residual_rms
    res_s = solve_rows(new.X, rp_s, counts, l).residual_rms
    print(f"  noise replayed from the best candidates leaves residual rms {res_t:.3f} (torch) / "
          f"{res_s:.3f} (SecureRandom) against sigma_x {sx:.3f}: not reproduced")
    rows_table.append(("today, OS-keyed, as torch seeds", a_t, "0"))
    rows_table.append(("today, OS-keyed, as SecureRandom", a_s, "0"))

    # ---- Sanity: today's code with seed=s IS found (seeded = not private) ------------------------
    s_seed = secrets.randbelow(1 << args.bits)
    seeded = generate_dpcda(X, y, l=l, T=T, sigma_x=sx, sigma_y=sy, normalize="scale",
                            bounds=bounds, seed=s_seed)
    print(f"\nSANITY  generate_dpcda(seed={s_seed}): card privacy.seeded = "
          f"{seeded.card['privacy']['seeded']}")
    a_seeded = search_secure_seeds(seeded.y, t_k, args.bits, check=args.check)
    rec_seeded = "0"
    print(f"  SecureRandom keys: {a_seeded.tried:,} tried in {a_seeded.seconds:.2f} s; matches: "
          f"{a_seeded.found}")
    if a_seeded.found:
        rp = replay_new(a_seeded.found[0], counts, t_k, l, sx, sy, d)
        sol = solve_rows(seeded.X, rp, counts, l)
        truth = np.asarray(new.preprocess(X), dtype=np.float64)[order]
        err = np.abs(sol.rows / shrink_factor(l) - truth)
        gamma = 2.0 ** (np.floor(np.log2(sx)) - 3)
        print(f"  replayed noise (rounded to the grid {gamma:g}): residual rms "
              f"{sol.residual_rms:.4f}; private rows recovered to rms {np.sqrt((err**2).mean()):.4f}"
              f" (max {err.max():.3f}) against feature rms {np.sqrt((truth**2).mean()):.3f}")
        rec_seeded = f"all, to rms {np.sqrt((err**2).mean()):.3f} (noise known up to its grid)"
    rows_table.append(("today, seed=s (not private)", a_seeded, rec_seeded))

    # ---- Table ------------------------------------------------------------------------------------
    print("\n| release | seed space | candidates tried | search time (s) | seed found? | "
          "rows recovered |")
    print("|---|---|---|---|---|---|")
    for name, s, rec in rows_table:
        got = "yes" if s.found else "no"
        print(f"| {name} | 2^{args.bits} | {s.tried:,} | {s.seconds:.2f} | {got} | {rec} |")
    print(f"\ntotal {time.perf_counter() - t_all:.1f} s")
    return 0 if (seed in s_old.found and not a_t.found and not a_s.found
                 and s_seed in a_seeded.found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
