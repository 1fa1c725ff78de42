"""AppTest tests of the Samples page (pages/samples.py).

What the page hands to Streamlit (images, download files, deferred downloads) is captured by
spying on Streamlit's in-memory media storage, so the tests look at the real bytes offered.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from tests.markdown_check import shown_text
from tests.pages.page_util import run

from dpcda.data import load_dataset, load_upload
from dpcda.privacy import DEFAULT_ACCOUNTANT, NOT_A_BOUND, calibrate, get_accountant

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "samples.py")


def digits_link(at):
    """Open the page as the link ``?dataset=digits&epsilon=10`` does (the shared setting; its
    default dataset is MNIST, whose files a test machine may lack)."""
    at.query_params.update(dataset="digits", epsilon="10")
    return at


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """Generation here is many tiny torch calls; on a CPU shared by several processes torch's
    intra-op thread pool makes each one ~10x slower. One thread keeps the test run short."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture
def media(monkeypatch):
    """Files stored for this test's runs (``.stored``) and deferred download callables (``.deferred``)."""
    got = SimpleNamespace(stored=[], deferred={})
    store, defer = MemoryMediaFileStorage.load_and_get_id, MediaFileManager.add_deferred

    def spy_store(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, (bytes, bytearray)):
            got.stored.append(SimpleNamespace(data=bytes(path_or_data), mimetype=mimetype,
                                              filename=filename))
        return store(self, path_or_data, mimetype, kind, filename)

    def spy_defer(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        got.deferred[file_name] = data_callable
        return defer(self, data_callable, mimetype, coordinates, file_name, **kw)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy_store)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_defer)
    return got


def page() -> AppTest:
    return run(digits_link(AppTest.from_file(PAGE, default_timeout=60)))


def generate(at: AppTest) -> AppTest:
    """Click Generate where the page offers it (slow releases); a quick one is already drawn."""
    buttons = [b for b in at.button if b.key == "samples_generate"]
    if buttons:
        buttons[0].click()
    return run(at)


def details(at: AppTest) -> str:
    """The precise messages under the plain error boxes ("Details" expanders)."""
    return " ".join(c.value for e in at.expander if e.label == "Details" for c in e.code)


def statement(at: AppTest) -> str:
    """The headline and the sentence under it that state epsilon, delta, accountant, sigma."""
    texts = [m.value for m in at.markdown]
    i = next(i for i, t in enumerate(texts) if t.startswith("#### ε"))
    return "\n".join(texts[i:i + 2])


def stated_sigma(at: AppTest) -> float:
    return float(re.search(r"σ_x = ([0-9.e+-]+)", statement(at)).group(1))


def find_keys(obj, key: str) -> list:
    if isinstance(obj, dict):
        return [k for k in obj if k == key] + [x for v in obj.values() for x in find_keys(v, key)]
    if isinstance(obj, list):
        return [x for v in obj for x in find_keys(v, key)]
    return []


def test_first_load_draws_the_preview_and_class_means_without_clicking(media):
    at = page()
    assert at.selectbox(key="samples_dataset").value == "digits"
    assert not at.error and "samples_generate" not in [b.key for b in at.button]  # quick: no button
    # The setting line states the calibrated noise and the accountant.
    preview = next(c.value for c in at.caption if c.value.startswith("**Current setting:**"))
    ds = load_dataset("digits")
    cal = calibrate(epsilon=10.0, delta=1e-5, l=4, T=ds.n_train, n=ds.n_train,
                    class_counts=ds.class_counts, d_x=ds.d_x, d_y=10, accountant=DEFAULT_ACCOUNTANT,
                    allocation="proportional")  # the shared setting's
    assert f"σ_x = σ_y = {cal.sigma_x:.3g}" in preview and f"({DEFAULT_ACCOUNTANT})" in preview
    assert at.select_slider(key="samples_l").options[-1] == "128"  # limited to the smallest class (131)
    # Images first: the grid, then the class means beside it (before the ε statement).
    captions = [im.proto.imgs[0].caption for im in at.image]
    assert captions[0].startswith("Released samples") and captions[1].startswith("Class means · denoised")
    pngs = [Image.open(io.BytesIO(f.data)) for f in media.stored if f.mimetype == "image/png"]
    grid, means = pngs[:2]  # drawn first: the grid, then the class means beside it
    assert means.size[1] == grid.size[1]  # one row per class, as high as the grid's rows
    assert means.size[0] < grid.size[0] / 3  # one row per class, as high as the grid's rows
    # The class means show structure the single samples lack: they vary between classes.
    assert np.asarray(means).std() > 10


