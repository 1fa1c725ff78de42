"""Noise-aware QDA (dpcda.training.qda): the mixing/noise correction is exact, the regularising
rule inverts the Marchenko-Pastur/BBP law, the hyper-parameters are a function of the release
alone (never of the test split), the tangent prior helps where images vary by shifts, and bad
inputs are refused by name."""

import numpy as np
import pytest
from scipy import ndimage

from tests.training.synthetic import mix, shifted_shapes
from dpcda.training.qda import NoiseAwareQDA, mixing_factors
from dpcda.training.qda_prior import image_tangents
from dpcda.training.qda_rule import spiked_eigenvalues


def _classes(rng, K=3, d=8, n=400):
    """K Gaussian classes with distinct, known covariances (sample covariance, 1/n, as the truth)."""
    X, y, sig = [], [], []
    for k in range(K):
        A = rng.normal(size=(d, d)) * (0.3 + 0.3 * k)
        Xk = rng.normal(size=(n, d)) @ A + 2.0 * k
        R = Xk - Xk.mean(axis=0)
        X.append(Xk), y.append(np.full(n, k)), sig.append(R.T @ R / n)
    return X, np.concatenate(y), np.array(sig)


def test_mixing_factors_are_the_without_replacement_variance():
    assert mixing_factors(1, [10, 20]).tolist() == [1.0, 1.0]
    np.testing.assert_allclose(mixing_factors(4, [10]), [(10 - 4) / (4 * 9)])
    with pytest.raises(ValueError, match="class_sizes"):
        mixing_factors(8, [5, 20])


def test_mixing_factors_error_names_no_class_size():
    """The class sizes are private counts: the message of two neighbouring datasets (one record
    more in one class) is the same, and names l (public) but no size."""
    messages = []
    for sizes in ([5, 20], [6, 20], [5, 21]):
        with pytest.raises(ValueError) as err:
            mixing_factors(8, sizes)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == messages[2]
    assert "l=8" in messages[0]
    for count in ("5", "6", "20", "21"):
        assert count not in messages[0].replace("l=8", "")
    with pytest.raises(ValueError, match="l must be"):
        mixing_factors(0, [5, 20])


def test_correction_recovers_class_covariances_within_sampling_error():
    rng = np.random.default_rng(0)
    l, T, sigma, d = 4, 40_000, 0.5, 8
    Xs, _, sig = _classes(rng, d=d)
    X = np.concatenate([mix(rng, Xk, l, T, sigma) for Xk in Xs])
    y = np.repeat(np.arange(3), T)
    f = mixing_factors(l, [len(Xk) for Xk in Xs])
    q = NoiseAwareQDA(3, noise_var=sigma ** 2, mix_factors=f).fit(X, y)
    got = q.corrected_covariances()
    # sampling error of a covariance entry from T rows: about sqrt(2 / T) * (f var + sigma^2) / f
    scale = (f[:, None, None] * np.abs(sig).max() + sigma ** 2) / f[:, None, None]
    err = np.abs(got - sig) / scale
    assert err.max() < 2 * np.sqrt(2 / T), err.max()  # a 10% wrong f_k or no sigma: ~0.08
    # the uncorrected release covariance is far off (the correction does the work)
    raw = np.cov(X[y == 2].T)
    assert np.abs(raw - sig[2]).max() > 10 * np.abs(got[2] - sig[2]).max()


def test_spiked_rule_inverts_the_marchenko_pastur_law():
    """Bulk b0 I plus three spikes, mixed (f) and noised (sigma): the rule finds the spikes
    above the BBP threshold and no other, and recovers them and the bulk, where the naive
    (ell - sigma^2) / f is biased upwards by the Marchenko-Pastur spread."""
    rng = np.random.default_rng(3)
    d, n, f, sigma2, b0 = 200, 2000, 0.25, 1.0, 0.2
    spikes = np.array([12.0, 6.0, 3.0, 0.3])  # clean excess; the last is below the threshold
    gamma = d / n
    x = f * spikes / (sigma2 + f * b0)  # in units of the release's bulk
    assert np.sum(x > np.sqrt(gamma)) == 3
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    clean = np.full(d, b0)
    clean[:4] += spikes
    R = (Q * (f * clean + sigma2)) @ Q.T  # release covariance
    Z = rng.normal(size=(n, d)) @ np.linalg.cholesky(R).T
    ell = np.linalg.eigvalsh(Z.T @ Z / n)
    var, order, floor, r = spiked_eigenvalues(ell, sigma2, f, gamma, d)
    assert r == 3
    assert abs(floor - b0) < 0.1 * b0
    lam = var  # the variances used along the sample eigenvectors
    # the variance along a sample eigenvector: spike * cos^2 + bulk; the true cos^2 from Q
    U = np.linalg.eigh(Z.T @ Z / n)[1][:, order[:3]]
    truth = np.einsum("dj,d,dj->j", Q.T @ U, clean, Q.T @ U)
    np.testing.assert_allclose(lam, truth, rtol=0.15)
    naive = (np.sort(ell)[::-1][:3] - sigma2) / f
    assert np.all(np.abs(naive - truth) > 2 * np.abs(lam - truth))


