"""What the Sites page reads from files shipped with the package, and how they are made
(``benchmarks/sites_page_data.py`` writes them; docs/dashboard.md, "Sites").

* ``sites_noise.csv``: the centralized noise ``sigma_x = sigma_y`` of a target epsilon for the
  built-in datasets, calibrated exactly as a CAPE or centralized release calibrates it (the
  project's default accountant, from the preset's public class counts, T = N, l = 4, the
  floating-point reserve kept back), one row per normalisation the page offers: ``scale`` and
  ``dp-center`` (whose statistics step's ``mu`` takes its share of the target, so its mixing
  noise is larger; the row keeps that ``stats_mu``). Calibrating takes tens of seconds (a
  ``dp-center`` row: 4 s on digits, 20 s on MNIST); the threat models' epsilons computed from
  a row take well under one, so the page computes those live.
* ``sites_previews.json``: a few synthetic digits per mode (a small release on the bundled
  digits dataset, not seeded): noisy releases, nothing else. Their noise is calibrated under
  :data:`PREVIEW_ACCOUNTANT` (an RDP bound that calibrates in a fraction of a second, where the
  default ``whole-record`` takes a minute per site on digits): the same accountant in the three
  modes, so the previews compare the modes' noise like for like.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOISE_PATH = HERE / "sites_noise.csv"
PREVIEWS_PATH = HERE / "sites_previews.json"
NOISE_FIELDS = ("dataset", "epsilon", "l", "T", "delta", "c", "sigma_x", "sigma_y", "accountant",
                "relation", "epsilon_a", "normalize", "stats_mu", "commit")
#: The settings the page offers (those the noise table holds).
PAGE_DATASETS = ("digits", "mnist", "fashion-mnist")
PAGE_EPSILONS = (1.0, 2.0, 5.0, 10.0)
PAGE_L = 4
PAGE_DELTA = 1e-5
PREVIEW_ACCOUNTANT = "class-aware"
#: The normalisations the page offers (``none`` is not: the presets' raw ranges are not ``c``).
PAGE_NORMALIZE = ("scale", "dp-center")


@dataclass(frozen=True)
class Noise:
    """The centralized release's noise at one public setting, with what it was accounted by."""

    dataset: str
    epsilon: float
    l: int
    T: int
    delta: float
    c: float
    sigma_x: float
    sigma_y: float
    accountant: str
    relation: str
    epsilon_a: float
    normalize: str = "scale"
    #: ``dp-center``: the statistics step's centralized GDP parameter (None for ``scale``).
    stats_mu: float | None = None


def measure_noise(dataset: str, epsilon: float, *, l: int = PAGE_L, delta: float = PAGE_DELTA,
                  normalize: str = "scale") -> Noise:
    """Calibrate the centralized noise of ``dataset``'s preset (public facts only) to ``epsilon``
    as :mod:`dpcda.mechanisms.cape_run` does (tens of seconds with the default accountant).
    ``normalize="dp-center"``: the statistics step's ``mu`` taken from the target as the release
    takes it (:func:`~dpcda.mechanisms.dp_cda_account.release_stats_mu` at the calibration's
    aim and delta) and composed into the calibration, so the mixing gets the rest: more noise,
    and ``epsilon_a`` is the composed (a)."""
    from dataclasses import replace

    import numpy as np

    from dpcda.data.presets import default_clip_norm, get_preset
    from dpcda.mechanisms.dp_cda import DPCDAConfig
    from dpcda.mechanisms.dp_cda_account import account, release_stats_mu
    from dpcda.randomness.noise import calibration_aim, delta_aim

    if normalize not in PAGE_NORMALIZE:
        raise ValueError(f"normalize must be one of {', '.join(PAGE_NORMALIZE)}, "
                         f"got normalize={normalize!r}")
    p = get_preset(dataset)
    counts = np.asarray(p.class_counts, dtype=np.int64)
    N, K, d = int(counts.sum()), len(counts), int(p.d_x)
    cfg = DPCDAConfig(l=l, T=N, c=default_clip_norm(dataset), epsilon=epsilon, delta=delta)
    n_values = N * (d + K) + d + K
    aim = calibration_aim(epsilon, n_values)
    mu = None
    if normalize == "dp-center":  # as cape_run._calibrate: the aim's share at delta's aim
        d_aim = delta_aim(delta, epsilon, n_values)
        mu = release_stats_mu(aim, d_aim)
        cfg_aim = replace(cfg, epsilon=aim, delta=d_aim)
    else:
        cfg_aim = replace(cfg, epsilon=aim)
    sx, sy, priv = account(cfg_aim, N=N, counts=counts, d=d, K=K, compare=False, bounds=counts,
                           stats_mu=mu)
    return Noise(dataset=dataset, epsilon=float(epsilon), l=int(l), T=N, delta=float(delta),
                 c=float(cfg.c), sigma_x=float(sx), sigma_y=float(sy), accountant=cfg.accountant,
                 relation=str(priv.get("relation", "")), epsilon_a=float(priv["epsilon"]),
                 normalize=normalize, stats_mu=None if mu is None else float(mu))


