"""A CAPE release across sites that each read their own file (``dpcda sites --site-files``).

The coordinator (this process) holds only public things: each site's locator (a path on that
site's machine, :mod:`dpcda.mechanisms.site_source`), the class names, the public normalisation
and the privacy target. The sites load their records where they run (the ``inline``, ``local``
or ``ray`` engine: docs/cape_engine.md), and the release is
:func:`dpcda.mechanisms.cape.generate_sites`'s ``cape`` mode. ``test_file`` (optional) is the
evaluator's own labelled data, read here: the project's default learner for tabular data is
trained on the release and tested on it, preprocessed like the release (the public
normalisation, the clip norm), as :mod:`dpcda.experiments.sites_run` does for a dataset.

Returns plain JSON ``{"cape": {...}}`` and the release. Only ``cape``: ``centralized`` needs the
records pooled in one place, and ``local`` each site's own release (not this deployment's).
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

import numpy as np


def run_site_files(*, site_files, classes, epsilon: float, T: int, l: int = 4,
                   delta: float = 1e-5, c: float = 1.0, normalize: str = "scale", bounds=None,
                   colluding=None, engine: str = "auto", address: str | None = None,
                   test_file: str | None = None):
    """``({"cape": {"accuracy" (None without test_file), "epsilon", "accountant",
    "threat_models", "release_seconds", ...}}, release)``; see the module docstring."""
    from dpcda.mechanisms.cape import SITE_NORMALIZE, check_colluding, generate_sites
    from dpcda.mechanisms.cape_engine import ENGINES
    from dpcda.mechanisms.site_source import SiteFile, load_site, site_sources
    from dpcda.mechanisms.validation import check_int

    if normalize not in SITE_NORMALIZE:  # refused before any site is started
        raise ValueError(f"normalize must be one of {', '.join(SITE_NORMALIZE)} across sites, "
                         f"got normalize={normalize!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got engine={engine!r}")
    sources = site_sources(site_files, classes)
    T = check_int("T", T, 1)
    if colluding is not None:
        colluding = check_colluding(colluding, sources.S)
    test = None
    if test_file is not None:  # the evaluator's own data: read here, before any release
        if not str(test_file).lower().endswith((".csv", ".npz")):
            raise ValueError(f"test_file must end in .csv or .npz, got {str(test_file)!r}")
        if not os.path.isfile(test_file):
            raise ValueError(f"test_file: no file {str(test_file)!r}")
        try:
            X_te, y_te, _ = load_site(SiteFile(str(test_file)), 0, 1, sources.classes)
        except ValueError as exc:  # worded for the test file, not for a site's file
            raise ValueError(f"test_file {str(test_file)!r} could not be used: it needs the label "
                             "first and a finite number in every feature cell (CSV) or arrays X "
                             f"and y (NPZ), and labels among classes={list(sources.classes)!r}"
                             ) from exc
        test = (X_te, y_te)
    t0 = time.perf_counter()
    rel = generate_sites(sources, mode="cape", l=l, T=T, epsilon=epsilon, delta=delta, c=c,
                         normalize=normalize, bounds=bounds, colluding=colluding, engine=engine,
                         address=address)
    seconds = time.perf_counter() - t0
    p = rel.card["privacy"]
    out = {"accuracy": None, "epsilon": p["epsilon"], "accountant": p["accountant"],
           "threat_models": p["threat_models"], "release_seconds": seconds,
           "engine": rel.card["parameters"]["engine"], "sites": sources.S, "split": sources.split,
           "l": int(l), "T": T}
    if test is not None:
        if test[0].shape[1] != rel.X.shape[1]:
            raise ValueError("test_file must have the sites' feature columns (the same number "
                             "and order as every site's file)")
        out["accuracy"], out["learner"] = _evaluate(rel, *test, len(sources.classes), epsilon)
    return {"cape": out}, rel


def _evaluate(rel, X_test, y_test, K: int, epsilon) -> tuple[float, str]:
    """The project's default learner for tabular data on the release, tested on the real data
    (:func:`dpcda.experiments.sites_run._train`, which preprocesses it like the release)."""
    from dpcda.experiments.run import resolve_model
    from dpcda.experiments.sites_run import _train
    from dpcda.training import TrainConfig

    model = resolve_model({"dataset": "site-files", "epsilon": epsilon}, "auto")
    ds = SimpleNamespace(n_classes=K, class_counts=None, image_shape=None,
                         d_x=rel.X.shape[1], y_test=np.asarray(y_test))
    cfg = SimpleNamespace(train=TrainConfig(), l=rel.card["parameters"]["l"])
    return _train(rel, ds, X_test, cfg, model, "cape"), model
