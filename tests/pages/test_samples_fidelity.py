"""AppTest of the Samples page's fidelity section (pages/samples/fidelity.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from pages.common import SIGMA_GRID, nearest
from tests.pages.page_util import markdown_tables, run

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "samples.py")


def digits_link(at):
    """Open the page as the link ``?dataset=digits&epsilon=10`` does (the shared setting; its
    default dataset is MNIST, whose files a test machine may lack)."""
    at.query_params.update(dataset="digits", epsilon="10")
    return at
FAR_TEXT = "Some marginals of this release are far from the real data"


@pytest.fixture(autouse=True)
def _one_torch_thread():
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def generate(at: AppTest) -> AppTest:
    """Click Generate where the page offers it (slow releases); a quick one is already drawn."""
    buttons = [b for b in at.button if b.key == "samples_generate"]
    if buttons:
        buttons[0].click()
    return run(at)


def fidelity_table(at: AppTest):
    return next(d.value for d in at.dataframe if "distance" in d.value.columns
                and "kind" in d.value.columns)


def upload_page() -> AppTest:
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=60)))
    at.selectbox(key="samples_dataset").set_value("upload")
    run(at)
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{'yes' if i % 2 else 'no'},{v[0]:.3f},{v[1]:.3f}"
                     for i, v in enumerate(rng.normal(size=(400, 2))))
    at.file_uploader(key="samples_upload").set_value(("t.csv", ("y,a,b\n" + rows).encode(),
                                                      "text/csv"))
    run(at)
    at.radio(key="samples_mode").set_value("explicit σ")
    at.text_input(key="samples_T").set_value("300")
    at.radio(key="samples_norm").set_value("zscore")  # no public range for these values
    run(at)
    return at


def test_upload_fidelity_table_and_warning_only_when_far_off():
    at = upload_page()
    at.select_slider(key="samples_l").set_value(1)
    at.select_slider(key="samples_sigma").set_value(0.0)   # no noise: close to the real split
    run(at)  # l = 1, no noise: the uploader's own records, shown only when asked
    assert any("σ_x = 0 releases the training records" in i.value for i in at.info)
    assert not at.get("arrow_data_frame") and not at.get("download_button")
    at.sidebar.checkbox(key="samples_real").check()
    # T = 3000 resamples of the 300 training rows: column b's distance to the 100 test rows was
    # 0.052 +- 0.005 (max 0.069 over 1000 releases); at T = 300 it was 0.053 +- 0.015 and passed
    # the 0.1 threshold in 1 of 1000 releases (a failure of this test, by chance)
    at.text_input(key="samples_T").set_value("3000")
    generate(at)
    table = fidelity_table(at)
    assert table["column"].tolist() == ["label", "a", "b"]
    assert table["kind"].tolist() == ["categorical", "numeric", "numeric"]
    assert (table["distance"] < 0.1).all() and not table["far off"].any()
    assert not any(FAR_TEXT in w.value for w in at.warning)
    at.select_slider(key="samples_sigma").set_value(nearest(SIGMA_GRID, 3.0))  # noise swamps
    generate(at)
    table = fidelity_table(at)
    far = table.loc[table["far off"], "column"].tolist()
    assert "a" in far and "b" in far
    warning = next(w.value for w in at.warning if FAR_TEXT in w.value)
    assert "a: the released marginal is far" in warning and "Wasserstein" in warning


def _mean_images(at) -> list:
    return [im for im in at.image if any("Per-class mean image" in c
                                         for c in im.proto.imgs[0].caption.split("\n"))]


def test_digits_shows_mean_images_and_class_distances():
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=60)))
    generate(at)
    # Off by default: the real test split's mean images are not drawn, the distances are, and
    # the numbers say they are computed on the real data, outside ε.
    assert _mean_images(at) == []
    assert any(c.value.startswith("**Computed on the real data, outside ε:**") for c in at.caption)
    assert any("Show real records (not private)" in c.value for c in at.caption)
    assert len(markdown_tables(at, "class")) == 1
    at.sidebar.checkbox(key="samples_real").check()
    run(at)
    means = next(im for im in at.image if any("Per-class mean image" in c
                                             for c in im.proto.imgs[0].caption.split("\n")))
    assert means.proto.imgs[0].caption.endswith("(right)")
    (dist,) = markdown_tables(at, "class")
    assert dist["class"].tolist() == [str(k) for k in range(10)]
    assert np.isfinite(dist["relative L2 distance"].astype(float)).all()


@pytest.mark.skipif(not (Path(os.environ.get("DPCDA_DATA_DIR", "")) / "adult" / "adult.data")
                    .is_file(), reason="UCI Adult not in DPCDA_DATA_DIR")
def test_adult_categorical_marginals_within_tv_or_warned():
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=120)))
    at.selectbox(key="samples_dataset").set_value("adult")
    run(at)
    at.text_input(key="samples_T").set_value("10000")
    at.select_slider(key="samples_l").set_value(16)
    generate(at)
    table = fidelity_table(at)
    cat = table[table["kind"] == "categorical"]
    assert len(cat) == 1 + 8 and "race" in cat["column"].tolist()
    over = cat[cat["distance"] > 0.10]
    assert over["far off"].all()
    warned = " ".join(w.value for w in at.warning if FAR_TEXT in w.value)
    assert all(f"{c}: the released marginal" in warned for c in over["column"])
    race = cat.set_index("column").loc["race"]
    assert race["real (test split)"].startswith("White 85")
