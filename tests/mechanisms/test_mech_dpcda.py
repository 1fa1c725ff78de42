"""DP-CDA generator: exactness without noise, class purity, counts, noise law, label flips."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from scipy import integrate, stats

import dpcda
from mech_data import IDENTITY, make_blocks, make_constant_classes
from dpcda.mechanisms import generate_dpcda
from dpcda.mechanisms.dp_cda import DEFAULT_ALLOCATION, DEFAULT_NORMALIZE, generate_dpcda_traced
from dpcda.privacy import (ACCOUNTANT_INFO, DEFAULT_ACCOUNTANT, NOT_A_BOUND, calibrate,
                           samples_per_class)

P_MIN = 1e-4


def test_l1_without_noise_reproduces_preprocessed_rows_of_the_class():
    X, y = make_blocks(seed=2)
    rel = generate_dpcda(X, y, l=1, T=200, sigma_x=0, sigma_y=0, normalize="zscore", c=1.0,
                         seed=1)
    Xp = rel.preprocess(X)  # z-score + clip, the same preprocessing
    assert np.abs(np.linalg.norm(Xp, axis=1)).max() <= 1.0 + 1e-6
    dist = ((rel.X[:, None, :] - Xp[None, :, :]) ** 2).sum(-1)
    nearest = dist.argmin(axis=1)
    assert dist.min(axis=1).max() < 1e-10  # every output row IS a preprocessed real row
    assert (y[nearest] == rel.y).all()      # ... of its own class


def test_each_output_is_the_mean_of_l_distinct_points_of_its_class(blocks):
    X, y = blocks
    rel, tr = generate_dpcda_traced(X, y, l=7, T=400, sigma_x=0, sigma_y=0, seed=3,
                                    return_indices=True, **IDENTITY)
    idx = tr.indices
    assert idx.shape == (400, 7)
    assert (np.diff(np.sort(idx, axis=1), axis=1) > 0).all()       # distinct within a sample
    assert (y[idx] == tr.source[:, None]).all()                    # all from the row's class
    np.testing.assert_allclose(rel.X, X[idx].mean(axis=1), rtol=0, atol=1e-5)
    # Independently of the trace: a mixture of class k is non-zero only in block k.
    width = X.shape[1] // 4
    mass = np.abs(rel.X).reshape(len(rel.X), 4, width).sum(-1)
    assert ((mass > 0).sum(axis=1) == 1).all()
    assert (mass.argmax(axis=1) == rel.y).all()


def test_per_class_counts_are_floor_T_over_K(blocks):
    X, y = blocks
    rel = generate_dpcda(X, y, l=3, T=1003, sigma_x=0, sigma_y=0, seed=0, **IDENTITY)
    assert rel.X.shape == (1000, X.shape[1]) and rel.X.dtype == np.float32
    assert rel.y.dtype == np.int64 and rel.y_soft.dtype == np.float32
    assert np.bincount(rel.y, minlength=4).tolist() == [250] * 4
    assert rel.card["parameters"]["T_per_class"] == [250] * 4
    assert rel.card["release"]["n_samples"] == 1000
    # the rows are shuffled: class blocks do not come in order
    assert (np.diff(rel.y) != 0).sum() > 100


def test_proportional_allocation_draws_T_k_per_class_and_records_it(blocks):
    """allocation="proportional": class k gets floor(T N_k / N) mixtures of its own records
    (counted from the trace's source class and, independently, from the coordinate blocks)."""
    X, y = blocks                                    # class counts 30, 25, 40, 35 (N = 130)
    rel, tr = generate_dpcda_traced(X, y, l=3, T=1300, sigma_x=0, sigma_y=0, seed=1,
                                    **{**IDENTITY, "allocation": "proportional"})
    want = [300, 250, 400, 350]                      # 1300 * N_k / 130
    assert np.bincount(tr.source, minlength=4).tolist() == want
    width = X.shape[1] // 4
    block = np.abs(rel.X).reshape(len(rel.X), 4, width).sum(-1).argmax(axis=1)
    assert np.bincount(block, minlength=4).tolist() == want
    assert rel.card["parameters"]["allocation"] == "proportional"
    assert rel.card["parameters"]["T_per_class"] == want
    assert rel.card["release"]["samples_per_class"] == want and rel.n == sum(want)
    # T so small that a class would get nothing: the error names T and the allocation.
    with pytest.raises(ValueError, match=r"T must be an integer >= 6 .*'proportional'"):
        generate_dpcda(X, y, l=3, T=5, sigma_x=0.5, **{**IDENTITY, "allocation": "proportional"})
    with pytest.raises(ValueError, match="allocation must be one of equal, proportional"):
        generate_dpcda(X, y, l=3, T=40, sigma_x=0.5, **{**IDENTITY, "allocation": "by-size"})


def test_allocation_is_accounted_as_the_max_over_classes(blocks):
    """The card's epsilon under class-aware with proportional allocation is the max over classes
    of T_k compositions at rate l/N_k (recomputed here from the RDP primitive), and differs from
    the equal allocation's at the same noise."""
    from dpcda.privacy import rdp_subsampled_gaussian
    from dpcda.privacy.conversion import best_epsilon

    X, y = blocks
    counts = np.bincount(y)
    kw = dict(l=3, T=1300, sigma_x=0.8, sigma_y=0.8, accountant="class-aware", seed=2,
              normalize="none", c=1.0)
    prop = generate_dpcda(X, y, allocation="proportional", **kw).card["privacy"]
    equal = generate_dpcda(X, y, allocation="equal", **kw).card["privacy"]
    r = 2.0 / 0.8 ** 2 / 9.0                         # 2 c^2 / (sigma^2 l^2), c = 1, l = 3
    t_k = (1300 * counts) // counts.sum()
    rdp = np.max([t * rdp_subsampled_gaussian(np.array([r]), 3 / n, 256)[0]
                  for t, n in zip(t_k, counts)], axis=0)
    eps, _ = best_epsilon(np.arange(2, 257), rdp[None, :], 1e-5, "mironov")
    assert prop["epsilon"] == pytest.approx(float(eps[0]), rel=1e-9)
    assert prop["epsilon"] != pytest.approx(equal["epsilon"], rel=1e-3)


def test_every_point_of_a_class_is_used_uniformly(blocks):
    """Selection frequency of each point in its class: T_k * l / N_k (chi-square per class)."""
    X, y = blocks
    T, l = 8000, 5
    _, tr = generate_dpcda_traced(X, y, l=l, T=T, sigma_x=0, sigma_y=0, seed=5,
                                  return_indices=True, **IDENTITY)
    used = np.bincount(tr.indices.ravel(), minlength=len(y))
    for k in range(4):
        counts = used[y == k]
        assert counts.sum() == (T // 4) * l
        assert stats.chisquare(counts).pvalue > P_MIN


def test_feature_and_label_noise_have_variance_sigma_squared():
    X, y, V = make_constant_classes(K=3, n=20, d=16)
    sx, sy = 0.3, 0.7
    rel, tr = generate_dpcda_traced(X, y, l=4, T=3000, sigma_x=sx, sigma_y=sy, seed=11,
                                    **IDENTITY)
    # Released values sit on a public grid (docs/security.md): jittered uniformly within their
    # cell they follow the cell-averaged normal, whose variance is s^2 + gamma^2 / 12.
    from dpcda.randomness import grid_for

    jit = np.random.default_rng(0)
    gx, gy = grid_for(sx, IDENTITY["c"]).gamma, grid_for(sy, 1.0).gamma
    nx = (rel.X - V[tr.source]).ravel().astype(np.float64)
    nx += jit.uniform(-0.5, 0.5, nx.size) * gx
    ny = (rel.y_soft - np.eye(3)[tr.source]).ravel().astype(np.float64)
    ny += jit.uniform(-0.5, 0.5, ny.size) * gy
    for noise, s in ((nx, math.hypot(sx, gx / math.sqrt(12))), (ny, math.hypot(sy, gy / math.sqrt(12)))):
        n = noise.size
        assert abs(noise.mean()) < 5 * s / math.sqrt(n)
        # (n-1) s^2 / sigma^2 ~ chi^2(n-1); its standard deviation is sqrt(2(n-1))
        chi = (n - 1) * noise.var(ddof=1) / s**2
        assert abs(chi - (n - 1)) < 5 * math.sqrt(2 * (n - 1))
        assert stats.kstest(noise / s, "norm").pvalue > P_MIN
    assert stats.kstest(nx[: len(nx) // 2] / sx, "norm").pvalue > P_MIN


def _exact_flip_probability(sigma: float, K: int) -> float:
    """P(argmax(onehot(k) + N(0, sigma^2 I_K)) != k) = 1 - int phi(z) Phi(z + 1/sigma)^(K-1) dz."""
    f = lambda z: stats.norm.pdf(z) * stats.norm.cdf(z + 1.0 / sigma) ** (K - 1)  # noqa: E731
    correct, _ = integrate.quad(f, -12, 12, epsabs=1e-12)
    return 1.0 - correct


def test_exact_flip_probability_agrees_with_monte_carlo():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(400000, 4)) * 0.8
    z[:, 0] += 1.0
    mc = (z.argmax(axis=1) != 0).mean()
    p = _exact_flip_probability(0.8, 4)
    assert abs(mc - p) < 5 * math.sqrt(p * (1 - p) / len(z))


@pytest.mark.parametrize("sigma_y", [0.5, 1.0])
def test_hard_labels_flip_at_the_rate_the_noise_implies(blocks, sigma_y):
    X, y = blocks
    T = 20000
    rel, tr = generate_dpcda_traced(X, y, l=2, T=T, sigma_x=0.1, sigma_y=sigma_y, seed=21,
                                    **IDENTITY)
    # an argmax (ties on the grid broken at random)
    assert (rel.y_soft[np.arange(len(rel.y)), rel.y] == rel.y_soft.max(axis=1)).all()
    flips = int((rel.y != tr.source).sum())
    p = _exact_flip_probability(sigma_y, 4)
    assert abs(flips - T * p) < 5 * math.sqrt(T * p * (1 - p))


def test_card_contents_and_no_seed_anywhere(blocks):
    X, y = blocks
    seed = 987654321
    rel = generate_dpcda(X, y, l=2, T=40, sigma_x=0.5, sigma_y=0.5, seed=seed, dataset="blocks",
                         class_names=["a", "b", "c", "d"], image_shape=(1, 4, 5))
    card = rel.card
    text = json.dumps(card)
    assert str(seed) not in text and not re.search(r"\bseed\b", text.lower())
    assert card["privacy"]["seeded"] is True and "not private" in card["privacy"]["randomness"]
    assert "rng" not in json.dumps(list(_keys(card))).lower()
    assert card["algorithm"] == "dp-cda" and card["library_version"] == dpcda.__version__
    # The default allocation and normalisation (README "Honest defaults": measured).
    t_k = samples_per_class(40, np.bincount(y), DEFAULT_ALLOCATION).tolist()
    assert card["parameters"] == {"l": 2, "T": 40, "allocation": DEFAULT_ALLOCATION,
                                  "T_per_class": t_k, "c": 1.0, "sigma_x": 0.5, "sigma_y": 0.5,
                                  "delta": 1e-5}
    priv = card["privacy"]
    # The headline is the default accountant (a valid bound), with its relation in words; the
    # published accountant is recorded beside it, labelled as not a bound.
    rdp = ACCOUNTANT_INFO[DEFAULT_ACCOUNTANT].uses_rdp  # a PLD accountant has no RDP conversion
    assert priv["accountant"] == DEFAULT_ACCOUNTANT
    assert priv["conversion"] == ("mironov" if rdp else None)
    assert priv["assumptions"] == ACCOUNTANT_INFO[DEFAULT_ACCOUNTANT].assumptions
    assert priv["relation"] == ACCOUNTANT_INFO[DEFAULT_ACCOUNTANT].relation
    assert priv["valid_bound"] is True and "bound_note" not in priv
    # seeded: reproducible, so not private (issue 17); the epsilon is the noise's, unseeded
    assert priv["private"] is False and priv["seeded"] is True and priv["epsilon"] > 0
    assert isinstance(priv["alpha"], float) if rdp else priv["alpha"] is None
    assert priv["other_accountants"]["paper"]["bound_note"] == NOT_A_BOUND
    assert priv["other_accountants"]["paper"]["valid_bound"] is False
    assert NOT_A_BOUND in rel.summary() and "spends more than" not in rel.summary()
    norm = card["normalization"]
    assert norm["method"] == DEFAULT_NORMALIZE == "scale"  # end to end DP by default
    assert norm["statistics_from_private_data"] is False and norm["covered_by_guarantee"] is True
    zs = generate_dpcda(X, y, l=2, T=40, sigma_x=0.5, normalize="zscore").card["normalization"]
    assert zs["statistics_from_private_data"] is True and "not covered" in zs["note"].lower()
    assert "not covered by the guarantee" in generate_dpcda(
        X, y, l=2, T=40, sigma_x=0.5, normalize="zscore").summary()
    data = card["data"]
    assert data["N"] == len(y) and data["class_counts"] == np.bincount(y).tolist()
    assert data["image_shape"] == [1, 4, 5] and data["class_names"] == ["a", "b", "c", "d"]
    assert card["created_at"].endswith("+00:00")
    assert not re.search(r"\bseed\b", rel.summary().lower()) and str(seed) not in rel.summary()


def _keys(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def test_public_scaling_is_recorded_as_covered(blocks):
    X, y = blocks
    rel = generate_dpcda(X, y, l=2, T=40, sigma_x=0.5, normalize="scale", bounds=(0.0, 2.0))
    assert rel.card["normalization"]["statistics_from_private_data"] is False
    assert rel.card["normalization"]["covered_by_guarantee"] is True
    assert rel.card["parameters"]["sigma_y"] == 0.5  # defaults to sigma_x (ratio 1)


def test_non_private_setting_is_labelled(blocks):
    X, y = blocks
    rel = generate_dpcda(X, y, l=2, T=40, sigma_x=0, sigma_y=0)
    priv = rel.card["privacy"]
    assert priv["private"] is False and priv["epsilon"] is None
    assert "inf" in priv["epsilon_text"] and "NON-PRIVATE" in priv["label"]
    assert "inf" in rel.summary()


def test_target_epsilon_is_calibrated_with_the_class_counts(blocks):
    X, y = blocks
    rel = generate_dpcda(X, y, l=3, T=100, epsilon=8.0, delta=1e-4, accountant="class-aware",
                         conversion="improved")
    from dpcda.randomness.noise import calibration_aim

    aim = calibration_aim(8.0, 100 * (X.shape[1] + 4) + X.shape[1] + 4)  # T samples, stats, histogram
    assert rel.card["privacy"]["calibration_aim"]["epsilon"] == aim
    cal = calibrate(epsilon=aim, delta=1e-4, l=3, c=1.0, T=100, n=len(y),
                    class_counts=tuple(np.bincount(y)), d_x=X.shape[1], d_y=4,
                    accountant="class-aware", conversion="improved", allocation=DEFAULT_ALLOCATION)
    priv = rel.card["privacy"]
    assert rel.card["parameters"]["sigma_x"] == pytest.approx(cal.sigma_x, rel=1e-9)
    assert priv["epsilon"] <= 8.0 and priv["epsilon"] == pytest.approx(8.0, rel=1e-6)
    assert priv["accountant"] == "class-aware" and priv["calibrated_to_epsilon"] == 8.0
    assert priv["assumptions"] == ACCOUNTANT_INFO["class-aware"].assumptions


def test_pld_accountant_card_reports_the_discretisation_bound(blocks):
    X, y = blocks
    rel = generate_dpcda(X, y, l=3, T=100, epsilon=2.0, delta=1e-4,
                         accountant="class-aware-pld")
    priv = rel.card["privacy"]
    assert priv["accountant"] == "class-aware-pld" and priv["epsilon"] <= 2.0
    assert priv["alpha"] is None and priv["conversion"] is None
    assert 0 <= priv["epsilon_discretisation_lower"] <= priv["epsilon"]
    assert priv["discretisation_bound"] == pytest.approx(
        priv["epsilon"] - priv["epsilon_discretisation_lower"])
    assert "exact value within" in priv["epsilon_text"]
    rdp = generate_dpcda(X, y, l=3, T=100, epsilon=2.0, delta=1e-4, accountant="class-aware")
    assert rel.card["parameters"]["sigma_x"] < rdp.card["parameters"]["sigma_x"]


def test_seed_reproduces_and_os_randomness_differs(blocks):
    X, y = blocks
    kw = dict(l=3, T=60, sigma_x=0.2, compare_accountants=False)
    a, b = generate_dpcda(X, y, seed=4, **kw), generate_dpcda(X, y, seed=4, **kw)
    c, d = generate_dpcda(X, y, **kw), generate_dpcda(X, y, **kw)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y_soft, b.y_soft)
    assert not np.array_equal(c.X, d.X)
    assert not a.X.flags.writeable and not a.y.flags.writeable


def test_segments_are_snapped_to_one_hot_codes():
    """A tabular set with one numeric column and a 3-category one-hot segment (columns 1:4)."""
    rng = np.random.default_rng(0)
    n = 90
    cat = rng.integers(0, 3, n)
    X = np.zeros((n, 4), dtype=np.float32)
    X[:, 0] = rng.normal(size=n)
    X[np.arange(n), 1 + cat] = 1
    y = (rng.random(n) < 0.5).astype(np.int64)
    rel, tr = generate_dpcda_traced(X, y, l=1, T=200, sigma_x=0, sigma_y=0, segments=[(1, 4)],
                                    normalize="zscore", c=1.0, seed=2, return_indices=True,
                                    allocation="equal")
    mu, sd = X[:, 1:4].mean(0), X[:, 1:4].std(0)
    codes = (np.eye(3)[cat[tr.indices[:, 0]]] - mu) / sd  # the real rows' categories, unclipped
    np.testing.assert_allclose(rel.X[:, 1:4], codes, atol=1e-5)
    assert rel.card["postprocessing"][0]["segments"] == 1
    noisy = generate_dpcda(X, y, l=5, T=200, sigma_x=0.5, segments=[(1, 4)], c=1.0,
                           normalize="zscore", allocation="equal")
    block = noisy.X[:, 1:4] * sd + mu  # back in 0/1 units: a one-hot row each
    np.testing.assert_allclose(np.sort(block, axis=1), np.tile([0, 0, 1], (200, 1)), atol=1e-5)
    with pytest.raises(ValueError, match="overlap"):
        generate_dpcda(X, y, l=1, T=10, sigma_x=0, sigma_y=0, segments=[(1, 3), (2, 4)])


BAD = [
    (dict(l=0), "l must be an integer"),
    (dict(l=2.5), "l must be an integer"),
    (dict(l=True), "l must be an integer"),
    (dict(T=0), "T must be an integer"),
    (dict(T=3), r"T must be an integer >= 4 .*number of classes"),
    (dict(sigma_x=-0.1), "sigma_x must be a finite number >= 0"),
    (dict(sigma_x=0.2, sigma_y=-1), "sigma_y must be"),
    (dict(sigma_x=0.0, sigma_y=0.3), "sigma_x must be > 0 unless"),
    (dict(c=0), "c must be a finite number > 0"),
    (dict(c=-1), "c must be a finite number > 0"),
    (dict(delta=0), "delta must be"),
    (dict(sigma_x=None), "give either epsilon"),
    (dict(epsilon=5.0), "not both"),
    (dict(sigma_x=None, epsilon=-1.0), "epsilon must be"),
    (dict(accountant="nope"), "accountant must be one of"),
    (dict(normalize="minmax"), "normalize must be one of"),
    (dict(device="quantum"), "device"),
    (dict(T=10**10), "T is too large"),
]


@pytest.mark.parametrize("kw,match", BAD)
def test_bad_parameters(blocks, kw, match):
    X, y = blocks
    args = dict(l=2, T=40, sigma_x=0.5)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        generate_dpcda(X, y, **args)


def test_bad_data(blocks):
    X, y = blocks
    kw = dict(l=2, T=40, sigma_x=0.5)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X must be finite: NaN and inf are not allowed"):
        generate_dpcda(Xn, y, **kw)
    Xn[3, 1] = np.inf
    with pytest.raises(ValueError, match="X must be finite: NaN and inf are not allowed"):
        generate_dpcda(Xn, y, **kw)
    with pytest.raises(ValueError, match="same length"):
        generate_dpcda(X, y[:-1], **kw)
    with pytest.raises(ValueError, match="at least 2 classes"):
        generate_dpcda(X, np.zeros_like(y), **kw)
    with pytest.raises(ValueError, match="class labels"):
        generate_dpcda(X, y - 1, **kw)
    with pytest.raises(ValueError, match="2-D"):
        generate_dpcda(X[:, 0], y, **kw)
    small = np.concatenate([y[y != 2], [2, 2]])
    Xs = np.concatenate([X[y != 2], X[y == 2][:2]])
    with pytest.raises(ValueError, match=r"l must be an integer from 1 to the size of the smallest "
                       r"class .*got l=3: a class of this dataset has fewer records"):
        generate_dpcda(Xs, small, l=3, T=40, sigma_x=0.5, class_names=["a", "b", "c", "d"],
                       accountant="class-aware-pld")
    # whole-record on sizes read from the data: private, so the message names no size
    with pytest.raises(ValueError, match=r"l must be at most the smallest class size minus one "
                       r"under the whole-record relation .*got l=3") as err:
        generate_dpcda(Xs, small, l=3, T=40, sigma_x=0.5, class_names=["a", "b", "c", "d"])
    assert not set(str(err.value).replace("l=3", "")) & set("0123456789")


@pytest.mark.parametrize("source", ["tiny", "real"])
def test_adult_release_has_one_hot_segments(source, tiny_data_dir, real_data):
    """UCI Adult (tiny CSVs written by the tests; the real files where DPCDA_DATA_DIR has them):
    every categorical segment of every synthetic row decodes to exactly one category."""
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset

    ds = load_dataset("adult", data_dir=real_data("adult") if source == "real" else tiny_data_dir)
    rel = generate_from_dataset(ds, "dp-cda", l=16, T=2000, epsilon=10, compare_accountants=False,
                                allocation="equal")
    assert rel.X.shape == (2000, ds.d_x) and np.bincount(rel.y).min() > 800
    assert rel.card["parameters"]["c"] == 3.0  # Adult's default clip norm (dpcda.data.presets)
    raw = rel.preprocess.normalizer.inverse_transform(rel.X)
    for s in ds.segments:
        block = raw[:, s.start:s.stop]
        np.testing.assert_allclose(np.sort(block, axis=1)[:, -1], 1.0, atol=1e-4)
        np.testing.assert_allclose(block.sum(axis=1), 1.0, atol=1e-3)
    assert rel.card["postprocessing"][0]["segments"] == len(ds.segments)
    assert rel.card["dataset"] == "adult" and rel.card["data"]["image_shape"] is None
