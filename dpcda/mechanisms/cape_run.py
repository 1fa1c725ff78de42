"""One CAPE release across sites (:func:`run_cape`, called by
:func:`dpcda.mechanisms.cape.generate_sites`): coordinator, sites and aggregator simulated in one
process, each with its own secure source; the messages are float64 throughout.

Per class k, in chunks of samples: the coordinator's pooled-subset counts ``l_s``; each site's
partial mean ``P_s`` (its ``l_s`` records summed in float64, over ``l``) and soft-label share
``(l_s/l) onehot(k)``; its share ``g_s ~ N(0, sigma^2/S)``; the message
``M_s = fixed(P_s + g_s) + e_s`` mod 2^64 (the public share grid ``2^-F``, modular masks ``e_s``
from the pairwise ChaCha20 streams); the aggregator's ``sum_s M_s`` (the masks cancel exactly)
back in float64, rounded to the release's public grid. Rows are shuffled, hard labels are the
argmax of the soft labels (as in :func:`dpcda.mechanisms.mixing.mix_classwise`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.mechanisms.cape_card import inside_threats, outside_same_relation, sites_card, threat
from dpcda.mechanisms.cape_float import band, value_bound
from dpcda.mechanisms.cape_grid import METHOD, lattice_cost, share_grid_bits
from dpcda.mechanisms.cape_masks import PairMasks, SiteDropout, fixed_point_bits, from_fixed
from dpcda.mechanisms.cape_masks import pooled_counts, site_subsets, to_fixed
from dpcda.mechanisms.release import Release
from dpcda.randomness.noise import standard_normal
from dpcda.randomness.secure import KEY_BYTES, SecureRandom

_CHUNK_VALUES = 1 << 21  # message values per site in one chunk


@dataclass
class CapeTrace:
    """What a test or a benchmark checks and no release carries: the largest error of the
    aggregate against the float64 sum of the shares, over its bound and over the noise std."""

    err_over_bound: float = 0.0
    err_over_sigma: float = 0.0
    n_values: int = 0
    worst_err: float = 0.0


def _sources(S: int, seed):
    coord = SecureRandom(seed)
    if seed is None:
        return coord, [SecureRandom() for _ in range(S)], SecureRandom()
    derive = lambda: SecureRandom.from_key(coord.bytes(KEY_BYTES).tobytes())  # noqa: E731
    return coord, [derive() for _ in range(S)], derive()


def _calibrate(sites, l: int, T: int, common: dict):
    """``(sigma_x, sigma_y, privacy block, T_k, pooled counts, preprocessor)`` of the pooled
    DP-CDA setting, from public facts and the pooled class counts the coordinator holds."""
    from dpcda.mechanisms.dp_cda import DPCDAConfig
    from dpcda.mechanisms.dp_cda_account import BOUNDS_ACCOUNTANTS, account
    from dpcda.util.notices import notice
    from dpcda.mechanisms.prepare import fit_preprocessor
    from dpcda.privacy import samples_per_class

    cfg = DPCDAConfig(l=l, T=T, c=common["c"], sigma_x=common["sigma_x"],
                      epsilon=common["epsilon"], delta=common["delta"],
                      accountant=common["accountant"])
    counts = sites.class_counts().sum(axis=0)
    N, K, d = int(counts.sum()), sites.n_classes, sites.d
    t_k = samples_per_class(cfg.T, counts, cfg.allocation)
    # a public normalisation: fitted on no private statistic (scale: the public bounds)
    pre = fit_preprocessor(sites.sites[0].X, common["normalize"], c=cfg.c, bounds=common["bounds"])
    from dataclasses import replace

    from dpcda.mechanisms.cape_reserve import calibrate_cape
    from dpcda.randomness.noise import delta_aim

    # floating point's share kept back, as generate_dpcda does, but sized by CAPE's own cost
    # (Theorem 3): the target holds for threat model (a) after the reserve; delta likewise
    n_x, n_y = int(t_k.sum()) * d, int(t_k.sum()) * K
    d_aim = delta_aim(cfg.delta, cfg.epsilon, cfg.T * (d + K) + d + K)

    def account_at(aim):
        return account(replace(cfg, epsilon=aim, delta=d_aim) if aim != cfg.epsilon else cfg, N=N,
                       counts=counts, d=d, K=K, compare=False, bounds=counts)

    sx, sy, privacy = calibrate_cape(account_at, cfg.epsilon, S=sites.S, c=cfg.c, n_x=n_x,
                                     n_y=n_y, n_aim=cfg.T * (d + K) + d + K)
    if "calibration_aim" in privacy and d_aim != cfg.delta:
        privacy["calibrated_to_delta"] = float(cfg.delta)
        privacy["calibration_aim"].update(delta=float(d_aim),
                                          delta_float_reserve=float(cfg.delta - d_aim))
    if cfg.accountant in BOUNDS_ACCOUNTANTS and privacy.get("private"):  # as generate_dpcda says
        privacy["warnings"] = [*privacy.get("warnings", []), notice("class_sizes_from_data")]
    return cfg, sx, sy, privacy, t_k, counts, pre


def run_cape(sites, *, l: int, T: int, common: dict, ts, seed, drop,
             trace: CapeTrace | None = None) -> Release:
    """The ``cape`` release (see the module docstring); ``trace`` (tests) records the error."""
    from dpcda.mechanisms.mixing import grids, hard_labels, shrink_factor
    from dpcda.mechanisms.card import add_randomness

    if any(not 0 <= int(s) < sites.S for s in drop):
        raise ValueError(f"drop must name sites in 0..{sites.S - 1}")
    cfg, sx, sy, privacy, t_k, counts, pre = _calibrate(sites, l, T, common)
    S, K, d = sites.S, sites.n_classes, sites.d
    coord, site_src, key_src = _sources(S, seed)
    masks = PairMasks(S, key_src)
    noisy = sx > 0
    shrink = shrink_factor(l) if noisy else 1.0
    tables = []  # per site, per class: its rows as the kernel mixes them (float32, shrunk), float64
    per_site = sites.class_counts()
    for s in sites.sites:
        rows = (pre(s.X).astype(np.float32) * np.float32(shrink)).astype(np.float64)
        tables.append([rows[s.y == k] for k in range(K)])
    sig = np.concatenate([np.full(d, sx), np.full(K, sy)])
    gx, gy = grids(sx, sy, cfg.c)
    A = value_bound(cfg.c, sx, sy, S)
    # the public share grid (8 to 16 cells per share std): each site quantises its share to it
    # before masking (docs/decentral.md, Theorem 3); without noise the finest fixed point
    F = share_grid_bits(S, sx, sy) if noisy else fixed_point_bits(S, A)
    fx = dict(F=F, A=A, bound=max(band(S, float(max(sx, sy)), A, F), 0.0))
    total = int(t_k.sum())
    out = np.empty((total, d + K))
    trace = trace if trace is not None else CapeTrace()
    first = 0
    step = max(1, _CHUNK_VALUES // (d + K))
    for k in range(K):
        C = pooled_counts(per_site[:, k], l, int(t_k[k]), generator=coord)
        for a in range(0, int(t_k[k]), step):
            b = min(int(t_k[k]), a + step)
            out[first + a:first + b] = _chunk(C[a:b], k, tables, site_src, masks, sig, l, S, d,
                                                K, drop, trace, fx)
        first += int(t_k[k])
    X = _round(out[:, :d], gx)
    y_soft = _round(out[:, d:], gy)
    order = coord.permutation(total)
    X, y_soft = X[order], y_soft[order]
    y = hard_labels(y_soft, gy.gamma if gy else 0.0, coord)
    eps_a = privacy.get("epsilon") if privacy.get("private") else None
    threats = [threat("a", "outside reader of the release (a post-processing of the "
                            "centralized mechanism)", eps_a,
                       privacy.get("accountant"), privacy.get("relation"), 0)]
    parts = ((total * d, sx), (total * K, sy))
    threats += inside_threats(S=S, sigma=sx, c=cfg.c, l=l, per_class=t_k, site_counts=per_site,
                              delta=cfg.delta, ts=ts,
                              float_cost=lambda H: lattice_cost(H, S, A, F, *parts))
    privacy["outside_under_inside_relation"] = outside_same_relation(
        sigma=sx, c=cfg.c, l=l, per_class=t_k, class_counts=counts, delta=cfg.delta)
    add_randomness(privacy, coord, lattice_cost(S, S, A, F, *parts) if noisy else None)
    if "floating_point" in privacy:
        privacy["floating_point"]["method"] = METHOD
    extra = {"l": cfg.l, "T": cfg.T, "T_per_class": [int(t) for t in t_k], "c": cfg.c,
             "sigma_x": sx, "sigma_y": sy, "delta": cfg.delta,
             "masks": "pairwise, uniform mod 2^64 from ChaCha20 keyed per pair (exact cancellation)",
             "fixed_point_bits": F,
             "aggregate_noise": "sum of S shares N(0, sigma^2/S), each quantised to the public "
                                "share grid 2^-F: N(0, sigma^2) as centralized, plus S "
                                "roundings of at most 2^-(F+1) each",
             "reveals": "the coordinator learns every site's class sizes and draws each sample's "
                        "per-site counts; no party but a site sees its records",
             "dropouts": "a site leaving after masking aborts the release (nothing published)"}
    base = Release(X=X, y=y, y_soft=y_soft, card={}, preprocess=pre)
    return sites_card(base, sites, "cape", threats, privacy, extra=extra)


def _round(v, grid):
    if grid is None:
        return v
    return np.rint(v / grid.gamma) * grid.gamma


def _chunk(C, k, tables, site_src, masks, sig, l, S, d, K, drop, trace, fx):
    """The aggregate of one chunk of samples of class k (``C``: their per-site counts)."""
    m = len(C)
    width = d + K
    e = masks.masks((m, width))
    total = np.zeros((m, width), dtype=np.uint64)
    ideal = np.zeros((m, width))
    for s in range(S):
        P = np.zeros((m, width))
        for rows, idx in site_subsets(len(tables[s][k]), C[:, s], generator=site_src[s]):
            P[rows, :d] = tables[s][k][idx].sum(axis=1)
        P[:, :d] /= l
        P[:, d + k] = C[:, s] / l
        g = standard_normal(site_src[s], m * width).reshape(m, width)
        g *= sig / math.sqrt(S)
        x = P + g
        M = to_fixed(x, fx["F"], fx["A"])
        M += e[s]  # the message: uniform mod 2^64 on its own
        if s in drop:  # its message never arrives: the masks cannot cancel
            raise SiteDropout("a site left after masking: the masks cannot cancel, so the "
                              "release is aborted and nothing is published")
        total += M
        ideal += x
    agg = from_fixed(total, fx["F"])
    err = np.abs(agg - ideal)
    bound = fx["bound"] + S * 2.0 ** -53 * fx["A"]  # the band, plus the reference's own sums
    trace.err_over_bound = max(trace.err_over_bound, float(err.max(initial=0.0)) / bound)
    pos = sig > 0
    if pos.any():
        trace.err_over_sigma = max(trace.err_over_sigma, float((err[:, pos] / sig[pos]).max()))
    trace.worst_err = max(trace.worst_err, float(err.max(initial=0.0)))
    trace.n_values += err.size
    return agg
