"""The whole-record accountant as registered (dpcda.privacy.whole_record_accountant) and as a
DP-CDA release uses it: public lower bounds, a public split (equal or by the bounds), l's range,
dp-center composed, and what the card says and withholds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.privacy import DEFAULT_ACCOUNTANT, PrivacyParams, calibrate, compute_epsilon
from dpcda.privacy import whole_record_accountant as wra
from dpcda.privacy.whole_record_calibration import whole_record_epsilon

COUNTS = (500, 620, 555)


def _p(**kw):
    base = dict(l=8, sigma_x=0.3, sigma_y=0.3, T=1500, class_counts=COUNTS, delta=1e-5)
    return PrivacyParams(**{**base, **kw})


def test_the_default_is_the_registered_whole_record_accountant_and_agrees_with_the_maths():
    assert DEFAULT_ACCOUNTANT == wra.NAME
    r = compute_epsilon(_p())
    assert r.accountant == "paper"  # compute_epsilon's own default stays the explicit choice
    r = compute_epsilon(_p(), accountant=DEFAULT_ACCOUNTANT)
    want = whole_record_epsilon(sigma=0.3, l=8, lower_counts=COUNTS, steps=[500] * 3, delta=1e-5)
    assert r.epsilon == pytest.approx(want.epsilon, rel=1e-12)
    assert r.epsilon_discretisation_lower is not None and r.epsilon_discretisation_lower <= r.epsilon
    assert r.epsilon > compute_epsilon(_p(), accountant="class-aware-pld").epsilon


def test_a_split_in_proportion_to_the_public_bounds_is_accounted_step_by_step():
    """``proportional`` under whole-record is floor(T n_k / sum n) of the public bounds n_k: the
    same maths with those step counts (the largest class's steps dominate)."""
    prop = compute_epsilon(_p(allocation="proportional"), accountant=DEFAULT_ACCOUNTANT)
    steps = [1500 * n // sum(COUNTS) for n in COUNTS]
    assert steps == [447, 555, 497]
    want = whole_record_epsilon(sigma=0.3, l=8, lower_counts=COUNTS, steps=steps, delta=1e-5)
    assert prop.epsilon == pytest.approx(want.epsilon, rel=1e-12)
    equal = compute_epsilon(_p(), accountant=DEFAULT_ACCOUNTANT).epsilon
    assert prop.epsilon != pytest.approx(equal, rel=1e-3)
    cal = calibrate(epsilon=2.0, l=8, T=1500, class_counts=COUNTS, delta=1e-5, accountant=wra.NAME,
                    allocation="proportional")
    assert 1.98 < cal.epsilon <= 2.0


def test_a_class_too_small_for_l_is_refused_by_name():
    with pytest.raises(ValueError, match=r"l must be an integer from 1 to 499 .*got l=500"):
        compute_epsilon(_p(l=500), accountant=DEFAULT_ACCOUNTANT)
    assert wra.max_l(COUNTS) == 499
    # the non-private setting is infinite whatever the split (nothing to refuse)
    r = compute_epsilon(_p(sigma_x=0, sigma_y=0, allocation="proportional"), accountant=wra.NAME)
    assert math.isinf(r.epsilon)


def test_calibration_meets_the_target_from_below():
    cal = calibrate(epsilon=2.0, l=8, T=1500, class_counts=COUNTS, delta=1e-5, accountant=wra.NAME)
    assert 1.98 < cal.epsilon <= 2.0
    over = compute_epsilon(_p(sigma_x=cal.sigma_x * 0.99, sigma_y=cal.sigma_x * 0.99),
                           accountant=wra.NAME)
    assert over.epsilon > 2.0  # the smallest sigma (to 1 %)


def test_dp_center_statistics_compose_into_the_whole_record_epsilon():
    plain = compute_epsilon(_p(), accountant=wra.NAME).epsilon
    tiny = wra.composed_epsilon(_p(), mu=1e-4)
    some = wra.composed_epsilon(_p(), mu=0.3)
    assert plain - 0.02 <= tiny <= plain + 0.02  # a negligible Gaussian changes almost nothing
    assert some > tiny
    sx, sy, eps = wra.calibrate_composed(epsilon=2.0, mu=0.3, l=8, T=1500, class_counts=COUNTS,
                                         delta=1e-5)
    assert eps <= 2.0 and sx > calibrate(epsilon=2.0, l=8, T=1500, class_counts=COUNTS,
                                         delta=1e-5, accountant=wra.NAME).sigma_x


def _blocks():
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), (60, 70, 65))
    X = rng.integers(0, 256, size=(len(y), 12)).astype(np.float32)
    return X, y


