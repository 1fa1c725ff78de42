"""Uploads: CSV with/without header, NPZ, and every rejected input."""

import io

import numpy as np
import pytest

import dpcda.data.upload as upload
from dpcda.data import load_upload


def _csv(rows, header=None) -> bytes:
    lines = ([",".join(header)] if header else []) + [",".join(str(v) for v in r) for r in rows]
    return ("\n".join(lines) + "\n").encode()


def _rows(n_per_class=8, labels=(3, 7, 9), d=4, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for lab in labels:
        for _ in range(n_per_class):
            rows.append([lab, *rng.integers(0, 256, d).tolist()])
    return rows


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_csv_without_and_with_header_give_the_same_data():
    rows = _rows()
    a = load_upload(_csv(rows), "train.csv")
    b = load_upload(_csv(rows, header=["label", "1x1", "1x2", "1x3", "1x4"]), "train.CSV")
    for ds in (a, b):
        assert ds.class_names == ("3", "7", "9") and ds.n_classes == 3
        assert ds.X_train.shape == (18, 4) and ds.X_test.shape == (6, 4)
        assert ds.class_counts == (6, 6, 6) and np.bincount(ds.y_test).tolist() == [2, 2, 2]
        assert ds.X_train.dtype == np.float32 and ds.y_train.dtype == np.int64
        assert ds.image_shape is None
    assert (a.name, b.name) == ("upload:train.csv", "upload:train.CSV")
    np.testing.assert_array_equal(a.X_train, b.X_train)
    # every row survives the split with its own label
    allrows = {tuple(r) for r in np.column_stack([np.array(a.class_names, int)[a.y_train], a.X_train])}
    allrows |= {tuple(r) for r in np.column_stack([np.array(a.class_names, int)[a.y_test], a.X_test])}
    assert allrows == {tuple(float(v) for v in r) for r in rows}


def test_csv_text_labels_file_object_and_image_shape():
    rows = [["cat" if i % 2 else "dog", i, i + 1, i + 2, i + 3] for i in range(16)]
    ds = load_upload(io.BytesIO(_csv(rows)), "pets.csv", image_shape=(1, 2, 2))
    assert ds.class_names == ("cat", "dog") and ds.image_shape == (1, 2, 2)
    with pytest.raises(ValueError, match="image_shape"):
        load_upload(_csv(rows), "pets.csv", image_shape=(1, 3, 3))


def test_labels_sorted_numerically():
    rows = [[lab, 1.5, 2] for lab in (10, 2, 10, 2, 10, 2, 10, 2)]
    ds = load_upload(_csv(rows), "x.csv")
    assert ds.class_names == ("2", "10")


def test_npz_flat_and_images():
    rng = np.random.default_rng(0)
    X = rng.random((40, 2, 3, 3)).astype(np.float32)
    y = np.repeat([5, 6], 20)
    ds = load_upload(_npz(X=X, y=y), "imgs.npz")
    assert ds.image_shape == (2, 3, 3) and ds.d_x == 18 and ds.class_names == ("5", "6")
    # split by position (dpcda.data.split), not stratified: 30 training rows, 10 test rows
    assert sum(ds.class_counts) == 30 and ds.n_test == 10
    ds2 = load_upload(_npz(X=X.reshape(40, -1), y=y[:, None]), "flat.npz")
    assert ds2.image_shape is None
    np.testing.assert_array_equal(ds.X_train, ds2.X_train)


@pytest.mark.parametrize("data, name, msg", [
    (_csv([[0, 1, 2], [1, "abc", 3], [0, 1, 1], [1, 2, 2]] * 2), "a.csv",
     r"row 2, column 2 is not a finite number"),
    (_csv([[0, 1, 2], [1, 3, "nan"]] * 4), "a.csv", r"row 2, column 3 is not a finite number"),
    (_csv([[0, 1, 2], [1, 3, "inf"]] * 4), "a.csv", "not a finite number"),
    (_csv([[0, 1, 2], [1, 3, ""]] * 4), "a.csv", "row 2, column 3 is empty"),
    (_csv([[0, 1, 2], [0, 3, 4]] * 4), "a.csv", "at least 2 classes, got only one"),
    (_csv([[0, 1, 2]] * 4 + [[1, 3, 4]]), "a.csv", "class number 2 .* has only one"),
    (_csv([[0.5, 1, 2], [1, 3, 4]] * 4), "a.csv", "labels must be integers or text"),
    (_csv([[0], [1]] * 4), "a.csv", "at least one feature column"),
    (_csv([[0, 1, 2], [1, 3, 4]] * 2), "a.csv", "at least 8 rows for the 75/25 train/test split"),
    (b"", "a.csv", "upload is empty"),
    (b"\xff\xfe\x00bad", "a.csv", "UTF-8"),
    (b"0,1\n1,2\n", "a.txt", r"filename must end in one of \.csv, \.npz"),
    (_npz(X=np.zeros((8, 3)), y=np.zeros(7)), "a.npz", "one label per row of X; their lengths differ"),
    (_npz(X=np.zeros((8, 3))), "a.npz", "missing y"),
    (_npz(X=np.where(np.eye(8, 3) > 0, np.nan, 0.0), y=np.arange(8) % 2), "a.npz",
     r"X\[0, 0\] is not a finite number"),
    (_npz(X=np.zeros(8), y=np.arange(8) % 2), "a.npz", "X must be N x d"),
    (_npz(X=np.array([{"a": 1}] * 8, dtype=object), y=np.arange(8) % 2), "a.npz", "pickled"),
    (b"not a zip", "a.npz", "NPZ upload"),
])
def test_bad_uploads(data, name, msg):
    with pytest.raises(ValueError, match=msg):
        load_upload(data, name)


def test_size_limit(monkeypatch):
    monkeypatch.setattr(upload, "MAX_UPLOAD_BYTES", 100)
    data = _csv(_rows(n_per_class=8, labels=(0, 1), d=4))
    assert len(data) > 100
    with pytest.raises(ValueError, match=r"larger than the limit of 0 MB \(100 bytes"):
        load_upload(data, "big.csv")
    with pytest.raises(ValueError, match="larger than"):
        load_upload(io.BytesIO(data), "big.csv")
    monkeypatch.setattr(upload, "MAX_UPLOAD_BYTES", len(data))  # exactly at the limit: accepted
    assert load_upload(io.BytesIO(data), "big.csv").n_train == 12
    monkeypatch.undo()
    assert upload.MAX_UPLOAD_BYTES == 200 * 1024 * 1024


def test_bad_arguments():
    with pytest.raises(ValueError, match="file_or_bytes must be bytes"):
        load_upload(12, "a.csv")
    with pytest.raises(ValueError, match="filename must be a non-empty string"):
        load_upload(b"0,1", "")


def test_csv_header_names_the_features_and_reaches_the_release_csv():
    """A CSV's header names its features (found by a reviewer: they showed as x0, x1, ...);
    without a header there are no names."""
    from dpcda.data.tabular import decode_segments
    from dpcda.mechanisms import generate_from_dataset, to_csv_bytes

    rows = _rows()
    named = load_upload(_csv(rows, header=["label", "age", "hours per week", "h", "w"]), "t.csv")
    assert named.feature_names == ("age", "hours per week", "h", "w")
    assert load_upload(_csv(rows), "t.csv").feature_names is None
    assert list(decode_segments(named.X_test, (), named.feature_names).columns) == list(named.feature_names)
    rel = generate_from_dataset(named, "dp-cda", l=2, T=30, epsilon=10, delta=1e-3)
    header = to_csv_bytes(rel, feature_names=named.feature_names).decode().splitlines()[0]
    assert header == "label,age,hours per week,h,w"
    quoted = to_csv_bytes(rel, feature_names=("a,b", 'say "hi"', "h", "w")).decode().splitlines()[0]
    assert quoted == 'label,"a,b","say ""hi""",h,w'
    assert to_csv_bytes(rel).decode().startswith("label,x0,x1,x2,x3\n")
    with pytest.raises(ValueError, match="feature_names must have 4 entries"):
        to_csv_bytes(rel, feature_names=("a",))


# --- bounded by what the headers declare (issue 18, item 2) ---------------------------------


def _lying_npz(shape=(2**40,), descr="<f8") -> bytes:
    """An NPZ whose X header claims ``shape`` (8 TiB by default) over a few bytes of data."""
    import zipfile

    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": descr, "fortran_order": False,
                                                "shape": shape})
    y = io.BytesIO()
    np.save(y, np.zeros(8, np.int64))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("X.npy", head.getvalue() + b"\0" * 64)
        z.writestr("y.npy", y.getvalue())
    return out.getvalue()