def load_noise(path: Path | str = NOISE_PATH) -> dict[tuple[str, float, str], Noise]:
    """``{(dataset, epsilon, normalize): Noise}`` from the shipped table (empty if none; a row
    without a ``normalize`` column is a ``scale`` row)."""
    path = Path(path)
    if not path.exists():
        return {}
    out = {}
    with path.open() as f:
        for r in csv.DictReader(f):
            n = Noise(dataset=r["dataset"], epsilon=float(r["epsilon"]), l=int(r["l"]), T=int(r["T"]),
                      delta=float(r["delta"]), c=float(r["c"]), sigma_x=float(r["sigma_x"]),
                      sigma_y=float(r["sigma_y"]), accountant=r["accountant"],
                      relation=r["relation"], epsilon_a=float(r["epsilon_a"]),
                      normalize=r.get("normalize") or "scale",
                      stats_mu=float(r["stats_mu"]) if r.get("stats_mu") else None)
            out[(n.dataset, n.epsilon, n.normalize)] = n
    return out


def make_previews(*, sites: int, epsilon: float, per_mode: int = 10,
                  accountant: str = PREVIEW_ACCOUNTANT) -> dict:
    """A release of each mode on the bundled digits (iid split into ``sites``), noise calibrated
    to ``epsilon`` under ``accountant`` as the mode does (local: per site); ``per_mode`` rows of
    each, classes in turn, and every class's mean of its synthetic rows (post-processing).
    Returns ``{mode: {"images": [[64 values in 0..1]], "labels": [...], "class_means": [[64
    values]] (classes 0..9), "sigma_x": ...}}``."""
    import numpy as np
    from sklearn.datasets import load_digits

    from dpcda.mechanisms.cape import generate_sites
    from dpcda.mechanisms.sites import split_sites

    X, y = load_digits(return_X_y=True)
    placed = split_sites(X, y, sites=sites, split="iid", n_classes=10)
    out = {}
    for mode in ("centralized", "cape", "local"):
        rel = generate_sites(placed, mode=mode, l=PAGE_L, T=len(y), epsilon=epsilon,
                             delta=PAGE_DELTA, bounds=(0, 16), dataset="digits",
                             accountant=accountant)
        rows = [int(np.flatnonzero(rel.y == k % 10)[k // 10]) for k in range(per_mode)]
        means = np.stack([np.asarray(rel.X[rel.y == k], dtype=np.float64).mean(axis=0)
                          for k in range(10)])  # post-processing of the release
        params = rel.card["parameters"]
        sx = params.get("sigma_x")
        if sx is None:
            sx = max(params.get("sigma_x_per_site") or [0.0])
        out[mode] = {"images": _unit(rel.X[rows]), "labels": [int(rel.y[r]) for r in rows],
                     "class_means": _unit(means), "sigma_x": float(sx)}
    return out


def _unit(img) -> list:
    """Images scaled to 0..1 for display (negative values, all noise, shown black)."""
    import numpy as np

    img = np.clip(np.asarray(img, dtype=np.float64), 0.0, None)
    return np.round(img / max(float(img.max()), 1e-12), 3).tolist()


def load_previews(path: Path | str = PREVIEWS_PATH) -> dict:
    """``{"setting": {...}, "sites": {S: {mode: {...}}}}`` (empty if none)."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else {}
