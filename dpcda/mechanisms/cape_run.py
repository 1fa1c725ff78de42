"""One CAPE release across sites (:func:`run_cape`, called by
:func:`dpcda.mechanisms.cape.generate_sites`): this module is the coordinator and aggregator; the
sites are :class:`~dpcda.mechanisms.cape_site.CapeSite` parties, each with its own records,
secure source and keys, run by an engine (:mod:`dpcda.mechanisms.cape_engine`: in this process,
in local worker processes, or as Ray actors). Set-up: the sites' identities, class sizes, a
signed X25519 key agreement relayed by the coordinator (:mod:`dpcda.mechanisms.cape_keys`), the
public parameters.

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
import time
from dataclasses import dataclass

import numpy as np

from dpcda.mechanisms.cape_card import inside_threats, outside_same_relation, sites_card, threat
from dpcda.mechanisms.cape_float import band, value_bound
from dpcda.mechanisms.cape_grid import METHOD, lattice_cost, share_grid_bits
from dpcda.mechanisms.cape_masks import SiteDropout, check_range, fixed_point_bits, from_fixed
from dpcda.mechanisms.cape_masks import pooled_counts
from dpcda.mechanisms.release import Release
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
    engine: str = ""
    errors: bool = True  # ask the sites for P_s + g_s too (tests); False: timings only
    site_seconds: tuple = ()  # CPU seconds each site spent computing its messages
    start_seconds: float = 0.0  # starting the engine (its processes or actors)
    setup_seconds: float = 0.0  # the coordinator's set-up: sizes, calibration, key agreement
    stream_seconds: float = 0.0  # from the first message asked to the last one summed
    finish_seconds: float = 0.0  # rounding, shuffling, labels, the card


def _site_specs(sites, coord: SecureRandom, drop) -> list[dict]:
    """What each site's party is made from: its own records, or (a
    :class:`~dpcda.mechanisms.site_source.SiteSources`) only its public locator and the class
    names, from which it loads them where it runs; with a test seed, a key derived from it (a
    seeded release is not private, and says so)."""
    key = (lambda: coord.bytes(KEY_BYTES).tobytes()) if coord.seeded else (lambda: None)
    if _from_files(sites):
        return [dict(index=i, S=sites.S, source=src, classes=sites.classes, K=sites.n_classes,
                     key=key(), leaves=i in drop) for i, src in enumerate(sites.sources)]
    return [dict(index=i, S=sites.S, X=s.X, y=s.y, K=sites.n_classes, key=key(),
                 leaves=i in drop) for i, s in enumerate(sites.sites)]


def _from_files(sites) -> bool:
    return hasattr(sites, "sources")


def _calibrate(sites, per_site, l: int, T: int, common: dict, d: int):
    """``(cfg, sigma_x, sigma_y, privacy block, T_k, pooled counts, preprocessor, plan)`` of the
    pooled DP-CDA setting, from public facts and the pooled class counts the coordinator holds;
    ``dp-center``: no preprocessor yet but the statistics step's public
    :class:`~dpcda.mechanisms.cape_center.CenterPlan` (its noise composed into the account)."""
    from dpcda.mechanisms.dp_cda import DPCDAConfig
    from dpcda.mechanisms.dp_cda_account import BOUNDS_ACCOUNTANTS, account
    from dpcda.util.notices import notice
    from dpcda.mechanisms.prepare import fit_preprocessor
    from dpcda.privacy import samples_per_class

    cfg = DPCDAConfig(l=l, T=T, c=common["c"], sigma_x=common["sigma_x"],
                      epsilon=common["epsilon"], delta=common["delta"],
                      accountant=common["accountant"])
    counts = np.asarray(per_site).sum(axis=0)
    N, K = int(counts.sum()), sites.n_classes
    if cfg.accountant in BOUNDS_ACCOUNTANTS:  # the pooled sizes, read from the sites: private,
        from dpcda.mechanisms.dp_cda_account import check_l_bounds  # so l and the rule only

        check_l_bounds(cfg.l, counts, counts, "data")  # (the accountant's own check names a size)
    t_k = samples_per_class(cfg.T, counts, cfg.allocation)
    from dataclasses import replace

    from dpcda.mechanisms.cape_reserve import calibrate_cape
    from dpcda.randomness.noise import calibration_aim, delta_aim

    # floating point's share kept back, as generate_dpcda does, but sized by CAPE's own cost
    # (Theorem 3): the target holds for threat model (a) after the reserve; delta likewise
    n_x, n_y = int(t_k.sum()) * d, int(t_k.sum()) * K
    d_aim = delta_aim(cfg.delta, cfg.epsilon, cfg.T * (d + K) + d + K)
    plan, extra = None, None
    if common["normalize"] == "dp-center":  # its mean by the same protocol (cape_center)
        from dpcda.mechanisms.cape_center import center_cost, center_plan
        from dpcda.mechanisms.dp_cda_account import release_stats_mu

        mu = release_stats_mu(calibration_aim(cfg.epsilon, cfg.T * (d + K) + d + K), d_aim)
        plan = center_plan(S=sites.S, N=N, d=d, mu=mu, bounds=common["bounds"])
        extra, pre = center_cost(sites.S, sites.S, plan), None
    else:  # a public normalisation: fitted on no private statistic (scale: the public bounds)
        # sites from files checked their own records against it where they loaded them; in
        # memory every site's are checked here (scale without bounds: [0, 255]), not site 0's only
        for rows in [np.zeros((1, d))] if _from_files(sites) else [s.X for s in sites.sites]:
            pre = fit_preprocessor(rows, common["normalize"], c=cfg.c, bounds=common["bounds"])

    def account_at(aim):
        return account(replace(cfg, epsilon=aim, delta=d_aim) if aim != cfg.epsilon else cfg, N=N,
                       counts=counts, d=d, K=K, compare=False, bounds=counts,
                       stats_mu=None if plan is None else plan.mu)

    sx, sy, privacy = calibrate_cape(account_at, cfg.epsilon, S=sites.S, c=cfg.c, n_x=n_x,
                                     n_y=n_y, n_aim=cfg.T * (d + K) + d + K, extra=extra,
                                     sigma_guess=_sigma_guess(cfg, counts, t_k, d_aim),
                                     ratio=cfg.ratio)
    if "calibration_aim" in privacy and d_aim != cfg.delta:
        privacy["calibrated_to_delta"] = float(cfg.delta)
        privacy["calibration_aim"].update(delta=float(d_aim),
                                          delta_float_reserve=float(cfg.delta - d_aim))
    if cfg.accountant in BOUNDS_ACCOUNTANTS and privacy.get("private"):  # as generate_dpcda says
        privacy["warnings"] = [*privacy.get("warnings", []), notice("class_sizes_from_data")]
    return cfg, sx, sy, privacy, t_k, counts, pre, plan


def _sigma_guess(cfg, counts, t_k, delta: float) -> float | None:
    """A guess of the calibrated noise from public facts and the pooled counts (the central
    limit theorem's start, :func:`dpcda.privacy.pld.start_noise`, as the PLD calibration starts
    from): where CAPE's first aim looks for its floating-point cost. Not a bound."""
    from dpcda.privacy.pld import start_noise

    if cfg.epsilon is None or not math.isfinite(cfg.epsilon):
        return None
    rates = [(cfg.l / int(n), int(t)) for n, t in zip(counts, t_k) if int(t) > 0 and int(n) > 0]
    if not rates:
        return None
    return 2.0 * cfg.c / (cfg.l * start_noise(cfg.epsilon, delta, rates))