def test_hint_for_an_unrecognisable_setting_and_none_for_a_clear_one():
    at = page()  # digits at epsilon = 10, l = 4: sigma ~ 0.29, every sample static
    hints = [i.value for i in at.info if "mostly static" in i.value]
    assert len(hints) == 1 and ("Try l ≥" in hints[0] or "larger ε" in hints[0])
    at.text_input(key="samples_eps").set_value("1000")   # weak privacy
    at.select_slider(key="samples_l").set_value(64)
    run(at)
    assert not [i.value for i in at.info if "mostly static" in i.value]
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    at.select_slider(key="samples_sigma").set_value(0.0)
    run(at)
    at.sidebar.checkbox(key="samples_real").check()  # σ_x = 0: means of real records, opted in
    run(at)
    assert not [i.value for i in at.info if "mostly static" in i.value] and len(at.image) >= 2


def test_preview_shows_grid_statement_and_downloads_without_seed(media):
    at = page()
    assert not at.error
    text = statement(at)
    assert text.startswith("#### ε = 10 at δ = 1e-5")
    assert f"`{DEFAULT_ACCOUNTANT}`" in text
    assert "mironov" in text or not get_accountant(DEFAULT_ACCOUNTANT).uses_rdp
    assert "None" not in text and "α = —" not in text  # a PLD has no conversion or order to show
    assert get_accountant(DEFAULT_ACCOUNTANT).relation in text  # the relation in plain words
    ds = load_dataset("digits")
    cal = calibrate(epsilon=10.0, delta=1e-5, l=4, T=ds.n_train, n=ds.n_train,
                    class_counts=ds.class_counts, d_x=ds.d_x, d_y=10, accountant=DEFAULT_ACCOUNTANT,
                    allocation="proportional")  # the shared setting's
    assert stated_sigma(at) == pytest.approx(cal.sigma_x, rel=1e-3)
    assert any("assumes" in e.label for e in at.expander)

    # The grid: one image whose rows are the 10 classes, 8 samples each (8x8 cells, 1 px pads).
    # grid, class means; the mosaic waits for its toggle, the real class means for their opt-in
    assert len(at.image) == 2
    pngs = [Image.open(io.BytesIO(f.data)) for f in media.stored if f.mimetype == "image/png"]
    grid = pngs[0]  # the first image drawn
    w, h = grid.size
    factor = w // (8 * 9 + 1)
    assert factor >= 2 and (w, h) == (factor * 73, factor * 91)
    assert np.asarray(grid).std() > 10  # not a blank picture

    # Downloads: two zips (deferred) and the card; the card carries no seed at any depth.
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[:3] == ["Release: NPZ + data card (.zip)", "Release: CSV + data card (.zip)",
                          "Data card (JSON)"]
    assert any("report" in x for x in labels) and any("script" in x for x in labels)
    card_file = next(f for f in media.stored if f.filename and f.filename.endswith(".json"))
    card = json.loads(card_file.data)
    assert find_keys(card, "seed") == [] and card["privacy"]["accountant"] == DEFAULT_ACCOUNTANT
    assert card["parameters"]["l"] == 4 and card["privacy"]["epsilon"] <= 10.0
    assert card["privacy"]["seeded"] is False  # the dashboard never seeds a release
    assert any("ChaCha20" in c.value and "security" in c.value for c in at.caption)
    npz_zip = zipfile.ZipFile(io.BytesIO(next(f for n, f in media.deferred.items() if "npz" in n)()))
    names = sorted(npz_zip.namelist())
    assert [n.rsplit(".", 1)[1] for n in names] == ["json", "npz"]
    arrays = np.load(io.BytesIO(npz_zip.read(names[1])))
    assert sorted(arrays.files) == ["X", "y", "y_soft"]
    n = card["release"]["n_samples"]  # sum of T_k under the default allocation
    assert n == sum(card["parameters"]["T_per_class"]) and 1340 <= n <= 1347
    assert arrays["X"].shape == (n, 64) and arrays["y_soft"].shape == (n, 10)
    assert find_keys(json.loads(npz_zip.read(names[0])), "seed") == []
    csv_zip = zipfile.ZipFile(io.BytesIO(next(f for n, f in media.deferred.items() if "csv" in n)()))
    csv_name = next(n for n in csv_zip.namelist() if n.endswith(".csv"))
    lines = csv_zip.read(csv_name).decode().splitlines()
    assert lines[0].startswith("label,x0,") and len(lines) == 1 + n


