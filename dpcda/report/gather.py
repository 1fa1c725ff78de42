"""Collect a report's data from the library: the release (privacy block, data card, images,
class means, fidelity) and, from the results store, accuracy against l, the frontier and the
latest comparison (:func:`gather_report_inputs`). No number is invented: what is not in the
store is left out and the report says "Not measured yet".
"""

from __future__ import annotations

import math
from typing import Sequence

from dpcda.experiments.config import EXPERIMENT_ALLOCATION
from dpcda.report.inputs import ReportInputs, rows_of
from dpcda.report.measured import (_open_store, accuracy_cells, accuracy_from_sweep,
                                   accuracy_rows, frontier_caption, latest_comparison,
                                   measured_frontier)

T_CAP = 10_000     # largest T a report generates itself (the Samples page's cap)
PER_CLASS = 8      # samples per class in the picture
MAX_CLASSES = 10   # classes drawn


def _release(ds, release, *, l, epsilon, sigma_x, T, c, delta, accountant, conversion,
             normalization, allocation):
    from dpcda.mechanisms import generate_from_dataset

    if release is not None:
        return release
    noise = {"epsilon": epsilon} if epsilon is not None else {"sigma_x": sigma_x, "sigma_y": sigma_x}
    kw = {k: v for k, v in dict(T=T or min(ds.n_train, T_CAP), c=c, delta=delta,
                                accountant=accountant, conversion=conversion,
                                normalize=normalization, allocation=allocation).items()
          if v is not None}
    return generate_from_dataset(ds, "dp-cda", l=l, **noise, **kw)


def _pictures(rel, ds) -> dict:
    from dpcda.report import viz
    from dpcda.evaluation.fidelity import release_fidelity
    from dpcda.report.fidelity_display import fidelity_frame

    out: dict = {}
    rep = release_fidelity(rel, ds, preprocess=rel.preprocess)
    if ds.is_image:
        from dpcda.report.pictures import sample_pictures

        K = min(ds.n_classes, MAX_CLASSES)
        pics = sample_pictures(rel, ds.image_shape, per_class=PER_CLASS, max_classes=K,
                               class_names=ds.class_names)
        out["samples"] = viz.upscale(pics.grid, viz.fit_factor(pics.grid.shape[1], 420))
        out["samples_caption"] = (f"The first {PER_CLASS} released samples of each class (rows: "
                                  f"{', '.join(pics.class_names)}); each image stretched from its "
                                  "own minimum (black) to maximum (white).")
        out["class_means"] = viz.upscale(pics.means_tile, viz.fit_factor(pics.means_tile.shape[1], 120))
        out["class_means_caption"] = (
            "Per class (same rows): the mean of the released samples (left), what a learner can "
            "recover from the release, and that mean smoothed with a Gaussian filter of "
            f"{pics.smoothing_px:g} px (right; post-processing of the release, no privacy cost).")
        out["fidelity"] = [{"class": n, "relative L2 distance of the class means": float(d)}
                           for n, d in zip(rep.class_names[:K], rep.distances[:K])]
        out["fidelity_caption"] = f"‖mean release − mean real‖ / ‖mean real‖ in {rep.space}."
    else:
        out["fidelity"] = rows_of(fidelity_frame(rep))
        out["fidelity_caption"] = (f"Compared in {rep.space}: total-variation distance for "
                                   "categorical columns, Wasserstein-1 / range for numeric ones.")
        out["missing"] = {"samples": "tabular data has no images (the fidelity table below "
                                     "compares its columns)",
                          "class-means": "tabular data has no images"}
    return out


