"""Loaders on tiny IDX / CSV files the tests write, on the real files in DPCDA_DATA_DIR where it
holds them (skipped otherwise), generated CIFAR batches, and the missing-file error."""

import gzip
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpcda.data import (Dataset, DatasetUnavailable, decode_segments, list_datasets, load_dataset,
                        reencode_segments)
from dpcda.data.cifar import load_cifar_folder
from dpcda.data.idx import parse_idx, read_idx
from dpcda.data.presets import get_preset
from tiny_data import (ADULT_D_X, ADULT_N_ONEHOT, ADULT_TEST_COUNTS, ADULT_TRAIN_COUNTS,
                       IDX_TEST_COUNTS, IDX_TRAIN_COUNTS, write_tiny_adult, write_tiny_idx)


@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """No data dir, an empty cache, no downloads."""
    monkeypatch.delenv("DPCDA_DATA_DIR", raising=False)
    monkeypatch.setenv("DPCDA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DPCDA_OFFLINE", "1")
    return tmp_path


def test_registry_lists_the_datasets():
    assert list_datasets() == ["mnist", "fashion-mnist", "cifar10", "digits", "adult"]
    with pytest.raises(ValueError, match="unknown dataset 'svhn'; known: mnist, fashion-mnist"):
        load_dataset("svhn")


@pytest.mark.parametrize("gz", [True, False])
@pytest.mark.parametrize("name", ["mnist", "fashion-mnist"])
def test_idx_loader_on_tiny_files(name, gz, tmp_path):
    write_tiny_idx(tmp_path / name, gz=gz)
    ds = load_dataset(name, data_dir=tmp_path)
    n = sum(IDX_TRAIN_COUNTS)
    assert ds.X_train.shape == (n, 784) and ds.X_test.shape == (sum(IDX_TEST_COUNTS), 784)
    assert ds.X_train.dtype == np.float32 and ds.y_train.dtype == np.int64
    assert ds.image_shape == (1, 28, 28) and ds.segments == () and ds.n_classes == 10
    assert ds.X_train.min() == 0 and ds.X_train.max() == 255
    assert ds.class_counts == IDX_TRAIN_COUNTS
    assert np.bincount(ds.y_test, minlength=10).tolist() == list(IDX_TEST_COUNTS)
    assert ds.class_names[1] == {"mnist": "1", "fashion-mnist": "Trouser"}[name]
    assert str(tmp_path / name) in ds.source
    assert not ds.X_train.flags.writeable  # cached arrays are protected
    assert load_dataset(name, data_dir=tmp_path) is ds  # parsed once per process


@pytest.mark.parametrize("name", ["mnist", "fashion-mnist"])
def test_idx_datasets_match_presets(name, real_data):
    data_dir = real_data(name)
    ds = load_dataset(name, data_dir=data_dir)
    assert ds.X_train.shape == (60000, 784) and ds.X_test.shape == (10000, 784)
    assert ds.X_train.dtype == np.float32 and ds.y_train.dtype == np.int64
    assert ds.image_shape == (1, 28, 28) and ds.segments == ()
    assert ds.X_train.min() == 0 and ds.X_train.max() == 255
    assert ds.class_counts == get_preset(name).class_counts
    assert ds.d_x == get_preset(name).d_x and ds.n_classes == 10
    test_counts = {"mnist": [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009],
                   "fashion-mnist": [1000] * 10}[name]  # the public test-split counts
    assert np.bincount(ds.y_test, minlength=10).tolist() == test_counts
    assert str(data_dir) in ds.source
    assert not ds.X_train.flags.writeable  # cached arrays are protected
    assert load_dataset(name, data_dir=data_dir) is ds  # parsed once per process


def test_loading_does_not_import_torch(tiny_data_dir):
    code = ("import sys, dpcda.data as D; D.load_dataset('mnist'); D.load_dataset('adult'); "
            "D.load_dataset('digits'); assert 'torch' not in sys.modules, 'torch imported'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "DPCDA_DATA_DIR": str(tiny_data_dir), "DPCDA_OFFLINE": "1"},
                       timeout=60)
    assert r.returncode == 0, r.stderr


def test_env_var_and_torchvision_layout(isolated, tiny_data_dir, monkeypatch):
    raw = isolated / "root" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for f in (tiny_data_dir / "mnist").iterdir():
        (raw / f.name).symlink_to(f)
    monkeypatch.setenv("DPCDA_DATA_DIR", str(isolated / "root"))
    ds = load_dataset("mnist")
    assert str(raw) in ds.source and ds.class_counts == IDX_TRAIN_COUNTS


