import pytest

from dpcda.dashboard.explain import MORE_PRIVATE, ends_text, get_note, list_notes


def test_every_privacy_input_has_a_direction():
    for key in ("epsilon", "delta", "l", "sigma_x", "c", "T"):
        ends = get_note(key).ends
        assert ends is not None and MORE_PRIVATE in ends, key


def test_label_noise_claims_no_privacy_direction_as_the_valid_accountants_agree():
    """σ_y does not move ε under the valid accountants (a label is its class); its note says
    so and its slider claims no direction."""
    from dpcda.privacy import PrivacyParams, compute_epsilon

    assert get_note("sigma_y").ends is None and "ε does not move" in get_note("sigma_y").text
    eps = {sy: compute_epsilon(PrivacyParams(l=4, sigma_x=0.5, sigma_y=sy, T=600, n=600,
                                             class_counts=(200, 200, 200), delta=1e-5),
                               accountant="whole-record").epsilon for sy in (0.05, 0.5, 5.0)}
    assert len(set(eps.values())) == 1


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