def privacy_without_data(dataset: str, *, l, epsilon, sigma_x, T, c, delta, accountant,
                         conversion, allocation) -> dict:
    """The privacy block of a setting from the public preset alone (no data files needed)."""
    from dpcda.mechanisms.card import privacy_from_result
    from dpcda.data.presets import get_preset
    from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon

    pre = get_preset(dataset)
    facts = dict(c=1.0 if c is None else c, T=T or pre.n, delta=delta, n=pre.n,
                 class_counts=tuple(pre.class_counts), d_x=pre.d_x, d_y=pre.d_y,
                 allocation=allocation or EXPERIMENT_ALLOCATION)
    if epsilon is not None:
        res = calibrate(epsilon=epsilon, l=l, accountant=accountant, conversion=conversion,
                        **facts).result
    else:
        res = compute_epsilon(PrivacyParams(l=l, sigma_x=sigma_x, sigma_y=sigma_x, **facts),
                              accountant=accountant, conversion=conversion)
    return privacy_from_result(res, calibrated_to=epsilon, mechanism="dp-cda")


#: Page settings (:class:`dpcda.dashboard.reproduce.ReproSettings` names) the report reads.
REPORT_KEYS = ("dataset", "l", "epsilon", "sigma_x", "delta", "accountant", "conversion", "c", "T",
               "normalization", "allocation")


def settings_for_report(settings, page: str | None = None) -> dict:
    """A page's plain settings as :func:`gather_report_inputs` arguments: a sweep's first l and
    first finite target epsilon stand in for a single l and epsilon; given both a noise scale and
    a target epsilon (the Privacy page's calibration target), the noise scale is the setting.
    The Privacy page accounts T = N split equally (``PrivacyParams``' defaults): its report
    generates that release unless T or the allocation is given.
    ValueError when the page has no dataset, l or noise choice."""
    s = dict(settings)
    if s.get("mechanism", "dp-cda") != "dp-cda":
        raise ValueError(f"the report covers DP-CDA releases, this page runs {s['mechanism']}")
    out = {k: s[k] for k in REPORT_KEYS if s.get(k) is not None}
    if "l" not in out and s.get("ls"):
        out["l"] = sorted(s["ls"])[0]
    if "l" not in out and dict(s.get("mechanism_ls") or ()).get("dp-cda"):  # Compare: DP-CDA's
        out["l"] = sorted(dict(s["mechanism_ls"])["dp-cda"])[0]
    if "epsilon" not in out and "sigma_x" not in out:
        finite = [float(e) for e in s.get("epsilons") or () if math.isfinite(float(e))]
        if finite:
            out["epsilon"] = finite[0]
        elif s.get("sigmas"):
            out["sigma_x"] = float(sorted(s["sigmas"])[0])
    if "accountant" not in out and s.get("accountants"):
        out["accountant"] = dict(s["accountants"]).get("dp-cda")
    if "dataset" in out:
        from dpcda.data import list_datasets

        if out["dataset"] not in list_datasets():
            raise ValueError(f"a report needs one of the datasets {', '.join(list_datasets())}, "
                             f"got dataset={out['dataset']!r} (typed class counts have no data)")
    if "sigma_x" in out and "epsilon" in out:  # Privacy: the noise is the setting, ε a target
        del out["epsilon"]
    missing = [k for k in ("dataset", "l") if k not in out]
    if missing or ("epsilon" not in out and "sigma_x" not in out):
        raise ValueError("a report needs a dataset, an order of mixture l and a target epsilon or "
                         f"a noise scale; this page's settings lack {', '.join(missing) or 'both'}")
    if page == "privacy":
        from dpcda.data.presets import PRESETS

        out.setdefault("allocation", EXPERIMENT_ALLOCATION)
        if out["dataset"] in PRESETS:
            out.setdefault("T", PRESETS.get(out["dataset"]).n)
    return {k: v for k, v in out.items() if v is not None}


