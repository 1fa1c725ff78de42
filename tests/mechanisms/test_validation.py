"""The generators' array checks (dpcda/mechanisms/validation.py): refusals are worded from public
inputs only, never from the data's own counts (class sizes, row counts)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.mechanisms import generate_dpcda
from dpcda.mechanisms.validation import check_l_classwise, check_labels


def _message(fn, *args, **kw) -> str:
    with pytest.raises(ValueError) as err:
        fn(*args, **kw)
    return str(err.value)


def test_l_above_a_class_names_l_and_no_class_size_nor_which_class():
    """Neighbouring class sizes (one record more or less in the short class, or another class
    short) give one message: it names l, and no count, no smallest size, no class."""
    msgs = {_message(check_l_classwise, 7, counts) for counts in
            ((40, 3, 52), (40, 4, 52), (41, 3, 52), (5, 40, 52), (40, 6, 6))}
    assert len(msgs) == 1
    (msg,) = msgs
    assert "l=7" in msg and "smallest class" in msg
    assert not any(ch.isdigit() for ch in msg.replace("l=7", "").replace("from 1 to", ""))
    assert "class 1" not in msg and "class 0" not in msg


def test_l_within_every_class_passes_and_bad_l_names_the_parameter():
    assert check_l_classwise(3, (3, 4, 10)) == 3
    assert check_l_classwise(np.int64(1), np.array([1, 1])) == 1
    with pytest.raises(ValueError, match=r"l must be an integer.*got l=0"):
        check_l_classwise(0, (5, 5))


def test_the_generator_refusal_names_no_class_name_either():
    """Through generate_dpcda (a relation that reads the class sizes): the short class's name is
    not in the message (which class is short is a fact of the private counts)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(26, 3))
    y = np.array([0] * 12 + [1] * 12 + [2] * 2)
    msg = _message(generate_dpcda, X, y, l=3, T=30, sigma_x=0.5, accountant="class-aware-pld",
                   class_names=["ant", "bee", "cat"])
    assert "l=3" in msg
    assert not any(n in msg for n in ("ant", "bee", "cat", "12", "2 points", "only"))


def test_x_and_y_of_different_lengths_print_no_row_count():
    """X's rows and y's labels are the data's own counts: the mismatch is said without them."""
    msgs = {_message(check_labels, np.zeros(n_y, dtype=int), n_x) for n_x, n_y in
            ((1234, 1233), (1235, 1233), (987, 654))}
    assert len(msgs) == 1
    (msg,) = msgs
    assert "same length" in msg and not any(ch.isdigit() for ch in msg)
