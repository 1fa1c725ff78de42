"""Up to three candidate settings side by side, for a meeting choosing one (no Streamlit here).

A :class:`Candidate` is a :class:`~dpcda.dashboard.setting.Setting` and its numbers
(:class:`dpcda.report.choice.CandidateNumbers`): ε under both neighbouring relations (the
whole-record accountant, one record with its label, and the features-only ``class-aware-pld``;
each at the setting's allocation: under the first a proportional split is by the public class
bounds), the accuracy measured for that exact release (the shipped table and the results store; None when not
measured), optional baselines, the fidelity of a fresh release and a few of its samples.
:func:`measure` computes them; :func:`add` and :func:`remove` keep the list (at most
:data:`MAX_CANDIDATES`, labelled A, B, C); :func:`choice_report` builds the report of the chosen one.

>>> from dpcda.dashboard.setting import Setting
>>> a = measure(Setting(dataset="digits", l=4, sigma_x=1.0), "A", release=False)
>>> a.numbers.eps_whole > a.numbers.eps_features > 0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from dpcda.dashboard.setting import Setting
from dpcda.report.choice import (FEATURES, LETTERS, MAX_CANDIDATES, CandidateNumbers,
                                 check_candidates, report_name)

T_CAP = 10_000   # largest T generated for a candidate's samples and fidelity (the report's cap)
PER_CLASS = 4    # samples per class in a candidate's picture
MAX_CLASSES = 5  # classes (rows) in it: three pictures fit the report's first page


@dataclass(frozen=True)
class Candidate:
    """One candidate: the setting and what it costs and buys."""

    setting: Setting
    numbers: CandidateNumbers

    @property
    def label(self) -> str:
        return self.numbers.label


def _facts(setting: Setting) -> dict:
    from dpcda.data.presets import get_preset

    pre = get_preset(setting.dataset)
    return dict(l=setting.l, T=setting.T_for(pre.n), c=setting.clip_norm(), delta=setting.delta,
                n=pre.n, class_counts=tuple(pre.class_counts), d_x=pre.d_x, d_y=pre.d_y,
                allocation=setting.allocation)


def stats_mu_of(setting: Setting) -> float | None:
    """The GDP parameter of the ``dp-center`` statistics release a release at ``setting`` makes
    (its ε is composed with the mixing's, as :mod:`dpcda.mechanisms.dp_cda` accounts it); None
    for a normalisation that learns nothing from the private data."""
    from dpcda.data.presets import get_preset

    norm = setting.normalize or get_preset(setting.dataset).dp_cda_normalization
    if norm != "dp-center":
        return None
    from dpcda.mechanisms.dp_cda_account import release_stats_mu

    return release_stats_mu(setting.epsilon, setting.delta)


def _composing(accountant: str):
    from dpcda.mechanisms.dp_cda_account import composing

    return composing(accountant)


def noise_of(setting: Setting) -> tuple[float, float]:
    """(σ_x, σ_y) that run at ``setting``: as chosen, or calibrated to its target ε under its
    accountant, composed with a ``dp-center`` statistics release where there is one
    (ValueError when the target cannot be met)."""
    if setting.epsilon is None:
        return setting.sigma_x, setting.sigma_y_value
    from dpcda.privacy import calibrate

    from dpcda.randomness.noise import calibration_aim

    ratio = setting.sigma_y_value / setting.sigma_x if setting.sigma_x > 0 else 1.0
    mu = stats_mu_of(setting)
    facts = _facts(setting)
    # as the release does: the target less floating point's share (T rows bound sum(T_k))
    aim = calibration_aim(setting.epsilon, facts["T"] * (facts["d_x"] + facts["d_y"]) +
                          (facts["d_x"] if mu is not None else 0))
    if mu is not None:
        sx, sy, _ = _composing(setting.accountant).calibrate_composed(
            epsilon=aim, mu=mu, ratio=ratio, **facts)
        return float(sx), float(sy)
    cal = calibrate(epsilon=aim, accountant=setting.accountant, ratio=ratio,
                    conversion=setting.conversion, max_alpha=setting.max_alpha, **facts)
    return float(cal.sigma_x), float(cal.sigma_y)


def relation_epsilons(setting: Setting, sigma_x: float, sigma_y: float) -> dict:
    """ε of the noise under both relations: ``{"eps_whole", "whole_note", "eps_features"}``
    (:func:`dpcda.dashboard.relations.relation_rows`, the ``dp-center`` statistics composed in;
    ``whole_note`` is empty: both relations account every allocation). ValueError when a
    relation cannot account it."""
    from dpcda.dashboard.relations import relation_rows
    from dpcda.privacy import PrivacyParams

    p = PrivacyParams(sigma_x=sigma_x, sigma_y=sigma_y, **_facts(setting))
    whole, features = relation_rows(p, stats_mu_of(setting))
    for row in (features, whole):
        if row.epsilon is None:
            raise ValueError(row.problem)
    return {"eps_features": features.epsilon, "eps_whole": whole.epsilon,
            "whole_note": whole.problem}


def measured_accuracy(setting: Setting, sigma_x: float, sigma_y: float, store=None) -> dict:
    """The accuracy measured for this exact release (shipped table, then the results store):
    ``{"accuracy", "accuracy_std", "accuracy_runs", "learner"}``, empty when not measured."""
    from dpcda.experiments import frontier as fr

    f = _facts(setting)
    hit = fr.lookup(fr.measured_rows(setting.dataset, store), l=setting.l, sigma_x=sigma_x,
                    ratio=sigma_y / sigma_x if sigma_x > 0 else 1.0, c=setting.c, T=setting.T,
                    n=f["n"], normalization=setting.normalize, allocation=setting.allocation,
                    dataset=setting.dataset)
    if not hit:
        return {}
    std = hit.get("std")
    return dict(accuracy=float(hit["mean"]),
                accuracy_std=None if std is None or not math.isfinite(std) else float(std),
                accuracy_runs=int(hit.get("runs") or 0), learner=str(hit.get("learner") or ""))


def shipped_baselines(dataset: str, learner: str | None) -> dict:
    """``{"majority", "nonprivate"}`` from :mod:`dpcda.evaluation.baselines` (the shipped
    majority-class rate and the learner's non-private ceiling) where that module is installed
    and knows the dataset; empty otherwise (the report then leaves the baselines out)."""
    try:
        from dpcda.evaluation.baselines import baseline
    except ImportError:  # a library without the baselines table
        return {}
    b = baseline(dataset, learner or None)
    if b is None:
        return {}
    ceiling = b.ceiling if b.ceiling is not None and math.isfinite(b.ceiling) else None
    return {"majority": float(b.majority.rate), "nonprivate": ceiling}


def release_numbers(setting: Setting, sigma_x: float, sigma_y: float) -> dict:
    """A fresh release at the candidate's noise (T capped at :data:`T_CAP`; a ``dp-center``
    centre drawn at the default share): ``{"fidelity", "samples"}``; empty when the dataset's
    files are not here."""
    from dpcda.data import load_dataset
    from dpcda.evaluation.fidelity import release_fidelity
    from dpcda.mechanisms import generate_from_dataset

    try:
        ds = load_dataset(setting.dataset)
    except ValueError:  # the files are not on this machine: no samples, no fidelity
        return {}
    f = _facts(setting)
    kw = {k: v for k, v in dict(c=setting.c, normalize=setting.normalize).items() if v is not None}
    rel = generate_from_dataset(ds, "dp-cda", l=setting.l, sigma_x=sigma_x, sigma_y=sigma_y,
                                T=min(f["T"], T_CAP), delta=setting.delta, accountant=FEATURES,
                                allocation=setting.allocation, **kw)
    count_release(setting.dataset, rel.card)  # a fresh draw from the private data, shown
    rep = release_fidelity(rel, ds, preprocess=rel.preprocess)
    dist = (rep.distances if hasattr(rep, "distances") else [c.distance for c in rep.columns])
    out: dict = {"fidelity": float(np.mean(dist))}
    if ds.is_image:
        from dpcda.report import viz
        from dpcda.report.pictures import sample_pictures

        pics = sample_pictures(rel, ds.image_shape, per_class=PER_CLASS,
                               max_classes=min(ds.n_classes, MAX_CLASSES), class_names=ds.class_names)
        out["samples"] = viz.upscale(pics.grid, viz.fit_factor(pics.grid.shape[1], 120))
    return out


def measure(setting: Setting, label: str, *, store=None, release: bool = True,
            majority: float | None = None, nonprivate: float | None = None) -> Candidate:
    """The candidate of ``setting`` (see the module docstring). ``release=False`` skips the
    samples and fidelity; ``majority``/``nonprivate``: baselines, when measured elsewhere (else
    :func:`shipped_baselines`)."""
    sx, sy = noise_of(setting)
    nums = dict(label=label, dataset=setting.dataset, l=setting.l, sigma_x=sx,
                T=_facts(setting)["T"], delta=setting.delta, allocation=setting.allocation,
                target_epsilon=setting.epsilon, accountant=setting.accountant,
                majority=majority, nonprivate=nonprivate)
    nums.update(relation_epsilons(setting, sx, sy))
    nums.update(measured_accuracy(setting, sx, sy, store))
    if majority is None and nonprivate is None:
        nums.update(shipped_baselines(setting.dataset, nums.get("learner")))
    if release:
        nums.update(release_numbers(setting, sx, sy))
    return Candidate(setting, CandidateNumbers(**nums))


def next_label(cands: Sequence[Candidate]) -> str:
    """The first free letter of A, B, C (ValueError when all three are taken)."""
    free = [x for x in LETTERS[:MAX_CANDIDATES] if x not in {c.label for c in cands}]
    if not free:
        raise ValueError(f"candidates hold at most {MAX_CANDIDATES} settings: remove one first "
                         f"(labels {', '.join(c.label for c in cands)})")
    return free[0]


def add(cands: Sequence[Candidate], cand: Candidate) -> tuple[Candidate, ...]:
    """``cands`` with ``cand`` (relabelled to the next free letter); a setting already there
    is replaced rather than added twice. ValueError beyond :data:`MAX_CANDIDATES`."""
    kept = [c for c in cands if c.setting != cand.setting]
    label = next((c.label for c in cands if c.setting == cand.setting), None) or next_label(kept)
    new = Candidate(cand.setting, replace(cand.numbers, label=label))
    return tuple(sorted([*kept, new], key=lambda c: c.label))


def remove(cands: Sequence[Candidate], label: str) -> tuple[Candidate, ...]:
    """``cands`` without the one labelled ``label`` (ValueError naming the labels otherwise)."""
    if label not in {c.label for c in cands}:
        raise ValueError(f"label must be one of {', '.join(c.label for c in cands) or '(none)'}, "
                         f"got label={label!r}")
    return tuple(c for c in cands if c.label != label)


def choice_report(cands: Sequence[Candidate], chosen: str, *, store=None) -> tuple[str, str]:
    """(file name, HTML) of the report choosing ``chosen``: the summary page, the candidates
    side by side, then the chosen setting's full report."""
    from dpcda.report.choice_html import build_choice_report
    from dpcda.report.gather import gather_report_inputs

    nums = [c.numbers for c in cands]
    pick = check_candidates(nums, chosen)
    s = next(c.setting for c in cands if c.label == chosen)
    accountant = s.accountant
    # the whole T and the setting's own noise choice: the details state the summary's ε
    noise = {"epsilon": s.epsilon} if s.epsilon is not None else {"sigma_x": pick.sigma_x}
    details = gather_report_inputs(
        s.dataset, l=s.l, **noise, delta=s.delta, accountant=accountant,
        conversion=s.conversion, c=s.c, T=pick.T, normalization=s.normalize,
        allocation=s.allocation, store=store, on_release=lambda card: count_release(s.dataset, card))
    return report_name(pick), build_choice_report(details, nums, chosen)


def count_release(dataset: str, card: dict) -> None:
    """Count a release drawn from the data of the built-in ``dataset`` in the server's tally
    (:mod:`dpcda.dashboard.shown`), covered as its card's normalisation says."""
    from dpcda.dashboard import shown

    norm = card.get("normalization") or {}
    covered = norm.get("covered_by_guarantee", True)
    shown.record(("builtin", dataset), shown.release_drawn(card, normalize=None if covered else "zscore"))
