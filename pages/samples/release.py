"""Samples page, the release itself: its privacy statement, a table view, the downloads.

Drawing only; the numbers come from the release's data card and :mod:`dpcda.dashboard.samples`.
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard import samples as smp
from dpcda.report import viz
from dpcda.dashboard.samples import downloads
from dpcda.dashboard.setting import other_accountant_words, target_words
from dpcda.privacy import ACCOUNTANT_INFO, DEFAULT_ACCOUNTANT
from pages.common import epsilon_words, fmt_alpha, fmt_delta, fmt_eps, fmt_int


def show_table(rel, ds) -> None:
    """A tabular release: its first rows decoded back to the original units and categories."""
    from dpcda.data import decode_segments

    table = decode_segments(viz.to_raw_units(rel.X, rel.preprocess.normalizer, ds.segments),
                            ds.segments, ds.feature_names)
    table.insert(0, "label", [ds.class_names[k] for k in rel.y])
    st.subheader("Synthetic rows")
    st.dataframe(table.head(200).round(2), hide_index=True, width="stretch")
    st.caption(f"The first 200 of {fmt_int(rel.n)} rows. Categories are decoded from their one-hot "
               "segments by argmax; numbers are mapped back to their original units (for z-score "
               "through the private mean and std: this table is for you to inspect, the downloads "
               "hold the release itself). Clipping rows to norm c pulls numbers towards the centre.")


def show_statement(rel, ds) -> None:
    """The release's epsilon, accountant, noise and what the accountant assumes."""
    p, par = rel.card["privacy"], rel.card["parameters"]
    acc, conv = p["accountant"], p["conversion"]
    if p["private"]:
        st.markdown(f"#### ε = {fmt_eps(p['epsilon'])} at δ = {fmt_delta(p['delta'])}")
        target = p.get("calibrated_to_epsilon")
        missed = target and target_words(target, p["epsilon"], acc)
        how = (f"calibrated to the target ε = {target:g}" if target and not missed
               else "calibrated as close to the target as it goes" if missed else "as chosen")
        how_eps = (f"Conversion **{conv}**: {p['conversion_title']}. Rényi order α = "
                   f"{fmt_alpha(p['alpha'])}." if conv else "Privacy loss distribution, "
                   f"discretisation bound {p.get('discretisation_bound', 0):.2g} (ε is an upper bound).")
        st.markdown(f"Accountant **`{acc}`**: {ACCOUNTANT_INFO[acc].title}. {how_eps} Noise σ_x = "
                    f"{par['sigma_x']:.4g}, σ_y = {par['sigma_y']:.4g}, {how}. {epsilon_words(acc)}")
        if missed:
            st.warning(missed)
        if p.get("bound_note"):
            st.warning(f"**This ε is {p['bound_note']}.** Choose `{DEFAULT_ACCOUNTANT}` for a valid bound.")
        for other, o in p.get("other_accountants", {}).items():
            words = other_accountant_words(other, o, p["epsilon"])
            if words:
                st.caption(words)
    else:
        st.markdown("#### ε = ∞ (no privacy)")
        st.warning("σ_x = σ_y = 0: this release carries **no privacy guarantee** (ε = infinity).")
    for n in rel.data_card.notices:
        if p["private"] or n.code != "non_private":  # the non-private one is said above
            st.warning(n.message)
    with st.expander(f"What the `{acc}` accountant assumes"):
        st.markdown(ACCOUNTANT_INFO[acc].assumptions)
    st.caption(f"l = {par['l']}, c = {par['c']:g}, T = {fmt_int(par['T'])} (per class: "
               f"{', '.join(map(str, par['T_per_class']))}; {par['allocation']}), {fmt_int(rel.n)} "
               f"samples. Normalization: {rel.card['normalization']['note']}.")


def show_downloads(rel, ds) -> None:
    p, par = rel.card["privacy"], rel.card["parameters"]
    stem = smp.release_stem(ds.name, par["l"], p["epsilon"] if p["private"] else None)
    d1, d2, d3 = st.columns(3)
    d1.download_button("Release: NPZ + data card (.zip)", lambda: downloads.npz_zip(rel, stem),
                       file_name=f"{stem}_npz.zip", mime="application/zip", key="samples_dl_npz",
                       on_click="ignore")
    d2.download_button("Release: CSV + data card (.zip)",
                       lambda: downloads.csv_zip(rel, stem, ds.feature_names),
                       file_name=f"{stem}_csv.zip", mime="application/zip", key="samples_dl_csv",
                       on_click="ignore")
    d3.download_button("Data card (JSON)", rel.card_json(), file_name=f"{stem}.json",
                       mime="application/json", key="samples_dl_card", on_click="ignore")
    st.caption("NPZ: arrays X (normalized, clipped, noisy features), y (hard labels), y_soft (soft "
               "labels). CSV: label, x0.., p0.. (soft labels). The data card records the parameters, "
               "ε with its accountant and assumptions, and the normalization; never a seed or the noise. "
               "Every draw came from ChaCha20 keyed with 256 bits from the operating system for this "
               "release; the noisy values sit on a public grid (docs/security.md).")