def test_an_npy_header_claiming_8_tib_is_refused_before_allocating():
    with pytest.raises(ValueError, match=r"too large once unpacked.*X \[1099511627776\] float64"
                                         r".*limit 2 GiB"):
        load_upload(_lying_npz(), "huge.npz")


def test_deflated_zeros_are_refused_by_declared_size_not_compressed_size():
    """1.5 MB of compressed zeros declaring 1.5 GiB (400 M values, over the 2**28 limit): refused
    from the headers, in well under the time unpacking takes."""
    import time

    buf = io.BytesIO()
    np.savez_compressed(buf, X=np.zeros((100_000, 4_000), np.float32), y=np.zeros(100_000, np.int64))
    data = buf.getvalue()
    assert len(data) < 3 * 2**20
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"400,100,000 values.*268,435,456 values"):
        load_upload(data, "zeros.npz")
    assert time.perf_counter() - t0 < 1.0


def test_declared_limits_count_every_member_and_refuse_pickles(monkeypatch):
    import dpcda.data.array_limits as limits

    monkeypatch.setattr(limits, "MAX_ARRAY_BYTES", 1000)
    X = np.zeros((20, 5), np.float64)  # 800 bytes
    ok = _npz(X=X, y=np.arange(20) % 2)  # + 160 bytes: 960, within 1000
    assert load_upload(ok, "ok.npz").n_train > 0
    with pytest.raises(ValueError, match="too large once unpacked"):
        load_upload(_npz(X=X, y=np.arange(20) % 2, extra=np.zeros(10)), "extra.npz")
    with pytest.raises(ValueError, match="Python objects"):
        load_upload(_lying_npz(shape=(3,), descr="|O"), "objects.npz")


