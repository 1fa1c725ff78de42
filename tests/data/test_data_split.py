"""Uploads are split by row position: one record's label change moves no other record."""

import io

import numpy as np
import pytest
from sklearn.datasets import load_digits

from dpcda.data import load_upload
from dpcda.data.split import positional_split
from dpcda.data.split import test_positions as positions


def _npz(X, y) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, X=X, y=y)
    return buf.getvalue()


def _rows(a: np.ndarray) -> set[bytes]:
    return {r.tobytes() for r in a}


def test_a_label_change_changes_the_training_part_in_one_record_only():
    d = load_digits()
    X = d.data.astype(np.float32)
    y = d.target.copy()
    y2 = y.copy()
    i = int(np.flatnonzero(y == 3)[5])
    y2[i] = 8  # the neighbour: one record's label replaced
    a, b = load_upload(_npz(X, y), "a.npz"), load_upload(_npz(X, y2), "a.npz")
    assert len(a.y_train) == len(b.y_train)
    ta = _rows(np.column_stack([a.X_train, a.y_train]))
    tb = _rows(np.column_stack([b.X_train, b.y_train]))
    # the record is in the same part of both files; elsewhere the parts are identical
    assert len(ta ^ tb) in (0, 2)
    assert len(_rows(np.column_stack([a.X_test, a.y_test])) ^
               _rows(np.column_stack([b.X_test, b.y_test]))) in (0, 2)
    assert len(ta ^ tb) + len(_rows(np.column_stack([a.X_test, a.y_test])) ^
                              _rows(np.column_stack([b.X_test, b.y_test]))) == 2


def test_positions_are_public_and_a_quarter():
    p = positions(1000)
    assert len(p) == 250 and np.array_equal(p, positions(1000))
    assert np.all(np.diff(p) > 0)
    X = np.arange(40, dtype=np.float32).reshape(20, 2)
    for y in (np.arange(20) % 2, np.arange(20) % 4):  # labels never move a row
        _, X_te, _, _ = positional_split(X, y)
        assert np.array_equal(X_te[:, 0] // 2, p_small := positions(20)), p_small


def test_a_class_without_training_rows_is_refused_without_a_count():
    n = 20
    y = np.zeros(n, dtype=np.int64)
    y[positions(n)[:2]] = 1  # class 1 only at test positions
    with pytest.raises(ValueError, match="some class has no row in the training part") as e:
        positional_split(np.zeros((n, 3), np.float32), y, what="upload")
    assert not any(ch.isdigit() for ch in str(e.value).split("split")[-1])
