"""Samples page, drawing: the pictures of a release, its live preview, the legibility hint.

Cached library calls (keyed on plain values) and drawing only; what is computed lives in
:mod:`dpcda.dashboard.samples` (pictures, legibility rule, mosaic, noise, download files).
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard import samples as smp
from dpcda.dashboard import shown
from dpcda.report import viz
from dpcda.util.verbatim import verbatim
from pages.common import POWERS_OF_TWO, explain, explain_on, fmt_int

NORMS = {"scale": "fixed public range (data-independent, covered by the guarantee)",
         "none": "as given, rows clipped to c (covered by the guarantee)",
         "zscore": "z-score (statistics of the private data: not covered by the guarantee)",
         "dp-center": "public range, square root, minus a mean estimated under DP (its cost in ε)"}
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
    # no class sizes to read (an upload's target ε): the library calibrates on a DP label histogram
    nz = None if facts["class_counts"] is None else noise_for(mode, value, **s, **facts)
    s.pop("sigma_y", None)  # in nz
    try:
        rel = smp.generate_release(_ds, nz, target_epsilon=value if mode == "epsilon" else None, **s)
    except ValueError as exc:
        if nz is not None:
            raise
        # it may have drawn a DP label histogram (an upload's target ε): counted, and cached
        shown.record(source, smp.refused_histogram(_ds, l=s["l"], T=s["T"], epsilon=value, delta=s["delta"]))
        return smp.Refused.of(exc)
    shown.record(source, shown.release_drawn(rel.card, normalize=s["normalize"]))  # a draw: counted
    return rel


@st.cache_resource(show_spinner="Fitting the normalisation…", max_entries=4)
def normalizer(source: tuple, normalize: str, mu, _ds):
    """The release's normalisation at this setting, without the clip (for ``dp-center`` one DP
    statistics release, kept for the previews and the mosaic; it does not depend on c)."""
    pre = smp.release_preprocessor(_ds, normalize, None, mu)
    if mu is not None:  # one DP statistics release from the private data: counted
        shown.record(source, shown.statistics_drawn(mu=mu, n_classes=_ds.n_classes))
    return pre


def setting_preprocessor(source: tuple, s: dict, ds):
    """The normalisation of :func:`normalizer`, then rows clipped to the setting's c."""
    from dataclasses import replace

    mode, value = s["noise"]
    mu = smp.stats_mu_for(mode, value, normalize=s["normalize"], delta=s["delta"])
    return replace(normalizer(source, s["normalize"], mu, ds), c=s["c"]), mu


@st.cache_data(show_spinner=False, max_entries=16)
def preview_pictures(source: tuple, settings: tuple, per_class: int, _ds, _nz) -> smp.SamplePictures:
    s = dict(settings)
    pre, _ = setting_preprocessor(source, s, _ds)
    pics = smp.preview_pictures(_ds, pre, l=s["l"], c=s["c"], noise=_nz, per_class=per_class)
    shown.record(source, shown.preview_drawn(sigma=_nz.sigma, l=s["l"], c=s["c"], per_class=per_class,
                                             n_classes=_ds.n_classes, normalize=s["normalize"]))
    return pics


def show_preview(source: tuple, settings: tuple, ds, nz: smp.Noise, per_class: int, seconds: float) -> None:
    """The live preview's grid (:mod:`dpcda.dashboard.samples.preview`) and what it is."""
    pics = preview_pictures(source, settings, per_class, ds, nz)
    f = viz.fit_factor(pics.grid.shape[1], GRID_WIDTH)
    left, words = st.columns(smp.picture_columns(pics.grid.shape, None), gap="medium")
    left.image(viz.upscale(pics.grid, f), width="stretch", output_format="PNG",
               caption="Preview: fresh samples, one row per class")
    words.caption(smp.preview_text(per_class=per_class, class_names=[verbatim(n) for n in pics.class_names],
                                   n_classes=ds.n_classes, T=dict(settings)["T"], seconds=seconds))


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
                output_format="PNG", caption="Class means · denoised")
    K = len(pics.class_names)
    words.caption(f"Rows, top to bottom: {', '.join(map(verbatim, pics.class_names))}"
               + (f" (the first {K} of {ds.n_classes} classes)" if K < ds.n_classes else "")
               + ". Right: each class's mean, what a learner can recover from the release, and that "
                 f"mean denoised. Each mean averages {fmt_int(int(pics.counts.min()))}–"
               f"{fmt_int(int(pics.counts.max()))} samples, so its noise is that many times "
               "smaller in variance. Denoising is post-processing of the release only (a "
               f"Gaussian blur of {pics.smoothing_px:g} px"
               + (", values below the public range clipped" if pics.floor is not None else "")
               + "): it uses no private data and costs no privacy. Display: each image is "
                 "stretched from its own minimum (black) to maximum (white).")


def show_hint(sigma: float, rs: dict, facts: dict, smallest: int) -> None:
    """A plain hint when every sample at feature noise ``sigma`` is static
    (:mod:`dpcda.dashboard.samples.legibility`)."""
    priv = {k: rs[k] for k in ("T", "delta", "accountant", "conversion", "max_alpha", "allocation")}
    hint = legibility(c=rs["c"], sigma=sigma, l=rs["l"], smallest=smallest,
                      epsilon=rs["noise"][1] if rs["noise"][0] == "epsilon" else None,
                      privacy=tuple({**facts, **priv}.items()))
    if hint.static:
        st.info(hint.hint)


def show_spent(box, source: tuple, bounds, delta: float, failure: float = 0.0) -> None:
    """What this server has drawn from the data of ``source`` so far, composed
    (:mod:`dpcda.dashboard.shown`) on the public lower ``bounds`` on its class sizes
    (:func:`dpcda.dashboard.samples.sizes.public_bounds`; None: not known yet; ``failure``: the
    chance they fail, :func:`~dpcda.dashboard.samples.sizes.bounds_failure`), in ``box``."""
    box.info(shown.spent_text(source, lower_counts=bounds, delta=delta, failure=failure),
             icon=":material/visibility:")