def test_changing_the_accountant_redraws_at_once_and_no_privacy_is_labelled():
    at = page()
    default = stated_sigma(at)
    at.selectbox(key="samples_accountant").set_value("paper")
    run(at)  # a quick release: redrawn without a click
    assert "`paper`" in statement(at) and "DP-CDA Theorem 1" in statement(at)
    assert stated_sigma(at) != pytest.approx(default, rel=1e-3)
    # Explicit sigma = 0 is the non-private setting, spelled out.
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    at.select_slider(key="samples_sigma").set_value(0.0)
    run(at)
    at.sidebar.checkbox(key="samples_real").check()  # σ_x = 0 shows real data: only when asked
    run(at)
    assert statement(at).startswith("#### ε = ∞ (no privacy)")
    assert any("no privacy guarantee" in w.value for w in at.warning)


def test_mosaic_draws_a_cell_per_l_and_epsilon_when_asked():
    at = digits_link(AppTest.from_file(PAGE, default_timeout=300))
    at.session_state["samples_accountant"] = "class-aware"  # RDP: 12 quick calibrations
    run(at)
    at.toggle(key="samples_mosaic").set_value(True)
    run(at)
    cells = [im for im in at.image if im.proto.imgs[0].caption.startswith("σ = ")]
    assert len(cells) == 4 * 3  # l in 1, 4, 16, 64 (all <= 131) x epsilon in 20, 10, 5 (no real records)
    sig = [float(c.proto.imgs[0].caption.split("= ")[1].split(" ")[0]) for c in cells]
    assert 0 < sig[0] < sig[1] < sig[2]  # less epsilon, more noise (row l = 1)
    assert sig[3] < sig[0]  # l = 4 needs less noise than l = 1 for the same epsilon
    at.sidebar.checkbox(key="samples_real").check()  # the opt-in adds the real column, first
    run(at)
    cells = [im for im in at.image if im.proto.imgs[0].caption.startswith("σ = ")]
    sig2 = [float(c.proto.imgs[0].caption.split("= ")[1].split(" ")[0]) for c in cells]
    assert len(cells) == 4 * 4 and sig2[0] == 0 and sig2[1:4] == sig[:3]  # the same noisy cells


def test_bad_settings_give_st_error_not_a_traceback():
    at = digits_link(AppTest.from_file(PAGE, default_timeout=60))
    at.query_params["l"] = "256"  # e.g. from the Privacy page; digits' smallest class has 131 records
    run(at)
    assert [e.value for e in at.error] == ["l = 256 is more than this dataset allows (l averages "
                                           "records of one class, so it is at most the smallest "
                                           "class): l is now 128."]
    assert at.select_slider(key="samples_l").value == 128
    at.selectbox(key="samples_accountant").set_value("class-aware")
    at.text_input(key="samples_eps").set_value("0.01")  # below what delta and alpha_max allow
    run(at)
    assert len(at.error) == 1 and "cannot be reached" in at.error[0].value + details(at)
    assert not at.image  # nothing stale is shown
    at.text_input(key="samples_eps").set_value("-3")  # refused at the widget, with the range
    run(at)
    assert len(at.error) == 1 and "ε" in at.error[0].value and not at.image
    at.text_input(key="samples_eps").set_value("10")
    at.text_input(key="samples_T").set_value("1e308")  # refused, not coerced to T = 1
    run(at)
    assert len(at.error) == 1 and "1,000,000,000" in at.error[0].value and "1e308" in at.error[0].value
    assert not at.image  # and the main area says where the refusal is
    assert any("refused" in i.value for i in at.info)
    at.text_input(key="samples_T").set_value("")  # empty: T = N (every page's), drawn again
    run(at)
    assert not at.error and len(at.image) >= 2


