"""Compare shares the dashboard's one setting (issue 21): a link opens it at the link's values,
a change on Compare reaches the other pages, and Privacy -> Compare -> Samples keeps the
dataset, δ, c and the target ε."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcda.dashboard.compare_setting import setting_epsilon
from dpcda.dashboard.setting import Setting
from page_util import run

from pages.setting_ui import KEY

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = str(ROOT / "pages" / "compare.py")

pytestmark = pytest.mark.usefixtures("store", "worker_calls")


def open_compare(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query)
    return run(at)


def test_a_link_opens_compare_at_its_dataset_and_epsilon():
    at = open_compare(dataset="digits", epsilon="1", delta="1e-6", c="2")
    assert at.selectbox(key="compare_dataset").value == "digits"
    assert at.selectbox(key="compare_eps").value == 1.0  # offered beside the paper's columns
    assert at.select_slider(key="compare_delta").value == 1e-6
    assert at.text_input(key="compare_c").value == "2"
    assert any(h.value == "scikit-learn digits (8x8), ε = 1" for h in at.subheader)
    assert at.session_state[KEY].epsilon == 1.0 and at.query_params["epsilon"] == "1"


def test_a_change_on_compare_reaches_the_shared_setting():
    at = open_compare(dataset="digits", epsilon="1")
    at.selectbox(key="compare_eps").set_value(10.0)
    at.select_slider(key="compare_delta").set_value(1e-6)
    at.text_input(key="compare_c").set_value("3")
    run(at)
    s = at.session_state[KEY]
    assert (s.dataset, s.epsilon, s.delta, s.c) == ("digits", 10.0, 1e-6, 3.0)
    assert at.query_params["epsilon"] == "10" and at.query_params["delta"] == "1e-06"
    at.selectbox(key="compare_eps").set_value(1.0)  # back to the link's: written again
    run(at)
    assert at.session_state[KEY].epsilon == 1.0


def test_a_sigma_is_shown_as_its_epsilon_and_kept_as_chosen():
    at = open_compare(dataset="digits", l="16", sigma_x="0.5", accountant="class-aware")
    want = setting_epsilon(Setting(dataset="digits", l=16, sigma_x=0.5, accountant="class-aware"))
    assert at.selectbox(key="compare_eps").value == want
    assert at.selectbox(key="compare_acc_dp-cda").value == "class-aware"
    s = at.session_state[KEY]
    assert s.epsilon is None and s.sigma_x == 0.5  # only viewing Compare changes no noise


def test_a_dataset_compare_does_not_offer_is_said_and_kept_for_the_other_pages():
    at = open_compare(dataset="adult", epsilon="2")
    assert at.selectbox(key="compare_dataset").value == "digits"
    assert any("does not offer UCI Adult" in c.value for c in at.sidebar.caption)
    assert at.selectbox(key="compare_eps").value == 2.0
    assert at.session_state[KEY].dataset == "adult"


@pytest.mark.slow  # three pages (about 8 s)
def test_privacy_then_compare_then_samples_keep_the_dataset_delta_c_and_target():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(dataset="digits")
    run(at)
    at.switch_page("pages/privacy.py")
    run(at)
    at.select_slider(key="privacy_delta").set_value(1e-6)
    run(at)
    at.switch_page("pages/compare.py")
    run(at)
    assert at.selectbox(key="compare_dataset").value == "digits"
    assert at.select_slider(key="compare_delta").value == 1e-6
    at.selectbox(key="compare_eps").set_value(10.0)
    at.text_input(key="compare_c").set_value("2")
    run(at)
    at.switch_page("pages/samples.py")
    run(at)
    assert at.selectbox(key="samples_dataset").value == "digits"
    assert at.select_slider(key="samples_delta").value == 1e-6
    assert at.radio(key="samples_mode").value == "target ε"
    assert at.text_input(key="samples_eps").value == "10"
    assert at.session_state[KEY].c == 2.0