def run_cape(sites, *, l: int, T: int, common: dict, ts, seed, drop,
             trace: CapeTrace | None = None, engine: str = "auto", workers: int | None = None,
             address: str | None = None) -> Release:
    """The ``cape`` release (see the module docstring); ``trace`` (tests and benchmarks only)
    records the aggregate's error against the sum of the shares, which the sites then also send.
    ``engine``: where the sites run (:data:`dpcda.mechanisms.cape_engine.ENGINES`; ``auto``:
    in this process for small releases, local worker processes for large ones); ``workers``:
    the local engine's processes (default: the cores); ``address``: the Ray cluster."""
    from dpcda.mechanisms.cape_engine import open_engine, resolve_engine

    if any(not 0 <= int(s) < sites.S for s in drop):
        raise ValueError(f"drop must name sites in 0..{sites.S - 1}")
    S, K = sites.S, sites.n_classes
    files = _from_files(sites)
    # sites from files: their columns are known once they have loaded (auto counts one)
    name = resolve_engine(engine, S * int(T) * ((1 if files else sites.d) + K), S)
    want = trace is not None and trace.errors  # the sites also send P_s + g_s (never released)
    trace = trace if trace is not None else CapeTrace()
    trace.engine = name
    coord = SecureRandom(seed)
    clock = time.perf_counter()
    with open_engine(name, _site_specs(sites, coord, {int(s) for s in drop}), workers=workers,
                     address=address) as eng:
        trace.start_seconds = time.perf_counter() - clock
        everyone = {s: () for s in range(S)}
        if files:  # each site reads its own records where it runs; only their columns come back
            from dpcda.mechanisms.site_source import check_columns

            pub = (common["normalize"], common["bounds"], common["c"])
            d = check_columns(eng.call("load", {s: pub for s in range(S)}).values())
        else:
            d = sites.d
        identities = eng.call("enrol", everyone)  # pinned out of band in a deployment
        sizes = eng.call("class_sizes", everyone)
        per_site = np.stack([sizes[s] for s in range(S)])
        if files:  # the in-memory path checks this before the release (generate_sites)
            from dpcda.mechanisms.sites import check_counts_for

            check_counts_for(per_site, int(l), every_site=False)
        cfg, sx, sy, privacy, t_k, counts, pre, plan = _calibrate(sites, per_site, l, T, common,
                                                                  d)
        from dpcda.mechanisms.cape_keys import SESSION_BYTES

        session = coord.bytes(SESSION_BYTES).tobytes()
        shares = list(eng.call("hello", {s: (session,) for s in range(S)}).values())
        eng.call("agree", {s: (shares, identities, session) for s in range(S)})
        if plan is not None:  # dp-center: the mean first, by the same masked protocol
            from dpcda.mechanisms.cape_center import run_center

            pre = run_center(eng, S, plan, cfg.c)
        trace.setup_seconds = time.perf_counter() - clock - trace.start_seconds
        X, y, y_soft, gx, gy, total, A, F = _release(eng, cfg, sx, sy, t_k, per_site, pre, S, K,
                                                     d, l, coord, trace, want)
    from dpcda.mechanisms.card import add_randomness

    noisy = sx > 0
    eps_a = privacy.get("epsilon") if privacy.get("private") else None
    threats = [threat("a", "outside reader of the release (a post-processing of the "
                            "centralized mechanism)", eps_a,
                       privacy.get("accountant"), privacy.get("relation"), 0)]
    parts = ((total * d, sx), (total * K, sy))
    from dpcda.mechanisms.cape_center import center_cost, composed_note

    def cost(H):  # the mixtures' values and, with dp-center, the statistics' d values
        out = lattice_cost(H, S, A, F, *parts)
        return out if plan is None else out + center_cost(H, S, plan)

    mu = None if plan is None else plan.mu
    if mu is not None:
        threats[0]["composed_with"] = composed_note(mu)
    threats += inside_threats(S=S, sigma=sx, c=cfg.c, l=l, per_class=t_k, site_counts=per_site,
                              delta=cfg.delta, ts=ts, float_cost=cost, stats_mu=mu)
    privacy["outside_under_inside_relation"] = outside_same_relation(
        sigma=sx, c=cfg.c, l=l, per_class=t_k, class_counts=counts, delta=cfg.delta, stats_mu=mu)
    add_randomness(privacy, coord, cost(S) if noisy else None)
    if "floating_point" in privacy:
        privacy["floating_point"]["method"] = METHOD
        _vacuous_outside(threats[0], privacy["floating_point"])
    extra = {"l": cfg.l, "T": cfg.T, "T_per_class": [int(t) for t in t_k], "c": cfg.c,
             "sigma_x": sx, "sigma_y": sy, "delta": cfg.delta,
             "masks": "pairwise, uniform mod 2^64 from ChaCha20 keyed per pair (exact cancellation)",
             "key_agreement": "X25519 per pair, HKDF-SHA256 to 256 bits; public keys relayed by "
                              "the coordinator, signed with each site's pinned Ed25519 key",
             "engine": name,
             "normalization": pre.card(),
             "fixed_point_bits": F,
             "aggregate_noise": "sum of S shares N(0, sigma^2/S), each quantised to the public "
                                "share grid 2^-F: N(0, sigma^2) as centralized, plus S "
                                "roundings of at most 2^-(F+1) each",
             "reveals": "the coordinator learns every site's class sizes and draws each sample's "
                        "per-site counts; no party but a site sees its records",
             "site_records": ("each site loaded its own records from a public locator where "
                              "it ran" if files else "held by each site's party, handed over by "
                              "the caller (a simulation)"),
             "dropouts": "a site leaving after masking aborts the release (nothing published); "
                         "masks that do not cancel abort it too"}
    base = Release(X=X, y=y, y_soft=y_soft, card={}, preprocess=pre)
    rel = sites_card(base, sites, "cape", threats, privacy, extra=extra)
    trace.finish_seconds = (time.perf_counter() - clock - trace.start_seconds
                            - trace.setup_seconds - trace.stream_seconds)
    return rel