def test_a_release_states_the_relation_and_where_the_bounds_came_from():
    from dpcda.mechanisms import generate_dpcda

    X, y = _blocks()
    rel = generate_dpcda(X, y, l=4, T=300, epsilon=3.0)
    priv, data = rel.card["privacy"], rel.card["data"]
    assert priv["accountant"] == wra.NAME and priv["relation"] == wra.RELATION_WHOLE
    # too small for a DP label histogram (public N): the data's sizes, treated as public, said so
    assert rel.card["parameters"]["T_per_class"] == [92, 107, 100]
    assert data["class_bounds"] == [60, 70, 65] and data["class_counts"] == [60, 70, 65]
    assert [n["code"] for n in priv["notices"]].count("class_sizes_from_data") == 1
    # public bounds below the sizes: used, and the private sizes are not published
    rel = generate_dpcda(X, y, l=4, T=300, epsilon=3.0, class_bounds=[50, 50, 50])
    data = rel.card["data"]
    assert data["class_bounds"] == [50, 50, 50] and data["class_counts"] is None
    assert "not published" in data["class_counts_note"]
    assert "class_sizes_from_data" not in [n["code"] for n in rel.card["privacy"]["notices"]]
    looser = compute_epsilon(PrivacyParams(l=4, sigma_x=rel.card["parameters"]["sigma_x"],
                                           sigma_y=rel.card["parameters"]["sigma_y"], T=300,
                                           class_counts=(60, 70, 65), delta=1e-5),
                             accountant=wra.NAME).epsilon
    assert looser < rel.card["privacy"]["epsilon"] <= 3.0  # smaller bounds: more noise for 3.0
    # a class one record below its bound is released like any other (issue 26, item 2)
    assert generate_dpcda(X, y, l=4, T=300, epsilon=3.0, class_bounds=[61, 50, 50]).card
    with pytest.raises(ValueError, match="class_bounds must have one entry per class"):
        generate_dpcda(X, y, l=4, T=300, epsilon=3.0, class_bounds=[50, 50])


def test_a_proportional_release_splits_by_the_public_bounds_never_by_the_class_sizes():
    """The split is public: with bounds below the private sizes it follows the bounds (a change of
    one record's label cannot move it), and the card says so."""
    from dpcda.mechanisms import generate_dpcda

    X, y = _blocks()  # private sizes 60, 70, 65
    rel = generate_dpcda(X, y, l=4, T=300, epsilon=3.0, allocation="proportional",
                         class_bounds=[50, 30, 20])
    assert rel.card["parameters"]["T_per_class"] == [150, 90, 60]  # 300 * (50, 30, 20) / 100
    assert np.bincount(_source(X, y, class_bounds=[50, 30, 20])).tolist() == [150, 90, 60]
    assert "public class bounds" in rel.card["release"]["allocation"]
    assert rel.card["privacy"]["epsilon"] <= 3.0
    y2 = y.copy()
    y2[0] = 2  # one record's label changed: sizes 59, 70, 66; the split does not move
    rel2 = generate_dpcda(X, y2, l=4, T=300, epsilon=3.0, allocation="proportional",
                          class_bounds=[50, 30, 20])
    assert rel2.card["parameters"]["T_per_class"] == [150, 90, 60]
    assert rel2.card["parameters"]["sigma_x"] == rel.card["parameters"]["sigma_x"]
    # class-aware-pld (class sizes public) keeps splitting by the data's sizes
    pld = generate_dpcda(X, y, l=4, T=300, epsilon=3.0, allocation="proportional",
                         accountant="class-aware-pld")
    assert pld.card["parameters"]["T_per_class"] == [92, 107, 100]


def _source(X, y, **kw):
    """The class each output row was mixed from (the traced generator; tests only)."""
    from dpcda.mechanisms.dp_cda import generate_dpcda_traced

    _, mixed = generate_dpcda_traced(X, y, l=4, T=300, epsilon=3.0, allocation="proportional", **kw)
    return mixed.source


def test_a_built_in_dataset_uses_its_published_counts():
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset, published_class_bounds

    ds = load_dataset("digits")
    assert published_class_bounds(ds) == tuple(np.bincount(ds.y_train))
    rel = generate_from_dataset(ds, "dp-cda", l=4, epsilon=5.0, T=200)
    assert rel.card["data"]["class_bounds"] == list(np.bincount(ds.y_train))
    assert "class_sizes_from_data" not in [n["code"] for n in rel.card["privacy"]["notices"]]
    assert "label_histogram" not in rel.card["privacy"]  # public counts: no epsilon on labels
    assert rel.card["parameters"]["allocation"] == "proportional"


def test_the_card_brackets_the_exact_epsilon_and_says_when_a_claim_understates_it():
    from dpcda.mechanisms import generate_dpcda

    X, y = _blocks()
    priv = generate_dpcda(X, y, l=4, T=300, epsilon=3.0).card["privacy"]
    assert 0 < priv["epsilon_realised_lower"] <= priv["epsilon"] <= 3.0
    assert "at least" in priv["epsilon_text"]
    # the published accountant where it claims less than this code can spend (MNIST's class
    # sizes, l = 64, the noise it calibrates for epsilon = 1): the card says by how much
    from dpcda.data.presets import PRESETS

    counts = PRESETS.get("mnist").class_counts
    y = np.repeat(np.arange(10), counts)
    X = np.random.default_rng(0).random((len(y), 2)).astype(np.float32)
    paper = generate_dpcda(X, y, l=64, T=60000, sigma_x=0.10196, accountant="paper",
                           normalize="none", compare_accountants=False,
                           allocation="equal").card["privacy"]
    assert paper["valid_bound"] is False and paper["epsilon"] == pytest.approx(1.0, abs=0.01)
    assert paper["epsilon_realised_lower"] > 1.07
    assert paper["understates_by_at_least"] == pytest.approx(1 - paper["epsilon"] /
                                                             paper["epsilon_realised_lower"])