def gather_report_inputs(dataset: str, *, l: int, epsilon: float | None = None,
                         sigma_x: float | None = None, delta: float = 1e-5,
                         accountant: str | None = None, conversion: str = "mironov",
                         c: float | None = None, T: int | None = None,
                         normalization: str | None = None, allocation: str | None = None,
                         release=None, store=None, sweep_id: int | None = None,
                         extra_caveats: Sequence[str] = (), on_release=None) -> ReportInputs:
    """Everything the report of one DP-CDA setting shows (see the module docstring).

    ``release``: the page's release (else one is generated, T capped at :data:`T_CAP`, and
    ``on_release``, when given, is called with its data card: a fresh draw from the private
    data, which the dashboard's tally counts, :mod:`dpcda.dashboard.shown`);
    ``store``: a :class:`dpcda.jobs.JobStore` or its path (default ``$DPCDA_HOME``'s, only
    read if it exists); ``sweep_id``: the stored sweep the page shows (a Utility sweep over l
    or a comparison), preferred to the newest one for its section. A dataset whose files are
    missing here still gets the privacy section (from its public preset) and the results
    store's sections."""
    from dpcda.data import load_dataset
    from dpcda.data.presets import PRESETS
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    if release is None and (epsilon is None) == (sigma_x is None):
        raise ValueError("give either epsilon (a target) or sigma_x, got "
                         f"epsilon={epsilon!r}, sigma_x={sigma_x!r}")
    accountant = accountant or DEFAULT_ACCOUNTANT
    kw: dict = {}
    try:
        ds = load_dataset(dataset)
    except ValueError as exc:  # DatasetUnavailable: no files here
        if release is not None or dataset not in PRESETS:
            raise
        why = f"the dataset's files are not on this machine ({exc})"
        privacy = privacy_without_data(dataset, l=l, epsilon=epsilon, sigma_x=sigma_x, T=T, c=c,
                                       delta=delta, accountant=accountant, conversion=conversion,
                                       allocation=allocation)
        card, par = None, {}
        kw["missing"] = {"samples": why, "class-means": why, "fidelity": why, "data-card": why}
    else:
        rel = _release(ds, release, l=l, epsilon=epsilon, sigma_x=sigma_x, T=T, c=c, delta=delta,
                       accountant=accountant, conversion=conversion, normalization=normalization,
                       allocation=allocation)
        if release is None and on_release is not None:
            on_release(rel.card)
        card, privacy = rel.card, rel.card["privacy"]
        par = card.get("parameters", {})
        kw.update(_pictures(rel, ds))
    norm = (card or {}).get("normalization") or {}
    setting = {"dataset": dataset, "l": par.get("l", l),
               "target ε": epsilon if epsilon is not None else "— (noise chosen directly)",
               "σ_x": par.get("sigma_x", sigma_x), "δ": delta, "accountant": privacy["accountant"],
               "clip norm c": par.get("c", c), "T": par.get("T", T),
               "normalisation": norm.get("method", normalization),
               "allocation": par.get("allocation", allocation)}
    st = _open_store(store)
    cells = accuracy_cells(st.jobs(), dataset=dataset, accountant=privacy["accountant"],
                           delta=delta) if st is not None else []
    acc_rows = accuracy_rows(cells)
    front, cur = measured_frontier(dataset, st, privacy=privacy, card=card, delta=delta,
                                   conversion=conversion, l=par.get("l", l))
    acc_cap = (f"Mean ± std over runs from the results store (finished Utility/Compare runs), "
               f"accountant {privacy['accountant']}, δ = {delta:g}, T = N; learner(s): "
               + (", ".join(sorted({c["learners"] for c in cells})) or "—") + ".")
    if st is not None and hasattr(st, "get_sweep"):  # a real store: the newest sweep over l
        sweep_rows, sweep_cap = accuracy_from_sweep(st, dataset, sweep_id)
        if sweep_rows:
            acc_rows, acc_cap = sweep_rows, sweep_cap
    compare, compare_cap = (latest_comparison(st, dataset, sweep_id) if st is not None
                            else (None, ""))
    return ReportInputs(
        dataset=dataset, setting=setting, privacy=privacy, card=card,
        accuracy_vs_l=acc_rows or None,
        accuracy_caption=acc_cap,
        frontier=front or None,
        frontier_current=cur,
        frontier_caption=frontier_caption(dataset, accountant=privacy["accountant"], delta=delta,
                                          normalize=norm.get("method", normalization),
                                          measured_here=cur is not None),
        compare=compare, compare_caption=compare_cap, caveats=tuple(extra_caveats), **kw)