def test_idx_uncompressed_and_corrupt(tmp_path):
    imgs = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    blob = bytes([0, 0, 8, 3]) + np.array([2, 3, 4], ">u4").tobytes() + imgs.tobytes()
    (tmp_path / "a").write_bytes(blob)
    (tmp_path / "b.gz").write_bytes(gzip.compress(blob))
    np.testing.assert_array_equal(read_idx(tmp_path / "a"), imgs)
    np.testing.assert_array_equal(read_idx(tmp_path / "b.gz"), imgs)
    with pytest.raises(ValueError, match="IDX header says shape"):
        parse_idx(blob[:-1])
    with pytest.raises(ValueError, match="not an IDX file"):
        parse_idx(b"\x01\x02\x03\x04")


def test_missing_dataset_names_folder_and_env_var(isolated):
    with pytest.raises(DatasetUnavailable) as e:
        load_dataset("mnist")
    msg = str(e.value)
    assert isinstance(e.value, ValueError)
    assert "train-images-idx3-ubyte.gz" in msg and "t10k-labels-idx1-ubyte.gz" in msg
    assert "/mnist/" in msg and "DPCDA_DATA_DIR" in msg and "DPCDA_OFFLINE=1" in msg
    assert str(isolated / "cache" / "MNIST" / "raw") in msg


def test_missing_dataset_download_failure_is_reported(isolated, monkeypatch):
    import dpcda.data.locate as locate

    monkeypatch.delenv("DPCDA_OFFLINE")
    monkeypatch.setattr(locate, "host_reachable", lambda url, timeout=3.0: True)

    def boom(root):
        raise OSError("network is unreachable")

    monkeypatch.setattr("dpcda.data.adult._fetch", boom)
    with pytest.raises(DatasetUnavailable, match="(?i)adult.data, adult.test.*download failed: "
                                                 "OSError: network is unreachable"):
        load_dataset("adult")
    monkeypatch.setattr(locate, "host_reachable", lambda url, timeout=3.0: False)
    with pytest.raises(DatasetUnavailable, match="not reachable"):
        load_dataset("adult")


def test_bad_data_dir():
    with pytest.raises(ValueError, match="data_dir must be an existing folder"):
        load_dataset("mnist", data_dir="/nonexistent/folder")
    with pytest.raises(ValueError, match="data_dir must be a folder path"):
        load_dataset("mnist", data_dir=3)


def _write_batch(path: Path, X: np.ndarray, y: list[int]) -> None:
    with open(path, "wb") as f:
        pickle.dump({b"batch_label": b"x", b"data": X, b"labels": y}, f, protocol=2)


def test_cifar_batches(isolated, monkeypatch):
    folder = isolated / "ds" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    Xs, ys = [], []
    for i in range(1, 6):
        X = rng.integers(0, 256, size=(4, 3072), dtype=np.uint8)
        y = [(i + j) % 10 for j in range(4)]
        _write_batch(folder / f"data_batch_{i}", X, y)
        Xs.append(X)
        ys += y
    X_test = rng.integers(0, 256, size=(3, 3072), dtype=np.uint8)
    _write_batch(folder / "test_batch", X_test, [0, 1, 2])
    monkeypatch.setenv("DPCDA_DATA_DIR", str(isolated / "ds"))
    ds = load_dataset("cifar10")
    assert ds.image_shape == (3, 32, 32) and ds.X_train.shape == (20, 3072)
    assert ds.X_train.dtype == np.float32 and ds.y_train.tolist() == ys
    np.testing.assert_array_equal(ds.X_train, np.concatenate(Xs).astype(np.float32))
    np.testing.assert_array_equal(ds.X_test, X_test)
    assert ds.class_names[0] == "airplane" and ds.n_classes == 10
    # channel-major layout: the first 1024 values are the red plane
    img = ds.X_train[0].reshape(ds.image_shape)
    np.testing.assert_array_equal(img[1].ravel(), Xs[0][0, 1024:2048])


