"""Samples page, fidelity section: the release's marginals against the real test split.

Drawing only; the numbers come from :mod:`dpcda.evaluation.fidelity` and :mod:`dpcda.report.fidelity_display`.
"""

from __future__ import annotations

import streamlit as st

from dpcda.report import viz
from dpcda.evaluation.fidelity import IMAGE_THRESHOLD, TV_THRESHOLD, W1_THRESHOLD, release_fidelity
from dpcda.report.fidelity_display import fidelity_frame, mean_image_grid
from dpcda.report.formatting import fmt_cell, markdown_table
from dpcda.util.messages import hide_paths
from dpcda.util.verbatim import verbatim

MAX_CLASSES = 20


#: Said where the fidelity numbers are shown: they are not covered by the release's ε.
OUTSIDE_EPSILON = ("**Computed on the real data, outside ε:** these numbers compare the release with "
                   "the real test split, so they are not differentially private. They are for the "
                   "data holder; do not publish them with the release.")


def show_fidelity(rel, ds, real: bool = False) -> None:
    """Fidelity table (tables) or per-class mean images (images), with a warning where far off;
    the real test split's class-mean images only with ``real`` (the reader's opt-in)."""
    st.subheader("Fidelity: release against the real test split")
    st.caption(OUTSIDE_EPSILON)
    try:
        rep = release_fidelity(rel, ds, preprocess=rel.preprocess)
    except ValueError as exc:
        st.error("No fidelity report for this release: " + verbatim(hide_paths(exc)))
        return
    if rep.warnings:
        st.warning("**Some marginals of this release are far from the real data.** "
                   + " ".join(f"{verbatim(w.text)}." for w in rep.warnings))  # names as typed
    if ds.is_image:
        K = min(ds.n_classes, MAX_CLASSES)
        if real:
            grid = mean_image_grid(rep, ds.image_shape, scale=viz.display_scale(
                rel.preprocess.normalizer), max_classes=K)
            big = viz.upscale(grid, viz.fit_factor(grid.shape[1], 160))
            st.image(big, width=big.shape[1], output_format="PNG",
                     caption="Per-class mean image: real test split (left), release by its hard "
                             "label (right)")
        else:
            st.caption("The real test split's class-mean images are left out: **Show real records "
                       "(not private)** in the sidebar adds them.")
        st.markdown(markdown_table([  # a plain table: no data grid script on the first view
            {"class": verbatim(name), "relative L2 distance": fmt_cell(float(d), "{:.3f}".format)}
            for name, d in zip(rep.class_names[:K], rep.distances[:K])]))
        st.caption(f"Distance ‖mean release − mean real‖ / ‖mean real‖ in the release's space "
                   f"({rep.space}); flagged above {IMAGE_THRESHOLD:g}.")
        return
    st.dataframe(fidelity_frame(rep), hide_index=True, width="stretch")
    st.caption(f"Compared in the release's space ({rep.space}). Categorical columns (and the "
               f"label): total-variation distance of the category shares, flagged above "
               f"{TV_THRESHOLD:g}. Numeric columns: Wasserstein-1 distance divided by the real "
               f"column's range, flagged above {W1_THRESHOLD:g} (numeric values are averages "
               "of l clipped rows plus noise, so their spread differs from single rows).")
