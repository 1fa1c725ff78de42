"""What the Samples page draws from a fidelity report (pure numpy/pandas, no Streamlit).

:func:`fidelity_frame`: one row per column (name, kind, real and released marginal in a few
words, distance, flag). :func:`mean_image_grid`: per-class mean images, real beside released.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcda.report import viz

TOP = 3  # categories named per categorical column (the real split's most frequent)


def _top(shares: dict, order: list[str]) -> str:
    return ", ".join(f"{k} {100 * shares.get(k, 0.0):.1f}%" for k in order)


def _numeric(s: dict) -> str:
    return f"median {s['median']:.3g} (p10 {s['p10']:.3g}, p90 {s['p90']:.3g})"


def fidelity_frame(report, *, top: int = TOP) -> pd.DataFrame:
    """A table of a :class:`dpcda.evaluation.fidelity.TabularFidelity`: categorical columns list the real
    split's ``top`` categories with their real and released shares (same order)."""
    rows = []
    for c in report.columns:
        if c.kind == "categorical":
            order = sorted(c.real, key=lambda k: -c.real[k])[:top]
            real, synth = _top(c.real, order), _top(c.synthetic, order)
            measure = "TV"
        else:
            real, synth, measure = _numeric(c.real), _numeric(c.synthetic), "W1 / range"
        rows.append({"column": c.name, "kind": c.kind, "real (test split)": real,
                     "release": synth, "distance": round(float(c.distance), 4),
                     "measure": measure, "far off": c.warning is not None})
    return pd.DataFrame(rows)


def mean_image_grid(report, image_shape, *, scale=None, max_classes: int | None = None):
    """uint8 grid, one row per class: the real mean image, then the released one (blank where a
    side has no row of that class); each image stretched min-max like the samples grid."""
    K = len(report.class_names) if max_classes is None else min(max_classes,
                                                                len(report.class_names))
    means = np.concatenate([report.real_means[:K], report.synthetic_means[:K]])
    ok = np.isfinite(means).all(axis=1)
    imgs = viz.release_images(np.nan_to_num(means), image_shape, scale=scale)
    cells = [[imgs[k] if ok[k] else None, imgs[K + k] if ok[K + k] else None] for k in range(K)]
    return viz.tile(cells)