def test_cifar_refuses_code_in_pickles(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    for n in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        with open(folder / n, "wb") as f:
            pickle.dump({b"data": Evil(), b"labels": [0]}, f)
    with pytest.raises(ValueError, match="not a CIFAR-10 python batch.*refusing to load"):
        load_cifar_folder(folder)


def test_digits_split_matches_preset():
    ds = load_dataset("digits")
    p = get_preset("digits")
    assert ds.class_counts == p.class_counts and ds.d_x == p.d_x == 64
    assert (ds.n_train, ds.n_test) == (1347, 450) and ds.image_shape == (1, 8, 8)
    assert ds.X_train.max() == 16


@pytest.fixture(scope="module", params=["tiny", "real"])
def adult_dir(request, tmp_path_factory, real_data):
    """A folder holding adult/: tiny CSVs written here, then the real files (or a skip)."""
    if request.param == "real":
        return real_data("adult")
    root = tmp_path_factory.mktemp("adult-tiny")
    write_tiny_adult(root / "adult")
    return root


@pytest.fixture(scope="module")
def adult(adult_dir):
    return load_dataset("adult", data_dir=adult_dir)


def test_tiny_adult_is_parsed(tmp_path):
    write_tiny_adult(tmp_path / "adult", cross_validator_line=True)
    ds = load_dataset("adult", data_dir=tmp_path)
    assert ds.X_train.shape == (sum(ADULT_TRAIN_COUNTS), ADULT_D_X) and ds.d_x == ADULT_D_X
    assert ds.class_counts == ADULT_TRAIN_COUNTS
    assert np.bincount(ds.y_test).tolist() == list(ADULT_TEST_COUNTS)  # trailing "." handled
    assert sum(s.size for s in ds.segments) == ADULT_N_ONEHOT and len(ds.segments) == 8
    assert "?" in ds.segments[0].categories  # unknown kept as its own category
    onehot = [c for s in ds.segments for c in range(s.start, s.stop)]
    assert (ds.X_train[:, onehot].sum(axis=1) == 8).all()
    assert ds.feature_names[:3] == ("age", "workclass=?", "workclass=Private")


def test_adult_matches_preset(real_data):
    adult = load_dataset("adult", data_dir=real_data("adult"))
    p = get_preset("adult")
    assert adult.X_train.shape == (32561, p.d_x) == (32561, 108)
    assert adult.X_test.shape == (16281, 108)
    assert adult.class_counts == p.class_counts == (24720, 7841)
    assert np.bincount(adult.y_test).tolist() == [12435, 3846]  # trailing "." handled
    assert adult.image_shape is None and adult.class_names == ("<=50K", ">50K")
    assert [s.name for s in adult.segments] == ["workclass", "education", "marital-status",
                                                "occupation", "relationship", "race", "sex",
                                                "native-country"]
    assert sum(s.size for s in adult.segments) == 102
    wc = adult.segments[0]
    assert "?" in wc.categories and wc.span == (1, 10)
    for X in (adult.X_train, adult.X_test):
        for s in adult.segments:
            assert (X[:, s.start:s.stop].sum(axis=1) <= 1).all()
    # every training row has exactly one category per segment; the first row decodes correctly
    assert (adult.X_train[:, [c for s in adult.segments for c in range(s.start, s.stop)]]
            .sum(axis=1) == 8).all()
    row = decode_segments(adult.X_train[:1], adult.segments, adult.feature_names).iloc[0]
    assert (row["age"], row["workclass"], row["education"], row["sex"]) == \
        (39, "State-gov", "Bachelors", "Male")


def test_adult_with_cross_validator_line(adult, adult_dir, tmp_path):
    folder = tmp_path / "adult"
    folder.mkdir()
    (folder / "adult.data").write_bytes((adult_dir / "adult" / "adult.data").read_bytes())
    test = (adult_dir / "adult" / "adult.test").read_bytes()
    assert not test.startswith(b"|")
    (folder / "adult.test").write_bytes(b"|1x3 Cross validator\n" + test)
    ds = load_dataset("adult", data_dir=tmp_path)
    np.testing.assert_array_equal(ds.X_test, adult.X_test)
    np.testing.assert_array_equal(ds.y_test, adult.y_test)


def test_adult_unseen_test_category_is_all_zero(tmp_path):
    folder = tmp_path / "adult"
    folder.mkdir()
    rows = ["39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White,"
            " Male, 2174, 0, 40, United-States, <=50K",
            "50, Private, 83311, HS-grad, 9, Married-civ-spouse, Exec-managerial, Husband, White,"
            " Female, 0, 0, 13, ?, >50K"]
    (folder / "adult.data").write_text("\n".join(rows) + "\n\n")
    (folder / "adult.test").write_text(
        "|1x3 Cross validator\n" + rows[0].replace("State-gov", "Martian") + ".\n")
    ds = load_dataset("adult", data_dir=tmp_path)
    wc = ds.segments[0]
    assert wc.categories == ("Private", "State-gov")
    assert ds.X_test[0, wc.start:wc.stop].tolist() == [0, 0]
    assert ds.y_train.tolist() == [0, 1] and ds.y_test.tolist() == [0]
    assert decode_segments(ds.X_test, ds.segments, ds.feature_names)["workclass"][0] is None
    (folder / "adult.test").write_text(rows[0].replace("<=50K", "maybe") + "\n")
    with pytest.raises(ValueError, match="row 1: income must be one of"):
        load_dataset("adult", data_dir=tmp_path)


def test_decode_reencode_roundtrip_on_mixed_rows(adult):
    rng = np.random.default_rng(1)
    idx = rng.choice(adult.n_train, size=(500, 4))
    mixed = adult.X_train[idx].mean(axis=1) + rng.normal(0, 0.05, (500, adult.d_x)).astype(np.float32)
    snapped = reencode_segments(mixed, adult.segments)
    segcols = np.zeros(adult.d_x, bool)
    for s in adult.segments:
        block = snapped[:, s.start:s.stop]
        assert ((block == 0) | (block == 1)).all() and (block.sum(axis=1) == 1).all()
        np.testing.assert_array_equal(block.argmax(1), mixed[:, s.start:s.stop].argmax(1))
        segcols[s.start:s.stop] = True
    np.testing.assert_array_equal(snapped[:, ~segcols], mixed[:, ~segcols])
    table = decode_segments(snapped, adult.segments, adult.feature_names)
    assert list(table.columns[:3]) == ["age", "workclass", "fnlwgt"] and table.shape == (500, 14)
    assert set(table["sex"]) <= {"Male", "Female"}
    np.testing.assert_array_equal(reencode_segments(snapped, adult.segments), snapped)
    original = decode_segments(adult.X_train[:50], adult.segments, adult.feature_names)
    again = decode_segments(reencode_segments(adult.X_train[:50], adult.segments), adult.segments,
                            adult.feature_names)
    assert original.equals(again)


def test_dataset_validation():
    X = np.zeros((4, 3), np.float32)
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="y_train must lie in 0..1"):
        Dataset("t", X, y + 1, X, y, ("a", "b"))
    with pytest.raises(ValueError, match="image_shape"):
        Dataset("t", X, y, X, y, ("a", "b"), image_shape=(1, 2, 2))
    # the row counts are the data's own: the mismatch is said without them
    with pytest.raises(ValueError, match="y_test must be 1-D with one label per row of X_test; "
                                         "their lengths differ") as info:
        Dataset("t", X, y, X, y[:3], ("a", "b"))
    assert not any(ch.isdigit() for ch in str(info.value).replace("1-D", ""))
    with pytest.raises(ValueError, match=r"X_train must be 2-D \(N x d\), got shape \(N,\)$"):
        Dataset("t", X[:, 0], y, X, y, ("a", "b"))
    ds = Dataset("t", X.astype(np.float64), y, X, y, ("a", "b"))
    assert ds.X_train.dtype == np.float32 and ds.class_counts == (2, 2)


