"""Samples: what a DP-CDA release of a dataset (or an upload) looks like; download it.

Widgets -> :mod:`dpcda.dashboard.samples` / :mod:`dpcda.mechanisms` -> drawing (:mod:`pages.samples.views`).
A quick release (estimated under a second, :func:`dpcda.dashboard.samples.is_quick`) is drawn as the
sidebar moves; a slow one (MNIST-size) shows a live preview of a few samples per class at the exact
setting (:mod:`dpcda.dashboard.samples.preview`) and waits for "Generate". Releases are cached on
all their inputs.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from dpcda.dashboard import samples as smp
from dpcda.data import MAX_UPLOAD_BYTES, DatasetUnavailable, available_datasets
from dpcda.mechanisms import published_class_bounds
from dpcda.util.messages import hide_paths
from dpcda.util.verbatim import verbatim
from pages.common import (REFUSED, ensure_app_navigation, explain_toggle, missing_data_note,
                          privacy_footnote, show_problem, step_intro)
from pages.report_ui import report_download, reproduce_expander
from pages.samples.controls import dataset_caption, release_controls
from pages.samples.fidelity import show_fidelity
from pages.samples.mosaic import prefetch_mosaic, show_mosaic
from pages.samples.release import show_downloads, show_statement, show_table
from pages.setting_ui import address_problems, remember_noise, seed, shared_setting, update
from pages.samples.setting import publish_samples, widget_values
from pages.samples.views import (load_builtin, load_uploaded, make_release, noise_for, note, pictures,
                                 show_hint, show_pictures, show_preview, show_spent)

UPLOAD = "upload"
SETTING_KEYS = tuple(f"samples_{k}" for k in ("l", "mode", "eps", "sigma", "c", "T", "delta", "accountant",
                    "conversion", "norm", "max_alpha", "class", "per_class", "shape", "allocation", "mosaic",
                    "tie", "sigma_y"))
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
                "server's memory and is split 75/25 by row position into train/test.")
        st.stop()
    digest = hashlib.sha256(up.getvalue()).hexdigest()
    try:
        shape = smp.parse_image_shape(shape_txt) if up.name.lower().endswith(".csv") else None
        ds = load_uploaded(digest, up.name, shape, up.getvalue())
    except ValueError as exc:
        st.error("Upload rejected: " + verbatim(hide_paths(exc)))  # the file's text as typed
        st.stop()
    source, title = (UPLOAD, digest, up.name), verbatim(up.name)
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
limit = smp.l_limit(ds)  # the l slider's: the smallest class where published, else N // K (public)
public = published_class_bounds(ds) is not None  # a built-in split's published sizes; an upload's are its own
sb.caption(dataset_caption(title, ds, public))

v = release_controls(name, ds, limit, public)
real = (ds.is_image or v["sigma"] == 0) and sb.checkbox(
    "Show real records (not private)", key="samples_real", value=False,
    help="Adds the views of the real data: a release at σ_x = 0 (real records, or means of them), the "
         "mosaic's ε = ∞ column and the real test split's class-mean images. They are not private: "
         "for the data holder's eyes only.")
l, c, delta, accountant, normalize = v["l"], v["c"], v["delta"], v["accountant"], v["normalize"]

# --- the setting, then the release (drawn at once when quick) or its live preview ----------------
if v["bad_l"] is not None:
    st.error(smp.l_lowered_text(v["bad_l"], ss["samples_l"], ds))
if REFUSED in (v["eps"], v["T"], v["max_alpha"]):  # the refusal is shown at its input; nothing stale
    st.info("**Nothing drawn yet:** a value in the sidebar is refused (said under it, in red).")
    st.stop()
publish_samples(name, ds, l=l, eps=v["eps"], sigma=v["sigma"], sigma_y=v["sigma_y"], c=c, T=v["T"],
                delta=delta, accountant=accountant, allocation=v["allocation"], normalize=normalize,
                conversion=v["conversion"], max_alpha=v["max_alpha"])
T = v["T"] or smp.default_T(ds.n_train)
noise = ("epsilon", v["eps"]) if v["eps"] is not None else ("sigma", v["sigma"])
# public facts only: an upload's class sizes are private under whole-record (σ is then set at release)
pub = dict(target=v["eps"], l=l, T=T, delta=delta)
s = dict(l=l, T=T, c=c, delta=delta, accountant=accountant, conversion=v["conversion"],
         max_alpha=v["max_alpha"], normalize=normalize, allocation=v["allocation"], sigma_y=v["sigma_y"])
settings = tuple(s.items()) + (("noise", noise),)
try:
    facts = smp.accounting_facts(ds, accountant, **pub)
    if (too_large := smp.l_refusal(ds, accountant, l, facts["class_counts"])) is not None:
        st.error(too_large)  # an upload's exact sizes read: l and the rule only; the inputs stay
        st.stop()
    nz = None if facts["class_counts"] is None else noise_for(*noise, **s, **facts)
except ValueError as exc:
    show_problem(exc)
    st.stop()
if nz is not None:
    remember_noise(nz.sigma, nz.epsilon)  # a switch of noise mode starts from them
if nz is not None and v["eps"] is not None:  # the setting remembers the σ that meets the target
    update(sigma_x=nz.sigma)
if nz is not None and nz.sigma == 0 and not real:  # no noise: the training records or their means
    st.info("σ_x = 0 releases the training records themselves (l = 1) or means of them: nothing is "
            "shown until you tick **Show real records (not private)** in the sidebar.")
    st.stop()
quick = smp.is_quick(n=ds.n_train, d=ds.d_x, T=T, l=l)
st.caption(smp.pending_text(l=l, T=T, c=c, target=v["eps"], accountant=accountant, delta=delta) if nz is None
           else smp.setting_text(l=l, T=T, c=c, noise=nz, accountant=accountant, delta=delta,
                                 normalize=normalize, target=v["eps"]))
for n_ in smp.setting_notices(ds, accountant, sigma=v["sigma"], **pub):  # by code, as the card will say
    st.warning(n_.message)
bounds = smp.public_bounds(ds)  # the tally's (an upload's: none before a release's card)
secs = smp.estimate_release_seconds(n=ds.n_train, d=ds.d_x, T=T, l=l)
if quick or ss.get("samples_generate"):  # drawn at once, or Generate was clicked (read before drawn)
    ss["samples_last"] = (source, settings)
if ss.get("samples_last") != (source, settings):  # no button beside its own release
    st.button(f"Generate the full release (about {secs:.0f} s)", type="primary", key="samples_generate")
if ss.get("samples_last") != (source, settings):  # no release at this setting yet: its preview
    if not ds.is_image or nz is None:  # no preview without a σ
        st.info("This release takes a few seconds: click **Generate** to draw it.")
        show_spent(st, source, bounds, delta)
        st.stop()
    with st.spinner("Drawing a preview…"):
        show_preview(source, settings, ds, nz, v["per_class"], secs)
    spent_box = st.empty()  # what this server has shown from this data, once this run has drawn
    mf = smp.mosaic_facts(ds, accountant)  # an upload's: no public bounds before a release
    if mf["class_counts"] is not None and st.toggle("Show the l × ε mosaic (one sample per l and ε, "
                                                    "this setting's among them; a few seconds)",
                                                    key="samples_mosaic"):
        show_mosaic(source, dict(settings), ds, mf, nz, real)
    elif mf["class_counts"] is not None:  # its noise computed while the preview is looked at
        prefetch_mosaic(dict(settings), mf, nz, ds)
    show_spent(spent_box, source, bounds, delta)
    st.stop()
try:
    rel = make_release(source, settings, ds, facts)
    if isinstance(rel, smp.Refused) and not rel.bounds:  # drawn from a DP histogram, then refused
        raise ValueError(rel.message)
except ValueError as exc:
    show_problem(exc)
    st.stop()
if isinstance(rel, smp.Refused):  # l above the DP histogram's bounds: l and the rule only
    st.error(smp.histogram_refusal_text(l))
    show_spent(st, source, bounds, delta)
    st.stop()

rs = dict(settings)  # the setting of the release shown
nz, mf = nz or smp.card_noise(rel.card), smp.mosaic_facts(ds, accountant, rel.card)  # public: the card's
if ds.is_image:
    show_pictures(pictures(source, settings, v["per_class"], rel, ds), ds)
    show_hint(rel.card["parameters"]["sigma_x"], rs, mf, smp.hint_limit(ds, accountant, mf))
else:
    show_table(rel, ds)
show_statement(rel, ds)
spent_box = st.empty()  # what this server has shown from this data, once this run has drawn
if ds.is_image and st.toggle("Show the l × ε mosaic (one sample per l and ε, this setting's among them; "
                             "a few seconds)", key="samples_mosaic"):
    show_mosaic(source, rs, ds, mf, nz, real)
elif ds.is_image:  # its noise computed while the release is looked at
    prefetch_mosaic(rs, mf, nz, ds)
show_fidelity(rel, ds, real)
show_spent(spent_box, source, smp.public_bounds(ds, rel.card), delta, smp.bounds_failure(ds, rel.card))
st.subheader("Download")
show_downloads(rel, ds)
page_settings = smp.report_settings(source, rs)
reproduce_expander("samples", page_settings)
report_download("samples", page_settings, release=rel)
privacy_footnote(rel.card["privacy"]["accountant"], rel.card["privacy"]["conversion"],
                 delta=rel.card["privacy"]["delta"], what="the ε of this release")
