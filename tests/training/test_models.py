"""Every model builds for the shapes the project uses and gives (n, K) outputs."""

import sys

import numpy as np
import pytest

from dpcda.training import get_model, list_models, model_spec

SHAPES = [(1, 28, 28), (3, 32, 32), (1, 8, 8)]
TORCH_MODELS = ["cnn", "dpmix-cnn", "fc", "linear"]


def test_registry_lists_all_models():
    assert set(list_models()) >= {"cnn", "dpmix-cnn", "fc", "linear", "ncm", "lda", "tree"}


def test_unknown_model_lists_known_names():
    with pytest.raises(ValueError, match="unknown model 'resnet'.*cnn"):
        get_model("resnet", input_shape=(1, 8, 8))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", TORCH_MODELS)
def test_torch_model_output_shape(name, shape):
    import torch

    torch.manual_seed(0)
    model = get_model(name, input_shape=shape, n_classes=7)
    model.eval()
    with torch.no_grad():
        out = model(torch.randn(5, *shape))
    assert out.shape == (5, 7)
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("shape,flat", [((1, 28, 28), 3136), ((3, 32, 32), 4096), ((1, 8, 8), 256),
                                        ((1, 7, 7), 64 * 2 * 2)])
def test_cnn_flatten_size_matches_table2(shape, flat):
    assert get_model("cnn", input_shape=shape).flat == flat


@pytest.mark.parametrize("shape,flat", [((1, 28, 28), 768), ((3, 32, 32), 1200)])
def test_dpmix_cnn_is_valid_convolution(shape, flat):
    assert get_model("dpmix-cnn", input_shape=shape).flat == flat


@pytest.mark.parametrize("norm,layer", [("bn", "BatchNorm2d"), ("bn-batch", "BatchNorm2d"),
                                        ("group", "GroupNorm"), ("none", None)])
def test_cnn_norm_variants(norm, layer):
    model = get_model("cnn", input_shape=(1, 8, 8), norm=norm)
    names = [type(m).__name__ for m in model.modules()]
    norms = [n for n in names if n in ("BatchNorm2d", "GroupNorm")]
    assert norms == ([layer] * 2 if layer else [])
    if norm == "bn-batch":
        bns = [m for m in model.modules() if type(m).__name__ == "BatchNorm2d"]
        assert all(m.running_mean is None for m in bns)


def test_cnn_architecture_table2():
    import torch.nn as nn

    m = get_model("cnn", input_shape=(1, 28, 28), norm="bn")
    convs = [x for x in m.modules() if isinstance(x, nn.Conv2d)]
    assert ([(c.out_channels, c.kernel_size, c.padding) for c in convs]
            == [(32, (5, 5), (2, 2)), (64, (3, 3), (1, 1))])
    fcs = [x for x in m.modules() if isinstance(x, nn.Linear)]
    assert [(f.in_features, f.out_features) for f in fcs] == [(3136, 100), (100, 100), (100, 10)]
    assert sum(isinstance(x, nn.Dropout) and x.p == 0.5 for x in m.modules()) == 2


@pytest.mark.parametrize("name,shape", [(n, s) for n in ("ncm", "tree") for s in SHAPES]
                         + [("lda", (1, 8, 8))])  # lda's d x d eigendecomposition: small d here
def test_closed_form_learners_predict_shape(name, shape):
    rng = np.random.default_rng(0)
    d = int(np.prod(shape))
    X = rng.normal(size=(40, d)).astype(np.float32)
    y = np.arange(40) % 4
    learner = get_model(name, input_shape=shape, n_classes=5).fit(X, y)
    s = learner.scores(X[:6])
    assert s.shape == (6, 5)
    assert learner.predict(X[:6]).shape == (6,)
    assert np.all(learner.predict(X) < 4)  # class 4 never seen, never predicted


def test_image_model_rejects_flat_input_shape():
    with pytest.raises(ValueError, match="image input"):
        get_model("cnn", input_shape=(784,))