def test_scores_classify_clean_data_after_fitting_on_mixtures():
    rng = np.random.default_rng(1)
    Xs, y_clean, _ = _classes(rng, d=8, n=600)
    X = np.concatenate([mix(rng, Xk, 8, 5000, 0.3) for Xk in Xs])
    y = np.repeat(np.arange(3), 5000)
    f = mixing_factors(8, [600] * 3)
    acc = np.mean(NoiseAwareQDA(3, noise_var=0.09, mix_factors=f)
                  .fit(X, y).predict(np.concatenate(Xs)) == y_clean)
    plain = np.mean(NoiseAwareQDA(3).fit(X, y).predict(np.concatenate(Xs)) == y_clean)
    assert acc > 0.9 and acc > plain


def test_hyper_parameters_are_a_function_of_the_release_alone():
    """fit gets only the release: the choice is the same whatever the test split (labels
    changed, rows permuted), and it moves with the release's public sigma as the rule says
    (a larger noise raises the Marchenko-Pastur edge: fewer spikes, more pooling)."""
    from dpcda.training import TrainConfig, train_and_evaluate

    rng = np.random.default_rng(2)
    Xs, _, _ = _classes(rng, d=6, n=300)
    X = np.concatenate([mix(rng, Xk, 4, 1500, 0.2) for Xk in Xs])
    y = np.repeat(np.arange(3), 1500)
    X_test = np.concatenate(Xs)
    cfg = TrainConfig(model="qda", n_classes=3, noise_std=0.2, input_scale="none",
                      mix_factors=tuple(mixing_factors(4, [300] * 3)))
    perm = rng.permutation(900)
    outs = [train_and_evaluate(X, y, Xt, yt, config=cfg) for Xt, yt in (
        (X_test, np.repeat(np.arange(3), 300)), (X_test, rng.integers(0, 3, size=900)),
        (X_test[perm] + 5.0, np.repeat(np.arange(3), 300)[perm]))]
    assert outs[0]["learner_choice"] == outs[1]["learner_choice"] == outs[2]["learner_choice"]
    assert outs[0]["accuracy"] != outs[1]["accuracy"]
    f = mixing_factors(4, [300] * 3)
    lo = NoiseAwareQDA(3, noise_var=0.04, mix_factors=f).fit(X, y).choice_
    X_loud = X + rng.normal(0.0, 3.0, size=X.shape)  # the same release with sigma^2 = 9.04
    hi = NoiseAwareQDA(3, noise_var=9.04, mix_factors=f).fit(X_loud, y).choice_
    assert sum(hi["spikes"]) < sum(lo["spikes"])
    assert hi["shrinkage"] > lo["shrinkage"]
    assert "release-only" in lo["rule"]


def test_tangent_prior_helps_on_shifted_images_and_reads_the_shift_from_the_release():
    """Four shapes shifted by N(0, 1 px) each way, mixed (l = 4) and noised (sigma = 0.3):
    the release-fitted shift variances are near the truth (1 px^2) and widening each class
    along the test image's own tangents classifies clean images better."""
    rng = np.random.default_rng(0)
    K, n, l, T, sigma, H = 4, 300, 4, 1500, 0.3, 16
    Xs = [shifted_shapes(rng, k, n, 1.0) for k in range(K)]
    X = np.concatenate([mix(rng, Xk, l, T, sigma) for Xk in Xs])
    y = np.repeat(np.arange(K), T)
    Xt = np.concatenate([shifted_shapes(rng, k, 250, 1.0) for k in range(K)])
    yt = np.repeat(np.arange(K), 250)
    f = mixing_factors(l, [n] * K)
    acc = {}
    for tangent in (False, True):
        q = NoiseAwareQDA(K, noise_var=sigma ** 2, mix_factors=f, image_shape=(1, H, H),
                          tangent=tangent).fit(X, y)
        acc[tangent] = np.mean(q.predict(Xt) == yt)
    shift = q.choice_["tangent_variances"][:2]
    assert 0.5 < max(shift) < 3.0, shift
    assert acc[True] > acc[False] + 0.02, acc


def test_image_tangents_are_the_derivatives_of_a_shift():
    rng = np.random.default_rng(5)
    img = ndimage.gaussian_filter(rng.random((20, 20)), 2.0)
    t = image_tangents(img.reshape(1, -1), (1, 20, 20))[0]
    smooth = ndimage.gaussian_filter(img, 0.7)
    moved = ndimage.shift(smooth, (0, -0.05), order=3)  # content moves left: x -> x + 0.05
    fd = ((moved - smooth) / 0.05)[3:-3, 3:-3]
    tx = t[0].reshape(20, 20)[3:-3, 3:-3]
    assert np.corrcoef(fd.ravel(), tx.ravel())[0, 1] > 0.99


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="mix_factors"):
        NoiseAwareQDA(3, mix_factors=[1.0, 0.5])
    with pytest.raises(ValueError, match="noise_var"):
        NoiseAwareQDA(3, noise_var=-1.0)
    with pytest.raises(ValueError, match="image_shape"):
        NoiseAwareQDA(3, image_shape=(1, 2, 2))
    from dpcda.training import TrainConfig

    with pytest.raises(ValueError, match="mix_factors"):
        TrainConfig(model="qda", mix_factors=(1.0, -2.0))
    cfg = TrainConfig(model="qda")
    assert "mix_factors" not in cfg.to_dict()  # stored configs keep their keys
    assert TrainConfig.from_dict(TrainConfig(model="qda", mix_factors=(0.5, 0.25)).to_dict()) \
        == TrainConfig(model="qda", mix_factors=(0.5, 0.25))
