import pytest

from dpcda.util.checks import CheckError
from dpcda.dashboard.inputs import parse_counts, parse_float_text, parse_int_text


def test_integers_are_read_strictly_never_clamped():
    assert parse_int_text("60,000", name="T", lo=1, hi=10**9) == 60000
    assert parse_int_text(" 6e4 ", name="T", lo=1, hi=10**9) == 60000
    with pytest.raises(CheckError) as e:                       # the 1e308 bug: not T = 1
        parse_int_text("1e308", name="T", lo=1, hi=10**9)
    assert e.value.code == "int_range" and e.value.hi == 10**9
    for bad, code in (("4.5", "int_range"), ("inf", "int_range"), ("abc", "not_a_number"),
                      ("nan", "not_a_number"), ("0", "int_range"), ("", "not_a_number")):
        with pytest.raises(CheckError) as e:
            parse_int_text(bad, name="T", lo=1, hi=10**9)
        assert e.value.code == code, bad
    assert parse_int_text("  ", name="T", lo=1, allow_empty=True) is None


def test_floats_are_finite_and_inside_the_interval():
    assert parse_float_text("0.5", name="delta", lo=0, hi=1, lo_open=True, hi_open=True) == 0.5
    with pytest.raises(CheckError) as e:
        parse_float_text("1", name="delta", lo=0, hi=1, lo_open=True, hi_open=True)
    assert e.value.code == "number_range" and e.value.hi_open
    with pytest.raises(CheckError):
        parse_float_text("1e400", name="c", lo=0)              # inf is not a number here


def test_counts_one_integer_is_n_a_list_is_the_class_counts():
    assert parse_counts("1797") == (1797, None)
    assert parse_counts("6000; 6_000, 5000,") == (17000, (6000, 6000, 5000))
    with pytest.raises(CheckError, match="class counts") as e:
        parse_counts("6000, six thousand")
    assert e.value.code == "not_a_number"
    with pytest.raises(CheckError) as e:
        parse_counts("6000, 0")
    assert e.value.code == "int_range"
    with pytest.raises(ValueError, match="empty"):
        parse_counts(" , ")
