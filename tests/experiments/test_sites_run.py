"""run_sites' learner gets what run_experiment gives it from a card (issue 27 item 5): the
noise-aware QDA its public noise and mixing factors (before, it got neither)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dpcda.experiments import sites_run
from dpcda.training.qda import mixing_factors


@pytest.mark.parametrize("mode,params,noise,mix", [
    ("cape", {"sigma_x": 0.3, "sigma_y": 0.3}, 0.3, "pooled"),
    ("centralized", {"sigma_x": 0.2}, 0.2, "pooled"),
    ("local", {"sigma_x_per_site": [0.3, 0.4]}, (0.125) ** 0.5, "limit"),
])
def test_qda_gets_the_public_noise_and_the_mixing_factors(monkeypatch, mode, params, noise, mix):
    import dpcda.training as training

    seen = {}

    def fake(X, y, X_test, y_test, **kw):
        seen.update(kw["config"].to_dict())
        return {"accuracy": 0.5}

    monkeypatch.setattr(training, "train_and_evaluate", fake)
    counts = (50, 60, 70)
    ds = SimpleNamespace(n_classes=3, class_counts=counts, d_x=4, image_shape=None,
                         y_test=np.zeros(2, int))
    rel = SimpleNamespace(X=np.zeros((3, 4)), y=np.arange(3), y_soft=None,
                          card={"parameters": params}, preprocess=lambda X: X)
    from dpcda.experiments.run import experiment_config

    cfg = experiment_config({"dataset": "digits", "epsilon": 1.0, "l": 4})
    assert sites_run._train(rel, ds, np.zeros((2, 4)), cfg, "qda", mode) == 0.5
    assert seen["noise_std"] == pytest.approx(noise)
    want = mixing_factors(4, counts) if mix == "pooled" else [0.25] * 3
    assert list(seen["mix_factors"]) == pytest.approx(list(want))
