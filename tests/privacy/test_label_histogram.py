"""Issue 26, item 4: public lower bounds from a DP histogram of the labels
(dpcda.privacy.label_histogram) and the release that uses them by default under whole-record
when no public counts exist."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr

from dpcda.privacy.gaussian import gaussian_delta
from dpcda.privacy.label_histogram import (SENSITIVITY, label_plan, noisy_bounds, useful)
from dpcda.randomness.secure import SecureRandom


def test_the_plan_splits_epsilon_and_delta_and_the_histogram_meets_its_share():
    p = label_plan(10.0, 1e-5, K=3, share=0.05)
    assert p.epsilon_hist + p.epsilon_rest == pytest.approx(10.0)
    assert p.epsilon_hist == pytest.approx(0.5)
    assert p.delta_rest + p.delta_hist + p.beta == pytest.approx(1e-5, rel=1e-12)
    assert float(gaussian_delta(p.epsilon_hist, SENSITIVITY / p.sigma)) <= p.delta_hist * (1 + 1e-6)
    assert 3 * float(ndtr(-p.z)) == pytest.approx(p.beta, rel=1e-9)
    for bad in (0, 1, -0.1, 1.5, "x"):
        with pytest.raises(ValueError, match=r"label_share must be"):
            label_plan(10.0, 1e-5, K=3, share=bad)


def test_the_bounds_are_below_the_counts_and_close_to_them():
    p = label_plan(10.0, 1e-5, K=3)
    counts = np.array([30000, 10000, 5000])
    lows = np.array([noisy_bounds(counts, p, SecureRandom())[1] for _ in range(200)])
    assert (lows <= counts).all()
    gamma = noisy_bounds(counts, p, SecureRandom())[2].gamma
    # gap = z sigma + gamma - noise + (the floor's fraction): its mean is z sigma + gamma + 1/2
    assert abs((counts - lows).mean() - (p.z * p.sigma + gamma + 0.5)) < 6 * p.sigma / math.sqrt(600)


def _data(sizes, d=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    return rng.integers(0, 256, size=(len(y), d)).astype(np.float32), y


def test_a_release_without_public_counts_splits_by_dp_bounds_and_states_the_histogram():
    from dpcda.mechanisms import DEFAULT_ALLOCATION, generate_dpcda

    assert DEFAULT_ALLOCATION == "proportional"
    X, y = _data([6000, 2000, 1000])
    rel = generate_dpcda(X, y, l=4, T=900, epsilon=4.0)
    priv, data, par = rel.card["privacy"], rel.card["data"], rel.card["parameters"]
    h = priv["label_histogram"]
    assert h["label_share"] == 0.05 and h["epsilon"] == pytest.approx(0.2)
    assert data["class_counts"] is None and "DP histogram" in data["class_bounds_source"]
    bounds = np.array(data["class_bounds"])
    assert (bounds <= [6000, 2000, 1000]).all() and (bounds >= [5000, 1000, 100]).all()
    assert par["T_per_class"] == [900 * b // bounds.sum() for b in bounds]
    assert priv["epsilon"] <= 4.0 and priv["delta"] == pytest.approx(1e-5)
    assert h["rest_epsilon"] == pytest.approx(3.8) and priv["epsilon"] > 3.5  # rest + histogram
    assert "class_sizes_from_data" not in [n["code"] for n in priv["notices"]]
    rows = sum(par["T_per_class"])
    assert priv["floating_point"]["noisy_values"] == rows * (4 + 3) + 3  # the K counts counted
    # explicit public bounds or 'data': no histogram
    assert "label_histogram" not in generate_dpcda(X, y, l=4, T=900, epsilon=4.0,
                                                   class_bounds=[5000, 1500, 900]).card["privacy"]
    assert "label_histogram" not in generate_dpcda(X, y, l=4, T=900, epsilon=4.0,
                                                   class_bounds="data").card["privacy"]
    with pytest.raises(ValueError, match="label_share must be"):
        generate_dpcda(X, y, l=4, T=900, epsilon=4.0, label_share=0)
    with pytest.raises(ValueError, match="class_bounds must be .* or 'data'"):
        generate_dpcda(X, y, l=4, T=900, epsilon=4.0, class_bounds="mine")


def test_data_too_small_for_a_histogram_is_told_from_public_inputs_and_says_so():
    from dpcda.mechanisms import generate_dpcda

    p = label_plan(3.0, 1e-5, K=3)
    assert not useful(p, 195, 3, 4) and useful(p, 30000, 3, 4)
    X, y = _data([60, 70, 65])
    priv = generate_dpcda(X, y, l=4, T=300, epsilon=3.0).card["privacy"]
    assert "label_histogram" not in priv
    assert "class_sizes_from_data" in [n["code"] for n in priv["notices"]]
    assert math.isfinite(priv["epsilon"])


def test_a_class_emptied_by_one_label_change_is_refused_as_its_neighbour_is():
    # whole-record neighbours: D has one record of class 1, D' has it relabelled 0. With bounds
    # from the DP histogram every refusal must be a function of the histogram: both are refused
    # by the bounds, in the same words (the labels' own "at least 2 classes" check used to
    # refuse D' alone, telling the two apart with certainty)
    from dpcda.mechanisms import generate_dpcda

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (4000, 3))
    y1 = np.zeros(4000, dtype=np.int64)
    y1[0] = 1
    msgs = []
    for y in (y1, np.zeros(4000, dtype=np.int64)):
        with pytest.raises(ValueError) as err:
            generate_dpcda(X, y, l=4, T=400, epsilon=1.0, bounds=(0, 1), n_classes=2)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "lower bounds of the DP label histogram" in msgs[0]
    # with explicit noise (the class sizes public) the labels' check stays
    with pytest.raises(ValueError, match="at least 2 classes"):
        generate_dpcda(X, np.zeros(4000, dtype=np.int64), l=4, T=400, sigma_x=1.0, n_classes=2)


def test_k_read_from_the_labels_is_said_on_the_card():
    from dpcda.mechanisms import generate_dpcda

    X, y = _data([3000, 3000])
    codes = lambda rel: [n["code"] for n in rel.card["privacy"]["notices"]]  # noqa: E731
    kw = dict(l=4, T=200, epsilon=2.0, compare_accountants=False)
    assert "classes_from_labels" in codes(generate_dpcda(X, y, **kw))
    assert "classes_from_labels" not in codes(generate_dpcda(X, y, n_classes=2, **kw))
    assert "classes_from_labels" not in codes(generate_dpcda(X, y, class_bounds=[2900, 2900], **kw))


def test_a_failed_dp_bound_is_told_as_the_histogram_s_failure_not_as_given_bounds():
    # the defensive check (a class below l records) can fire on the histogram path only when its
    # bounds failed (probability <= beta): it must not blame class_bounds the caller never gave,
    # and names no size
    from dpcda.mechanisms.dp_cda_account import check_l_bounds

    with pytest.raises(ValueError) as err:
        check_l_bounds(4, [10, 12], [3, 40], "dp-histogram")
    msg = str(err.value)
    assert "DP label histogram" in msg and "failure_probability" in msg
    assert "made for other data" not in msg and "3" not in msg and "40" not in msg
    with pytest.raises(ValueError, match="made for other data"):
        check_l_bounds(4, [10, 12], [3, 40], "given")


def test_an_l_above_the_dp_bounds_is_a_bounds_refusal_a_reader_can_tell_apart():
    # the Samples page words this refusal itself and counts the histogram it read: it must be
    # told apart from the other refusals by its type, not by its words
    from dpcda.mechanisms.dp_cda_account import BoundsRefusal, check_l_bounds

    with pytest.raises(BoundsRefusal, match="lower bounds of the DP label histogram"):
        check_l_bounds(12, [10, 12], [30, 40], "dp-histogram")
    for source in ("given", "data"):  # a caller's bounds, or the data's sizes: not this refusal
        with pytest.raises(ValueError) as err:
            check_l_bounds(12, [10, 12], [30, 40], source)
        assert not isinstance(err.value, BoundsRefusal)
    with pytest.raises(ValueError) as err:  # the histogram's bounds failed: not l's refusal
        check_l_bounds(4, [10, 12], [3, 40], "dp-histogram")
    assert not isinstance(err.value, BoundsRefusal)
