"""dpcda.evaluation.fidelity on hand-checkable inputs."""

import numpy as np
import pytest

from dpcda.data.dataset import Segment
from dpcda.evaluation.fidelity import (
    FAR,
    NO_ROWS,
    image_fidelity,
    positive_codes,
    shares,
    tabular_fidelity,
    tv_distance,
    wasserstein1,
)


def test_tv_and_wasserstein_by_hand():
    assert tv_distance([1, 0], [0.5, 0.5]) == pytest.approx(0.5)
    assert tv_distance([0.2, 0.8], [0.2, 0.8]) == 0
    assert wasserstein1([0, 1], [1, 2]) == pytest.approx(1.0)       # a shift by 1
    assert wasserstein1([0], [0, 2]) == pytest.approx(1.0)          # half the mass moves 2
    assert wasserstein1([3, 1, 2], [2, 3, 1]) == 0
    with pytest.raises(ValueError, match="p and q must be 1-D of one length"):
        tv_distance([1], [0.5, 0.5])


def test_codes_and_shares():
    block = np.array([[0, 1, 0], [0.2, -1, 0.1], [0, 0, 0], [-0.3, -0.1, -0.2]])
    assert positive_codes(block).tolist() == [1, 0, -1, -1]   # no positive entry -> left out
    assert shares([0, 1, 1, -1], 3) == pytest.approx([1 / 3, 2 / 3, 0])


def table(cats, nums):
    onehot = np.eye(2)[cats]
    return np.column_stack([np.asarray(nums, float), onehot])


def test_tabular_report_columns_distances_and_warning():
    seg = (Segment("colour", 1, 3, ("red", "blue")),)
    real = table([0, 0, 0, 1], [0, 1, 2, 4])
    synth = table([0, 1, 1, 1], [1, 2, 3, 5])
    rep = tabular_fidelity(real, synth, seg, ("size", "colour=red", "colour=blue"),
                           real_y=[0, 0, 1, 1], synth_y=[0, 0, 1, 1], class_names=("a", "b"))
    by = {c.name: c for c in rep.columns}
    assert [c.name for c in rep.columns] == ["label", "size", "colour"]
    assert by["label"].distance == 0 and by["label"].warning is None
    assert by["colour"].kind == "categorical"
    assert by["colour"].distance == pytest.approx(0.5)     # 3/4 red vs 1/4 red
    assert by["colour"].real == {"red": 0.75, "blue": 0.25}
    assert by["colour"].warning.code == FAR and "colour" in by["colour"].warning.text
    assert by["size"].kind == "numeric"
    assert by["size"].distance == pytest.approx(1.0 / 4)   # shift 1 over a real range of 4
    assert by["size"].warning.code == FAR
    assert [w.code for w in rep.warnings] == [FAR, FAR]
    js = rep.to_dict()
    assert js["columns"][2] == {"name": "colour", "kind": "categorical", "distance": 0.5,
                                "warning": FAR}


def test_tabular_no_warning_when_close_and_bad_shapes():
    seg = (Segment("c", 0, 2, ("x", "y")),)
    real = np.eye(2)[[0, 1] * 10]
    rep = tabular_fidelity(real, real[::-1], seg)
    assert rep.columns[0].distance == 0 and rep.warnings == []
    with pytest.raises(ValueError, match="same number of columns"):
        tabular_fidelity(real, real[:, :1], seg)


def test_image_means_and_distances():
    real = np.array([[1.0, 0], [1.0, 0], [0, 2.0]])
    synth = np.array([[1.0, 0], [0, 1.0], [0, 1.0]])
    rep = image_fidelity(real, [0, 0, 1], synth, [0, 1, 1], ("zero", "one", "two"))
    assert rep.real_means[0].tolist() == [1.0, 0.0]
    assert rep.synthetic_means[1].tolist() == [0.0, 1.0]
    assert rep.distances[0] == 0 and rep.distances[1] == pytest.approx(0.5)   # |1-2| / 2
    assert np.isnan(rep.distances[2])
    assert [w.code for w in rep.warnings] == [NO_ROWS]
    assert rep.to_dict()["classes"][2] == {"name": "two", "distance": None}


def tiny_dataset():
    from dpcda.data.dataset import Dataset

    X = np.array([[0.0, 1, 0], [10.0, 0, 1], [5.0, 1, 0], [2.0, 0, 1]], np.float32)
    y = np.array([0, 1, 0, 1])
    return Dataset(name="tiny", X_train=X, y_train=y, X_test=X, y_test=y, class_names=("n", "p"),
                   segments=(Segment("c", 1, 3, ("u", "v")),), feature_names=("x", "c=u", "c=v"),
                   feature_bounds=(np.array([0, 0, 0], np.float32),
                                   np.array([10, 1, 1], np.float32)))


def test_real_in_release_space_from_the_card():
    from dpcda.evaluation.fidelity import real_in_release_space, release_fidelity
    from dpcda.mechanisms import Release

    ds = tiny_dataset()
    X, how = real_in_release_space(ds, {"normalization": {"method": "scale", "clip_norm": None}})
    assert X[:, 0] == pytest.approx([0.0, 1.0, 0.5, 0.2]) and how == "public fixed ranges"
    X, how = real_in_release_space(ds, {"normalization": {"method": "scale", "clip_norm": 1.0}})
    assert np.linalg.norm(X, axis=1).max() <= 1.0 and "clipped to norm 1" in how
    with pytest.raises(ValueError, match="normalization method must be scale, zscore or none"):
        real_in_release_space(ds, {"normalization": {"method": "magic"}})
    # a release equal to the real split (scale, no clipping) is at distance 0 everywhere
    rel = Release(X=real_in_release_space(ds, {"normalization": {"method": "scale"}})[0],
                  y=ds.y_test, y_soft=np.eye(2)[ds.y_test],
                  card={"normalization": {"method": "scale"}})
    rep = release_fidelity(rel, ds)
    assert [(c.name, c.distance) for c in rep.columns] == [("label", 0), ("x", 0), ("c", 0)]


def test_class_means_match_a_row_by_row_sum_and_refuse_unknown_labels():
    from dpcda.evaluation.fidelity import class_means

    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 7)).astype(np.float32)
    y = rng.integers(0, 4, 500)
    y[y == 2] = 1  # class 2 absent
    want = np.zeros((5, 7))
    np.add.at(want, y, X.astype(np.float64))
    counts = np.bincount(y, minlength=5)
    got = class_means(X, y, 5)
    for k in range(5):
        if counts[k]:
            np.testing.assert_allclose(got[k], want[k] / counts[k], rtol=1e-12, atol=1e-15)
        else:
            assert np.isnan(got[k]).all()
    with pytest.raises(IndexError, match="labels"):
        class_means(X, np.full(500, 5), 5)
