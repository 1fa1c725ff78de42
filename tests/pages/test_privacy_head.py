"""The Privacy page's headline, drawn before the sidebar from the widgets' keys
(pages/privacy/head.py): it reads what the widgets will return, it is the headline the page
keeps when they agree, and it is replaced (never kept stale) when they do not."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.page_util import run

import pages.privacy.head as head
from dpcda.dashboard.explorer import SIGMA_VALUES
from dpcda.data.presets import get_preset, list_presets
from dpcda.privacy import DEFAULT_ACCOUNTANT, PrivacyParams, compute_epsilon, list_conversions

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "privacy.py")


@pytest.fixture
def calls(monkeypatch) -> list[bool]:
    """Every headline draw of the page, as its ``quiet`` flag (True: the early draw)."""
    seen, real = [], head.headline

    def spy(slot, setting, *, quiet=False):
        seen.append(quiet)
        return real(slot, setting, quiet=quiet)

    monkeypatch.setattr(head, "headline", spy)
    return seen


def widget_setting(at: AppTest) -> dict:
    """The setting as the page's widgets hold it after a run."""
    ds = head.preset_choice(at.selectbox(key="privacy_preset").value)
    sigma_x = at.select_slider(key="privacy_sigma_x").value
    tie = at.toggle(key="privacy_tie").value
    typed_T = at.text_input(key="privacy_T").value
    return dict(ds=ds, l=at.select_slider(key="privacy_l").value, sigma_x=sigma_x,
                sigma_y=sigma_x if tie else at.select_slider(key="privacy_sigma_y").value,
                c=at.slider(key="privacy_c").value, T=int(typed_T) if typed_T else ds.n,
                delta=at.select_slider(key="privacy_delta").value,
                accountant=at.selectbox(key="privacy_accountant").value,
                conversion=at.radio(key="privacy_conversion").value,
                max_alpha=int(at.text_input(key="privacy_max_alpha").value),
                allocation=at.session_state["dpcda_setting"].allocation)  # the shared setting's


def shown_epsilon(at: AppTest) -> str:
    (m,) = [m for m in at.metric if m.label.startswith("ε")]  # exactly one headline
    return m.value


def library_epsilon(setting: dict) -> float:
    ds = setting["ds"]
    p = PrivacyParams(l=setting["l"], sigma_x=setting["sigma_x"], sigma_y=setting["sigma_y"],
                      c=setting["c"], T=setting["T"], delta=setting["delta"], n=ds.n,
                      class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y,
                      allocation=setting["allocation"] if ds.class_counts else "equal")
    return compute_epsilon(p, accountant=setting["accountant"], conversion=setting["conversion"],
                           max_alpha=setting["max_alpha"]).epsilon


def test_a_first_visit_reads_the_widgets_defaults():
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    assert head.setting_from_state({}) == widget_setting(at)
    assert head.setting_from_state({})["accountant"] == DEFAULT_ACCOUNTANT


def test_the_keys_give_the_setting_the_widgets_will_return():
    digits = get_preset("digits")
    state = {"privacy_preset": "digits", "privacy_l": 16, "privacy_sigma_x": 0.5,
             "privacy_tie": False, "privacy_sigma_y": 2.0, "privacy_c": 3.0, "privacy_T": "500",
             "privacy_delta": 1e-6, "privacy_accountant": "paper",
             "privacy_conversion": list_conversions()[-1], "privacy_max_alpha": "64"}
    got = head.setting_from_state(state)
    assert got == dict(ds=head.preset_choice("digits"), l=16, sigma_x=0.5, sigma_y=2.0, c=3.0,
                       T=500, delta=1e-6, accountant="paper",
                       conversion=list_conversions()[-1], max_alpha=64, allocation="proportional")
    # tied: σ_y is σ_x whatever its key holds; an empty T is N
    tied = head.setting_from_state(dict(state, privacy_tie=True, privacy_T=""))
    assert tied["sigma_y"] == 0.5 and tied["T"] == digits.n


@pytest.mark.parametrize("change", [
    {"privacy_preset": "custom"},          # its counts are typed: read by the widgets only
    {"privacy_preset": "no-such-dataset"},
    {"privacy_T": "1e308"},                # the widget refuses it (range in words)
    {"privacy_T": "abc"},
    {"privacy_max_alpha": "2"},
])
def test_what_the_widgets_would_refuse_is_not_read_early(change):
    state = dict({"privacy_preset": list_presets()[0]}, **change)
    assert head.setting_from_state(state) is None


