"""A DP-CDA release with normalize='dp-center': statistics under DP, composed into epsilon."""

import numpy as np
import pytest

from dpcda.mechanisms import MECHANISMS, generate, generate_dpcda


def _data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, size=(450, 12)).astype(np.float32)
    return X, np.repeat(np.arange(3), 150)


@pytest.mark.parametrize("accountant", [None, "class-aware-pld"])
def test_epsilon_composes_the_statistics_and_meets_the_target(accountant):
    """Under the default (whole-record) and the features-only class-aware-pld accountant."""
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    X, y = _data()
    rel = generate_dpcda(X, y, l=4, T=450, epsilon=3.0, normalize="dp-center", seed=1,
                         accountant=accountant)
    plain = generate_dpcda(X, y, l=4, T=450, epsilon=3.0, seed=1, accountant=accountant)
    priv = rel.card["privacy"]
    assert priv["accountant"] == (accountant or DEFAULT_ACCOUNTANT)
    assert 2.95 < priv["epsilon"] <= 3.0
    assert priv["composed_with"]["mu_gdp"] > 0
    # the statistics take part of the budget: more mixing noise than without them
    assert rel.card["parameters"]["sigma_x"] > plain.card["parameters"]["sigma_x"]
    norm = rel.card["normalization"]
    assert norm["method"] == "dp-center" and norm["covered_by_guarantee"] is True
    assert norm["statistics_under_dp"]["mu_gdp"] == priv["composed_with"]["mu_gdp"]
    # rows are clipped to c after centring
    assert np.all(np.linalg.norm(rel.preprocess(X), axis=1) <= 1.0 + 1e-5)


def test_a_larger_share_gives_the_statistics_less_noise_and_the_mixing_more():
    X, y = _data()
    a = generate_dpcda(X, y, l=4, T=450, epsilon=3.0, normalize="dp-center", stats_share=0.05)
    b = generate_dpcda(X, y, l=4, T=450, epsilon=3.0, normalize="dp-center", stats_share=0.5)
    assert b.card["privacy"]["composed_with"]["mu_gdp"] > a.card["privacy"]["composed_with"]["mu_gdp"]
    assert b.card["parameters"]["sigma_x"] > a.card["parameters"]["sigma_x"]


def test_fixed_sigma_reports_the_composed_epsilon():
    X, y = _data()
    rel = generate_dpcda(X, y, l=4, T=450, sigma_x=0.5, normalize="dp-center")
    plain = generate_dpcda(X, y, l=4, T=450, sigma_x=0.5)
    assert rel.card["privacy"]["epsilon"] > plain.card["privacy"]["epsilon"]


def test_only_the_exact_composition_accounts_it():
    X, y = _data()
    with pytest.raises(ValueError, match="class-aware-pld"):
        generate_dpcda(X, y, l=4, T=450, epsilon=3.0, normalize="dp-center", accountant="paper")
    with pytest.raises(ValueError, match="stats_share"):
        generate_dpcda(X, y, l=4, T=450, epsilon=3.0, normalize="dp-center", stats_share=1.0)


def test_other_mechanisms_refuse_it():
    X, y = _data()
    assert "dp-center" in MECHANISMS.get("dp-cda").param("normalize").choices
    assert "dp-center" not in MECHANISMS.get("dpmix").param("normalize").choices
    with pytest.raises(ValueError, match="normalize"):
        generate("dpmix", X, y, l=4, T=450, epsilon=3.0, normalize="dp-center")


def test_the_job_config_accepts_it_for_dp_cda_only():
    from dpcda.experiments.run import normalize

    assert normalize({"dataset": "digits", "l": 4, "epsilon": 3.0,
                      "normalization": "dp-center"})["normalization"] == "dp-center"
    with pytest.raises(ValueError, match="normalization"):
        normalize({"dataset": "digits", "l": 4, "epsilon": 3.0, "mechanism": "dpmix",
                   "normalization": "dp-center"})


def test_dataset_defaults_follow_the_measured_table():
    from dpcda.experiments.run import normalize
    from dpcda.mechanisms import default_normalization_for

    assert default_normalization_for("mnist") == "dp-center"
    assert default_normalization_for("fashion-mnist") == "dp-center"
    assert default_normalization_for("adult") == "scale"      # the tree loses under dp-center
    assert default_normalization_for("digits") == "scale"     # not measured
    assert default_normalization_for("upload.csv") == "scale"
    # only class-aware-pld composes the statistics: other accountants keep the public scale
    assert default_normalization_for("mnist", accountant="class-aware") == "scale"
    assert default_normalization_for("mnist", "dpmix") == "scale"
    assert normalize({"dataset": "mnist", "l": 16, "epsilon": 10.0})["normalization"] == "dp-center"
    assert normalize({"dataset": "mnist", "l": 16, "epsilon": 10.0,
                      "accountant": "paper"})["normalization"] == "scale"
