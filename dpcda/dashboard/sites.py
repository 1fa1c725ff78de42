"""The Sites page's logic (pages/sites/ draws): the split's public design, every mode's epsilon
per threat model as S and t move, the measured accuracy, the map's geometry.

What the page shows is a function of public inputs (a built-in dataset's class sizes, the
design's own draws), the shipped measured table and noisy releases. A real split's per-site
class counts are private (the CAPE coordinator learns them; nothing published carries them):
the page shows the split's *design*, never a split's counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.dashboard.sites_data import PAGE_DELTA, PAGE_L, Noise
from dpcda.experiments.sites_table import default_learner as sites_learner
from dpcda.mechanisms.sites import SPLITS, check_counts_for, dirichlet
from dpcda.util.checks import check_float, check_int

#: The S values the page's slider offers (1 to 100).
SITE_STEPS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100)
#: The splits the page offers on a built-in dataset (by-column needs an upload's site column).
PAGE_SPLITS = ("iid", "skewed")
MODES = ("centralized", "cape", "local")


@dataclass(frozen=True)
class Design:
    """A split's public design: ``mix[s, k]`` the expected share of class k among site s's
    records, ``size[s]`` the expected share of all records at site s, ``records[s, k]`` the
    expected records (public class sizes times the design's shares; not a real split's counts)."""

    split: str
    alpha: float | None
    mix: np.ndarray
    size: np.ndarray
    records: np.ndarray


def check_sites(S, *, most: int = SITE_STEPS[-1]) -> int:
    """The number of sites, a whole number from 1 to ``most`` (ValueError naming ``sites``)."""
    return check_int("sites", S, 1, most)


def check_colluding(t, S: int) -> int:
    """``t`` colluding sites: a whole number from 0 to S - 1 (the aggregator colludes with at
    most all sites but the one whose record is protected)."""
    S = check_sites(S)
    return check_int("t", t, 0, S - 1)


def check_alpha(alpha) -> float:
    """The Dirichlet concentration of a skewed split: a number above 0."""
    return check_float("alpha", alpha, lo=0.0, lo_open=True,
                       why=" (the Dirichlet concentration of a skewed split)")


def draw_shares(S: int, K: int, alpha: float, rng=None) -> np.ndarray:
    """``(S, K)``: for every class, the sites' shares ``p ~ Dirichlet(alpha 1_S)``, as a skewed
    split draws them. They depend on no record: a public picture of the design."""
    from dpcda.randomness.secure import as_source

    S, a, rng = check_sites(S), check_alpha(alpha), as_source(rng)
    return np.stack([dirichlet(a, S, rng) for _ in range(int(K))], axis=1)


def design(split: str, S: int, class_counts, *, alpha: float | None = None,
           shares: np.ndarray | None = None) -> Design:
    """The design of an ``iid`` split (every site expects the pooled class mix and 1/S of the
    records) or a ``skewed`` one from its drawn ``shares`` (:func:`draw_shares`)."""
    if split not in PAGE_SPLITS:
        allowed = ", ".join(PAGE_SPLITS)
        raise ValueError(f"split must be one of {allowed} on a built-in dataset (by-column needs "
                         f"an upload's site column), got split={split!r}")
    S = check_sites(S)
    n = np.asarray(class_counts, dtype=np.float64)
    if split == "iid":
        records = np.tile(n / S, (S, 1))
        alpha = None
    else:
        alpha = check_alpha(alpha)
        if shares is None or np.shape(shares) != (S, len(n)):
            raise ValueError(f"shares must be an (S, K) table of Dirichlet draws for sites={S}")
        records = np.asarray(shares) * n
    size = records.sum(axis=1)
    mix = records / np.where(size > 0, size, 1.0)[:, None]
    return Design(split=split, alpha=alpha, mix=mix, size=size / n.sum(), records=records)


def local_problem(d: Design, l: int = PAGE_L) -> str | None:
    """Why the local mode cannot run on this design (the library's words), or None. The
    design's expected records are rounded down as a split cuts whole records."""
    try:
        check_counts_for(np.floor(d.records + 1e-9), l, every_site=True)
    except ValueError as exc:
        return str(exc)
    return None


def threat_rows(noise: Noise, class_counts, S: int, t: int) -> list[dict]:
    """Every mode's epsilon per threat model at ``S`` sites and ``t`` colluding sites:
    ``{"mode", "key", "threat", "epsilon", "accountant", "relation"}`` (and ``epsilon_ideal``
    where floating point leaves a view no guarantee: ``epsilon`` None then, as on the release's
    card, :func:`_floats_vacuous`). The centralized and
    local modes and CAPE's (a) are the target (as accounted by the noise table); CAPE's (b) and
    (c) are accounted here (:func:`dpcda.privacy.decentral.inside_epsilon`: the smaller of the
    counts-mixture PLD and the known-indices bound), as the release's card accounts them, for
    the even split's public design (each class's records spread as evenly as S allows).

    A ``dp-center`` noise row (``noise.stats_mu`` set) is accounted as its release's card
    accounts it (docs/decentral.md, Theorem 6): (a) and local are the composed target of that
    row's calibration (the statistics' share taken from the target, the mixing's noise larger);
    (b) and (c) compose the statistics' view, ``mu_c sqrt(S/H)``, into both bounds."""
    from dpcda.privacy import samples_per_class
    from dpcda.privacy.decentral import RELATION, inside_epsilon
    from dpcda.mechanisms.dp_cda import DEFAULT_ALLOCATION

    S = check_sites(S)
    t = check_colluding(t, S)
    counts = np.asarray(class_counts, dtype=np.int64)
    t_k = samples_per_class(noise.T, counts, DEFAULT_ALLOCATION)
    even = np.array([[n // S + (s < n % S) for n in counts] for s in range(S)], dtype=np.int64)
    kw = dict(S=S, sigma=noise.sigma_x, c=noise.c, l=noise.l, per_class=t_k, site_counts=even,
              delta=noise.delta, mask_ratio=math.inf, stats_mu=noise.stats_mu)

    def inside(t: int) -> dict:
        eps, acc, _ = inside_epsilon(t=t, **kw)
        row = dict(epsilon=eps, accountant=acc, relation=RELATION)
        if eps is not None and _floats_vacuous(noise, t_k, len(counts), S, t, eps):
            row.update(epsilon=None, epsilon_ideal=eps)  # as the release's card says it
        return row

    a = dict(epsilon=noise.epsilon_a, accountant=noise.accountant, relation=noise.relation)
    rows = [dict(mode="centralized", key="a", threat="an outside reader (one trusted curator)", **a),
            dict(mode="cape", key="a", threat="an outside reader (the centralized law)", **a)]
    if S > 1:
        rows.append(dict(mode="cape", key="b", threat="the aggregator (every message)", **inside(0)))
    if t >= 1:
        rows.append(dict(mode="cape", key="c", threat=f"the aggregator with t = {t} colluding sites",
                         **inside(t)))
    local = dict(accountant=noise.accountant, relation=noise.relation, epsilon=noise.epsilon)
    rows.append(dict(mode="local", key="a, b, c", threat="anyone: each site releases its own "
                     "(the target per site, parallel composition)", **local))
    return rows


def _floats_vacuous(noise: Noise, t_k, K: int, S: int, t: int, eps: float) -> bool:
    """Whether floating point leaves view (c, ``t``) no guarantee, as the release's card decides
    it (:func:`dpcda.mechanisms.cape_card.inside_threats`: ``delta_total >= 1`` for the honest
    ``S - t`` sites' lattice sum of the mixtures' values; the card adds ``dp-center``'s ``d``
    statistics, a cost this leaves out, so where this says vacuous the card does too)."""
    from dpcda.data.presets import get_preset
    from dpcda.mechanisms.cape_float import value_bound
    from dpcda.mechanisms.cape_grid import lattice_cost, share_grid_bits

    if not noise.sigma_x > 0:
        return False
    n, d = int(np.sum(t_k)), int(get_preset(noise.dataset).d_x)
    A = value_bound(noise.c, noise.sigma_x, noise.sigma_y, S)
    F = share_grid_bits(S, noise.sigma_x, noise.sigma_y)
    cost = lattice_cost(S - t, S, A, F, (n * d, noise.sigma_x), (n * K, noise.sigma_y))
    return bool(cost.card(eps, noise.delta)["vacuous"])


def accuracy_by_sites(rows, *, dataset: str, epsilon: float, split: str, alpha: float | None,
                      learner: str | None = None, normalize: str = "scale",
                      ) -> dict[str, dict[int, tuple[float, int, str, str]]]:
    """``{mode: {S: (accuracy, runs, learner, commit)}}`` from the measured table's ``rows``
    (:func:`dpcda.experiments.sites_table.load_sites_table`) at this setting, of releases
    normalised by ``normalize``, measured with ``learner`` (default: today's default learner,
    :func:`dpcda.experiments.sites_table.default_learner`). Rows of an earlier
    default learner stay in the table as a record but are not shown as today's accuracy."""
    learner = sites_learner(dataset, epsilon) if learner is None else learner
    out: dict[str, dict[int, tuple[float, int, str, str]]] = {m: {} for m in MODES}
    want = (dataset, float(epsilon), split, learner, normalize)
    for r in rows:
        if (r.dataset, r.epsilon, r.split, r.learner, getattr(r, "normalize", "scale")) != want:
            continue
        if split == "skewed" and (r.alpha is None or alpha is None or abs(r.alpha - alpha) > 1e-9):
            continue
        if r.mode in out:
            out[r.mode][r.sites] = (r.accuracy, r.runs, r.learner, r.commit)
    return out


def ring(S: int, radius: float = 0.36) -> list[tuple[float, float]]:
    """The map's site positions (paper coordinates in 0..1) on a circle round the aggregator at
    the centre, the first at the top, clockwise."""
    S = check_sites(S)
    return [(0.5 + radius * math.sin(2 * math.pi * s / S), 0.5 + radius * math.cos(2 * math.pi * s / S))
            for s in range(S)]


__all__ = ["Design", "MODES", "PAGE_DELTA", "PAGE_L", "PAGE_SPLITS", "SITE_STEPS", "SPLITS",
           "accuracy_by_sites", "check_alpha", "check_colluding", "check_sites", "design",
           "draw_shares", "local_problem", "ring", "sites_learner", "threat_rows"]