def test_a_slider_step_is_drawn_early_once_and_agrees_with_the_library(calls):
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    assert calls == [True]  # the early draw was kept: no second computation
    before = shown_epsilon(at)
    sigma = at.select_slider(key="privacy_sigma_x").value
    at.select_slider(key="privacy_sigma_x").set_value(next(v for v in SIGMA_VALUES if v > sigma))
    calls.clear()
    at = run(at)
    assert calls == [True]
    assert shown_epsilon(at) != before
    eps = library_epsilon(widget_setting(at))
    assert float(shown_epsilon(at).replace(",", "")) == pytest.approx(eps, rel=5e-3)


def test_a_widget_that_disagrees_replaces_the_early_headline(calls, monkeypatch):
    """Were the early read ever wrong, the widgets' value is what the page ends with."""
    real = head.setting_from_state

    def wrong(state):
        s = real(state)
        return s and dict(s, sigma_x=s["sigma_x"] * 4, sigma_y=s["sigma_y"] * 4)

    monkeypatch.setattr(head, "setting_from_state", wrong)
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    assert calls == [True, False]
    eps = library_epsilon(widget_setting(at))
    assert float(shown_epsilon(at).replace(",", "")) == pytest.approx(eps, rel=5e-3)
    assert not math.isclose(library_epsilon(wrong({})), eps, rel_tol=0.05)


def test_a_refused_setting_states_its_problem_once(calls):
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    at.selectbox(key="privacy_preset").select("digits")
    at.select_slider(key="privacy_l").set_value(512)  # above digits' smallest class
    calls.clear()
    at = run(at)
    assert calls == [True, False]  # quiet early, then stated once from the widgets
    assert not [m for m in at.metric if m.label.startswith("ε")]
    assert len(at.error) == 1 and "512" in at.error[0].value
    assert any("l = 512" in c.value for c in at.caption)  # the setting line stays under it


def test_a_custom_dataset_is_drawn_from_the_widgets(calls):
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    at.selectbox(key="privacy_preset").select("custom")
    at = run(at)
    at.text_input(key="privacy_counts").input("1000, 2000, 3000")
    calls.clear()
    at = run(at)
    assert calls == [False]
    assert "∞" not in shown_epsilon(at)


def test_every_widget_away_from_its_default_is_still_read_early(calls):
    """Each kind of widget the early read knows (select_slider, toggle, slider, text box, selectbox
    with labels, radio) set away from its default: the next run keeps the early headline."""
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    at.selectbox(key="privacy_preset").select("digits")
    at.select_slider(key="privacy_l").set_value(8)
    at.select_slider(key="privacy_sigma_x").set_value(SIGMA_VALUES[70])
    at.toggle(key="privacy_tie").set_value(False)
    at = run(at)
    at.select_slider(key="privacy_sigma_y").set_value(SIGMA_VALUES[90])
    at.slider(key="privacy_c").set_value(2.5)
    at.text_input(key="privacy_T").input("700")
    at.select_slider(key="privacy_delta").set_value(1e-7)
    at.selectbox(key="privacy_accountant").select("class-aware")
    at.radio(key="privacy_conversion").set_value(list_conversions()[-1])
    at.text_input(key="privacy_max_alpha").input("64")
    at = run(at)
    calls.clear()
    at = run(at)  # a plain rerun: everything read from the keys
    assert calls == [True]
    setting = widget_setting(at)
    assert setting == head.setting_from_state(at.session_state)
    assert setting["sigma_y"] != setting["sigma_x"] and setting["T"] == 700
    eps = library_epsilon(setting)
    assert float(shown_epsilon(at).replace(",", "")) == pytest.approx(eps, rel=5e-3)


def test_a_refused_input_empties_an_early_headline(monkeypatch):
    """Were the early read to succeed while a box refuses its text, no ε stays beside it."""
    real = head.setting_from_state
    monkeypatch.setattr(head, "setting_from_state", lambda state: real({}))  # the defaults
    at = run(AppTest.from_file(PAGE, default_timeout=30))
    assert shown_epsilon(at)
    at.text_input(key="privacy_T").input("abc")
    at = run(at)
    assert len(at.error) == 1 and not [m for m in at.metric if m.label.startswith("ε")]


# Only datasets whose files are here are offered (issue 21): MNIST through the tiny files where absent.
pytestmark = pytest.mark.usefixtures("datasets_offered")
