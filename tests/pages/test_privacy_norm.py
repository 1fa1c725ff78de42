"""The Privacy page's sentence on a dp-center release (pages/privacy/norm.py): the page's ε is the
mixing's; a release with dp-center composes its statistics, and the page says by how much."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from dpcda.dashboard.samples import noise_for
from dpcda.data import load_dataset
from tests.pages.page_util import run
from tests.pages.test_privacy_page import PAGE, eps_metric, headline


def _note(at) -> str:
    return " ".join(c.value for c in at.info if c.value.startswith("**A release with `dp-center`**"))


def _facts():
    ds = load_dataset("digits")
    return dict(n=ds.n_train, class_counts=tuple(ds.class_counts), d_x=ds.d_x, d_y=ds.n_classes)


def test_dp_center_release_epsilon_is_said_beside_the_mixing_headline():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update(dataset="digits", l="4", sigma_x="2", normalize="dp-center")
    run(at)
    note = _note(at)
    assert "this setting's normalisation" in note and "as on Samples" in note
    said = float(re.search(r"spend ε = ([0-9.]+)", note).group(1))
    exact = noise_for("sigma", 2.0, l=4, T=_facts()["n"], c=1.0, delta=1e-5, accountant="whole-record",
                      normalize="dp-center", **_facts()).epsilon
    assert said == pytest.approx(exact, rel=5e-3)
    assert said > headline(at)  # the statistics cost something on top of the mixing


def test_a_target_says_the_noise_a_dp_center_release_needs():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update(dataset="digits", l="4", epsilon="2", normalize="dp-center")
    run(at)
    note = _note(at)
    sigma = float(re.search(r"σ_x = σ_y = ([0-9.]+)", note).group(1))
    exact = noise_for("epsilon", 2.0, l=4, T=_facts()["n"], c=1.0, delta=1e-5,
                      accountant="whole-record", normalize="dp-center", **_facts())
    assert sigma == pytest.approx(exact.sigma, rel=5e-3)


def test_no_sentence_for_a_normalisation_without_statistics():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update(dataset="digits", l="4", sigma_x="2")  # digits' default: scale
    run(at)
    assert _note(at) == ""


def test_privacy_says_the_epsilon_samples_states_for_a_dp_center_setting():
    from pathlib import Path

    at = AppTest.from_file(str(Path(PAGE).parents[1] / "app.py"), default_timeout=120)
    at.query_params.update(dataset="digits", l="4", sigma_x="2", normalize="dp-center")
    run(at)
    at.switch_page("pages/privacy.py")
    run(at)
    said = re.search(r"spend ε = ([0-9.]+)", _note(at)).group(1)
    mixing = eps_metric(at).value
    at.switch_page("pages/samples.py")
    run(at)
    line = next(c.value for c in at.caption if c.value.startswith("**Current setting:**"))
    assert "`dp-center` statistics together" in line
    assert f"the mixing alone: {mixing}, the Privacy page's headline" in line
    assert line.split("ε = ", 1)[1].split(" ", 1)[0] == said