@pytest.mark.parametrize("rows, where", [
    ([["a", 1, 2], ["b", "SECRET-4711", 3]] * 4, "row 3, column 2 (f1)"),
    ([["a", 1, 2], ["b", 3, "1e999"]] * 4, "row 3, column 3 (f2)"),
    ([["a", 1, 2], ["b", 3, " SECRET "]] * 4, "row 3, column 3 (f2)"),
])
def test_a_bad_cell_is_located_never_quoted(rows, where):
    """The message says where (1-based row of the file, column number and header name), never the
    cell's content: an error message may end up in a screenshot or a report."""
    with pytest.raises(ValueError) as info:
        load_upload(_csv(rows, header=["label", "f1", "f2"]), "private.csv")
    text = str(info.value)
    assert where in text and "SECRET" not in text and "4711" not in text and "1e999" not in text
    assert "inf" not in text.replace("finite", "")


def test_a_bad_label_or_a_small_class_is_located_never_named():
    with pytest.raises(ValueError) as info:
        load_upload(_csv([[0, 1, 2], [1, 3, 4]] * 3 + [[4711.5, 1, 1]] + [[1, 2, 2]]), "a.csv")
    assert "label number 7" in str(info.value) and "4711" not in str(info.value)
    with pytest.raises(ValueError) as info:
        load_upload(_csv([["JaneDoe", 1, 2]] * 4 + [["Rare-Diagnosis-X", 3, 4]]), "a.csv")
    assert "JaneDoe" not in str(info.value) and "Rare-Diagnosis" not in str(info.value)
    with pytest.raises(ValueError) as info:
        load_upload(_csv([["JaneDoe", 1, 2]] * 8), "a.csv")
    assert "JaneDoe" not in str(info.value)
    X = np.zeros((8, 3))
    X[0, 0] = -np.inf
    with pytest.raises(ValueError) as info:
        load_upload(_npz(X=X, y=np.arange(8) % 2), "a.npz")
    assert "X[0, 0]" in str(info.value) and "inf" not in str(info.value).replace("finite", "")


def test_an_uploads_row_count_is_in_no_message_and_not_in_its_source():
    """An upload's row count is the uploader's own (private) fact: ``Dataset.source`` (in
    ``Dataset.summary()``, a card's facts) and the refusals that read it say it without the count;
    files of different sizes give the same words."""
    sources = {load_upload(_csv(_rows(n_per_class=n)), "mine.csv").source for n in (8, 9, 13)}
    assert sources == {"upload mine.csv (split 75/25 by row position)"}
    assert load_upload(_csv(_rows(n_per_class=9)), "mine.csv").summary()["source"] == sources.pop()
    short = {str(pytest.raises(ValueError, load_upload, _csv(_rows(n_per_class=n, labels=(0, 1))),
                               "a.csv").value) for n in (2, 3)}
    mismatch = {str(pytest.raises(ValueError, load_upload, _npz(X=np.zeros((n, 3)), y=np.arange(m) % 2),
                                  "a.npz").value) for n, m in ((8, 7), (9, 7), (20, 12))}
    flat = {str(pytest.raises(ValueError, load_upload, _npz(X=np.zeros(n), y=np.arange(n) % 2),
                              "a.npz").value) for n in (8, 11)}
    for msgs in (short, mismatch, flat):
        assert len(msgs) == 1
    assert "(N,)" in flat.pop()
    assert not any(ch.isdigit() for ch in mismatch.pop())
    assert not any(ch.isdigit() for ch in short.pop().replace("8 rows", "").replace("75/25", ""))
