"""Choose: up to three candidate settings side by side, one chosen, its report downloaded.

The shared setting (:mod:`pages.setting_ui`, set on the Privacy page or by the address) is added
as a candidate; the numbers come from :mod:`dpcda.dashboard.candidates`, the report from
:mod:`dpcda.report.choice_html` (drawn by :func:`pages.report_ui.candidates_panel`). The candidates
and the choice are carried in the address too, to share a shortlist (:mod:`pages.choose.link`).
"""

from __future__ import annotations

import streamlit as st

from dpcda.data import get_dataset_spec
from dpcda.report.formatting import fmt_delta
from pages.choose.link import address_problems as link_problems, read_address, write_address
from pages.common import ensure_app_navigation, explain_toggle
from pages.jobs_ui import open_job_store
from pages.report_ui import candidates_panel
from pages.setting_ui import address_problems, shared_setting

ensure_app_navigation()
st.title("Choose a setting for the meeting")
address_problems()
explain_toggle()
setting = shared_setting()
noise = (f"target ε = {setting.epsilon:g} ({setting.accountant})" if setting.epsilon is not None
         else f"σ_x = {setting.sigma_x:g}")
st.caption(f"**Current setting:** {get_dataset_spec(setting.dataset).title}, l = {setting.l}, {noise}, "
           f"δ = {fmt_delta(setting.delta)}, "
           f"{setting.allocation} allocation. Change it on the Privacy page, then add it here; up to "
           "three candidates side by side, each ε under both neighbouring relations.")
store = open_job_store()
read_address(store)  # a link to a shortlist: its candidates measured again
link_problems()
candidates_panel(setting, store)
write_address()
