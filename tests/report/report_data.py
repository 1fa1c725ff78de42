"""Fixtures for the report tests: a ReportInputs with every section filled (small, synthetic
pictures and hand-written rows; the numbers are test data, not measurements)."""

from __future__ import annotations

import numpy as np

from dpcda.report import ReportInputs

PRIVACY = {"private": True, "epsilon": 7.31, "delta": 1e-5, "accountant": "paper",
           "accountant_title": "DP-CDA Theorem 1 as published", "conversion": "mironov",
           "relation": "Two datasets are neighbours when they differ in one record.",
           "assumptions": "**T** mixtures drawn at rate `l/N`.",
           "bound_note": "as published, not a bound for this implementation",
           "other_accountants": {"class-aware-pld": {"epsilon": 4.5, "valid_bound": True}}}


def full_inputs(**over) -> ReportInputs:
    rng = np.random.default_rng(0)  # test pictures only
    kw = dict(
        dataset="digits", setting={"l": 16, "target ε": 10.0},
        privacy=PRIVACY,
        card={"dataset": "digits", "data": {"N": 1347, "K": 10}, "parameters": {"l": 16},
              "normalization": {"method": "zscore", "statistics_from_private_data": True}},
        samples=rng.integers(0, 255, (20, 30), dtype=np.uint8),
        samples_caption="samples",
        class_means=rng.integers(0, 255, (12, 8, 3), dtype=np.uint8),
        class_means_caption="means",
        accuracy_vs_l=[{"series": "ε = 10", "l": l, "mean": m, "std": 0.01, "runs": 3}
                       for l, m in ((4, 0.7), (16, 0.8), (64, 0.75))],
        frontier=[{"epsilon": e, "accuracy": a, "std": None, "best l": 16}
                  for e, a in ((1.0, 0.6), (10.0, 0.8), (20.0, 0.82))],
        frontier_current=(10.0, 0.8),
        compare=[{"method": "DP-CDA", "accuracy": 0.8}, {"method": "DPMix", "accuracy": None}],
        fidelity=[{"class": "0", "distance": 0.1}])
    kw.update(over)
    return ReportInputs(**kw)