def test_missing_dataset_files_show_where_to_put_them(monkeypatch, tmp_path):
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DPCDA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DPCDA_OFFLINE", "1")
    at = page()
    at.selectbox(key="samples_dataset").set_value("cifar10")
    run(at)
    assert not at.error and len(at.info) == 1  # one short box, no server paths
    box = at.info[0].value
    how = " ".join(m.value for e in at.expander for m in e.markdown)
    assert "not on this server" in box and "**CIFAR-10**" in box and "cifar10" not in box  # titles
    assert "How to add CIFAR-10" in [e.label for e in at.expander]
    assert "DPCDA_DATA_DIR" in how and "`cifar10/cifar-10-batches-py/`" in how and "torchvision" in how
    assert str(tmp_path) not in box + how
    assert "samples_generate" not in [b.key for b in at.button]  # no release controls


def test_datasets_present_are_offered_first(monkeypatch, tmp_path, tiny_data_dir):
    monkeypatch.setenv("DPCDA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tmp_path))  # nothing here but digits
    at = page()
    opts = at.selectbox(key="samples_dataset").options
    assert opts[0].startswith("scikit-learn digits") and opts[-1] == "upload a CSV / NPZ"
    assert "MNIST (no files)" in opts
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))  # mnist, fashion-mnist, adult
    at = page()
    opts = at.selectbox(key="samples_dataset").options
    assert opts == ["MNIST", "Fashion-MNIST", "scikit-learn digits (8x8)", "UCI Adult (census income)",
                    "CIFAR-10 (no files)", "upload a CSV / NPZ"]


def test_upload_errors_and_a_valid_tabular_upload():
    at = page()
    at.selectbox(key="samples_dataset").set_value("upload")
    run(at)
    assert any("200 MB" in i.value for i in at.info)
    at.file_uploader(key="samples_upload").set_value(("bad.csv", b"label,a\n0,1\n1,oops\n", "text/csv"))
    run(at)
    assert any("Upload rejected" in e.value and "row 3, column 2" in e.value and "not a finite number"
               in e.value and "oops" not in e.value for e in at.error)  # where, never the cell's content
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{'yes' if i % 2 else 'no'},{v[0]:.3f},{v[1]:.3f}"
                     for i, v in enumerate(rng.normal(size=(80, 2))))
    at.file_uploader(key="samples_upload").set_value(("mine.csv", ("y,a,b\n" + rows).encode(), "text/csv"))
    run(at)
    assert not at.error
    # An upload has no public range: its default keeps the features as given (rows clipped to
    # c), which the guarantee covers; the public-range choice says what it assumes.
    assert at.radio(key="samples_norm").value == "none"
    generate(at)
    assert not at.error
    at.radio(key="samples_norm").set_value("scale")
    run(at)
    generate(at)
    assert any("[0, 255]" in shown_text(e.value) and "'none'" in e.value for e in at.error)
    at.radio(key="samples_norm").set_value("none")
    run(at)
    generate(at)
    assert not at.error
    table = at.dataframe[0].value
    # the header names the columns
    assert list(table.columns) == ["label", "a", "b"] and set(table["label"]) <= {"no", "yes"}


def _sidebar_words(at) -> str:
    """What the sidebar says about the data's size: its captions, the l slider's help and the T
    input's placeholder."""
    return " ".join([c.value for c in at.sidebar.caption] + [at.select_slider(key="samples_l").help,
                     at.text_input(key="samples_T").proto.placeholder])


