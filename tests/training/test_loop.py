"""The fast loop on tiny synthetic problems (CPU, seconds)."""

import numpy as np
import pytest

from dpcda.training import TrainConfig, train_and_evaluate
from dpcda.training.inputs import denoise_images, prior_shift, soft_targets

K = 4
SHAPE = (1, 8, 8)


def separable(n: int, seed: int, noise: float = 0.6):
    """K classes, each a fixed random +-1 8x8 pattern plus Gaussian noise (flat rows)."""
    protos = np.random.default_rng(123).choice([-1.0, 1.0], size=(K, 64))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=n)
    X = protos[y] + noise * rng.normal(size=(n, 64))
    return X.astype(np.float32), y.astype(np.int64)


@pytest.fixture(scope="module")
def data():
    Xtr, ytr = separable(400, 1)
    Xte, yte = separable(300, 2)
    return Xtr, ytr, Xte, yte


def cfg(**kw):
    base = dict(epochs=4, batch_size=32, input_scale=1.0)
    base.update(kw)
    return TrainConfig(**base)


@pytest.mark.parametrize("model", ["linear", "cnn", "fc", "dpmix-cnn", "ncm", "lda", "tree"])
def test_learns_separable_problem(data, model):
    Xtr, ytr, Xte, yte = data
    r = train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE, config=cfg(model=model), seed=0)
    assert r["accuracy"] > 0.9, r
    assert r["n_test"] == 300 and r["n_train"] == 400 and r["n_classes"] == K
    assert r["device"] in ("cpu", "cuda", "mps") and r["samples_per_s"] > 0 and r["seconds"] > 0


@pytest.mark.parametrize("norm", ["bn", "bn-batch", "none"])
def test_cnn_norm_variants_train(data, norm):
    Xtr, ytr, Xte, yte = data
    r = train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE,
                           config=cfg(model="cnn", cnn_norm=norm), seed=0)
    assert r["accuracy"] > 0.9


def test_accepts_image_batches_without_image_shape(data):
    Xtr, ytr, Xte, yte = data
    r = train_and_evaluate(Xtr.reshape(-1, 1, 8, 8), ytr, Xte.reshape(-1, 1, 8, 8), yte,
                           config=cfg(model="cnn", epochs=2), seed=0)
    assert r["accuracy"] > 0.9


def test_flat_input_for_image_model_needs_image_shape(data):
    Xtr, ytr, Xte, yte = data
    with pytest.raises(ValueError, match="image_shape"):
        train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="cnn"))


def test_soft_label_mode(data):
    Xtr, ytr, Xte, yte = data
    rng = np.random.default_rng(5)
    soft = np.eye(K, dtype=np.float32)[ytr] + 0.3 * rng.normal(size=(len(ytr), K)).astype(np.float32)
    for model in ["linear", "cnn", "ncm"]:
        r = train_and_evaluate(Xtr, ytr, Xte, yte, y_soft=soft, image_shape=SHAPE,
                               config=cfg(model=model, label_mode="soft"), seed=0)
        assert r["accuracy"] > 0.9, (model, r["accuracy"])
    with pytest.raises(ValueError, match="y_soft"):
        train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="linear", label_mode="soft"))


def test_soft_labels_are_what_the_model_learns(data):
    """Soft targets that point at a fixed wrong class override the hard labels."""
    Xtr, ytr, Xte, yte = data
    soft = np.eye(K, dtype=np.float32)[(ytr + 1) % K]
    r = train_and_evaluate(Xtr, ytr, Xte, (yte + 1) % K, y_soft=soft, image_shape=SHAPE,
                           config=cfg(model="linear", label_mode="soft"), seed=0)
    assert r["accuracy"] > 0.9


def test_soft_targets_clip_and_renormalise():
    S = np.array([[0.8, -0.2, 0.2], [-1.0, -0.5, -0.1], [0.0, 2.0, 2.0]], dtype=np.float32)
    T = soft_targets(S, np.array([0, 2, 1]), 3)
    np.testing.assert_allclose(T, [[0.8, 0.0, 0.2], [0.0, 0.0, 1.0], [0.0, 0.5, 0.5]], rtol=1e-6)
    with pytest.raises(ValueError, match="y_soft"):
        soft_targets(S[:, :2], np.array([0, 1, 1]), 3)


