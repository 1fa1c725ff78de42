"""Samples page, the l × ε mosaic (not a page itself): one sample of one class for every order of
mixture and privacy level, the setting's own l and ε among them (:mod:`dpcda.dashboard.samples.mosaic`)."""

from __future__ import annotations

import math

import streamlit as st

from dpcda.dashboard import samples as smp
from dpcda.dashboard import shown
from dpcda.privacy import caveat
from dpcda.report import viz
from dpcda.report.formatting import fmt_eps
from dpcda.util.verbatim import verbatim
from pages.common import fmt_delta, fmt_int, fmt_sigma
from pages.samples.views import NORMS, setting_preprocessor


@st.cache_resource(show_spinner=False, max_entries=4)
def class_rows(source: tuple, normalize: str, c: float, mu, k: int, _ds, _pre):
    return smp.class_table(_ds.X_train, _ds.y_train, k, _pre), viz.display_scale(_pre.normalizer)


def cell_sigma(value):
    """A mosaic_sigmas entry: the noise, or its error text raised as a ValueError."""
    if isinstance(value, str):
        raise ValueError(value)
    return value


@st.cache_data(show_spinner=False, max_entries=16)
def draw_cells(source: tuple, s: dict, cls: int, ls: tuple, eps: tuple, sigmas: tuple, _table,
               n_classes: int):
    """The cells at this setting, drawn once (the same mosaic for every view of it); every cell
    drawn is a release from the private data, counted (:mod:`dpcda.dashboard.shown`)."""
    sig = dict(sigmas)
    cells = smp.mosaic_cells(_table, ls=ls, epsilons=eps, sigma_for=lambda l, e: cell_sigma(sig[(l, e)]))
    for cell in cells:
        if not cell.error:
            shown.record(source, shown.cell_drawn(sigma=cell.sigma, l=cell.l, c=s["c"], k=cls,
                                                  n_classes=n_classes, normalize=s["normalize"]))
    return cells


def _mosaic_privacy(s: dict, mu) -> dict:
    return {**{k: s[k] for k in ("T", "c", "delta", "accountant", "conversion", "max_alpha", "allocation")},
            "stats_mu": mu}


def _axes(s: dict, facts: dict, nz: smp.Noise, ds=None):
    """The mosaic's rows and columns; an upload's rows only as far as its public bounds allow."""
    ls, eps = smp.mosaic_axes(s["l"], nz.epsilon)
    return (ls if ds is None else smp.mosaic_rows(ls, ds, s["accountant"], facts)), eps


def prefetch_mosaic(s: dict, facts: dict, nz: smp.Noise, ds=None) -> None:
    """Compute the mosaic's noise in the background while the release is looked at (the
    toggle then finds it remembered: :func:`dpcda.dashboard.samples.mosaic_sigmas_at`)."""
    from dpcda.dashboard.background import prefetch

    mode, value = s["noise"]
    priv = _mosaic_privacy(s, smp.stats_mu_for(mode, value, normalize=s["normalize"], delta=s["delta"]))
    ls, eps = _axes(s, facts, nz, ds)
    prefetch([lambda: smp.mosaic_sigmas_at(ls, eps, start=nz.sigma or 0.3, **priv, **facts)],
             key=("mosaic", ls, eps, nz.sigma, *priv.items(), *facts.items()), delay=0.3)


def show_mosaic(source: tuple, s: dict, ds, facts: dict, nz: smp.Noise, real: bool = False) -> None:
    """One sample of the chosen class for l in MOSAIC_L and epsilon in MOSAIC_EPS, plus the
    setting's own l and ε (its cell at the setting's exact noise ``nz``); the ε = ∞ column (real
    records, or means of them) only with ``real`` (the reader's opt-in)."""
    cls = st.selectbox("Class", range(ds.n_classes), format_func=lambda k: ds.class_names[k],
                       key="samples_class", width=240)
    pre, mu = setting_preprocessor(source, s, ds)
    table, scale = class_rows(source, s["normalize"], s["c"], mu, cls, ds, pre)
    ls, eps = _axes(s, facts, nz, ds)
    with st.spinner("Calibrating the noise of every cell…"):
        sig = smp.mosaic_sigmas_at(ls, eps, start=nz.sigma or 0.3, **_mosaic_privacy(s, mu), **facts)
        sig[(s["l"], nz.epsilon)] = nz.sigma  # the setting's own cell: its exact noise
        eps = tuple(e for e in eps if real or math.isfinite(e))  # real records: only when asked
        if not eps:
            st.info("This setting's only column is ε = ∞ (no noise: real records): tick **Show "
                    "real records (not private)** in the sidebar to see it.")
            return
        # the noisy columns and the real one drawn apart: opting in adds the real column only
        noisy = tuple(e for e in eps if math.isfinite(e))
        parts = [p for p in (noisy, tuple(e for e in eps if e not in noisy)) if p]
        cells = sorted((c for p in parts for c in draw_cells(source, s, cls, ls, p, tuple(sig.items()), table,
                                                             ds.n_classes)),
                       key=lambda c: (c.l, eps.index(c.epsilon)))
    cols = st.columns(len(eps) + 1)
    for col, e in zip(cols[1:], eps):
        here = " · this setting" if e == nz.epsilon else ""
        col.markdown(f"**ε = {'∞' if math.isinf(e) else fmt_eps(e)}{here}**")
    for cell in cells:
        if cell.epsilon == eps[0]:
            cols = st.columns(len(eps) + 1, vertical_alignment="center")
            cols[0].markdown(f"**l = {cell.l}**" + (" · this setting" if cell.l == s["l"] else ""))
        col = cols[1 + eps.index(cell.epsilon)]
        if cell.error:
            col.caption("not reachable at this setting")
            continue
        img = viz.release_images(cell.x[None], ds.image_shape, scale=scale)[0]
        img = viz.upscale(img, viz.fit_factor(img.shape[1], 110))
        col.image(img, width=img.shape[1], output_format="PNG", caption=f"σ = {fmt_sigma(cell.sigma)}")
    bound = caveat(s["accountant"]) and f" ({caveat(s['accountant'])})"
    stats = " and the `dp-center` statistics of this setting composed in" if mu is not None else ""
    st.caption(f"Each cell is a sample of its own release (l records of class "
               f"{verbatim(ds.class_names[cls])} mixed, plus the noise σ that meets the column's ε under the "
               f"`{s['accountant']}` accountant{bound}{stats} at δ = {fmt_delta(s['delta'])}, "
               f"c = {s['c']:g}, "
               f"T = {fmt_int(s['T'])}, {NORMS[s['normalize']]}). The setting's own cell has its exact "
               "σ; the other cells' σ meet their ε by an upper bound. Rows stop at the smallest class. "
               + ("The ε = ∞ column is the private data itself (l = 1: one real record; larger l: "
                  "a mean of real records): for the data holder's eyes, not a room." if real else
                  "The ε = ∞ column (real records) is left out: **Show real records (not "
                  "private)** in the sidebar adds it."))