def test_an_uploads_counts_are_not_shown_a_built_in_datasets_are():
    """An upload's class sizes are its holder's own (a screenshot of the page is a publication):
    the sidebar names N (public under every relation the library accounts, and stated on a
    release's card), K and d, and no class size; digits' published sizes are shown."""
    at = page()
    words = _sidebar_words(at)
    assert "N = 1,347 training rows" in words and "smallest class 131" in words
    assert "At most the smallest class (131)" in words and "empty = N (1,347)" in words
    rng = np.random.default_rng(1)
    labels = ["yes"] * 67 + ["no"] * 50  # 117 rows, 87 training rows (positional split)
    rows = "\n".join(f"{lab},{v[0]:.3f},{v[1]:.3f}" for lab, v in zip(labels, rng.normal(size=(117, 2))))
    at.selectbox(key="samples_dataset").set_value("upload")
    run(at)
    at.file_uploader(key="samples_upload").set_value(("mine.csv", ("y,a,b\n" + rows).encode(), "text/csv"))
    run(at)
    assert not at.error
    ds = load_upload(("y,a,b\n" + rows).encode(), "mine.csv")
    words = _sidebar_words(at)
    assert "N = 87 training rows, K = 2 classes, d = 2 features" in words and "not shown" in words
    assert ds.n_train == 87 and "empty = N (87)" in words and "N/K = 43" in words  # 87 // 2
    hidden = {ds.n_train + ds.n_test, *ds.class_counts}
    assert not any(str(n) in words for n in hidden), (hidden, words)
    # the slider's options are the public grid up to N // K, not up to the smallest class
    assert min(ds.class_counts) < 40 and at.select_slider(key="samples_l").options[-1] == "40"


@pytest.mark.parametrize("source", ["tiny", "real"])
def test_adult_shows_a_decoded_table(source, monkeypatch, tiny_data_dir, real_data):
    """Tiny UCI Adult CSVs written by the tests, then the real files where DPCDA_DATA_DIR has them."""
    data_dir = real_data("adult") if source == "real" else tiny_data_dir
    monkeypatch.setenv("DPCDA_DATA_DIR", str(data_dir))
    at = page()
    at.selectbox(key="samples_dataset").set_value("adult")
    run(at)
    at.text_input(key="samples_T").set_value("2000")
    generate(at)
    assert not at.error and not at.image
    table = at.dataframe[0].value
    assert table.columns[:4].tolist() == ["label", "age", "workclass", "fnlwgt"]
    assert set(table["label"]) <= {"<=50K", ">50K"}
    ds = load_dataset("adult")
    seg = next(s for s in ds.segments if s.name == "workclass")
    assert set(table["workclass"]) <= set(seg.categories)
    assert table["age"].dtype.kind == "f" and table["age"].notna().all()
    if source == "real":  # 32,561 rows: at epsilon = 10 the typical age is plausible (the noise
        # is on the public [0, 100] scale, rows clipped to c = 3, so single rows spread widely)
        assert 0 < table["age"].median() < 100


def test_a_published_headline_is_labelled_not_a_bound():
    """Honesty: the default headline is a valid bound (no caveat); the published accountant's
    epsilon carries "as published, not a bound for this implementation", and the valid bound for
    the same noise is shown beside it."""
    at = generate(page())  # digits, l = 4, target eps = 10, the default accountant
    assert not [w for w in at.warning if NOT_A_BOUND in w.value]
    current = [c.value for c in at.caption if c.value.startswith("**Current setting:**")]
    assert current and NOT_A_BOUND not in current[0]
    beside = [c.value for c in at.caption if c.value.startswith("The `paper` accountant (")]
    assert beside and NOT_A_BOUND in beside[0]
    at.selectbox(key="samples_accountant").set_value("paper")
    run(at)
    at = generate(at)
    flagged = [w.value for w in at.warning if NOT_A_BOUND in w.value]
    assert flagged, [w.value for w in at.warning]
    current = [c.value for c in at.caption if c.value.startswith("**Current setting:**")]
    assert f"(paper; {NOT_A_BOUND})" in current[0]  # the setting's epsilon, before any release
    valid = [c.value for c in at.caption
             if c.value.startswith(f"The `{DEFAULT_ACCOUNTANT}` accountant states")]
    assert re.search(r"about the same|about [0-9.]+ times (larger|smaller)", valid[0])  # in words
    assert NOT_A_BOUND not in valid[0] and "×" not in valid[0]  # the valid bound beside it, no caveat