def test_evaluation_uses_the_test_labels_passed(data):
    Xtr, ytr, Xte, yte = data
    good = train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE, config=cfg(model="linear"), seed=0)
    perm = np.random.default_rng(9).permutation(len(yte))
    bad = train_and_evaluate(Xtr, ytr, Xte, yte[perm], image_shape=SHAPE, config=cfg(model="linear"), seed=0)
    assert good["accuracy"] > 0.9
    assert abs(bad["accuracy"] - 1 / K) < 0.1, bad["accuracy"]


def test_training_labels_matter(data):
    Xtr, ytr, Xte, yte = data
    shuffled = np.random.default_rng(3).permutation(ytr)
    r = train_and_evaluate(Xtr, shuffled, Xte, yte, image_shape=SHAPE, config=cfg(model="linear"), seed=0)
    assert r["accuracy"] < 0.5


def test_cancel_via_callback_stops_early(data):
    Xtr, ytr, Xte, yte = data
    calls = []

    def on_epoch(epoch, n_epochs, metrics):
        calls.append((epoch, n_epochs, sorted(metrics)))
        return epoch < 2

    r = train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE,
                           config=cfg(model="linear", epochs=10), on_epoch=on_epoch, seed=0)
    assert [c[0] for c in calls] == [1, 2] and all(c[1] == 10 for c in calls)
    assert "test_accuracy" in calls[0][2] and "loss" in calls[0][2]
    assert r["cancelled"] is True and r["epochs_run"] == 2 and len(r["per_epoch"]) == 2


def test_exception_in_callback_propagates(data):
    Xtr, ytr, Xte, yte = data

    def boom(epoch, n_epochs, metrics):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="linear"), on_epoch=boom)


def test_full_run_reports_every_epoch(data):
    Xtr, ytr, Xte, yte = data
    seen = []
    r = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="linear", epochs=3),
                           on_epoch=lambda e, n, m: seen.append(e), seed=0)
    assert seen == [1, 2, 3] and r["cancelled"] is False and r["epochs_run"] == 3
    assert r["accuracy"] == r["per_epoch"][-1]["test_accuracy"]
    lrs = [e["lr"] for e in r["per_epoch"]]
    assert lrs[0] < 1e-3 and lrs[-1] == pytest.approx(0.0, abs=1e-12)  # cosine to zero


def test_step_scheduler_halves(data):
    Xtr, ytr, Xte, yte = data
    r = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="linear", epochs=4, scheduler="step",
                                                          step_epochs=2), seed=0)
    assert [e["lr"] for e in r["per_epoch"]] == pytest.approx([1e-3, 5e-4, 5e-4, 2.5e-4])


def test_seed_reproducible_and_global_state_untouched(data):
    import torch

    Xtr, ytr, Xte, yte = data
    threads = torch.get_num_threads()
    torch.manual_seed(42)
    before = torch.rand(1)
    torch.manual_seed(42)
    a = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="fc"), seed=7)
    after = torch.rand(1)
    b = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="fc"), seed=7)
    assert torch.equal(before, after)  # the loop forks the RNG instead of reseeding the global one
    assert torch.get_num_threads() == threads
    assert [e["loss"] for e in a["per_epoch"]] == [e["loss"] for e in b["per_epoch"]]


def test_input_scale_sqrt_d(data):
    Xtr, ytr, Xte, yte = data
    r = train_and_evaluate(Xtr, ytr, Xte, yte, config=TrainConfig(model="ncm", clip_norm=2.0))
    assert r["input_scale"] == pytest.approx(8.0 / 2.0)


def test_eval_noise_lowers_accuracy(data):
    Xtr, ytr, Xte, yte = data
    clean = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="ncm"), seed=0)
    noisy = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="ncm", eval_noise_std=20.0), seed=0)
    assert clean["accuracy"] > 0.9 and noisy["accuracy"] < 0.6


