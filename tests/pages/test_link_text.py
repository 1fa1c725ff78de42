"""A crafted link or upload puts no content of its author's in the dashboard (issue 29): every
value echoed from the address, an uploaded file's name, columns or labels is shown as plain
text on every page (no link, image, formatting, formula, colour or icon comes from it); a link
is read up to a bound, the rest said in one sentence; Compare refuses a bad value in words.

What Streamlit would draw is read by :mod:`tests.markdown_check`; the browser's own rendering
(and that no request leaves it) is tests/browser/test_link_text_browser.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from page_util import run
from tests.markdown_check import PAYLOADS, problems, seen, shown_text

ROOT = Path(__file__).resolve().parents[2]
#: One payload per field of the shared setting (each is refused).
HOSTILE = dict(zip(("dataset", "l", "sigma_x", "accountant", "allocation", "normalize", "conversion",
                    "delta"), PAYLOADS))
REFUSED = "The link's setting was partly refused"


def open_page(page: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=120)
    at.query_params.update(query)
    return run(at)


def assert_plain(md: str, payloads, *, allowed=("strong",)) -> None:
    """``md`` draws only the page's own ``allowed`` elements, and each payload as typed."""
    assert problems(md, allowed) == [], md
    shown = shown_text(md)
    for p in payloads:
        assert seen(p)[:20] in shown, (p, shown)


@pytest.fixture(autouse=True)
def _one_torch_thread():
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.mark.parametrize("page", ["privacy.py", "samples.py", "utility.py", "compare.py", "choose.py"])
def test_a_refused_link_value_is_shown_as_plain_text(page):
    at = open_page(page, **HOSTILE)
    said = [e.value for e in at.error if REFUSED in e.value]
    assert len(said) == 1, [e.value for e in at.error]  # Compare too: said in words (item 3)
    assert_plain(said[0], HOSTILE.values())
    assert "Dataset must be one of: mnist" in shown_text(said[0])


def test_compare_refuses_an_unknown_dataset_in_words():
    at = open_page("compare.py", dataset="nope", l="4")
    (said,) = [e.value for e in at.error if REFUSED in e.value]
    assert "Dataset must be one of" in said and "'nope' is not" in said
    assert at.selectbox(key="compare_dataset").value in ("digits", "mnist", "fashion-mnist", "cifar10")


@pytest.mark.parametrize(("page", "param", "noun"), [("utility.py", "sweep", "Sweep"),
                                                     ("compare.py", "compare", "Comparison")])
@pytest.mark.parametrize("value", [PAYLOADS[1], PAYLOADS[0] + "x" * 5000, "²"])
def test_a_sweep_id_of_the_address_is_quoted_as_typed(page, param, noun, value):
    at = open_page(page, **{param: value})  # "²".isdigit() is True, int("²") fails
    (said,) = [w.value for w in at.warning if "(from the address)" in w.value]
    assert said.startswith(f"{noun} ") and len(said) < 300
    assert_plain(said, [value[:20]], allowed=())
    assert param not in at.query_params


def test_a_choose_link_is_read_up_to_a_bound_and_shown_as_plain_text():
    hostile = [f"{x}~dataset:{p}" for x, p in zip("ABC", PAYLOADS[:3])]
    text = ";".join(hostile + ["x"] * 5000)  # 5,000 more: 10 kB, once 1.6 MB of refusals
    at = open_page("choose.py", candidates=text, chosen=PAYLOADS[4])
    said = [e.value for e in at.error if "candidates were partly refused" in e.value]
    assert len(said) == 1 and len(said[0]) < 3000, len(said[0])  # was 1.6 MB for 5,000 entries
    assert_plain(said[0], PAYLOADS[:3] + (PAYLOADS[4],))
    assert "5,000 more candidates ignored" in shown_text(said[0])


# --- an upload: its file name, columns and labels ----------------------------------------------

def upload(at: AppTest, name: str, data: bytes, shape: str = "") -> AppTest:
    at.selectbox(key="samples_dataset").set_value("upload")
    run(at)
    at.text_input(key="samples_shape").set_value(shape)
    at.file_uploader(key="samples_upload").set_value((name, data, "text/csv"))
    return run(at)


def test_an_upload_refused_quotes_its_columns_and_cells_as_plain_text():
    at = open_page("samples.py", dataset="digits")
    head, cell = "![c](http://evil.example/c.png)", "[Click here](https://evil.example/r)"
    upload(at, "t.csv", f"y,{head},b\n0,{cell},1\n1,2,3\n".encode())
    (said,) = [e.value for e in at.error if e.value.startswith("Upload rejected")]
    assert_plain(said, [head], allowed=())  # the column's name, as plain text
    assert "evil.example/r" not in said  # the cell's content is never repeated


def test_an_uploads_name_and_labels_are_shown_as_plain_text():
    at = open_page("samples.py", dataset="digits", l="1", sigma_x="0.5")
    labels = [p for p in PAYLOADS[:3]]
    rows = [f"{labels[k]},{i % 3},{(i + k) % 5},{i % 2},{k}" for k in range(3) for i in range(8)]
    name = "__b__ [Click here](https:evil.example) $x$ :smile:.csv"
    upload(at, name, ("\n".join(rows) + "\n").encode(), shape="1,2,2")
    assert not at.error, [e.value for e in at.error]
    (facts,) = [c.value for c in at.sidebar.caption if "classes, d =" in c.value]  # an upload: K and d
    assert_plain(facts, [name], allowed=())
    (rows_caption,) = [c.value for c in at.caption if "top to bottom" in c.value]
    assert_plain(rows_caption, labels, allowed=("strong",) * (rows_caption.count("**") // 2))
    assert all(problems(m.value, ("table",)) == [] for m in at.markdown if m.value.startswith("| class"))
