"""The shared input checks: each error names the parameter, the allowed values and the value."""

import math

import pytest

from dpcda.checks import check_delta, check_float, check_int, check_sigma_pair


def test_check_int_strict_and_with_integral_floats():
    assert check_int("l", 4, 1, 10) == 4
    with pytest.raises(ValueError, match=r"l must be an integer in \[1, 10\], got l=4.0"):
        check_int("l", 4.0, 1, 10)
    assert check_int("l", 4.0, 1, 10, integral_floats=True) == 4
    with pytest.raises(ValueError, match="got l=4.5"):
        check_int("l", 4.5, 1, 10, integral_floats=True)
    with pytest.raises(ValueError, match=r"T must be an integer >= 1 \(why\), got T=True"):
        check_int("T", True, 1, why=" (why)")


def test_check_float_names_the_interval():
    assert check_float("c", 2, lo=0.0, lo_open=True) == 2.0
    for bad in (0.0, -1.0, math.nan, math.inf, "x", True):
        with pytest.raises(ValueError, match=r"c must be a finite number in \(0, inf\)"):
            check_float("c", bad, lo=0.0, lo_open=True)


def test_delta_and_sigma_pair():
    assert check_delta(1e-5) == 1e-5
    for bad in (0, 1, 1.5, -1e-5):
        with pytest.raises(ValueError, match=r"delta must be a finite number in \(0, 1\)"):
            check_delta(bad)
    check_sigma_pair(0.0, 0.0)
    check_sigma_pair(0.5, 0.2)
    with pytest.raises(ValueError, match="sigma_y must be > 0 unless sigma_x = sigma_y = 0"):
        check_sigma_pair(0.5, 0.0)
