"""AppTest tests of the Samples page's live preview (a slow, MNIST-size release), the mosaic's
column at the setting's own ε, dp-center and the label noise apart (pages/samples.py)."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

import dpcda.dashboard.samples as smp
from dpcda.dashboard.explorer import SIGMA_VALUES
from tests.pages.page_util import run
from tests.pages.test_samples_page import PAGE, _one_torch_thread, digits_link, media, statement  # noqa: F401


@pytest.fixture
def slow(monkeypatch):
    """Every release estimated slow, as MNIST's is: the page previews and waits for Generate."""
    monkeypatch.setattr(smp, "is_quick", lambda **_: False)


def _captions(at) -> list[str]:
    return [im.proto.imgs[0].caption for im in at.image]


def _card(got) -> dict:
    """The data card last offered for download."""
    return json.loads(next(f.data for f in reversed(got.stored)
                           if f.filename and f.filename.endswith(".json")))


def _setting_line(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("**Current setting:**"))


def test_a_slow_release_is_previewed_at_once_and_generated_on_demand(slow, media):  # noqa: F811
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=120)))
    assert not at.error
    caps = _captions(at)
    assert caps and caps[0].startswith("Preview: fresh samples")  # drawn without a click
    assert not any(c.startswith("Released samples") for c in caps)
    assert [b.key for b in at.button].count("samples_generate") == 1
    words = " ".join(c.value for c in at.caption)
    assert "8 samples of each class, rows top to bottom: 0, 1, 2" in words
    assert "not part of the release" in words
    assert not at.get("download_button") or not any(  # no release, so no release to download
        b.proto.label.startswith("Release:") for b in at.get("download_button"))
    grid = Image.open(io.BytesIO(next(f.data for f in media.stored if f.mimetype == "image/png")))
    assert np.asarray(grid).std() > 10  # digits through the noise, not a blank

    at.button(key="samples_generate").click()
    run(at)
    caps = _captions(at)
    assert caps[0].startswith("Released samples") and caps[1].startswith("Class means · denoised")
    assert any(b.proto.label.startswith("Release:") for b in at.get("download_button"))
    assert "samples_generate" not in [b.key for b in at.button]  # its own release is shown
    eps_release = float(re.search(r"#### ε = ([0-9.]+)", statement(at)).group(1))

    # A change: the preview of the new setting at once (the old release is not shown as current).
    at.select_slider(key="samples_l").set_value("16")
    run(at)
    caps = _captions(at)
    assert caps[0].startswith("Preview") and not any(c.startswith("Released") for c in caps)
    assert "l = 16" in _setting_line(at)
    assert eps_release <= 10.0


def test_the_mosaic_has_a_column_at_the_settings_own_epsilon(slow):
    at = digits_link(AppTest.from_file(PAGE, default_timeout=300))
    at.query_params.update(epsilon="3", l="8")
    run(at)
    at.toggle(key="samples_mosaic").set_value(True)  # offered beside the preview too
    run(at)
    heads = [m.value for m in at.markdown if m.value.startswith("**ε = ")]
    here = [h for h in heads if "this setting" in h]
    assert len(heads) == 4 and len(here) == 1  # 20, 10, 5 and the setting's (inf: opt-in only)
    eps_here = float(re.search(r"ε = ([0-9.]+)", here[0]).group(1))
    assert 2.9 <= eps_here <= 3.0
    rows = [m.value for m in at.markdown if m.value.startswith("**l = ")]
    assert rows == ["**l = 1**", "**l = 4**", "**l = 8** · this setting", "**l = 16**", "**l = 64**"]
    cells = [im.proto.imgs[0].caption for im in at.image if im.proto.imgs[0].caption.startswith("σ = ")]
    assert len(cells) == 5 * 4
    own = cells[2 * 4 + 3]  # row l = 8, the last column (ε = 3 is the smallest)
    sigma = float(re.search(r"σ_x = σ_y = ([0-9.]+)", _setting_line(at)).group(1))
    assert float(own.split("= ")[1]) == pytest.approx(sigma, rel=5e-3)  # the setting's exact noise
    assert float(cells[2 * 4 + 2].split("= ")[1]) < float(own.split("= ")[1])  # ε = 5 needs less


def test_dp_center_is_offered_and_its_epsilon_composes_the_statistics(media):  # noqa: F811
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=120)))
    assert any("minus a mean estimated under DP" in o for o in at.radio(key="samples_norm").options)
    plain = float(re.search(r"ε = ([0-9.]+)", _setting_line(at)).group(1))
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    at.select_slider(key="samples_sigma").set_value(SIGMA_VALUES[100])
    run(at)
    scale_eps = float(re.search(r"ε = ([0-9.]+)", _setting_line(at)).group(1))
    at.radio(key="samples_norm").set_value("dp-center")
    run(at)
    assert not at.error
    line = _setting_line(at)
    assert "the mixing and the `dp-center` statistics together" in line
    centred = float(re.search(r"ε = ([0-9.]+)", line).group(1))
    assert centred > scale_eps and plain <= 10.0
    card = _card(media)
    assert card["normalization"]["method"] == "dp-center"
    assert card["privacy"]["epsilon"] == pytest.approx(centred, rel=1e-2)
    assert at.session_state["dpcda_setting"].normalize == "dp-center"  # shared with the other pages


def test_label_noise_can_be_set_apart_and_reaches_the_card_and_the_setting(media):  # noqa: F811
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=120)))
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    at.toggle(key="samples_tie").set_value(False)
    run(at)
    at.select_slider(key="samples_sigma_y").set_value(SIGMA_VALUES[-1])  # σ_y = 10
    run(at)
    assert "σ_y = 10" in _setting_line(at)
    card = _card(media)
    assert card["parameters"]["sigma_y"] == pytest.approx(10.0)
    assert card["parameters"]["sigma_x"] != pytest.approx(10.0)
    assert at.session_state["dpcda_setting"].sigma_y == pytest.approx(10.0)


def test_a_switch_of_noise_mode_keeps_the_setting_it_showed():
    """σ → target ε fills the target with the ε just shown (not 10); back to σ sets the σ that
    met it; the address then carries that σ, not a stale one."""
    at = digits_link(AppTest.from_file(PAGE, default_timeout=120))
    at.query_params.update(sigma_x="1.5")
    at.query_params.pop("epsilon", None)
    run(at)
    assert at.radio(key="samples_mode").value == "explicit σ"
    shown = float(re.search(r"ε = ([0-9.]+)", _setting_line(at)).group(1))
    at.radio(key="samples_mode").set_value("target ε")
    run(at)
    assert float(at.text_input(key="samples_eps").value) == pytest.approx(shown, rel=1e-3)
    sigma = float(re.search(r"σ_x = σ_y = ([0-9.]+)", _setting_line(at)).group(1))
    assert sigma == pytest.approx(1.5, rel=1e-2)  # the same setting, read back from its ε
    assert float(at.query_params["sigma_x"]) == pytest.approx(sigma, rel=1e-2)
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    assert at.select_slider(key="samples_sigma").value == pytest.approx(sigma, rel=1e-2)
