"""Noise-aware LDA with the tangent prior (dpcda.training.lda_tangent): the LDA exactly without
an image shape, near the Bayes accuracy on Gaussian classes, better than the LDA where images
vary by shifts, its choice a function of the release alone, and wired into the training loop."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from tests.training.synthetic import mix, shifted_shapes
from dpcda.training import TrainConfig, train_and_evaluate
from dpcda.training.lda_tangent import TangentLDA
from dpcda.training.learners import NoiseAwareLDA
from dpcda.training.qda import mixing_factors


def _shape_release(seed, K=4, n=300, l=4, T=1500, sigma=0.3):
    rng = np.random.default_rng(seed)
    Xs = [shifted_shapes(rng, k, n, 1.0) for k in range(K)]
    X = np.concatenate([mix(rng, Xk, l, T, sigma) for Xk in Xs])
    y = np.repeat(np.arange(K), T)
    Xt = np.concatenate([shifted_shapes(rng, k, 250, 1.0) for k in range(K)])
    return X, y, Xt, np.repeat(np.arange(K), 250), mixing_factors(l, [n] * K)


def test_without_an_image_shape_it_is_the_noise_aware_lda():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5)) + np.repeat(np.eye(3, 5) * 2, 200, axis=0)
    y = np.repeat(np.arange(3), 200)
    t = TangentLDA(3, noise_var=0.2).fit(X, y)
    lda = NoiseAwareLDA(3, noise_var=0.2).fit(X, y)
    Xt = rng.normal(size=(50, 5))
    np.testing.assert_allclose(t.scores(Xt), lda.scores(Xt), rtol=1e-8, atol=1e-8)
    assert t.choice_["tangent_variances"] is None


def test_gaussian_classes_reach_the_bayes_accuracy_from_a_noisy_mixed_release():
    """Two Gaussian classes, shared covariance, mixed (l = 4) and noised: trained on the release
    alone, clean test accuracy within 1.5 points of the Bayes accuracy Phi(Delta / 2)."""
    rng = np.random.default_rng(1)
    d, n, l, T, sigma = 6, 2000, 4, 4000, 0.5
    L = np.linalg.cholesky(0.5 * np.eye(d) + 0.5)
    mu = np.zeros((2, d))
    mu[1, :2] = [1.0, -1.0]
    Xk = [mu[k] + rng.normal(size=(n, d)) @ L.T for k in range(2)]
    X = np.concatenate([mix(rng, x, l, T, sigma) for x in Xk])
    y = np.repeat([0, 1], T)
    Xt = np.concatenate([mu[k] + rng.normal(size=(20000, d)) @ L.T for k in range(2)])
    yt = np.repeat([0, 1], 20000)
    C = L @ L.T
    delta = math.sqrt((mu[1] - mu[0]) @ np.linalg.solve(C, mu[1] - mu[0]))
    bayes = norm.cdf(delta / 2)
    t = TangentLDA(2, noise_var=sigma ** 2, mix_factors=mixing_factors(l, [n, n])).fit(X, y)
    acc = np.mean(t.predict(Xt) == yt)
    assert bayes - 0.015 < acc <= bayes + 0.01, (acc, bayes)


def test_tangent_prior_beats_the_lda_on_shifted_images():
    X, y, Xt, yt, f = _shape_release(0)
    t = TangentLDA(4, noise_var=0.09, mix_factors=f, image_shape=(1, 16, 16)).fit(X, y)
    lda = NoiseAwareLDA(4, noise_var=0.09).fit(X, y)
    acc_t, acc_l = np.mean(t.predict(Xt) == yt), np.mean(lda.predict(Xt) == yt)
    assert acc_t > acc_l + 0.02, (acc_t, acc_l)
    assert max(t.choice_["tangent_variances"][:2]) > 0  # the shifts were read off the release


def test_choice_and_scores_never_depend_on_the_test_split():
    X, y, Xt, yt, f = _shape_release(2)
    a = TangentLDA(4, noise_var=0.09, mix_factors=f, image_shape=(1, 16, 16)).fit(X, y)
    s_all = a.scores(Xt)
    b = TangentLDA(4, noise_var=0.09, mix_factors=f, image_shape=(1, 16, 16)).fit(X, y)
    other = np.random.default_rng(5).permutation(len(Xt))[:100]
    s_sub = b.scores(Xt[other] + 0.0)
    assert a.choice_ == b.choice_
    np.testing.assert_allclose(s_sub, s_all[other], rtol=1e-9, atol=1e-9)  # row by row


def test_train_and_evaluate_runs_it_from_the_registry():
    X, y, Xt, yt, f = _shape_release(3)
    cfg = TrainConfig.from_dict(dict(model="lda-tangent", n_classes=4, noise_std=0.3, input_scale="none",
                                     mix_factors=tuple(f)))
    out = train_and_evaluate(X, y, Xt, yt, image_shape=(1, 16, 16), config=cfg)
    direct = TangentLDA(4, noise_var=0.09, mix_factors=f, image_shape=(1, 16, 16)).fit(X, y)
    assert out["accuracy"] == pytest.approx(np.mean(direct.predict(Xt) == yt), abs=1e-3)
    np.testing.assert_allclose(out["learner_choice"]["tangent_variances"],  # the loop: float32 rows
                               direct.choice_["tangent_variances"], rtol=1e-5, atol=1e-9)
    lda = train_and_evaluate(X, y, Xt, yt, image_shape=(1, 16, 16),
                             config=TrainConfig.from_dict(dict(model="lda", n_classes=4, noise_std=0.3,
                                                               input_scale="none")))
    assert out["accuracy"] > lda["accuracy"] + 0.02, (out["accuracy"], lda["accuracy"])


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="image_shape"):
        TangentLDA(2, image_shape=(2, 2))
    with pytest.raises(ValueError, match="mix_factors"):
        TangentLDA(2, mix_factors=(1.0, -1.0))
