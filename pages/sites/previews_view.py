"""The Sites page's previews (not a page itself): a few synthetic digits per mode from the
small shipped release (dpcda/dashboard/sites_data.py), at the shipped S nearest the slider."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcda.dashboard.sites import MODES
from pages.sites.modes_view import TITLES


@st.cache_resource
def _previews() -> dict:
    from dpcda.dashboard.sites_data import load_previews

    return load_previews()


def draw_previews(S: int, normalize: str = "scale") -> None:
    data = _previews()
    shipped = sorted(int(s) for s in data.get("sites", {}))
    if not shipped:
        st.info("No previews are shipped with this copy (benchmarks/sites_page_data.py "
                "--previews writes them).")
        return
    near = min(shipped, key=lambda s: (abs(s - S), s))
    setting = data["setting"]
    st.caption(f"Synthetic digits from one release per mode on the bundled digits dataset: "
               f"ε = {setting['epsilon']:g} (noise calibrated under `{setting['accountant']}` in every "
               f"mode, a fast RDP bound), S = {near} iid sites, l = {setting['l']} "
               f"(shipped at S = {', '.join(map(str, shipped))}; commit {setting['commit']}). "
               "Brighter is larger; each mode's images are scaled to their largest value. A "
               "single synthetic digit is mostly noise at this ε; the class means show what "
               "the release carries, and how much noisier the local mode is."
               + ("" if normalize == "scale" else
                  f" These previews are scale releases, not {normalize}'s."))
    cols = st.columns(len(MODES))
    for col, mode in zip(cols, MODES):
        got = data["sites"][str(near)].get(mode)
        if not got:
            continue
        col.markdown(f"**{TITLES[mode]}** · σ_x = {got['sigma_x']:.3g}")
        means = np.asarray(got.get("class_means", []), dtype=np.float64).reshape(-1, 8, 8)
        if len(means):
            col.caption("Each class's mean of its synthetic digits (post-processing):")
            col.image([np.kron(im, np.ones((7, 7))) for im in means], width=56, clamp=True,
                      caption=[str(k) for k in range(len(means))])
        imgs = np.asarray(got["images"], dtype=np.float64).reshape(-1, 8, 8)
        col.caption("Single synthetic digits (each a mean of l records plus the noise):")
        col.image([np.kron(im, np.ones((7, 7))) for im in imgs], width=56, clamp=True,
                  caption=[str(v) for v in got["labels"]])