def test_an_upload_whose_headers_declare_too_much_is_one_message():
    """An NPZ whose X header claims 8 TiB: the page shows the library's refusal (no
    MemoryError, no traceback) and stops."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False,
                                                "shape": (2**40,)})
    y = io.BytesIO()
    np.save(y, np.zeros(8, np.int64))
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as z:
        z.writestr("X.npy", head.getvalue() + b"\0" * 64)
        z.writestr("y.npy", y.getvalue())
    at = page()
    at.selectbox(key="samples_dataset").set_value("upload")
    run(at)
    at.file_uploader(key="samples_upload").set_value(("huge.npz", data.getvalue(),
                                                      "application/octet-stream"))
    run(at)
    assert not at.exception, at.exception
    (error,) = at.error
    assert "Upload rejected" in error.value and "too large once unpacked" in error.value


NO_NOISE_GATE = "σ_x = 0 releases the training records themselves"


def test_sigma_zero_shows_no_record_without_the_real_records_opt_in():
    """σ_x = 0 with l = 1 releases training records as they are: like the mosaic's ε = ∞ column,
    they are shown only once the reader ticks "Show real records (not private)"."""
    at = digits_link(AppTest.from_file(PAGE, default_timeout=120))
    run(at)
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    at.select_slider(key="samples_l").set_value(1)
    at.select_slider(key="samples_sigma").set_value(0.0)
    run(at)
    assert any(NO_NOISE_GATE in i.value for i in at.info)
    assert not at.image and not at.get("download_button")  # no record, no release file
    assert not at.checkbox(key="samples_real").value
    at.sidebar.checkbox(key="samples_real").check()
    run(at)
    assert not any(NO_NOISE_GATE in i.value for i in at.info)
    assert len(at.image) >= 1 and statement(at).startswith("#### ε = ∞ (no privacy)")


def _sized_upload(n_yes: int, n_no: int) -> bytes:
    """A tabular CSV of two classes (2 features), ``n_yes`` rows then ``n_no`` rows: two of them
    with the same N, K and d differ only in their class sizes."""
    rng = np.random.default_rng(2)
    labels = ["yes"] * n_yes + ["no"] * n_no
    return ("y,a,b\n" + "\n".join(f"{lab},{v[0]:.3f},{v[1]:.3f}" for lab, v in
                                  zip(labels, rng.normal(size=(len(labels), 2))))).encode()


def _upload(at: AppTest, data: bytes, name: str) -> AppTest:
    if at.selectbox(key="samples_dataset").value != "upload":
        at.selectbox(key="samples_dataset").set_value("upload")
        run(at)
    at.file_uploader(key="samples_upload").set_value((name, data, "text/csv"))
    return generate(run(at))


def test_an_uploads_target_epsilon_reads_no_class_size(media):
    """Under whole-record an upload's class sizes are private: at a target ε the page's readout
    before the release is the same for two uploads that differ only in their class sizes (no σ
    computed from them), and the release is calibrated by the library on lower bounds from a DP
    label histogram, which its card names (the σ on it is a function of public inputs and that
    histogram), never the data's sizes."""
    from dpcda.util.notices import notice

    at = page()  # the link's target ε = 10 under the default (whole-record) accountant
    assert at.selectbox(key="samples_accountant").value == DEFAULT_ACCOUNTANT == "whole-record"
    readouts, cards = [], []
    for i, (a, b) in enumerate([(1000, 1000), (1300, 700)]):
        data = _sized_upload(a, b)
        assert len({*load_upload(data, "x.csv").class_counts}) == 2  # their sizes differ
        _upload(at, data, f"mine{i}.csv")
        assert not at.error, [e.value for e in at.error]
        readouts.append([c.value for c in at.caption if c.value.startswith("**Current setting:**")])
        card_file = [f for f in media.stored if f.filename and f.filename.endswith(".json")][-1]
        cards.append(json.loads(card_file.data))
        assert notice("class_sizes_from_data").message not in [w.value for w in at.warning]
    assert readouts[0] == readouts[1] and len(readouts[0]) == 1
    assert "set at release" in readouts[0][0] and "DP histogram" in readouts[0][0]
    assert not re.search(r"σ_x = σ_y = [0-9]", readouts[0][0])  # no σ before the release
    counts = [load_upload(_sized_upload(a, b), "x.csv").class_counts for a, b in [(1000, 1000), (1300, 700)]]
    for card, sizes in zip(cards, counts):
        assert "DP histogram" in card["data"]["class_bounds_source"]
        assert card["privacy"]["label_histogram"]["label_share"] > 0
        assert card["data"]["class_counts"] is None  # the sizes are not published
        assert [w["code"] for w in card["privacy"].get("warnings", [])] == []
        assert card["privacy"]["epsilon"] <= 10.0 and card["privacy"]["calibrated_to_epsilon"] == 10.0
        assert all(lo <= n for lo, n in zip(card["data"]["class_bounds"], sizes))
    # what the page states for the release is its card's; the tally reads the card's DP bounds
    assert stated_sigma(at) == pytest.approx(cards[1]["parameters"]["sigma_x"], rel=1e-3)
    assert any("with the bounds' failure probability" in i.value for i in at.info)


