"""Baselines (DPMix, local perturbation, random projection), denoising and the registry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.ndimage import gaussian_filter

from dpcda.mechanisms import (MECHANISMS, denoise, generate, generate_dpcda, generate_local,
                              generate_random_projection, list_mechanisms)
from dpcda.mechanisms.baselines import generate_dpmix_traced
from dpcda.privacy import ACCOUNTANT_INFO
from mech_data import make_blocks

P_MIN = 1e-4


def _unit_blocks(seed=0):
    X, y = make_blocks(seed=seed)
    return X / 2.0, y  # features in [0, 1]


def test_registry_names_and_lookup():
    assert list_mechanisms() == ["dp-cda", "dpmix", "local", "random-projection", "dp-merf"]
    assert MECHANISMS.get("dp-cda").generate is generate_dpcda
    with pytest.raises(ValueError, match="unknown mechanism 'gan'; known: dp-cda, dpmix"):
        MECHANISMS.get("gan")


def test_dpmix_mixes_any_class_with_soft_labels():
    X, y = _unit_blocks()
    T, l = 6000, 4
    rel, tr = generate_dpmix_traced(X, y, l=l, T=T, sigma_x=0, sigma_y=0, normalize="none",
                                    seed=1, return_indices=True, accountant="dpmix")  # unclipped
    idx = tr.indices
    assert (np.diff(np.sort(idx, axis=1), axis=1) > 0).all()
    np.testing.assert_allclose(rel.X, X[idx].mean(axis=1), atol=1e-6)
    np.testing.assert_allclose(rel.y_soft, np.eye(4)[y[idx]].mean(axis=1), atol=1e-6)
    # an argmax (ties on the grid broken at random)
    assert (rel.y_soft[np.arange(len(rel.y)), rel.y] == rel.y_soft.max(axis=1)).all()
    # drawn from the whole dataset: mixtures span several classes, each point used ~ T l / N
    assert (np.sort(rel.y_soft, axis=1)[:, -1] < 1).mean() > 0.5
    assert stats.chisquare(np.bincount(idx.ravel(), minlength=len(y))).pvalue > P_MIN
    card = rel.card
    assert card["algorithm"] == "dpmix" and card["privacy"]["accountant"] == "dpmix"
    assert card["privacy"]["private"] is False and card["parameters"]["c"] is None


def test_dpmix_noise_and_accounting():
    X, y = _unit_blocks()
    rel, tr = generate_dpmix_traced(X, y, l=3, T=4000, sigma_x=0.4, sigma_y=0.2, normalize="none",
                                    seed=2, return_indices=True, accountant="dpmix")
    nx = (rel.X - X[tr.indices].mean(axis=1)).ravel()
    chi = (nx.size - 1) * nx.var(ddof=1) / 0.4**2
    assert abs(chi - (nx.size - 1)) < 5 * math.sqrt(2 * (nx.size - 1))
    ny = (rel.y_soft - np.eye(4)[y[tr.indices]].mean(axis=1)).ravel()
    assert abs(ny.std() - 0.2) < 0.01
    assert rel.card["privacy"]["assumptions"] == ACCOUNTANT_INFO["dpmix"].assumptions
    assert rel.card["privacy"]["epsilon"] > 0


def test_dpmix_requires_features_in_unit_interval():
    X, y = make_blocks()  # values up to 2
    with pytest.raises(ValueError, match=r"DPMix needs features in \[0, 1\]"):
        generate("dpmix", X, y, l=2, sigma_x=0.5, normalize="none", accountant="dpmix")
    clipped = generate("dpmix", X, y, l=2, sigma_x=0.0, sigma_y=0.0, normalize="none", c=1.5)
    assert np.linalg.norm(clipped.X, axis=1).max() <= 1.5 + 1e-5  # the default clips to c
    with pytest.raises(ValueError, match="accountant must be one of dpmix-clipped, dpmix, dpmix-low"):
        generate("dpmix", X / 2, y, l=2, sigma_x=0.5, normalize="none", accountant="paper")
    with pytest.raises(ValueError, match=r"l must be an integer in \[1, 130\]"):
        generate("dpmix", X / 2, y, l=131, sigma_x=0.5, normalize="none")


def test_local_perturbation_is_one_point_plus_noise():
    X, y = _unit_blocks()
    rel = generate_local(X, y, T=300, sigma_x=0, sigma_y=0, normalize="none", seed=3, c=100.0)
    dist = ((rel.X[:, None, :] - X[None]) ** 2).sum(-1)
    assert dist.min(axis=1).max() < 1e-12
    assert (y[dist.argmin(axis=1)] == rel.y).all()
    assert rel.card["algorithm"] == "local" and rel.card["parameters"]["l"] == 1
    with pytest.raises(ValueError, match="l = 1"):
        generate_local(X, y, l=2, sigma_x=1.0, normalize="none")


def test_random_projection_noise_std_and_card():
    X, y = _unit_blocks()
    eps, delta, p = 2.0, 1e-5, 8
    rel = generate_random_projection(X, y, epsilon=eps, delta=delta, p=p, normalize="none", seed=4,
                                     accountant="dppro")  # as published
    R = rel.extras["projection"]
    assert R.shape == (p, X.shape[1]) and rel.X.shape == (len(X), p)
    s_R = np.linalg.norm(R.astype(np.float64), 2)
    from dpcda.randomness.noise import calibration_aim

    aim = calibration_aim(eps, len(X) * p)  # floating point's share kept back
    std = s_R * math.sqrt(math.log(1 / (2 * delta)) + aim) / aim
    card = rel.card
    assert card["parameters"]["p"] == p and card["release"]["projection_shape"] == [p, 20]
    assert card["parameters"]["noise_std"] == pytest.approx(std, rel=1e-5)
    assert card["privacy"]["accountant"] == "dppro" and card["privacy"]["epsilon"] == aim
    assert card["privacy"]["calibrated_to_epsilon"] == eps
    assert card["privacy"]["floating_point"]["epsilon_total"] <= eps
    assert card["privacy"]["valid_bound"] is False
    resid = (rel.X - rel.preprocess(X)).ravel().astype(np.float64)
    chi = (resid.size - 1) * resid.var(ddof=1) / std**2
    assert abs(chi - (resid.size - 1)) < 5 * math.sqrt(2 * (resid.size - 1))
    assert (rel.y == y).all()
    # R has i.i.d. N(0, 1/p) entries
    assert stats.kstest(R.ravel() * math.sqrt(p), "norm").pvalue > P_MIN
    with pytest.raises(ValueError, match="p must be an integer"):
        generate_random_projection(X, y, epsilon=1.0, p=21, normalize="none")


def test_denoise_filters_each_image_on_its_own():
    X, y = _unit_blocks()
    rel = generate_dpcda(X, y, l=2, T=40, sigma_x=0.3, image_shape=(1, 4, 5), seed=5)
    out = denoise(rel, sigma=1.0)
    imgs = rel.X.reshape(-1, 1, 4, 5).astype(np.float64)
    expect = np.stack([gaussian_filter(im[0], 1.0) for im in imgs])
    np.testing.assert_allclose(out.X.reshape(-1, 4, 5), expect, atol=1e-5)
    assert out.card["postprocessing"][-1]["costs_privacy"] is False
    assert rel.card["postprocessing"] == []  # the original card is untouched
    assert np.array_equal(out.y, rel.y) and out.card["privacy"] == rel.card["privacy"]
    # neither samples nor channels are blurred together
    from dpcda.mechanisms import gaussian_filter_images

    batch = np.zeros((3, 2 * 6 * 6), dtype=np.float32)
    batch[1, :36] = 1.0
    f = gaussian_filter_images(batch, (2, 6, 6), 1.5)
    assert (f[0] == 0).all() and (f[2] == 0).all() and (f[1, 36:] == 0).all()
    tab = generate_dpcda(X, y, l=2, T=40, sigma_x=0.3)
    with pytest.raises(ValueError, match="needs images"):
        denoise(tab)
    with pytest.raises(ValueError, match="sigma must be"):
        denoise(rel, sigma=0)