def test_class_prior_shift():
    shift = prior_shift((3.0, 1.0), np.array([0, 1, 0, 1]), 2)
    np.testing.assert_allclose(shift, np.log([0.75, 0.25]) - np.log([0.5, 0.5]))
    # balanced training data, 90/10 test population and uninformative features: the prior wins
    rng = np.random.default_rng(0)
    Xtr, ytr = rng.normal(size=(200, 3)).astype(np.float32), np.arange(200) % 2
    Xte, yte = rng.normal(size=(500, 3)).astype(np.float32), (rng.random(500) < 0.1).astype(np.int64)
    r = train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="ncm", class_prior=(0.9, 0.1)))
    assert r["accuracy"] == pytest.approx(np.mean(yte == 0))
    with pytest.raises(ValueError, match="class_prior"):
        train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="ncm", class_prior=(0.2, 0.3, 0.5)))


def test_denoise_filters_each_image_separately():
    X = np.zeros((3, 1, 9, 9), dtype=np.float32)
    X[1, 0, 4, 4] = 1.0
    out = denoise_images(X, 1.0)
    assert out.dtype == np.float32
    assert np.all(out[0] == 0) and np.all(out[2] == 0)  # no blur across samples
    assert out[1].sum() == pytest.approx(1.0, rel=1e-3) and out[1, 0, 4, 4] < 0.5


def test_denoise_in_loop_needs_images(data):
    Xtr, ytr, Xte, yte = data
    with pytest.raises(ValueError, match="denoise_sigma"):
        train_and_evaluate(Xtr, ytr, Xte, yte, config=cfg(model="linear", denoise_sigma=1.0))
    r = train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE,
                           config=cfg(model="ncm", denoise_sigma=0.5), seed=0)
    assert r["accuracy"] > 0.5


def test_denoise_test_filters_the_test_images_too():
    """A learner trained on blurred images: with denoise_test the test images match it."""
    Xtr, ytr = separable(400, 1)
    Xte, yte = separable(300, 2)
    seen = []
    from dpcda.training import learners

    orig = learners.NearestClassMean.scores

    def spy(self, X):
        seen.append(X)
        return orig(self, X)

    learners.NearestClassMean.scores = spy
    try:
        train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE,
                           config=cfg(model="ncm", denoise_sigma=1.0, denoise_test=True))
        blurred = seen[0]  # the first scores() call is the test evaluation
        seen.clear()
        train_and_evaluate(Xtr, ytr, Xte, yte, image_shape=SHAPE,
                           config=cfg(model="ncm", denoise_sigma=1.0))
        raw = seen[0]
    finally:
        learners.NearestClassMean.scores = orig
    np.testing.assert_allclose(raw, Xte)
    np.testing.assert_allclose(blurred, denoise_images(Xte.reshape(-1, 1, 8, 8), 1.0).reshape(300, -1),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs,match", [
    (dict(y_train=np.zeros(3, dtype=np.int64)), "y_train"),
    (dict(y_test=np.full(300, -1)), "y_test"),
    (dict(X_test=np.zeros((300, 65), dtype=np.float32)), "X_test"),
    (dict(X_train=np.full((400, 64), np.nan, dtype=np.float32)), "X_train must be finite"),
    (dict(y_soft=np.zeros(400, dtype=np.float32)), "y_soft"),
])
def test_bad_arrays(data, kwargs, match):
    Xtr, ytr, Xte, yte = data
    args = dict(X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, y_soft=None)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        train_and_evaluate(args["X_train"], args["y_train"], args["X_test"], args["y_test"],
                           y_soft=args["y_soft"], image_shape=SHAPE, config=cfg(model="linear"))


def test_config_must_be_trainconfig(data):
    Xtr, ytr, Xte, yte = data
    with pytest.raises(ValueError, match="config"):
        train_and_evaluate(Xtr, ytr, Xte, yte, config={"model": "linear"})


def test_pick_device_auto_and_unavailable():
    import torch

    from dpcda.training import pick_device

    auto = pick_device()
    assert auto == ("cuda" if torch.cuda.is_available() else auto)
    assert pick_device("cpu") == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device"):
            pick_device("cuda")
