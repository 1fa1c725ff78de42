"""available_datasets() / dataset_availability() / how_to_get(): what is here, what to do otherwise."""

import pytest

import dpcda.data.idx as idx
import dpcda.data.locate as locate
from dpcda.data import (DATASETS, available_datasets, dataset_availability, how_to_get,
                        list_datasets)
from dpcda.data.registry import register_dataset
from tiny_data import write_tiny_idx


@pytest.fixture
def nothing_here(monkeypatch, tmp_path):
    """An empty DPCDA_DATA_DIR and cache; any download attempt fails the test."""
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tmp_path / "datasets"))
    monkeypatch.setenv("DPCDA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DPCDA_OFFLINE", raising=False)
    (tmp_path / "datasets").mkdir()

    def no_network(*a, **k):
        raise AssertionError("availability must never probe or download")

    monkeypatch.setattr(locate, "host_reachable", no_network)
    monkeypatch.setattr(locate, "try_download", no_network)
    monkeypatch.setitem(idx.SYSTEM_DIRS, "fashion-mnist", ())  # ignore a Debian dataset package
    return tmp_path


def test_only_bundled_digits_without_files(nothing_here):
    rows = available_datasets()
    assert [r.name for r in rows] == ["digits", "mnist", "fashion-mnist", "cifar10", "adult"]
    assert [r.present for r in rows] == [True, False, False, False, False]
    assert rows[0].where == "bundled" and all(r.where == "" for r in rows[1:])
    assert {r.name: r.kind for r in rows}["adult"] == "tabular"


def test_present_first_in_registration_order(nothing_here, tiny_data_dir):
    rows = available_datasets(data_dir=tiny_data_dir)
    assert [(r.name, r.present) for r in rows] == [
        ("mnist", True), ("fashion-mnist", True), ("digits", True), ("adult", True),
        ("cifar10", False)]
    assert rows[0].where == str(tiny_data_dir / "mnist")
    assert sorted(r.name for r in rows) == sorted(list_datasets())


def test_env_var_torchvision_layout_and_incomplete_folders(nothing_here, monkeypatch):
    root = nothing_here / "datasets"
    write_tiny_idx(root / "MNIST" / "raw")  # torchvision's layout under $DPCDA_DATA_DIR
    write_tiny_idx(root / "fashion-mnist")
    (root / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz").unlink()  # 3 of 4 files: not present
    (root / "adult").mkdir()
    (root / "adult" / "adult.data").write_text("x\n")  # adult.test missing
    got = {r.name: r for r in available_datasets()}
    assert got["mnist"].present and got["mnist"].where == str(root / "MNIST" / "raw")
    assert not got["fashion-mnist"].present and not got["adult"].present
    cifar = root / "cifar-10-batches-py"
    cifar.mkdir()
    for f in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        (cifar / f).write_bytes(b"")  # presence only: nothing is parsed
    assert dataset_availability("cifar10").present


def test_bad_arguments(nothing_here):
    with pytest.raises(ValueError, match="unknown dataset 'svhn'; known: mnist"):
        dataset_availability("svhn")
    with pytest.raises(ValueError, match="data_dir must be an existing folder"):
        available_datasets(data_dir=nothing_here / "nope")
    with pytest.raises(ValueError, match="unknown dataset"):
        how_to_get("svhn")


def test_how_to_get_names_the_layout_not_this_machine(nothing_here):
    for name in list_datasets():
        text = how_to_get(name)
        assert str(nothing_here) not in text and "/root" not in text and "/home" not in text
        if DATASETS.get(name).offline:
            assert "nothing to get" in text
            continue
        assert f"`{DATASETS.get(name).folder}/`" in text and "DPCDA_DATA_DIR" in text
        assert all(f"`{f}`" in text for f in DATASETS.get(name).files)
    mnist = how_to_get("mnist")
    assert "`train-images-idx3-ubyte.gz`" in mnist and "`MNIST/raw/`" in mnist
    assert "online" in mnist and "torchvision" in mnist and "DPCDA_OFFLINE=1" in mnist
    assert "UCI" in how_to_get("adult")


def test_a_file_dataset_must_say_how_to_find_its_files():
    with pytest.raises(ValueError, match="needs find="):
        register_dataset("tmp-files", title="T", kind="image")
    assert "tmp-files" not in DATASETS
