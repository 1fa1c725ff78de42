"""The Privacy page's headline ε (not a page itself), drawn before the sidebar's widgets.

A slider step reruns the page, and the browser shows the new ε only once it has drawn every
element sent before it: about 40 sidebar widgets and notes when the headline follows them (the
renderer, not the page script, is the bottleneck on this machine: README, "The headline drawn
first"). The page therefore reads the setting from the widgets' keys first
(:func:`setting_from_state`: what the widgets will return on this run, their declared defaults on
a first visit), draws the headline into a slot made before the sidebar (:func:`headline`), then
draws the widgets; when their values differ from what was read (not expected, but possible when
the session's widget state is new while the browser keeps its values, e.g. after a server
restart), the headline is drawn again from the widgets' values, and a refused input empties it:
the page never keeps a stale ε.
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.explorer import DatasetChoice
from dpcda.dashboard.setting import T_RANGE as SETTING_T_RANGE, Setting
from dpcda.report.formatting import fmt_alpha, fmt_delta, fmt_eps, fmt_int, fmt_sigma
from dpcda.dashboard.inputs import parse_int_text
from dpcda.data.presets import get_preset, list_presets
from dpcda.privacy import (DEFAULT_ACCOUNTANT, PrivacyParams, caveat, compute_epsilon,
                           list_conversions)
from dpcda.privacy.params import MAX_ALPHA_LIMIT
from pages.inputs_ui import show_problem
from pages.notes import epsilon_words

#: The setting widgets' defaults, by widget key: the page passes them to its widgets and the early
#: read falls back on them. (T's box is created empty; the dataset and the conversion default
#: to their first option, as the early read does.)
DEFAULTS = {
    "privacy_l": 4, "privacy_sigma_x": 0.25, "privacy_tie": True,
    "privacy_sigma_y": 0.25, "privacy_c": 1.0, "privacy_T": "",
    "privacy_delta": 1e-5, "privacy_accountant": DEFAULT_ACCOUNTANT,
    "privacy_max_alpha": "256",
}
#: The typed numbers' ranges (the widgets and the early read share them; T's is every page's).
T_RANGE = dict(name="T", **SETTING_T_RANGE, allow_empty=True)
TARGET = "target ε"  # the noise as a target ε (the other choice: "explicit σ")


def widget_values(s: Setting) -> dict:
    """The shared setting as this page's widget values, by key (exact: a value off a slider's
    grid is added to it, :func:`dpcda.dashboard.inputs.with_exact`)."""
    values = {
        "privacy_preset": s.dataset, "privacy_l": s.l,  # exact: the sliders add it to their grid
        "privacy_mode": TARGET if s.epsilon is not None else "explicit σ",
        "privacy_sigma_x": _sigma(s.sigma_x), "privacy_tie": s.sigma_y is None,
        "privacy_sigma_y": _sigma(s.sigma_y_value),
        "privacy_c": min(max(round(s.clip_norm(), 1), 0.1), 10.0),
        "privacy_T": "" if s.T is None else str(s.T), "privacy_delta": s.delta,
        "privacy_accountant": s.accountant, "privacy_conversion": s.conversion,
        "privacy_max_alpha": str(s.max_alpha)}
    if s.epsilon is not None:
        values["privacy_eps"] = f"{s.epsilon:g}"
    return values


def _sigma(value: float) -> float:
    return float(value)  # exact (a link's σ is kept: the slider adds it to its grid)
MAX_ALPHA_RANGE = dict(name="max_alpha", lo=3, hi=MAX_ALPHA_LIMIT)


def preset_choice(name: str) -> DatasetChoice:
    """A named dataset's public facts, as the dataset picker returns them."""
    p = get_preset(name)
    return DatasetChoice(name, p.n, tuple(p.class_counts), p.d_x, p.d_y)


def setting_from_state(state) -> dict | None:
    """The setting the sidebar's widgets will return on this run, read from their keys before
    they are drawn (``state``: ``st.session_state``); None when it cannot be known yet (a custom
    dataset, a typed number the widget will refuse)."""
    def get(key):
        return state.get(key, DEFAULTS.get(key))

    try:
        name = state.get("privacy_preset", list_presets()[0])
        if name not in list_presets() or state.get("privacy_mode") == TARGET:
            return None
        ds = preset_choice(name)
        T = parse_int_text(get("privacy_T"), **T_RANGE)
        sigma_x = get("privacy_sigma_x")
        return dict(ds=ds, l=get("privacy_l"), sigma_x=sigma_x,
                    sigma_y=sigma_x if get("privacy_tie") else get("privacy_sigma_y"),
                    c=get("privacy_c"), T=ds.n if T is None else T, delta=get("privacy_delta"),
                    accountant=get("privacy_accountant"), allocation=state.get(
                        "dpcda_setting", Setting()).allocation,
                    conversion=state.get("privacy_conversion", list_conversions()[0]),
                    max_alpha=parse_int_text(get("privacy_max_alpha"), **MAX_ALPHA_RANGE))
    except (ValueError, TypeError, KeyError):
        return None