def test_download_fallback_lands_in_cache(isolated, tiny_data_dir, monkeypatch):
    """Online case, simulated: the fetcher writes torchvision's layout into the cache."""
    import dpcda.data.idx as idx
    import dpcda.data.locate as locate

    monkeypatch.delenv("DPCDA_OFFLINE")
    monkeypatch.setattr(locate, "host_reachable", lambda url, timeout=3.0: True)

    def fake_fetch(tv_class):
        def fetch(root):
            raw = root / tv_class / "raw"
            raw.mkdir(parents=True)
            for f in (tiny_data_dir / "fashion-mnist").iterdir():
                (raw / f.name).symlink_to(f)
        return fetch

    monkeypatch.setattr(idx, "_fetch", fake_fetch)
    monkeypatch.setitem(idx.SYSTEM_DIRS, "fashion-mnist", ())  # ignore a Debian install
    ds = load_dataset("fashion-mnist")
    assert ds.source.startswith("downloaded by torchvision into ")
    assert str(isolated / "cache" / "FashionMNIST" / "raw") in ds.source
    assert ds.class_counts == IDX_TRAIN_COUNTS


def test_a_gzip_idx_file_is_unpacked_only_up_to_the_limit(tmp_path, monkeypatch):
    """A small .gz that inflates past the array limit is refused without unpacking it all
    (issue 18, item 2: every file the CLI loads is bounded)."""
    import dpcda.data.array_limits as limits
    from dpcda.data.idx import read_idx

    monkeypatch.setattr(limits, "MAX_ARRAY_BYTES", 1 << 20)
    header = bytes([0, 0, 8, 1]) + (4 << 20).to_bytes(4, "big")  # 4 MiB of uint8, ndim 1
    path = tmp_path / "bomb-idx1-ubyte.gz"
    path.write_bytes(gzip.compress(header + bytes(4 << 20)))
    assert path.stat().st_size < 64 << 10
    with pytest.raises(ValueError, match=r"unpacks to more than 0.00097\d* GiB"):
        read_idx(path)
    small = tmp_path / "ok-idx1-ubyte.gz"
    small.write_bytes(gzip.compress(bytes([0, 0, 8, 1]) + (3).to_bytes(4, "big") + b"\x01\x02\x03"))
    assert read_idx(small).tolist() == [1, 2, 3]
