"""Samples: what a DP-CDA release of a dataset (or an upload) looks like; download it.

Widgets -> :mod:`dpcda.dashboard.samples` / :mod:`dpcda.mechanisms` -> drawing (:mod:`pages.samples_views`).
A quick release (estimated under a second, :func:`dpcda.dashboard.samples.is_quick`) is drawn as the
sidebar moves; a slow one waits for "Generate". Releases are cached on all their inputs.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from dpcda.dashboard import samples as smp
from dpcda.data import MAX_UPLOAD_BYTES, DatasetUnavailable, available_datasets
from dpcda.mechanisms import MECHANISMS, default_normalization
from dpcda.util.messages import hide_paths
from dpcda.data.presets import default_clip_norm
from dpcda.privacy import ACCOUNTANT_INFO, ALLOCATIONS, CONVERSION_TITLES, list_conversions
from dpcda.privacy.allocation import ALLOCATION_TITLES
from pages.common import (DELTA_VALUES, L_VALUES, REFUSED, SIGMA_VALUES, accountant_choice,
                          ensure_app_navigation, explain_toggle, float_input, fmt_delta, fmt_int, fmt_sigma,
                          int_input, missing_data_note, privacy_footnote, show_problem, step_intro, typed)
from pages.report_ui import report_download, reproduce_expander
from pages.samples_fidelity import show_fidelity
from pages.samples_release import show_downloads, show_statement, show_table
from pages.setting_ui import address_problems, seed, shared_setting
from pages.samples_setting import T_RANGE, publish_samples, widget_values
from pages.samples_views import (NORMS, load_builtin, load_uploaded, make_release, noise_for, note,
                                 pictures, prefetch_mosaic, show_hint, show_mosaic, show_pictures)

UPLOAD = "upload"
SETTING_KEYS = tuple(f"samples_{k}" for k in ("l", "mode", "eps", "sigma", "c", "T", "delta", "accountant",
                    "conversion", "norm", "max_alpha", "class", "per_class", "shape", "allocation", "mosaic"))
ss = st.session_state

ensure_app_navigation()
seed("samples", widget_values(shared_setting()))  # the shared setting, on arrival
# Streamlit forgets the value of a widget that a run does not draw (this page stops before the
# release controls when a dataset's files are missing); re-assigning the values keeps them.
for _key in SETTING_KEYS:
    if _key in ss:
        ss[_key] = ss[_key]
st.title("Synthetic samples")
step_intro("pages/samples.py")
address_problems()
sb = st.sidebar
explain_toggle()
avail = {a.name: a for a in available_datasets()}  # the datasets present here come first
name = sb.selectbox("Dataset", list(avail) + [UPLOAD], key="samples_dataset", format_func=lambda n: (
    "upload a CSV / NPZ" if n == UPLOAD else avail[n].title + ("" if avail[n].present else " (no files)")))
note("dataset")
if name == UPLOAD:
    mb = MAX_UPLOAD_BYTES // 2**20
    up = sb.file_uploader(f"CSV (label in the first column, then numeric features; optional header) or "
                          f"NPZ (arrays X, y). At most {mb} MB.", type=["csv", "npz"], key="samples_upload",
                          max_upload_size=mb)
    shape_txt = sb.text_input("Image shape C,H,W (CSV only; empty = tabular)", key="samples_shape",
                              placeholder="e.g. 1,28,28")
    if up is None:
        st.info(f"Upload a CSV or NPZ file (at most {mb} MB) in the sidebar. It stays in this "
                "server's memory and is split 75/25 (stratified, fixed) into train/test.")
        st.stop()
    digest = hashlib.sha256(up.getvalue()).hexdigest()
    try:
        shape = smp.parse_image_shape(shape_txt) if up.name.lower().endswith(".csv") else None
        ds = load_uploaded(digest, up.name, shape, up.getvalue())
    except ValueError as exc:
        st.error(f"Upload rejected: {hide_paths(exc)}")
        st.stop()
    source, title = (UPLOAD, digest, up.name), up.name
else:
    try:
        ds = load_builtin(name)
    except DatasetUnavailable:
        missing_data_note(name)
        st.stop()
    except ValueError as exc:  # e.g. a corrupt file
        show_problem(exc)
        st.stop()
    source, title = ("builtin", name), avail[name].title
smallest = min(ds.class_counts)
sb.caption(f"{title}: N = {fmt_int(ds.n_train)} training rows, K = {ds.n_classes} classes, d = {ds.d_x} "
           f"features; smallest class {fmt_int(smallest)}.")

sb.header("Release")
l_options = [v for v in L_VALUES if v <= smallest] or [1]
bad_l = ss.get("samples_l") if ss.get("samples_l") not in (None, *l_options) else None
if bad_l is not None:  # e.g. left over from a dataset with larger classes: said below, once
    ss["samples_l"] = l_options[-1] if isinstance(bad_l, (int, float)) and bad_l > smallest else 1
ss.setdefault("samples_l", min(4, l_options[-1]))
l = sb.select_slider("Order of mixture l (records averaged per sample)", l_options, key="samples_l",
                     help=f"At most the smallest class ({fmt_int(smallest)}).") if len(l_options) > 1 else 1
note("l")
mode = sb.radio("Noise", ["target ε", "explicit σ"], key="samples_mode", horizontal=True,
                help="A target ε is met by calibrating σ_x = σ_y under the chosen accountant.")
note("noise_mode")
eps_in = None
if mode == "target ε":
    eps_in = typed(float_input, "Target ε", key="samples_eps", name="epsilon", lo=0.0, lo_open=True,
                   hi=1e4, value=10.0, container=sb, help="For no privacy, choose explicit σ = 0.")
    note("epsilon")
else:
    sigma_in = sb.select_slider("σ_x = σ_y (noise)", SIGMA_VALUES, key="samples_sigma", format_func=fmt_sigma)
    note("sigma_x")
if ss.get("samples_c_for") != name:  # a new dataset: its default clip norm
    ss["samples_c"], ss["samples_c_for"] = default_clip_norm(ds.name), name
c = sb.slider("Clip norm c", min_value=0.1, max_value=10.0, step=0.1, key="samples_c")
note("c")
T = typed(int_input, "T (synthetic samples)", key="samples_T", name="T", **T_RANGE, allow_empty=True,
          container=sb, placeholder=f"empty = N ({fmt_int(ds.n_train)})", help="A whole number from 1 to "
          "1,000,000,000; empty means T = N, the paper's choice (and the Privacy page's).")
note("T")
delta = sb.select_slider("δ", DELTA_VALUES, key="samples_delta", format_func=fmt_delta)
note("delta")
accountants = list(MECHANISMS.get("dp-cda").accountants)
accountant = sb.selectbox("Accountant", accountants, key="samples_accountant", format_func=accountant_choice,
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}" for a in accountants))
note("accountant")
if ss.get("samples_norm_for") != name:  # a new dataset: its default normalisation
    _norm = default_normalization(ds)  # dp-center (MNIST's default) is not offered here yet
    ss["samples_norm"], ss["samples_norm_for"] = (_norm if _norm in NORMS else "scale"), name
normalize = sb.radio("Normalization", list(NORMS), key="samples_norm", format_func=NORMS.get)
note("normalization")
allocation = sb.radio("Samples per class", ALLOCATIONS, key="samples_allocation",
                      format_func=ALLOCATION_TITLES.get)
note("allocation")
with sb.expander("Advanced"):
    conversion = st.radio("RDP → (ε, δ) conversion", list_conversions(), key="samples_conversion",
                          captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
    note("conversion", st)
    max_alpha = typed(int_input, "Largest Rényi order α_max", key="samples_max_alpha", name="max_alpha",
                      lo=3, hi=2048, value=256, container=st)
    note("max_alpha", st)
    ss.setdefault("samples_per_class", 8)
    per_class = st.slider("Samples per class in the grid", 1, 16, key="samples_per_class")
    note("grid_size", st)

# --- the setting, then the release (drawn at once when quick) ------------------------------------
if bad_l is not None:
    st.error(f"l = {bad_l} is more than this dataset allows (its smallest class has "
             f"{fmt_int(smallest)} records): l is now {ss['samples_l']}.")
if REFUSED in (eps_in, T, max_alpha):  # the refusal is shown at its input; nothing stale is drawn
    st.info("**Nothing drawn yet:** a value in the sidebar is refused (said under it, in red).")
    st.stop()
publish_samples(name, ds, l=l, eps=eps_in, sigma=None if eps_in else float(sigma_in), c=c, T=T, delta=delta,
                accountant=accountant, allocation=allocation, normalize=normalize, conversion=conversion,
                max_alpha=max_alpha)
T = T or smp.default_T(ds.n_train)
noise = ("epsilon", eps_in) if mode == "target ε" else ("sigma", float(sigma_in))
facts = dict(n=ds.n_train, class_counts=tuple(ds.class_counts), d_x=ds.d_x, d_y=ds.n_classes)
s = dict(l=l, T=T, c=c, delta=delta, accountant=accountant, conversion=conversion, max_alpha=max_alpha,
         normalize=normalize, allocation=allocation)
settings = tuple(s.items()) + (("noise", noise),)
try:
    nz = noise_for(*noise, **{k: v for k, v in s.items() if k != "normalize"}, **facts)
except ValueError as exc:
    show_problem(exc)
    st.stop()
quick = smp.is_quick(n=ds.n_train, d=ds.d_x, T=T, l=l)
st.caption(smp.setting_text(l=l, T=T, c=c, noise=nz, accountant=accountant, delta=delta, normalize=normalize))
if quick:
    ss["samples_last"] = (source, settings)
else:
    secs = smp.estimate_release_seconds(n=ds.n_train, d=ds.d_x, T=T, l=l)
    if st.button(f"Generate (about {secs:.0f} s)", type="primary", key="samples_generate"):
        ss["samples_last"] = (source, settings)
last = ss.get("samples_last")
if last is None or last[0] != source:
    st.info("This release takes a few seconds: click **Generate** to draw it.")
    st.stop()
if last[1] != settings:
    st.warning("The sidebar changed since this release was generated: click **Generate** to apply it.")
try:
    rel = make_release(source, last[1], ds, facts)
except ValueError as exc:
    show_problem(exc)
    st.stop()

rs = dict(last[1])  # the setting of the release shown
if ds.is_image:
    show_pictures(pictures(source, last[1], per_class, rel, ds), ds)
    show_hint(rel, rs, facts, smallest)
else:
    show_table(rel, ds)
show_statement(rel, ds)
if ds.is_image and st.toggle("Show the l × ε mosaic (one sample per l and ε; a few seconds)",
                             key="samples_mosaic"):
    show_mosaic(source, rs, ds, facts, rel.card["parameters"]["sigma_x"])
elif ds.is_image:  # its noise computed while the release is looked at
    prefetch_mosaic(rs, facts, rel.card["parameters"]["sigma_x"])
show_fidelity(rel, ds)
st.subheader("Download")
show_downloads(rel, ds)
page_settings = smp.report_settings(source, rs)
reproduce_expander("samples", page_settings)
report_download("samples", page_settings, release=rel)
privacy_footnote(rel.card["privacy"]["accountant"], rel.card["privacy"]["conversion"],
                 delta=rel.card["privacy"]["delta"], what="the ε of this release")
