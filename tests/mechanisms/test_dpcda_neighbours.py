"""Issue 26, items 1 and 2: under ``whole-record`` with public class bounds, two datasets that
differ in one record's label are told apart only by the noise: the card (all of it but its
creation time) is byte-identical, a class one record below its bound is released, and no error
is worded from a private class size."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpcda.mechanisms import generate_dpcda


@pytest.fixture(scope="module")
def digits():
    from dpcda.data import load_dataset

    ds = load_dataset("digits")
    return ds.X_train, ds.y_train, np.bincount(ds.y_train)


def _neighbour(y, sizes):
    """y with one record of the smallest class moved to the next class."""
    k = int(np.argmin(sizes))
    y2 = y.copy()
    y2[int(np.flatnonzero(y == k)[0])] = (k + 1) % len(sizes)
    return y2


def _card(X, y, **kw) -> str:
    card = dict(generate_dpcda(X, y, T=200, epsilon=10.0, **kw).card)
    card.pop("created_at")
    return json.dumps(card, sort_keys=True)


@pytest.mark.parametrize("below", [5, 0])
def test_label_changing_neighbours_publish_the_same_card(digits, below):
    """Bounds = sizes - 5 (both meet them) and bounds = sizes (the neighbour is one record below
    its bound): byte-identical cards, the compared accountants included, no class sizes."""
    X, y, sizes = digits
    bounds = (sizes - below).tolist()
    a, b = _card(X, y, l=4, class_bounds=bounds), _card(X, _neighbour(y, sizes), l=4,
                                                        class_bounds=bounds)
    assert a == b
    card = json.loads(a)
    assert card["privacy"]["other_accountants"]["class-aware"]["epsilon"] is not None
    assert card["data"]["class_counts"] is None and card["data"]["class_bounds"] == bounds
    assert card["parameters"]["allocation"] == "proportional"


def test_the_largest_l_the_bounds_allow_is_released_on_both_neighbours(digits):
    """l = min n_k - 1 with bounds = sizes: the neighbour that moved a record out of the
    smallest class holds exactly l records of it, and the mechanism still runs on it."""
    X, y, sizes = digits
    l = int(sizes.min()) - 1
    bounds = sizes.tolist()
    assert _card(X, y, l=l, class_bounds=bounds) == _card(X, _neighbour(y, sizes), l=l,
                                                          class_bounds=bounds)


def test_errors_are_worded_from_the_public_bounds_never_from_a_class_size(digits):
    X, y, sizes = digits
    bounds = sizes.tolist()
    top = int(sizes.min()) - 1
    with pytest.raises(ValueError, match=f"l must be an integer from 1 to {top} under the "
                                         "whole-record relation") as exc:
        generate_dpcda(X, _neighbour(y, sizes), l=top + 1, T=200, epsilon=10.0,
                       class_bounds=bounds)
    # data two records below a bound (outside the guarantee): a defensive error naming no size
    k = int(np.argmin(sizes))
    y3 = y.copy()
    y3[np.flatnonzero(y == k)[:2]] = (k + 1) % len(sizes)
    with pytest.raises(ValueError, match="class_bounds must be lower bounds") as exc:
        generate_dpcda(X, y3, l=top, T=200, epsilon=10.0, class_bounds=bounds)
    msg = str(exc.value)
    assert not any(ch.isdigit() for ch in msg), msg