def test_an_uploads_explicit_sigma_says_it_reads_the_class_sizes():
    """With an explicit σ the library can only account an upload with its own class sizes,
    treated as public: the page says so by the notice's code before the release (as the card
    does after it); a built-in dataset's published sizes need no such notice."""
    from dpcda.util.notices import notice

    words = notice("class_sizes_from_data").message
    at = page()
    at.radio(key="samples_mode").set_value("explicit σ")
    run(at)
    assert words not in [w.value for w in at.warning]  # digits: published sizes
    _upload(at, _sized_upload(1000, 1000), "mine.csv")
    assert not at.error
    assert [w.value for w in at.warning].count(words) == 2  # the setting's, then the card's


def test_an_image_uploads_mosaic_and_hint_read_the_cards_bounds(media):
    """After an image upload's release at a target ε the mosaic and the legibility hint are
    calibrated on the lower bounds its card published (a DP label histogram's), with their sum
    as N, as the release's accountant reads them: they draw, and the setting's own cell has the
    card's σ."""
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 255, size=(2000, 8, 8)).astype(np.float32)
    buf = io.BytesIO()
    np.savez(buf, X=X, y=np.array([0] * 1200 + [1] * 800))
    at = page()
    at.selectbox(key="samples_dataset").set_value("upload")
    run(at)
    at.file_uploader(key="samples_upload").set_value(("img.npz", buf.getvalue(), "application/octet-stream"))
    generate(run(at))
    assert not at.error
    card = json.loads([f for f in media.stored if f.filename and f.filename.endswith(".json")][-1].data)
    assert "DP histogram" in card["data"]["class_bounds_source"]
    at.toggle(key="samples_mosaic").set_value(True)
    run(at)
    assert not at.error
    sigmas = [im.proto.imgs[0].caption for im in at.image if im.proto.imgs[0].caption.startswith("σ = ")]
    assert len(sigmas) > 4 and f"σ = {card['parameters']['sigma_x']:.3g}" in sigmas


# Two uploads with the same N = 2,000, K = 2 and d = 2 whose smallest training classes differ
# (394 and 699 records): the l slider, the sidebar and the line before a release are the same.
SMALL_CLASS, LARGE_CLASS = (533, 2134), (933, 1734)


def _released(at) -> bool:
    """Whether the page shows a release (its headline statement)."""
    return any(m.value.startswith("#### ε") for m in at.markdown)


def _before_release(at) -> list:
    """What the page shows before a release: the l slider's options and help, the sidebar's
    words, and every text, caption, notice and button of the page."""
    slider = at.select_slider(key="samples_l")
    return [list(slider.options), slider.value, _sidebar_words(at),
            *([e.value for e in getattr(at, kind)] for kind in ("markdown", "caption", "info", "warning",
                                                                "error")),
            [b.label for b in at.button]]


