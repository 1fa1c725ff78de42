"""Samples page, drawing: the pictures of a release, the legibility hint, the mosaic.

Cached library calls (keyed on plain values) and drawing only; what is computed lives in
:mod:`dpcda.dashboard.samples` (pictures, legibility rule, mosaic, noise, download files).
"""

from __future__ import annotations

import math

import streamlit as st

from dpcda.dashboard import samples as smp
from dpcda.report import viz
from dpcda.data.preprocess import fit_dataset_normalizer
from dpcda.mechanisms.prepare import fit_preprocessor
from dpcda.privacy import caveat
from pages.common import POWERS_OF_TWO, explain, explain_on, fmt_delta, fmt_int, fmt_sigma

NORMS = {"scale": "fixed public range (data-independent, covered by the guarantee)",
         "none": "as given, rows clipped to c (covered by the guarantee)",
         "zscore": "z-score (statistics of the private data: not covered by the guarantee)"}
GRID_WIDTH = 720  # px the samples grid is drawn at (sharp pixels), then sized to its column


def note(key: str, where=None) -> None:
    """An input's plain note under it (in the sidebar unless ``where``) when Explain is on, else
    just its privacy direction."""
    from dpcda.dashboard.explain import ends_text

    where = where or st.sidebar
    if explain_on():
        explain(key, container=where)
    elif ends_text(key):
        where.caption(ends_text(key))


@st.cache_resource(show_spinner="Loading the dataset…", max_entries=6)
def load_builtin(name: str):  # a resource: its arrays are read-only, and MNIST unpickled per run cost 0.1 s
    from dpcda.data import load_dataset

    return load_dataset(name)


@st.cache_data(show_spinner="Reading the upload…", max_entries=2)
def load_uploaded(digest: str, filename: str, image_shape, _data: bytes):
    from dpcda.data import load_upload

    return load_upload(_data, filename, image_shape=image_shape)


@st.cache_data(show_spinner=False, max_entries=128)
def noise_for(mode: str, value: float, **setting) -> smp.Noise:
    return smp.noise_for(mode, value, **setting)


@st.cache_data(show_spinner=False, max_entries=256)
def quick_epsilon(sigma: float, **setting) -> float:
    return smp.quick_epsilon(sigma, **setting)


@st.cache_data(show_spinner="Generating the release…", max_entries=4)
def make_release(source: tuple, settings: tuple, _ds, facts: dict):
    s = dict(settings)
    mode, value = s.pop("noise")
    nz = noise_for(mode, value, **{k: v for k, v in s.items() if k != "normalize"}, **facts)
    return smp.generate_release(_ds, nz, target_epsilon=value if mode == "epsilon" else None, **s)


@st.cache_data(show_spinner=False, max_entries=8)
def pictures(source: tuple, settings: tuple, per_class: int, _rel, _ds) -> smp.SamplePictures:
    return smp.sample_pictures(_rel, _ds.image_shape, per_class=per_class,
                               class_names=_ds.class_names)


@st.cache_data(show_spinner="Looking for an l that makes samples readable…", max_entries=64)
def legibility(*, c, sigma, l, epsilon, smallest, privacy: tuple) -> smp.Legibility:
    # An upper bound on epsilon (quick_epsilon): an l it names certainly meets the target.
    return smp.legibility_hint(c=c, sigma=sigma, l=l, epsilon=epsilon,
                               epsilon_at=lambda l_, s: quick_epsilon(s, l=l_, c=c, **dict(privacy)),
                               candidates=[v for v in POWERS_OF_TWO if v <= smallest])


def show_pictures(pics: smp.SamplePictures, ds) -> None:
    """The per-class grid beside each class's mean and that mean denoised."""
    f = viz.fit_factor(pics.grid.shape[1], GRID_WIDTH)
    # Sized to the page (issue 21: ~230 px beside empty space read badly on a projector): the
    # columns follow the images' widths, so both fill theirs at one height, about 0.6 of the
    # page's width (a projector's screen); the words take the rest of the row.
    widths = smp.picture_columns(pics.grid.shape, pics.means_tile.shape)
    left, right, words = st.columns(widths, gap="medium")
    left.image(viz.upscale(pics.grid, f), width="stretch", output_format="PNG",
               caption="Released samples, one row per class (by released label)")
    right.image(viz.upscale(pics.means_tile, f), width="stretch",
                output_format="PNG", caption="Per class: the mean of its samples · denoised")
    K = len(pics.class_names)
    words.caption(f"Rows, top to bottom: {', '.join(pics.class_names)}"
               + (f" (the first {K} of {ds.n_classes} classes)" if K < ds.n_classes else "")
               + ". Right: each class's mean, what a learner can recover from the release, and that "
                 f"mean denoised. Each mean averages {fmt_int(int(pics.counts.min()))}–"
               f"{fmt_int(int(pics.counts.max()))} samples, so its noise is that many times "
               "smaller in variance. Denoising is post-processing of the release only (a "
               f"Gaussian blur of {pics.smoothing_px:g} px"
               + (", values below the public range clipped" if pics.floor is not None else "")
               + "): it uses no private data and costs no privacy. Display: each image is "
                 "stretched from its own minimum (black) to maximum (white).")


