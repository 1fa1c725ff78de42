"""Noise-aware QDA (dpcda.training.qda): the mixing/noise correction is exact, the hyper-parameters
never see the test split, and bad inputs are refused by name."""

import numpy as np
import pytest

from dpcda.training.qda import NoiseAwareQDA, mixing_factors


def _classes(rng, K=3, d=8, n=400):
    """K Gaussian classes with distinct, known covariances (sample covariance, 1/n, as the truth)."""
    X, y, sig = [], [], []
    for k in range(K):
        A = rng.normal(size=(d, d)) * (0.3 + 0.3 * k)
        Xk = rng.normal(size=(n, d)) @ A + 2.0 * k
        R = Xk - Xk.mean(axis=0)
        X.append(Xk), y.append(np.full(n, k)), sig.append(R.T @ R / n)
    return X, np.concatenate(y), np.array(sig)


def _mix(rng, Xk, l, T, sigma):
    """DP-CDA's mixing: means of l distinct records of the class, plus N(0, sigma^2 I)."""
    idx = np.array([rng.choice(len(Xk), size=l, replace=False) for _ in range(T)])
    return Xk[idx].mean(axis=1) + rng.normal(0.0, sigma, size=(T, Xk.shape[1]))


def test_mixing_factors_are_the_without_replacement_variance():
    assert mixing_factors(1, [10, 20]).tolist() == [1.0, 1.0]
    np.testing.assert_allclose(mixing_factors(4, [10]), [(10 - 4) / (4 * 9)])
    with pytest.raises(ValueError, match="class_sizes"):
        mixing_factors(8, [5, 20])


def test_correction_recovers_class_covariances_within_sampling_error():
    rng = np.random.default_rng(0)
    l, T, sigma, d = 4, 40_000, 0.5, 8
    Xs, _, sig = _classes(rng, d=d)
    X = np.concatenate([_mix(rng, Xk, l, T, sigma) for Xk in Xs])
    y = np.repeat(np.arange(3), T)
    f = mixing_factors(l, [len(Xk) for Xk in Xs])
    q = NoiseAwareQDA(3, noise_var=sigma ** 2, mix_factors=f, dims=(d,)).fit(X, y)
    got = q.corrected_covariances()
    # sampling error of a covariance entry from T rows: about sqrt(2 / T) * (f var + sigma^2) / f
    scale = (f[:, None, None] * np.abs(sig).max() + sigma ** 2) / f[:, None, None]
    err = np.abs(got - sig) / scale
    assert err.max() < 2 * np.sqrt(2 / T), err.max()  # a 10% wrong f_k or no sigma: ~0.08
    # the uncorrected release covariance is far off (the correction does the work)
    raw = np.cov(X[y == 2].T)
    assert np.abs(raw - sig[2]).max() > 10 * np.abs(got[2] - sig[2]).max()


def test_scores_classify_clean_data_after_fitting_on_mixtures():
    rng = np.random.default_rng(1)
    Xs, y_clean, _ = _classes(rng, d=8, n=600)
    X = np.concatenate([_mix(rng, Xk, 8, 5000, 0.3) for Xk in Xs])
    y = np.repeat(np.arange(3), 5000)
    f = mixing_factors(8, [600] * 3)
    acc = np.mean(NoiseAwareQDA(3, noise_var=0.09, mix_factors=f, dims=(8,))
                  .fit(X, y).predict(np.concatenate(Xs)) == y_clean)
    plain = np.mean(NoiseAwareQDA(3, dims=(8,)).fit(X, y).predict(np.concatenate(Xs)) == y_clean)
    assert acc > 0.9 and acc > plain


def test_hyper_parameters_never_see_the_test_split():
    """The choice is made in fit, which gets only the release; the held-out rule picks among
    several candidates and the training loop reports the choice unchanged when test labels change."""
    from dpcda.training import TrainConfig, train_and_evaluate

    rng = np.random.default_rng(2)
    Xs, _, _ = _classes(rng, d=6, n=300)
    X = np.concatenate([_mix(rng, Xk, 4, 1500, 0.2) for Xk in Xs])
    y = np.repeat(np.arange(3), 1500)
    X_test = np.concatenate(Xs)
    cfg = TrainConfig(model="qda", n_classes=3, noise_std=0.2, input_scale="none",
                      mix_factors=tuple(mixing_factors(4, [300] * 3)))
    outs = [train_and_evaluate(X, y, X_test, yt, config=cfg)
            for yt in (np.repeat(np.arange(3), 300), rng.integers(0, 3, size=900))]
    assert outs[0]["learner_choice"] == outs[1]["learner_choice"]
    assert outs[0]["accuracy"] != outs[1]["accuracy"]
    q = NoiseAwareQDA(3, noise_var=0.04, mix_factors=mixing_factors(4, [300] * 3),
                      dims=(2, 6), shrinkages=(0.0, 0.5), floors=(0.1, 1.0)).fit(X, y)
    assert q.choice_["rule"] == "held-out release rows"
    assert q.choice_["dims"] in (2, 6) and np.isfinite(q.choice_["holdout_loglik"])


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="mix_factors"):
        NoiseAwareQDA(3, mix_factors=[1.0, 0.5])
    with pytest.raises(ValueError, match="holdout"):
        NoiseAwareQDA(3, holdout=1.5)
    from dpcda.training import TrainConfig

    with pytest.raises(ValueError, match="mix_factors"):
        TrainConfig(model="qda", mix_factors=(1.0, -2.0))
    cfg = TrainConfig(model="qda")
    assert "mix_factors" not in cfg.to_dict()  # stored configs keep their keys
    assert TrainConfig.from_dict(TrainConfig(model="qda", mix_factors=(0.5, 0.25)).to_dict()) \
        == TrainConfig(model="qda", mix_factors=(0.5, 0.25))