def test_bad_n_classes():
    with pytest.raises(ValueError, match="n_classes"):
        get_model("linear", input_shape=(4,), n_classes=1)


def test_kinds():
    assert model_spec("ncm").kind == "closed" and model_spec("cnn").kind == "torch"


def test_ncm_exact_on_hand_made_case():
    from dpcda.training.learners import NearestClassMean

    X = np.array([[0, 0], [2, 0], [10, 10], [10, 12], [-5, 5]], dtype=np.float64)
    y = np.array([0, 0, 1, 1, 2])
    m = NearestClassMean(3).fit(X, y)
    np.testing.assert_allclose(m.means_, [[1, 0], [10, 11], [-5, 5]])
    Q = np.array([[1.2, 0.1], [9, 9], [-4, 4], [4.9, 4.9]])
    # hand-computed squared distances for the last point: to (1,0): 15.21+24.01; to (10,11):
    # 26.01+37.21; to (-5,5): 98.01+0.01 -> class 0
    np.testing.assert_array_equal(m.predict(Q), [0, 1, 2, 0])


def test_ncm_soft_weights():
    from dpcda.training.learners import NearestClassMean

    X = np.array([[0.0], [4.0], [10.0]])
    W = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    m = NearestClassMean(2).fit(X, np.array([0, 0, 1]), W)
    np.testing.assert_allclose(m.means_[:, 0], [2.0 / 1.5, 12.0 / 1.5])


