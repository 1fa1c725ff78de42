"""The data card typed inside (DataCard), JSON at the edges, its schema versioned."""

from __future__ import annotations

import copy

import pytest

from dpcda.mechanisms import Release, generate_dpcda, generate_random_projection, load_npz, save_npz
from dpcda.mechanisms.data_card import READ_VERSIONS, SCHEMA_VERSION, DataCard, card_version
from mech_data import make_blocks


@pytest.fixture(scope="module")
def seeded():
    X, y = make_blocks()  # 0 noise: non-private; a seed: not private either; delta >= 1/N
    return generate_dpcda(X, y, l=2, T=40, sigma_x=0.0, sigma_y=0.0, delta=0.5, seed=7,
                          dataset="blocks")


def test_the_json_carries_the_version_and_each_warning_with_its_code(seeded):
    card = seeded.card
    assert (card["schema_version"], card["format"]) == (SCHEMA_VERSION, f"dpcda-data-card/{SCHEMA_VERSION}")
    p = card["privacy"]
    assert [n["message"] for n in p["notices"]] == p["warnings"]  # the text, as before
    assert [n["code"] for n in p["notices"]] == ["non_private", "delta_not_below_1_over_n",
                                                 "seeded_release"]
    assert p["notices"][2]["severity"] == "danger" and p["private"] is False
    typed = seeded.data_card
    assert isinstance(typed, DataCard) and typed.codes == {"non_private", "delta_not_below_1_over_n",
                                                           "seeded_release"}
    assert typed.private is False and typed.algorithm == "dp-cda" and typed.dataset == "blocks"
    assert typed.to_json() == card  # typed and back: the same JSON, key for key
    assert list(typed.to_json()) == list(card) and list(typed.to_json()["privacy"]) == list(p)


def test_a_version_1_card_is_read_and_others_are_refused(seeded):
    old = copy.deepcopy(seeded.card)
    del old["schema_version"], old["privacy"]["notices"]
    old["format"] = "dpcda-data-card/1"
    assert card_version(old) == 1 and READ_VERSIONS == (1, 2)
    typed = DataCard.from_json(old)
    assert [str(n) for n in typed.notices] == old["privacy"]["warnings"]
    assert typed.codes == {""}  # version 1 stored no codes
    assert typed.to_json()["schema_version"] == 2 and typed.to_json()["privacy"]["warnings"] == \
        old["privacy"]["warnings"]
    for bad, words in (({**old, "schema_version": 3}, "schema_version must be one of 1, 2, got "
                                                       "schema_version=3"),
                       ({**old, "format": "dpcda-data-card/9"}, "got schema_version=9"),
                       ({**old, "format": "something else"}, "got format='something else'")):
        with pytest.raises(ValueError, match=words):
            DataCard.from_json(bad)
    with pytest.raises(ValueError, match="a data card must be a JSON object"):
        DataCard.from_json([])


def test_saved_and_loaded_the_card_keeps_its_notices(tmp_path, seeded):
    save_npz(seeded, tmp_path / "r")
    back = load_npz(tmp_path / "r.npz")
    assert back.card == seeded.card and back.data_card == seeded.data_card
    assert [n.code for n in back.data_card.notices] == [n.code for n in seeded.data_card.notices]


def test_a_release_takes_the_typed_card_and_keeps_its_json():
    X, y = make_blocks()
    rel = generate_random_projection(X, y, p=3, epsilon=5.0, delta=0.1, dataset="blocks")
    assert [n["code"] for n in rel.card["privacy"]["notices"]] == ["delta_not_below_1_over_n"]
    again = Release(X=rel.X, y=rel.y, y_soft=rel.y_soft, card=rel.data_card)
    assert again.card == rel.card
    with pytest.raises(ValueError, match="card must be a DataCard or a dict"):
        Release(X=rel.X, y=rel.y, y_soft=rel.y_soft, card=["not", "a", "card"])