def _vacuous_outside(entry: dict, fp: dict) -> None:
    """Threat model (a)'s entry as (b) and (c)'s (:func:`~.cape_card.inside_threats`): where the
    release's floating point leaves no guarantee (``delta_total >= 1``), epsilon None and the
    ideal mechanism's beside it (the card's top-level epsilon keeps its danger notice)."""
    if fp.get("vacuous") and entry["epsilon"] is not None:
        from dpcda.util.notices import notice, notices_json

        entry["epsilon_ideal"], entry["epsilon"] = entry["epsilon"], None
        entry["notices"] = notices_json([notice("float_no_bound", epsilon=fp["epsilon_total"],
                                                delta_total=fp["delta_total"])])


def _release(eng, cfg, sx, sy, t_k, per_site, pre, S, K, d, l, coord, trace, want):
    """The coordinator's counts, the sites' messages, the aggregate on the public grids."""
    from dpcda.mechanisms.mixing import grids, hard_labels, shrink_factor

    noisy = sx > 0
    sig = np.concatenate([np.full(d, sx), np.full(K, sy)])
    gx, gy = grids(sx, sy, cfg.c)
    A = value_bound(cfg.c, sx, sy, S)
    # the public share grid (8 to 16 cells per share std): each site quantises its share to it
    # before masking (docs/decentral.md, Theorem 3); without noise the finest fixed point
    F = share_grid_bits(S, sx, sy) if noisy else fixed_point_bits(S, A)
    shrink = shrink_factor(l) if noisy else 1.0
    eng.call("prepare", {s: (pre, shrink, sig, F, A, l) for s in range(S)})
    bound = max(band(S, float(max(sx, sy)), A, F), 0.0) + S * 2.0 ** -53 * A
    total = int(t_k.sum())
    out = np.empty((total, d + K))
    step = max(1, _CHUNK_VALUES // (d + K))
    plan, where, first = [], [], 0
    for k in range(K):
        C = pooled_counts(per_site[:, k], l, int(t_k[k]), generator=coord)
        for a in range(0, int(t_k[k]), step):
            b = min(int(t_k[k]), a + step)
            plan.append({s: (k, C[a:b, s], want) for s in range(S)})
            where.append((first + a, first + b))
        first += int(t_k[k])
    clock = time.perf_counter()
    for (a, b), msgs in zip(where, eng.stream("message", plan)):
        if any(msgs[s] is None for s in range(S)):  # a site left after masking
            raise SiteDropout("a site left after masking: the masks cannot cancel, so the "
                              "release is aborted and nothing is published")
        parts = [msgs[s][0] if want else msgs[s] for s in range(S)]
        agg = parts[0].copy()
        for M in parts[1:]:
            agg += M  # mod 2^64: the masks cancel exactly
        check_range(agg, S, F, A)
        out[a:b] = from_fixed(agg, F)
        if want:
            _check(trace, out[a:b], sum(msgs[s][1] for s in range(S)), sig, bound)
        trace.n_values += (b - a) * (d + K)
    trace.stream_seconds = time.perf_counter() - clock
    busy = eng.call("busy_seconds", {s: () for s in range(S)})
    trace.site_seconds = tuple(float(busy[s]) for s in range(S))
    X = _round(out[:, :d], gx)
    y_soft = _round(out[:, d:], gy)
    order = coord.permutation(total)
    X, y_soft = X[order], y_soft[order]
    y = hard_labels(y_soft, gy.gamma if gy else 0.0, coord)
    return X, y, y_soft, gx, gy, total, A, F


def _round(v, grid):
    if grid is None:
        return np.array(v)
    x = v * (1.0 / grid.gamma)  # exact: gamma is a power of two
    np.rint(x, out=x)
    x *= grid.gamma
    return x


def _check(trace, agg, ideal, sig, bound):
    err = np.abs(agg - ideal)
    trace.err_over_bound = max(trace.err_over_bound, float(err.max(initial=0.0)) / bound)
    pos = sig > 0
    if pos.any():
        trace.err_over_sigma = max(trace.err_over_sigma, float((err[:, pos] / sig[pos]).max()))
    trace.worst_err = max(trace.worst_err, float(err.max(initial=0.0)))
