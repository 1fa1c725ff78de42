"""Samples page, the sidebar's release controls (not a page itself): the widgets of a setting,
read into one dict. Their values come from the shared setting (:mod:`pages.samples.setting`)."""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.inputs import with_exact
from dpcda.data.presets import default_clip_norm
from dpcda.mechanisms import MECHANISMS, default_normalization
from dpcda.privacy import ACCOUNTANT_INFO, ALLOCATIONS, CONVERSION_TITLES, list_conversions
from dpcda.privacy.allocation import ALLOCATION_TITLES
from pages.common import (DELTA_VALUES, L_VALUES, SIGMA_VALUES, accountant_choice, float_input,
                          fmt_delta, fmt_int, fmt_sigma, int_input, typed)
from pages.samples.setting import T_RANGE
from pages.setting_ui import keep_noise
from pages.samples.views import NORMS, note

ss = st.session_state


def norms_for(ds) -> dict:
    """The normalisations offered for ``ds`` (``dp-center`` needs a public range)."""
    return {k: v for k, v in NORMS.items()
            if k != "dp-center" or getattr(ds, "feature_bounds", None) is not None}


def dataset_caption(title: str, ds, public: bool) -> str:
    """The sidebar's line about the data: N (public under every relation the library accounts; a
    release's card states it), K, d, and the smallest class only where the class counts are
    published (a built-in split, :func:`dpcda.mechanisms.published_class_bounds`); an upload's
    class sizes are its holder's own, and a screenshot of the page is a publication."""
    head = (f"{title}: N = {fmt_int(ds.n_train)} training rows, K = {ds.n_classes} classes, "
            f"d = {ds.d_x} features")
    if public:
        return head + f"; smallest class {fmt_int(min(ds.class_counts))}."
    return head + ". Its class sizes are its own (private) and not shown here."


def release_controls(name: str, ds, limit: int, public: bool) -> dict:
    """Draw the sidebar's release controls for dataset ``ds`` (``name``: its key, or "upload");
    return their values (``bad_l``: an l left over above ``limit``, reset). ``limit``: the
    largest l offered (:func:`dpcda.dashboard.samples.l_limit`: public facts only).
    ``public``: whether the class sizes are public (said in the help texts only then)."""
    sb = st.sidebar
    sb.header("Release")
    cur = ss.get("samples_l")
    l_options = list(with_exact([v for v in L_VALUES if v <= limit] or [1],
                                cur if isinstance(cur, int) and cur <= limit else None))
    bad_l = ss.get("samples_l") if ss.get("samples_l") not in (None, *l_options) else None
    if bad_l is not None:  # e.g. left over from a dataset with larger classes: said on the page
        ss["samples_l"] = l_options[-1] if isinstance(bad_l, (int, float)) and bad_l > limit else 1
    ss.setdefault("samples_l", min(4, l_options[-1]))
    v = dict(bad_l=bad_l, eps=None, sigma=None, sigma_y=None)
    l_help = (f"At most the smallest class ({fmt_int(limit)})." if public else "At most the smallest "
              f"class (not shown: this data's class sizes are private); offered up to N/K = "
              f"{fmt_int(limit)}, the most a smallest class can hold. An l the data cannot serve is "
              "refused at the release, with the rule.")
    v["l"] = sb.select_slider("Order of mixture l (records averaged per sample)", l_options,
                              key="samples_l", help=l_help) if len(l_options) > 1 else 1
    note("l")
    v["mode"] = sb.radio("Noise", ["target ε", "explicit σ"], key="samples_mode", horizontal=True,
                         help="A target ε is met by calibrating σ_x = σ_y under the chosen accountant.",
                         on_change=keep_noise("samples_mode", "samples_eps", "samples_sigma", "target ε"))
    note("noise_mode")
    if v["mode"] == "target ε":
        v["eps"] = typed(float_input, "Target ε", key="samples_eps", name="epsilon", lo=0.0, lo_open=True,
                         hi=1e4, value=10.0, container=sb, help="For no privacy, choose explicit σ = 0.")
        note("epsilon")
    else:
        v["sigma"] = float(sb.select_slider("σ_x (feature noise)",
                                            with_exact(SIGMA_VALUES, ss.get("samples_sigma")),
                                            key="samples_sigma", format_func=fmt_sigma))
        note("sigma_x")
        ss.setdefault("samples_tie", True)
        if not sb.toggle("Tie σ_y to σ_x", key="samples_tie") and v["sigma"] > 0:
            v["sigma_y"] = float(sb.select_slider("σ_y (label noise)",
                                                  with_exact(SIGMA_VALUES[1:], ss.get("samples_sigma_y")),
                                                  key="samples_sigma_y", format_func=fmt_sigma))
            note("sigma_y")
        else:
            note("ratio")
    if ss.get("samples_c_for") != name:  # a new dataset: its default clip norm
        ss["samples_c"], ss["samples_c_for"] = default_clip_norm(ds.name), name
    v["c"] = sb.slider("Clip norm c", min_value=0.1, max_value=10.0, step=0.1, key="samples_c")
    note("c")
    v["T"] = typed(int_input, "T (synthetic samples)", key="samples_T", name="T", **T_RANGE, allow_empty=True,
                   container=sb, placeholder=f"empty = N ({fmt_int(ds.n_train)})",
                   help="A whole number "
                   "from 1 to 1,000,000,000; empty means T = N, the paper's choice (and the Privacy page's).")
    note("T")
    v["delta"] = sb.select_slider("δ", with_exact(DELTA_VALUES, ss.get("samples_delta")), key="samples_delta",
                                  format_func=fmt_delta)
    note("delta")
    accountants = list(MECHANISMS.get("dp-cda").accountants)
    v["accountant"] = sb.selectbox("Accountant", accountants, key="samples_accountant",
                                   format_func=accountant_choice, help="\n".join(
                                       f"- `{a}`: {ACCOUNTANT_INFO[a].title}" for a in accountants))
    note("accountant")
    norms = norms_for(ds)
    if ss.get("samples_norm_for") != name or ss.get("samples_norm") not in norms:  # its default
        _norm = default_normalization(ds)
        ss["samples_norm"], ss["samples_norm_for"] = (_norm if _norm in norms else "scale"), name
    v["normalize"] = sb.radio("Normalization", list(norms), key="samples_norm", format_func=norms.get)
    note("normalization")
    v["allocation"] = sb.radio("Samples per class", ALLOCATIONS, key="samples_allocation",
                               format_func=ALLOCATION_TITLES.get)
    note("allocation")
    with sb.expander("Advanced"):
        v["conversion"] = st.radio("RDP → (ε, δ) conversion", list_conversions(), key="samples_conversion",
                                   captions=[CONVERSION_TITLES.get(c, "") for c in list_conversions()])
        note("conversion", st)
        v["max_alpha"] = typed(int_input, "Largest Rényi order α_max", key="samples_max_alpha",
                               name="max_alpha", lo=3, hi=2048, value=256, container=st)
        note("max_alpha", st)
        ss.setdefault("samples_per_class", 8)
        v["per_class"] = st.slider("Samples per class in the grid", 1, 16, key="samples_per_class")
        note("grid_size", st)
    return v