def setting_text(*, ds, l, sigma_x, sigma_y, c, T, delta, allocation="equal", **_) -> str:
    """The setting in one line, under the headline."""
    split = (" split equally (⌊T/K⌋ per class, as published)" if allocation == "equal"
             else " split in proportion to the public class counts (⌊T n_k / Σn⌋ per class)")
    return (f"{ds.describe()}; l = {l}, σ_x = {fmt_sigma(sigma_x)}, σ_y = {fmt_sigma(sigma_y)}, "
            f"c = {c:g}, T = {fmt_int(T)}" + (split if ds.class_counts else "")
            + f", δ = {fmt_delta(delta)}")


#: The headline's epsilon, remembered per setting: a rerun that changes nothing else (a toggle,
#: an expander) does not pay for the PLD again.
_epsilon = st.cache_data(show_spinner=False, max_entries=256)(compute_epsilon)


def headline(slot, setting: dict, *, quiet: bool = False):
    """Draw the headline ε of ``setting`` into ``slot`` (an ``st.empty()``); returns
    ``(params, result)``, or ``(None, None)`` when the setting is refused (the problem is shown
    in the slot, or nothing at all when ``quiet``: the early draw leaves it to the widgets')."""
    ds, accountant, delta = setting["ds"], setting["accountant"], setting["delta"]
    conversion = setting["conversion"]
    try:
        p = PrivacyParams(l=setting["l"], sigma_x=setting["sigma_x"], sigma_y=setting["sigma_y"],
                          c=setting["c"], T=setting["T"], delta=delta, n=ds.n,
                          class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y,
                          allocation=setting["allocation"] if ds.class_counts else "equal")
        r = _epsilon(p, accountant=accountant, conversion=conversion,
                     max_alpha=setting["max_alpha"])
    except ValueError as exc:
        if quiet:
            slot.empty()
        else:
            with slot.container():
                show_problem(exc)
                st.caption(setting_text(**setting))
        return None, None
    with slot.container():
        label = f"ε ({accountant} accountant)"
        if not r.private:
            st.metric(label, "∞")
            st.error("**ε = ∞ (no privacy).** σ_x = σ_y = 0 is the non-private setting: the "
                     "release would carry no privacy guarantee at all.")
        else:
            st.metric(label, fmt_eps(r.epsilon))
            if r.alpha is None and r.epsilon_discretisation_lower is not None:  # PLD: no order
                st.caption(f"privacy loss distribution (no Rényi order), discretisation bound "
                           f"{r.discretisation_bound:.2g}, δ = "
                           f"{fmt_delta(delta)}. {epsilon_words(accountant)}")
            else:
                st.caption(f"at Rényi order α = {fmt_alpha(r.alpha)}, δ = {fmt_delta(delta)}, "
                           f"{conversion} conversion. {epsilon_words(accountant)}")
            if caveat(accountant):
                st.warning(f"**{caveat(accountant)}**: the `{accountant}` ε does not bound what "
                           f"Algorithm 1 as run here spends; `{DEFAULT_ACCOUNTANT}` does.")
            relations(p, accountant, r.epsilon)
        for w in r.warnings:  # max_alpha at the edge, delta >= 1/N (non-private: shown above)
            code = getattr(w, "code", "")
            if r.private or code != "non_private":
                st.warning(w + (" (α_max is under Advanced.)" if code == "max_alpha_edge" else ""))
        st.caption(setting_text(**setting))
    return p, r


def relations(p, accountant: str, epsilon: float) -> None:
    """Where the exact ε lies, and the same noise under both relations, one sentence each."""
    from dpcda.dashboard.relations import bracket_sentence, relation_rows

    sentence = bracket_sentence(p, accountant, epsilon)
    if sentence:
        st.markdown(sentence)
    for col, row in zip(st.columns(2), relation_rows(p)):
        value = "—" if row.epsilon is None else fmt_eps(row.epsilon)
        col.metric(f"`{row.accountant}`", value)  # short: two fit side by side at 1024 px
        col.caption(f"Same noise. {row.protects[:1].upper()}{row.protects[1:]}."
                    + (f" Not accounted here: {row.problem}" if row.problem else ""))


@st.cache_data(show_spinner="Calibrating the noise to the target ε…", max_entries=64)
def _noise(target: float, **setting):
    from dpcda.dashboard.samples import noise_for

    return noise_for("epsilon", target, **setting)


def target_noise(slot, where, target: float, *, ds, accountant: str, **setting) -> float | None:
    """σ_x = σ_y calibrated to ``target`` under ``accountant`` (the Samples page's noise for the
    same setting); a refusal is shown in ``slot`` (None), a target out of reach said in ``where``."""
    from dpcda.dashboard.setting import target_words

    try:
        nz = _noise(target, n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y,
                    accountant=accountant, **setting)
    except ValueError as exc:
        with slot.container():
            show_problem(exc)
        return None
    words = target_words(target, nz.epsilon, accountant)
    if words:
        where.warning(words)
    return nz.sigma