def test_two_uploads_differing_in_class_sizes_get_one_l_slider_and_one_page(monkeypatch):
    """The l slider's options are a function of public facts (N and K), never of the smallest
    class: the old slider stopped at the smallest class, so its last option bracketed that
    private size within a factor of two. Two uploads that differ only in their class sizes show
    the same options and the same words before their release at a target ε (at an explicit σ,
    which the page accounts with the sizes and says so, the same slider and sidebar)."""
    from dpcda.dashboard import samples as smp

    monkeypatch.setattr(smp, "is_quick", lambda **_: False)  # nothing drawn before Generate
    at = page()
    for mode in ("target ε", "explicit σ"):
        if at.radio(key="samples_mode").value != mode:
            at.radio(key="samples_mode").set_value(mode)
            run(at)
        seen = []
        for a, b in (SMALL_CLASS, LARGE_CLASS):
            data = _sized_upload(a, b)
            assert load_upload(data, "x.csv").n_train == 2000
            if at.selectbox(key="samples_dataset").value != "upload":
                at.selectbox(key="samples_dataset").set_value("upload")
                run(at)
            at.file_uploader(key="samples_upload").set_value(("mine.csv", data, "text/csv"))
            run(at)
            assert not at.error, [e.value for e in at.error]
            seen.append(_before_release(at))
        # an explicit σ is accounted with the sizes treated as public (the notice says so), so
        # its ε is theirs; the slider and the sidebar read none of them either way
        assert (seen[0] if mode == "target ε" else seen[0][:3]) == (
            seen[1] if mode == "target ε" else seen[1][:3]), (mode, seen)
        assert seen[0][0][-1] == "512" and "N/K = 1,000" in seen[0][2]  # the grid, up to 2,000 // 2
        assert any("Generate" in b for b in seen[0][-1])  # before its release
        assert not any(str(n) in " ".join(map(str, seen[0][2:])) for n in (394, 699, 1606, 1301))


def test_an_l_above_an_uploads_dp_bounds_is_refused_with_the_rule_only():
    """At a target ε an upload's release draws lower bounds on its class sizes from a DP label
    histogram; an l above them is refused from that histogram alone, in words naming l and the
    rule (no bound, no size), the draw is counted in the tally, and nothing the reader chose is
    changed: the same l on an upload with larger classes is released."""
    import hashlib

    from dpcda.dashboard import shown
    from dpcda.dashboard.samples import histogram_refusal_text

    at = page()
    small = _sized_upload(*SMALL_CLASS)
    _upload(at, small, "mine.csv")
    at.select_slider(key="samples_l").set_value(512)
    generate(run(at))
    assert [e.value for e in at.error] == [histogram_refusal_text(512)]
    assert not at.get("download_button") and not details(at) and not _released(at)
    assert at.select_slider(key="samples_l").value == 512 and at.text_input(key="samples_eps").value == "10"
    kinds = [d.kind for d in shown.drawn(("upload", hashlib.sha256(small).hexdigest()))]
    assert kinds == ["release", "label histogram"]  # l = 4's release, then the refused one's histogram
    generate(run(at))  # the same setting again: cached, nothing drawn again
    assert [d.kind for d in shown.drawn(("upload", hashlib.sha256(small).hexdigest()))] == kinds
    _upload(at, _sized_upload(*LARGE_CLASS), "mine.csv")  # the same l on larger classes
    assert not at.error, [e.value for e in at.error]
    assert at.select_slider(key="samples_l").value == 512 and _released(at)


def test_an_l_above_an_uploads_exact_sizes_is_refused_with_the_rule_only():
    """Where the page reads an upload's exact class sizes (an explicit σ; a target ε on data too
    small for a DP label histogram) an l above the smallest class is refused in words naming l
    and the rule only (the library's own message there names the smallest class), before any
    draw; the inputs stay as chosen. The same page on an upload whose classes hold l records
    (same N and K) shows no refusal."""
    from dpcda.dashboard.samples.sizes import l_refusal

    at = page()
    small, large = _sized_upload(53, 147), _sized_upload(93, 107)  # N = 150; smallest 46 and 73
    for mode in ("target ε", "explicit σ"):
        if at.radio(key="samples_mode").value != mode:
            at.radio(key="samples_mode").set_value(mode)
            run(at)
        ds = load_upload(small, "x.csv")
        _upload(at, small, "mine.csv")
        at.select_slider(key="samples_l").set_value(64)
        run(at)
        want = l_refusal(ds, "whole-record", 64, ds.class_counts)
        assert [e.value for e in at.error] == [want] and "l = 64" in want and "46" not in want
        assert not _released(at) and not at.get("download_button")
        assert at.select_slider(key="samples_l").value == 64
        _upload(at, large, "mine.csv")
        assert not at.error, [e.value for e in at.error]
        assert at.select_slider(key="samples_l").value == 64
