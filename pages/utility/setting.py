"""The Utility page and the shared setting (not a page itself): the sweep form's dataset, T,
c, δ, accountant and allocation filled from the setting on arrival, and written back
(:mod:`pages.setting_ui`); the grid of the sweep (several l and ε) stays the page's own."""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.explorer import DELTA_VALUES
from dpcda.dashboard.setting import Setting
from dpcda.data.presets import default_clip_norm, list_presets
from dpcda.mechanisms import MECHANISMS
from dpcda.report.formatting import nearest
from pages.setting_ui import update

K = "utility_"


def widget_values(s: Setting) -> dict:
    """The shared setting as the sweep form's widget values, by key (the accountant only where
    the form's mechanism offers it)."""
    values = {K + "dataset": s.dataset, K + "T": "" if s.T is None else str(s.T),
              K + "c": f"{s.clip_norm():g}", K + "c_for": s.dataset,
              K + "delta": nearest(DELTA_VALUES, s.delta), K + "allocation": s.allocation}
    mechanism = st.session_state.get(K + "mechanism", MECHANISMS.names()[0])
    if s.accountant in MECHANISMS.get(mechanism).accountants:
        values[K + "accountant"] = s.accountant
    return values


def publish_utility(request) -> None:
    """Write the form's dataset, T, c, δ, allocation and (for DP-CDA) accountant back."""
    if request is None:
        return
    changes = dict(T=request.T, delta=request.delta,
                   c=None if request.c == default_clip_norm(request.dataset) else request.c)
    if request.dataset in list_presets():
        changes["dataset"] = request.dataset
    if request.allocation:
        changes["allocation"] = request.allocation
    if request.mechanism == "dp-cda":
        changes["accountant"] = request.accountant
    update(**changes)
