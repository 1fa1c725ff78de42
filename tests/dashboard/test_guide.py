import pytest

from dpcda.dashboard.explain import get_note
from dpcda.dashboard.guide import STEPS, get_step, next_step


def test_four_steps_in_order_each_with_a_page_and_a_note():
    assert [s.name for s in STEPS] == ["Choose ε", "See the data", "Measure utility",
                                       "Compare and decide"]
    assert [s.number for s in STEPS] == [1, 2, 3, 4]
    assert [s.title for s in STEPS] == ["Privacy", "Samples", "Utility", "Compare"]
    for s in STEPS:
        assert get_note(s.note).text                      # an existing Explain note
        assert s.sentence().startswith(s.do) and "Look for" in s.sentence()


def test_lookup_and_next():
    assert get_step("pages/utility.py").number == 3
    assert next_step(get_step("pages/privacy.py")).page == "pages/samples.py"
    assert next_step(STEPS[-1]) is None
    with pytest.raises(ValueError, match="page must be one of pages/privacy.py"):
        get_step("pages/nope.py")
