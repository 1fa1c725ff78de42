"""Samples: generate a DP-CDA release of a dataset (or an upload), look at it, download it.

Widgets -> :mod:`dpcda.mechanisms` / :mod:`dpcda.privacy` -> drawing (:mod:`dpcda.viz`).
Generation runs only when "Generate" is clicked; releases are cached on all their inputs.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import streamlit as st

from dpcda import viz
from dpcda.data import (MAX_UPLOAD_BYTES, DatasetUnavailable, available_datasets, decode_segments,
                        how_to_get, load_dataset, load_upload)
from dpcda.data.preprocess import fit_dataset_normalizer
from dpcda.mechanisms import (MECHANISMS, Release, default_normalization, generate_dpcda,
                              generate_from_dataset, save_npz, to_csv_bytes)
from dpcda.presets import default_clip_norm
from dpcda.privacy import (ACCOUNTANT_INFO, ALLOCATIONS, CONVERSION_TITLES, DEFAULT_ACCOUNTANT, PrivacyParams,
                           calibrate, caveat, compute_epsilon, list_conversions)
from dpcda.privacy.allocation import ALLOCATION_TITLES
from pages.common import (DELTA_VALUES, L_VALUES, SIGMA_GRID, SIGMA_VALUES, accountant_choice,
                          ensure_app_navigation, epsilon_words, fmt_alpha, fmt_delta, fmt_eps, fmt_int,
                          fmt_sigma, nearest, privacy_footnote)
from pages.samples_fidelity import show_fidelity

T_CAP = 10_000                       # largest T the page generates (display and download speed)
MOSAIC_L = (1, 4, 16, 64)            # rows of the l x epsilon mosaic
MOSAIC_EPS = (math.inf, 20.0, 10.0, 5.0)  # its columns
MAX_ROWS = 20                        # classes shown in the per-class grid
UPLOAD = "upload"
NORMS = {"scale": "fixed public range (data-independent, covered by the guarantee)",
         "none": "as given, rows clipped to c (covered by the guarantee)",
         "zscore": "z-score (statistics of the private data: not covered by the guarantee)"}
ss = st.session_state


def generate_dpcda_default(name: str):
    """The library's default for one of generate_dpcda's settings (the page shows it first)."""
    import inspect

    return inspect.signature(generate_dpcda).parameters[name].default


# --- cached library calls (all keyed on plain values; uploads on their sha256) ----------------

@st.cache_data(show_spinner="Loading the dataset…", max_entries=6)
def load_builtin(name: str):
    return load_dataset(name)


@st.cache_data(show_spinner="Reading the upload…", max_entries=2)
def load_uploaded(digest: str, filename: str, image_shape, _data: bytes):
    return load_upload(_data, filename, image_shape=image_shape)


@st.cache_data(show_spinner=False, max_entries=64)
def noise_for(noise: tuple, *, l, T, c, delta, n, counts, d_x, d_y, accountant, conversion, max_alpha,
              allocation="equal"):
    """(sigma, epsilon, alpha) of a setting: calibrated to a target epsilon, or for a given sigma."""
    common = dict(l=l, T=T, c=c, delta=delta, n=n, class_counts=counts, d_x=d_x, d_y=d_y,
                  allocation=allocation)
    if noise[0] == "epsilon":
        cal = calibrate(epsilon=noise[1], accountant=accountant, conversion=conversion,
                        max_alpha=max_alpha, **common)
        return cal.sigma_x, cal.epsilon, cal.alpha
    r = compute_epsilon(PrivacyParams(sigma_x=noise[1], sigma_y=noise[1], **common),
                        accountant=accountant, conversion=conversion, max_alpha=max_alpha)
    return noise[1], r.epsilon, r.alpha


@st.cache_data(show_spinner="Generating the release…", max_entries=4)
def make_release(source: tuple, settings: tuple, _ds) -> Release:
    s = dict(settings)
    mode, value = s.pop("noise")
    noise = {"epsilon": value} if mode == "epsilon" else {"sigma_x": value, "sigma_y": value}
    return generate_from_dataset(_ds, "dp-cda", **noise, **s)


@st.cache_data(show_spinner="Drawing the l × ε mosaic (each cell calibrated)…", max_entries=4)
def make_mosaic(source: tuple, settings: tuple, _ds) -> dict:
    """{(l, eps): (sigma, first image of every class (K x d, NaN where absent)) or error text}."""
    s = dict(settings)
    T, K = s.pop("T"), _ds.n_classes
    norm = fit_dataset_normalizer(_ds, s.pop("normalize"))  # fitted once for all cells
    facts = dict(n=_ds.n_train, counts=_ds.class_counts, d_x=_ds.d_x, d_y=K)
    out = {}
    for l in (v for v in MOSAIC_L if v <= min(_ds.class_counts)):
        for eps in MOSAIC_EPS:
            try:
                sigma = 0.0 if math.isinf(eps) else noise_for(
                    ("epsilon", eps), l=l, T=T, c=s["c"], delta=s["delta"], accountant=s["accountant"],
                    conversion=s["conversion"], max_alpha=s["max_alpha"], allocation=s["allocation"],
                    **facts)[0]
                # A sample of a release with this (l, sigma); 16 rows per class so every label shows
                # even when label noise is large.
                rel = generate_from_dataset(_ds, "dp-cda", l=l, T=16 * K, sigma_x=sigma, sigma_y=sigma,
                                            normalize=norm, compare_accountants=False,
                                            **{k: s[k] for k in ("c", "delta", "accountant", "conversion",
                                                                 "max_alpha", "allocation")})
            except ValueError as exc:
                out[(l, eps)] = str(exc)
                continue
            idx = viz.first_per_class(rel.y, K, 1)[:, 0]
            first = np.where((idx >= 0)[:, None], rel.X[np.maximum(idx, 0)], np.nan)
            out[(l, eps)] = (sigma, first)
    return out


def zip_of(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def npz_zip(rel: Release, stem: str):
    def build() -> bytes:  # deferred: runs when the button is clicked (no st.* calls here)
        with tempfile.TemporaryDirectory() as tmp:
            npz, card = save_npz(rel, Path(tmp) / stem)
            return zip_of({npz.name: npz.read_bytes(), card.name: card.read_bytes()})
    return build


def csv_zip(rel: Release, stem: str, feature_names=None):
    names = feature_names if feature_names is not None and len(feature_names) == rel.X.shape[1] else None
    return lambda: zip_of({f"{stem}.csv": to_csv_bytes(rel, soft_labels=True, feature_names=names),
                           f"{stem}.json": rel.card_json().encode()})


SETTING_KEYS = ("samples_l", "samples_mode", "samples_eps", "samples_sigma", "samples_c", "samples_T",
                "samples_delta", "samples_accountant", "samples_conversion", "samples_norm",
                "samples_max_alpha", "samples_class", "samples_per_class", "samples_shape",
                "samples_allocation")


def parse_shape(text: str):
    parts = [p for p in re.split(r"[,x×\s]+", text.strip()) if p]
    if not parts:
        return None
    if not all(p.isdigit() and int(p) > 0 for p in parts) or len(parts) not in (2, 3):
        raise ValueError(f"image shape must be H,W or C,H,W with positive integers, got {text!r}")
    return tuple(int(p) for p in parts)


# --- controls ---------------------------------------------------------------------------------
ensure_app_navigation()
# Streamlit forgets the value of a widget that a run does not draw, and this page stops before
# the release controls when a dataset's files are missing. Re-assigning the values keeps them.
for _key in SETTING_KEYS:
    if _key in ss:
        ss[_key] = ss[_key]
st.title("Synthetic samples")
st.caption("Generate a DP-CDA release of a dataset, see what its samples look like at a given "
           "privacy level, and download it with its data card.")
sb = st.sidebar
sb.header("Data")
avail = {a.name: a for a in available_datasets()}  # the datasets present here come first
names = list(avail) + [UPLOAD]
ss.setdefault("samples_dataset", "digits")
name = sb.selectbox("Dataset", names, key="samples_dataset", format_func=lambda n: (
    "upload a CSV / NPZ" if n == UPLOAD else avail[n].title + ("" if avail[n].present else " (no files)")),
    help="digits ships with scikit-learn and always works offline; the others need their files.")
if name == UPLOAD:
    mb = MAX_UPLOAD_BYTES // 2**20
    up = sb.file_uploader(f"CSV (label in the first column, then numeric features; optional "
                          f"header) or NPZ (arrays X, y). At most {mb} MB.", type=["csv", "npz"],
                          key="samples_upload", max_upload_size=mb)
    shape_txt = sb.text_input("Image shape C,H,W (CSV only; empty = tabular)", key="samples_shape",
                              placeholder="e.g. 1,28,28")
    if up is None:
        st.info(f"Upload a CSV or NPZ file (at most {mb} MB) in the sidebar. It stays in this "
                "server's memory and is split 75/25 (stratified, fixed) into train/test.")
        st.stop()
    data = up.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    try:
        shape = parse_shape(shape_txt) if up.name.lower().endswith(".csv") else None
        ds = load_uploaded(digest, up.name, shape, data)
    except ValueError as exc:
        st.error(f"Upload rejected: {exc}")
        st.stop()
    source = (UPLOAD, digest, up.name)
else:
    try:
        ds = load_builtin(name)
    except DatasetUnavailable:
        st.info(how_to_get(name) + " Meanwhile **digits** always works offline.")
        st.stop()
    except ValueError as exc:  # e.g. a corrupt file
        st.error(str(exc))
        st.stop()
    source = ("builtin", name)

sb.caption(f"{ds.source or ds.name}: N = {fmt_int(ds.n_train)} training rows, K = {ds.n_classes} "
           f"classes, d = {ds.d_x} features; smallest class {fmt_int(min(ds.class_counts))}.")
sb.header("Release")
smallest = min(ds.class_counts)
l_options = [v for v in L_VALUES if v <= smallest] or [1]
bad_l = None
if ss.get("samples_l") is not None and ss["samples_l"] not in l_options:
    bad_l = ss["samples_l"]  # e.g. left over from a dataset with larger classes
    ss["samples_l"] = l_options[-1] if isinstance(bad_l, (int, float)) and bad_l > smallest else 1
ss.setdefault("samples_l", min(4, l_options[-1]))
if len(l_options) > 1:
    l = sb.select_slider("Order of mixture l (records averaged per sample)", l_options, key="samples_l",
                         help=f"At most the smallest class ({fmt_int(smallest)}). Arrow keys step "
                              "through 1..16, then 8 steps per doubling (every power of two).")
else:
    l = 1
    sb.caption("l = 1 (the smallest class has a single record).")
ss.setdefault("samples_mode", "target ε")
mode = sb.radio("Noise", ["target ε", "explicit σ"], key="samples_mode", horizontal=True,
                help="A target ε is met by calibrating σ_x = σ_y under the chosen accountant.")
if mode == "target ε":
    ss.setdefault("samples_eps", 10.0)
    eps_target = sb.number_input("Target ε", min_value=0.01, max_value=1e4, step=1.0, key="samples_eps",
                                 help="For ε = ∞ (no privacy), choose explicit σ = 0.")
    noise = ("epsilon", float(eps_target))
else:
    ss.setdefault("samples_sigma", nearest(SIGMA_GRID, 0.3))
    sigma_in = sb.select_slider("σ_x = σ_y (noise)", SIGMA_VALUES, key="samples_sigma",
                                format_func=fmt_sigma, help="Log scale; 0 is the non-private setting.")
    noise = ("sigma", float(sigma_in))
if ss.get("samples_c_for") != name:  # a new dataset: its default clip norm
    ss["samples_c"], ss["samples_c_for"] = default_clip_norm(ds.name), name
c = sb.slider("Clip norm c", min_value=0.1, max_value=10.0, step=0.1, key="samples_c",
              help="Rows are scaled to L2 norm at most c before mixing (per record, data-independent).")
T_default = min(ds.n_train, T_CAP)
T_in = sb.number_input("T (synthetic samples)", min_value=1, max_value=T_CAP, value=None, step=1000,
                       key="samples_T", placeholder=f"= {fmt_int(T_default)}",
                       help=f"Empty means T = min(N, {fmt_int(T_CAP)}). The paper uses T = N; this "
                            f"page caps T at {fmt_int(T_CAP)} to keep display and downloads fast "
                            "(the library has no cap).")
T = int(T_in) if T_in else T_default
ss.setdefault("samples_delta", 1e-5)
delta = sb.select_slider("δ", DELTA_VALUES, key="samples_delta", format_func=fmt_delta)
accountants = list(MECHANISMS.get("dp-cda").accountants)
ss.setdefault("samples_accountant", DEFAULT_ACCOUNTANT)
accountant = sb.selectbox("Accountant", accountants, key="samples_accountant", format_func=accountant_choice,
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}" for a in accountants))
if ss.get("samples_norm_for") != name:  # a new dataset: its default normalisation
    ss["samples_norm"], ss["samples_norm_for"] = default_normalization(ds), name
normalize = sb.radio("Normalization", list(NORMS), key="samples_norm", format_func=NORMS.get)
ss.setdefault("samples_allocation", generate_dpcda_default("allocation"))
allocation = sb.radio("Samples per class", ALLOCATIONS, key="samples_allocation",
                      format_func=ALLOCATION_TITLES.get,
                      help="Both use only public facts (T and the class counts); the class-aware ε is the "
                           "maximum over classes of T_k mixtures at rate l/N_k.")
sb.caption("z-score statistics (per-feature mean and std) come from the private data and are "
           "**not covered** by the privacy guarantee; the fixed public range (pixels / 255, "
           "digits / 16, Adult's census ranges) learns nothing from the data.")
with sb.expander("Advanced"):
    ss.setdefault("samples_conversion", "mironov")
    conversion = st.radio("RDP → (ε, δ) conversion", list_conversions(), key="samples_conversion",
                          captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
    ss.setdefault("samples_max_alpha", 256)
    max_alpha = int(st.number_input("Largest Rényi order α_max", min_value=3, max_value=2048, step=1,
                                    key="samples_max_alpha"))
    per_class = st.slider("Samples per class in the grid", 1, 16, 8, key="samples_per_class")

settings = (("l", l), ("T", T), ("c", c), ("noise", noise), ("delta", delta), ("accountant", accountant),
            ("conversion", conversion), ("max_alpha", max_alpha), ("normalize", normalize),
            ("allocation", allocation))

# --- preview and the Generate button -----------------------------------------------------------
if bad_l is not None:
    from dpcda.mechanisms.validation import check_l_classwise
    try:
        check_l_classwise(int(bad_l), ds.class_counts, ds.class_names)
        msg = f"l = {bad_l} is not one of the offered values"
    except (ValueError, TypeError) as exc:
        msg = str(exc)
    st.error(f"{msg}. l was reset to {ss['samples_l']}.")
facts = dict(n=ds.n_train, counts=ds.class_counts, d_x=ds.d_x, d_y=ds.n_classes)
try:
    sigma, eps, _ = noise_for(noise, l=l, T=T, c=c, delta=delta, accountant=accountant,
                              conversion=conversion, max_alpha=max_alpha, allocation=allocation, **facts)
    note = f"; {caveat(accountant)}" if caveat(accountant) else ""
    preview = (f"σ_x = σ_y = {fmt_sigma(sigma)}, ε = {fmt_eps(eps)} ({accountant} accountant{note}), "
               f"δ = {fmt_delta(delta)}")
except ValueError as exc:
    preview = None
    st.error(f"This setting cannot be generated: {exc}")
left, right = st.columns([1, 4], vertical_alignment="center")
clicked = left.button("Generate", type="primary", key="samples_generate", disabled=preview is None)
right.caption(f"**Current setting:** l = {l}, T = {fmt_int(T)} ({ALLOCATION_TITLES[allocation]}), "
              f"c = {c:g}, {NORMS[normalize]}" + (f" → {preview}." if preview else "."))
if clicked:
    ss["samples_last"] = (source, settings)
last = ss.get("samples_last")
if last is None or last[0] != source:
    st.info("Choose a setting in the sidebar and click **Generate**.")
    st.stop()
if last[1] != settings:
    st.warning("The sidebar changed since this release was generated: click **Generate** to apply it.")

# --- the release ------------------------------------------------------------------------------
try:
    rel = make_release(source, last[1], ds)
except ValueError as exc:
    st.error(f"Generation failed: {exc}")
    st.stop()
p, par = rel.card["privacy"], rel.card["parameters"]
acc, conv = p["accountant"], p["conversion"]
if p["private"]:
    st.markdown(f"#### ε = {fmt_eps(p['epsilon'])} at δ = {fmt_delta(p['delta'])}")
    how = (f"calibrated to the target ε = {p['calibrated_to_epsilon']:g}"
           if p.get("calibrated_to_epsilon") else "as chosen")
    how_eps = (f"Conversion **{conv}**: {p['conversion_title']}. Rényi order α = {fmt_alpha(p['alpha'])}."
               if conv else f"Privacy loss distribution, discretisation bound "
                            f"{p.get('discretisation_bound', 0):.2g} (ε is an upper bound).")
    st.markdown(f"Accountant **`{acc}`**: {ACCOUNTANT_INFO[acc].title}. {how_eps} Noise σ_x = "
                f"{par['sigma_x']:.4g}, σ_y = {par['sigma_y']:.4g}, {how}. {epsilon_words(acc)}")
    if p.get("bound_note"):
        st.warning(f"**This ε is {p['bound_note']}.** Choose `{DEFAULT_ACCOUNTANT}` for a valid bound.")
    for other, o in p.get("other_accountants", {}).items():
        ratio = o["epsilon"] / p["epsilon"] if p["epsilon"] else float("inf")
        st.caption(f"The `{other}` accountant gives ε = {fmt_eps(o['epsilon'])} for the same noise "
                   f"({ratio:.2f}× the headline" + (f"; {o['bound_note']}" if o.get("bound_note") else "")
                   + "; the Privacy page explains the difference).")
else:
    st.markdown("#### ε = ∞ (no privacy)")
    st.warning("σ_x = σ_y = 0: this release carries **no privacy guarantee** (ε = infinity).")
for w in p.get("warnings", []):
    if not (not p["private"] and w.startswith("sigma_x = sigma_y = 0")):  # already said above
        st.warning(w)
with st.expander(f"What the `{acc}` accountant assumes"):
    st.markdown(ACCOUNTANT_INFO[acc].assumptions)
norm_card = rel.card["normalization"]
st.caption(f"l = {par['l']}, c = {par['c']:g}, T = {fmt_int(par['T'])} (per class: "
           f"{', '.join(map(str, par['T_per_class']))}; {par['allocation']}), {fmt_int(rel.n)} samples. "
           f"Normalization: {norm_card['note']}. Per sample, the "
           f"feature noise has norm about σ_x·√d = {par['sigma_x'] * math.sqrt(ds.d_x):.3g}, the "
           f"signal (an average of rows clipped to norm c) at most c = {par['c']:g}.")

if ds.is_image:
    st.subheader("Samples per class (the paper's Figure 1)")
    K = min(ds.n_classes, MAX_ROWS)
    imgs = viz.release_images(rel.X, ds.image_shape, scale=viz.display_scale(rel.preprocess.normalizer))
    grid = viz.class_grid(imgs, rel.y, K, per_class)
    big = viz.upscale(grid, viz.fit_factor(grid.shape[1], 520))
    st.image(big, width=big.shape[1], output_format="PNG",  # explicit width: no stale size on reruns
             caption=f"Rows, top to bottom: {', '.join(ds.class_names[:K])} (released hard label)"
                     + (f"; the first {K} of {ds.n_classes} classes." if K < ds.n_classes else "."))
    st.caption("Display scale: each released value is multiplied by its feature's normalizer scale "
               "(the std for z-score, the range for the fixed scale; for z-score this uses the "
               "private std, for your eyes only) and each image is stretched from its own minimum "
               "(black) to its maximum (white). Rows were clipped to norm c before mixing, so the "
               "absolute brightness cannot be recovered, and the mean image is not added back.")

    st.subheader("l × ε mosaic")
    cls = st.selectbox("Class", range(ds.n_classes), format_func=lambda k: ds.class_names[k],
                       key="samples_class",
                       width=240)
    mosaic = make_mosaic(source, tuple(kv for kv in last[1] if kv[0] not in ("l", "noise")), ds)
    scale = viz.display_scale(rel.preprocess.normalizer)
    head = st.columns([1] + [2] * len(MOSAIC_EPS))
    for col, e in zip(head[1:], MOSAIC_EPS):
        col.markdown(f"**ε = {'∞ (no privacy)' if math.isinf(e) else f'{e:g}'}**")
    for l_row in sorted({k[0] for k in mosaic}):
        cols = st.columns([1] + [2] * len(MOSAIC_EPS), vertical_alignment="center")
        cols[0].markdown(f"**l = {l_row}**")
        for col, e in zip(cols[1:], MOSAIC_EPS):
            cell = mosaic[(l_row, e)]
            if isinstance(cell, str):
                col.caption(f"not reachable: {cell}")
            elif np.isnan(cell[1][cls]).any():
                col.caption(f"σ = {fmt_sigma(cell[0])}: no sample labelled {ds.class_names[cls]}")
            else:
                img = viz.release_images(cell[1][cls][None], ds.image_shape, scale=scale)[0]
                img = viz.upscale(img, viz.fit_factor(img.shape[1], 120))
                col.image(img, width=img.shape[1], output_format="PNG",
                          caption=f"σ = {fmt_sigma(cell[0])}")
    st.caption(f"Every cell is a sample of its own release with that l and the σ that meets its ε "
               f"under the `{acc}` accountant ({conv} conversion), δ = {fmt_delta(delta)}, c = {c:g}, "
               f"T = {fmt_int(T)}, {NORMS[normalize]}; the first sample whose released label is "
               "the chosen class. Rows stop at the smallest class.")
else:
    st.subheader("Synthetic rows")
    raw = viz.to_raw_units(rel.X, rel.preprocess.normalizer, ds.segments)
    table = decode_segments(raw, ds.segments, ds.feature_names)
    table.insert(0, "label", np.asarray(ds.class_names, dtype=object)[rel.y])
    st.dataframe(table.head(200).round(2), hide_index=True, width="stretch")
    st.caption(f"The first 200 of {fmt_int(rel.n)} rows. Categories are decoded from their one-hot "
               "segments by argmax; numeric columns are mapped back to their original units through "
               "the normalizer (for z-score that uses the private mean and std: this table is for "
               "you to inspect, the downloads hold the release itself). Clipping every row to norm "
               "c before mixing pulls numeric values towards the normalizer's centre.")

show_fidelity(rel, ds)

# --- downloads --------------------------------------------------------------------------------
st.subheader("Download")
tag = "inf" if not p["private"] else f"{p['epsilon']:.3g}"
stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"dpcda_{ds.name}_l{par['l']}_eps{tag}")
d1, d2, d3 = st.columns(3)
d1.download_button("Release: NPZ + data card (.zip)", npz_zip(rel, stem), file_name=f"{stem}_npz.zip",
                   mime="application/zip", key="samples_dl_npz", on_click="ignore")
d2.download_button("Release: CSV + data card (.zip)", csv_zip(rel, stem, ds.feature_names),
                   file_name=f"{stem}_csv.zip",
                   mime="application/zip", key="samples_dl_csv", on_click="ignore")
d3.download_button("Data card (JSON)", rel.card_json(), file_name=f"{stem}.json", mime="application/json",
                   key="samples_dl_card", on_click="ignore")
st.caption("NPZ: arrays X (normalized, clipped, noisy features), y (hard labels), y_soft (soft "
           "labels). CSV: label, x0.., p0.. (soft labels). The data card records the parameters, "
           "ε with its accountant and assumptions, and the normalization; never a seed or the noise.")
privacy_footnote(acc, conv, delta=p["delta"], what="the ε of this release")
