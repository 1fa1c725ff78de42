"""The one family of input checks: each error names the parameter, the allowed values and the
value; every entry point (privacy parameters, generators, job configs, training) agrees."""

import math

import numpy as np
import pytest

from dpcda.util.checks import (check_choice, check_delta, check_float, check_int, check_sigma_pair,
                          check_sigmas)


def test_check_int_accepts_integral_floats_only():
    assert check_int("l", 4, 1, 10) == 4
    out = check_int("l", 4.0, 1, 10)
    assert out == 4 and type(out) is int
    assert check_int("l", np.int64(3), 1, 10) == 3
    for bad in (4.5, True, "4", None, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"l must be an integer in \[1, 10\], got l="):
            check_int("l", bad, 1, 10)
    with pytest.raises(ValueError, match=r"T must be an integer >= 1 \(why\), got T=True"):
        check_int("T", True, 1, why=" (why)")
    with pytest.raises(ValueError, match=r"^l must be an integer in \[1, 5421\] \(the smallest "
                                         r"class\), got l=0$"):
        check_int("l", 0, 1, 5421, " (the smallest class)")


def test_check_float_names_the_interval():
    assert check_float("c", 2, lo=0.0, lo_open=True) == 2.0
    for bad in (0.0, -1.0, math.nan, math.inf, "x", "2", True):
        with pytest.raises(ValueError, match=r"c must be a finite number > 0, got c="):
            check_float("c", bad, lo=0.0, lo_open=True)
    with pytest.raises(ValueError, match=r"sigma must be a finite number >= 0 \(w\), got"):
        check_float("sigma", -1, lo=0.0, why=" (w)")
    with pytest.raises(ValueError, match=r"q must be a finite number in \[0, 1\), got q=1"):
        check_float("q", 1, lo=0.0, hi=1.0, hi_open=True)


def test_delta_sigmas_and_choice():
    assert check_delta(1e-5) == 1e-5
    for bad in (0, 1, 1.5, -1e-5):
        with pytest.raises(ValueError, match=r"delta must be a finite number in \(0, 1\)"):
            check_delta(bad)
    check_sigma_pair(0.0, 0.0)
    check_sigma_pair(0.5, 0.2)
    with pytest.raises(ValueError, match="sigma_y must be > 0 unless sigma_x = sigma_y = 0"):
        check_sigma_pair(0.5, 0.0)
    assert check_sigmas(1, 0.5) == (1.0, 0.5)
    with pytest.raises(ValueError, match="sigma_x must be a finite number >= 0"):
        check_sigmas(-1, 0.5)
    assert check_choice("m", "a", ("a", "b")) == "a"
    with pytest.raises(ValueError, match="m must be one of a, b, got m='c'"):
        check_choice("m", "c", ("a", "b"))


def test_every_entry_point_agrees_on_l():
    """``l=4.0`` is l=4 everywhere and ``l=4.5`` / ``l=0`` are refused everywhere (they used to
    disagree: the generators refused 4.0, the accountants took it)."""
    from dpcda.experiments.run import normalize
    from dpcda.mechanisms import generate_dpcda
    from dpcda.privacy import PrivacyParams
    from dpcda.training import TrainConfig

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.repeat([0, 1], 20)
    common = dict(sigma_x=0.5, sigma_y=0.5, T=40, delta=1e-5)
    assert PrivacyParams(l=4.0, n=40, **common).l == 4
    rel = generate_dpcda(X, y, l=4.0, T=40, sigma_x=0.5, seed=1, normalize="none")
    assert rel.card["parameters"]["l"] == 4
    assert normalize({"dataset": "digits", "l": 4.0, "epsilon": 10.0, "model": "ncm"})["l"] == 4
    assert TrainConfig(model="ncm", epochs=3.0).epochs == 3
    for bad in (4.5, 0):
        msg = f"l must be an integer .*got l={bad}"
        with pytest.raises(ValueError, match=msg):
            PrivacyParams(l=bad, n=40, **common)
        with pytest.raises(ValueError, match=msg):
            generate_dpcda(X, y, l=bad, T=40, sigma_x=0.5, seed=1, normalize="none")
        with pytest.raises(ValueError, match=msg):
            normalize({"dataset": "digits", "l": bad, "epsilon": 10.0, "model": "ncm"})


def test_shape_text_writes_the_row_axis_as_n():
    """A shape in a message never carries the number of records (a private count)."""
    from dpcda.util.checks import shape_text

    assert shape_text((1347,)) == "(N,)"
    assert shape_text((60000, 28, 28)) == "(N, 28, 28)"
    assert shape_text(np.zeros((5, 3)).shape) == "(N, 3)"
    assert shape_text(()) == "()"
