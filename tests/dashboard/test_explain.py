import pytest

from dpcda.dashboard.explain import MORE_PRIVATE, ends_text, get_note, list_notes


def test_every_privacy_input_has_a_direction():
    for key in ("epsilon", "delta", "l", "sigma_x", "sigma_y", "c", "T"):
        ends = get_note(key).ends
        assert ends is not None and MORE_PRIVATE in ends, key


def test_directions_match_the_mathematics():
    # larger l and larger noise are more private; larger c, T, epsilon and delta less
    assert get_note("l").ends[1] == MORE_PRIVATE
    assert get_note("sigma_x").ends[1] == MORE_PRIVATE
    for key in ("c", "T", "epsilon", "delta"):
        assert get_note(key).ends[0] == MORE_PRIVATE, key


def test_ends_text_and_unknown_key():
    assert ends_text("l").startswith("← less private")
    assert ends_text("dataset") == ""
    with pytest.raises(ValueError, match="key must be one of .*sigma_x"):
        get_note("nope")
    assert "l" in list_notes()
