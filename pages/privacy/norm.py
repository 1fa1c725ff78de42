"""Privacy page, one sentence (not a page itself): what a release at this setting spends when its
normalisation is ``dp-center``, which also publishes per-feature means under DP. The page's ε is
the mixing's (as ``dpcda epsilon``); Samples and the release's card compose both
(:func:`dpcda.dashboard.samples.noise_for` with ``normalize="dp-center"``)."""

from __future__ import annotations

import streamlit as st

from pages.common import fmt_sigma, show_problem


@st.cache_data(show_spinner=False, max_entries=64)
def _composed(mode: str, value: float, **setting):
    from dpcda.dashboard.samples import noise_for

    return noise_for(mode, value, normalize="dp-center", **setting)


def dp_center_note(*, dataset: str | None, normalize: str | None, target: float | None, sigma_x: float,
                   sigma_y: float, ds, **setting) -> None:
    """Say the ε of a ``dp-center`` release at this setting (the shared setting's normalisation,
    or ``dataset``'s default), under the headline; nothing for another normalisation."""
    from dpcda.mechanisms import default_normalization_for
    from dpcda.report.formatting import fmt_eps

    if dataset is None or (normalize or default_normalization_for(dataset, "dp-cda",
                                                                  setting["accountant"])) != "dp-center":
        return
    facts = dict(n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y)
    from dpcda.data import get_dataset_spec

    origin = "this setting's normalisation" if normalize else f"{get_dataset_spec(dataset).title}'s default"
    try:
        if target is not None:
            nz = _composed("epsilon", target, **setting, **facts)
            what = (f"meeting the target with both takes σ_x = σ_y = {fmt_sigma(nz.sigma)} "
                    f"(ε = {fmt_eps(nz.epsilon)})")
        else:
            nz = _composed("sigma", sigma_x, sigma_y=None if sigma_y == sigma_x else sigma_y,
                           **setting, **facts)
            what = f"both together spend ε = {fmt_eps(nz.epsilon)}"
    except ValueError as exc:
        show_problem(exc, info=True, lead=f"**`dp-center`** ({origin}) cannot be accounted here: ")
        return
    st.info(f"**A release with `dp-center`** ({origin}, as on Samples and in `dpcda generate`) "
               f"also publishes per-feature means under DP: {what} under `{setting['accountant']}`, "
               "the ε of Samples and of the release's card. The headline is the mixing's alone "
               "(as `dpcda epsilon`).")
