"""The Compare page and the shared setting (no Streamlit here): the setting as Compare's widget
values on arrival (:func:`widget_values`), and what its widgets say as changes to the setting
(:func:`setting_changes`).

Compare reads the dataset (where it offers it), the target ε (the setting's own, else the ε of
its σ under its accountant, to three significant digits), δ, c and DP-CDA's accountant; its
mechanisms, learners, runs and l choices stay the page's own. The dataset and the ε are written
back only when the reader changed them on Compare: a setting on a dataset Compare does not offer,
or with its noise chosen as σ, is kept as it was.

>>> from dpcda.dashboard.setting import Setting
>>> v, note = widget_values(Setting(dataset="digits", epsilon=1.0), offered=("digits",))
>>> (v["compare_dataset"], v["compare_eps"], note)
('digits', 1.0, '')
"""

from __future__ import annotations

from typing import Sequence

from dpcda.dashboard.setting import Setting

#: Widget keys the setting fills (``compare_eps_own``: the ε offered beside the paper's columns).
DATASET, EPS, OWN_EPS, DELTA, C, C_FOR = ("compare_dataset", "compare_eps", "compare_eps_own",
                                          "compare_delta", "compare_c", "compare_c_for")
ACCOUNTANT = "compare_acc_dp-cda"
SEEDED = "compare_seeded"  # the dataset and ε put in on arrival (a change of either is written back)


def setting_epsilon(s: Setting) -> float:
    """The setting's ε: its target, else the ε of its σ under its accountant as the Privacy
    page's headline states it (to three significant digits). ValueError when its accountant
    cannot account it."""
    if s.epsilon is not None:
        return s.epsilon
    from dpcda.data.presets import get_preset
    from dpcda.privacy import PrivacyParams, compute_epsilon

    pre = get_preset(s.dataset)
    p = PrivacyParams(l=s.l, sigma_x=s.sigma_x, sigma_y=s.sigma_y_value, c=s.clip_norm(),
                      T=s.T_for(pre.n), delta=s.delta, n=pre.n, class_counts=tuple(pre.class_counts),
                      d_x=pre.d_x, d_y=pre.d_y, allocation=s.allocation)
    r = compute_epsilon(p, accountant=s.accountant, conversion=s.conversion, max_alpha=s.max_alpha)
    return float(f"{r.epsilon:.3g}")


def epsilon_choices(paper: Sequence[float], own: float | None) -> list[float]:
    """The target ε Compare offers: the paper's Table 5 columns for the dataset (``paper``) and
    the setting's own ε (``own``), largest first."""
    return sorted({float(e) for e in paper} | ({float(own)} if own is not None else set()),
                  reverse=True)


def widget_values(s: Setting, offered: Sequence[str], *, accountants: Sequence[str] = ()
                  ) -> tuple[dict, str]:
    """The shared setting as Compare's widget values, by key, and a one-line note ("" when
    none): a dataset Compare does not offer (or whose files are not here) leaves Compare on its
    first, ``offered[0]``, and says so (a target ε is kept; the ε of a σ is not, on another
    dataset); an ε its accountant cannot state is left to Compare's default and said.
    ``accountants``: those DP-CDA offers on Compare (the setting's is put in when among them)."""
    from dpcda.data import get_dataset_spec

    if not offered:
        raise ValueError("offered must name at least one dataset Compare offers, got offered=()")
    notes = []
    dataset = s.dataset if s.dataset in offered else offered[0]
    if dataset != s.dataset:
        notes.append(f"Compare does not offer {get_dataset_spec(s.dataset).title} (an image dataset "
                     f"whose files are here is needed): it shows {get_dataset_spec(dataset).title}; "
                     "the setting's dataset is kept for the other pages.")
    from dpcda.dashboard.explorer import DELTA_VALUES
    from dpcda.report.formatting import nearest

    c = s.clip_norm() if dataset == s.dataset else _c(dataset)
    values = {DATASET: dataset, DELTA: nearest(DELTA_VALUES, s.delta), C: f"{c:g}", C_FOR: dataset}
    eps = s.epsilon  # a target is the same on any dataset; σ's ε only on its own
    if eps is None and dataset == s.dataset:
        try:
            eps = setting_epsilon(s)
        except ValueError as exc:
            notes.append(f"The setting's ε could not be stated ({exc}); Compare's default target "
                         "is shown.")
    values[OWN_EPS] = eps
    if eps is not None:
        values[EPS] = eps
    if s.accountant in accountants:
        values[ACCOUNTANT] = s.accountant
    values[SEEDED] = (dataset, eps)
    return values, " ".join(notes)


def _c(dataset: str) -> float:
    from dpcda.data.presets import default_clip_norm

    return default_clip_norm(dataset)


def setting_changes(setting: Setting, seeded: tuple | None, *, dataset: str, epsilon: float,
                    delta: float, c: float | None, accountant: str | None = None) -> dict:
    """What Compare's widgets say, as changes to the shared ``setting``: δ always; DP-CDA's
    accountant where given; the dataset and the target ε only where they differ from what the
    setting put in (``seeded``: ``(dataset, ε)`` from :func:`widget_values`); c (``None``:
    refused at its box, left out; the dataset's default written as the default) only for the
    dataset the setting then has."""
    seeded_dataset, seeded_eps = seeded or (None, None)
    changes: dict = {"delta": delta}
    if accountant is not None:
        changes["accountant"] = accountant
    if dataset != seeded_dataset:
        changes["dataset"] = dataset
    if epsilon != seeded_eps:
        changes["epsilon"] = epsilon
    if c is not None and changes.get("dataset", setting.dataset) == dataset:
        changes["c"] = None if c == _c(dataset) else c
    return changes