def show_hint(rel, rs: dict, facts: dict, smallest: int) -> None:
    """A plain hint when every sample of the release is static (:mod:`dpcda.dashboard.samples.legibility`)."""
    priv = {k: rs[k] for k in ("T", "delta", "accountant", "conversion", "max_alpha", "allocation")}
    hint = legibility(c=rs["c"], sigma=rel.card["parameters"]["sigma_x"], l=rs["l"], smallest=smallest,
                      epsilon=rs["noise"][1] if rs["noise"][0] == "epsilon" else None,
                      privacy=tuple({**facts, **priv}.items()))
    if hint.static:
        st.info(hint.hint)


@st.cache_resource(show_spinner=False, max_entries=4)
def class_rows(source: tuple, normalize: str, c: float, k: int, _ds):
    pre = fit_preprocessor(_ds.X_train, fit_dataset_normalizer(_ds, normalize), c=c)
    return smp.class_table(_ds.X_train, _ds.y_train, k, pre), viz.display_scale(pre.normalizer)


def cell_sigma(value):
    """A mosaic_sigmas entry: the noise, or its error text raised as a ValueError."""
    if isinstance(value, str):
        raise ValueError(value)
    return value


def _mosaic_privacy(s: dict) -> dict:
    return {k: s[k] for k in ("T", "c", "delta", "accountant", "conversion", "max_alpha", "allocation")}


def prefetch_mosaic(s: dict, facts: dict, start: float) -> None:
    """Compute the mosaic's noise in the background while the release is looked at (the
    toggle then finds it remembered: :func:`dpcda.dashboard.samples.mosaic_sigmas_at`)."""
    from dpcda.dashboard.background import prefetch

    priv = _mosaic_privacy(s)
    prefetch([lambda: smp.mosaic_sigmas_at(start=start or 0.3, **priv, **facts)],
             key=("mosaic", start, *priv.items(), *facts.items()), delay=0.3)


def show_mosaic(source: tuple, s: dict, ds, facts: dict, start: float) -> None:
    """One sample of the chosen class for l in MOSAIC_L and epsilon in MOSAIC_EPS (``start``:
    a noise level to start the search from, e.g. the release's)."""
    cls = st.selectbox("Class", range(ds.n_classes), format_func=lambda k: ds.class_names[k],
                       key="samples_class", width=240)
    table, scale = class_rows(source, s["normalize"], s["c"], cls, ds)
    with st.spinner("Calibrating the noise of every cell…"):
        sig = smp.mosaic_sigmas_at(start=start or 0.3, **_mosaic_privacy(s), **facts)
        cells = smp.mosaic_cells(table, sigma_for=lambda l, e: cell_sigma(sig[(l, e)]))
    cols = st.columns(len(smp.MOSAIC_EPS) + 1)
    for col, e in zip(cols[1:], smp.MOSAIC_EPS):
        col.markdown(f"**ε = {'∞' if math.isinf(e) else f'{e:g}'}**")
    for cell in cells:
        if cell.epsilon == smp.MOSAIC_EPS[0]:
            cols = st.columns(len(smp.MOSAIC_EPS) + 1, vertical_alignment="center")
            cols[0].markdown(f"**l = {cell.l}**")
        col = cols[1 + smp.MOSAIC_EPS.index(cell.epsilon)]
        if cell.error:
            col.caption("not reachable at this setting")
            continue
        img = viz.release_images(cell.x[None], ds.image_shape, scale=scale)[0]
        img = viz.upscale(img, viz.fit_factor(img.shape[1], 110))
        col.image(img, width=img.shape[1], output_format="PNG", caption=f"σ = {fmt_sigma(cell.sigma)}")
    bound = caveat(s["accountant"]) and f" ({caveat(s['accountant'])})"
    st.caption(f"Each cell is a sample of its own release (l records of class "
               f"{ds.class_names[cls]} mixed, plus the noise σ that meets the column's ε under the "
               f"`{s['accountant']}` accountant{bound} at δ = {fmt_delta(s['delta'])}, c = {s['c']:g}, "
               f"T = {fmt_int(s['T'])}, {NORMS[s['normalize']]}). Rows stop at the smallest class.")