def test_importing_models_does_not_import_torch():
    import os
    import subprocess
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo))
    code = ("import sys, dpcda.training; assert 'torch' not in sys.modules, 'torch imported'; "
            "assert 'sklearn' not in sys.modules, 'sklearn imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=repo, env=env)


def _correlated_problem(n, seed, noise):
    """Two classes, means (0,0) and (1,0), within-class covariance [[1,.95],[.95,1]]."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    L = np.linalg.cholesky(np.array([[1.0, 0.95], [0.95, 1.0]]))
    X = np.c_[y.astype(float), np.zeros(n)] + rng.normal(size=(n, 2)) @ L.T
    return X + noise * rng.normal(size=X.shape), y


def test_noise_aware_lda_recovers_clean_covariance():
    from dpcda.training.learners import NoiseAwareLDA

    Xs, ys = _correlated_problem(20000, 0, noise=1.0)   # release: noise variance 1
    Xt, yt = _correlated_problem(4000, 1, noise=0.0)    # clean test
    aware = NoiseAwareLDA(2, noise_var=1.0).fit(Xs, ys)
    plain = NoiseAwareLDA(2, noise_var=0.0).fit(Xs, ys)
    acc_aware = np.mean(aware.predict(Xt) == yt)
    acc_plain = np.mean(plain.predict(Xt) == yt)
    # theory: clean-covariance LDA ~0.945, noisy-covariance LDA ~0.81 on clean data
    assert acc_aware > 0.92 and acc_plain < 0.85, (acc_aware, acc_plain)


def test_noise_aware_lda_matches_closed_form():
    from dpcda.training.learners import NoiseAwareLDA

    Xs, ys = _correlated_problem(5000, 2, noise=0.5)
    m = NoiseAwareLDA(2, noise_var=0.25, shrinkage=0.01).fit(Xs, ys)
    mu = np.stack([Xs[ys == k].mean(0) for k in range(2)])
    R = Xs - mu[ys]
    C = R.T @ R / len(R) - 0.25 * np.eye(2)
    ev = np.linalg.eigvalsh(C)
    assert ev.min() > 0  # the clean covariance is positive definite here: no clipping happens
    floor = 0.01 * (0.25 + ev.mean())
    P = np.linalg.inv(C + floor * np.eye(2))
    np.testing.assert_allclose(m.W_, mu @ P, rtol=1e-8)
    np.testing.assert_allclose(m.b_, -0.5 * np.sum((mu @ P) * mu, axis=1), rtol=1e-8)
    V, ev_used = m.covariance_eig_  # the covariance the discriminant inverts, kept for sampling
    np.testing.assert_allclose((V * ev_used) @ V.T, C + floor * np.eye(2), rtol=1e-8, atol=1e-12)


def _label_noise_problem(n, seed, sigma_y, K=3):
    """K classes on a line, within-class covariance 0.5 * [[1,.95],[.95,1]] (the best direction
    is far from the line of the means), soft labels onehot + N(0, sigma_y^2) and hard labels
    their argmax (DP-CDA)."""
    rng = np.random.default_rng(seed)
    true = np.arange(n) % K
    mu = np.c_[np.arange(K, dtype=float), np.zeros(K)]
    L = np.linalg.cholesky(0.5 * np.array([[1.0, 0.95], [0.95, 1.0]]))
    X = mu[true] + rng.normal(size=(n, 2)) @ L.T
    soft = np.eye(K)[true] + sigma_y * rng.normal(size=(n, K))
    return X, true, soft, soft.argmax(axis=1), mu


def test_lda_undoes_label_noise_of_the_hard_labels():
    from dpcda.training.learners import NoiseAwareLDA

    X, true, soft, hard, mu = _label_noise_problem(30000, 0, sigma_y=1.0)
    assert np.mean(hard != true) > 0.3  # a third of the hard labels are wrong
    Xt, yt, *_ = _label_noise_problem(6000, 1, sigma_y=0.0)
    aware = NoiseAwareLDA(3, label_noise_std=1.0).fit(X, hard, noisy_labels=soft)
    naive = NoiseAwareLDA(3).fit(X, hard)
    oracle = NoiseAwareLDA(3).fit(X, true)  # what LDA would do with the true classes
    assert aware.label_deconvolved_ and not naive.label_deconvolved_
    # The label model recovers the true means (the label-group means are pulled together).
    true_means, group, contamination = aware._label_model(X, hard, soft)
    np.testing.assert_allclose(aware.means_, true_means, atol=1e-12)
    assert np.abs(true_means - mu).max() < 0.05 < np.abs(group - mu).max()
    assert aware.mean_weight_ > 0.95  # plenty of data: the solved means are used
    np.testing.assert_allclose(naive.means_, group, atol=1e-9)
    # The contamination is the between-class spread along the line of the means (x axis).
    assert contamination[0, 0] > 0.1 and abs(contamination[1, 1]) < 1e-3
    acc = {name: np.mean(m.predict(Xt) == yt) for name, m in
           (("aware", aware), ("naive", naive), ("oracle", oracle))}
    # the scatter of the hard labels holds the label mix-ups; the label model removes them
    assert acc["aware"] > acc["oracle"] - 0.005 and acc["naive"] < acc["oracle"] - 0.05, acc


def test_lda_label_model_changes_nothing_when_labels_are_reliable():
    from dpcda.training.learners import NoiseAwareLDA

    X, true, soft, hard, _ = _label_noise_problem(5000, 2, sigma_y=0.02)
    assert np.array_equal(hard, true)
    aware = NoiseAwareLDA(3, noise_var=0.01, label_noise_std=0.02).fit(X, hard, noisy_labels=soft)
    plain = NoiseAwareLDA(3, noise_var=0.01).fit(X, hard)
    np.testing.assert_allclose(aware.W_, plain.W_, rtol=1e-9)
    np.testing.assert_allclose(aware.b_, plain.b_, rtol=1e-9)
    # Missing pieces fall back to the plain fit: no soft labels, or a class no label names.
    assert not NoiseAwareLDA(3, label_noise_std=0.7).fit(X, hard).label_deconvolved_
    lonely = np.where(hard == 2, 1, hard)
    assert not NoiseAwareLDA(3, label_noise_std=0.7).fit(X, lonely, noisy_labels=soft).label_deconvolved_
