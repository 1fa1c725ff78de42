import math

import pytest

from dpcda.dashboard.explorer import (DELTA_VALUES, L_VALUES, POWERS_OF_TWO, SIGMA_GRID, SIGMA_VALUES,
                            DatasetChoice, calibration_rows, curve_note, epsilon_table, figure4_grid,
                            paper_vs_class_aware, published_vs_valid)
from dpcda.privacy import list_accountants

COUNTS = (180, 180, 170)
SETTING = dict(n=sum(COUNTS), class_counts=COUNTS, d_x=64, d_y=3, c=1.0, T=530, delta=1e-5,
               conversion="mironov", max_alpha=64)


def test_grids():
    assert set(POWERS_OF_TWO) <= set(L_VALUES) and list(L_VALUES) == sorted(set(L_VALUES))
    assert SIGMA_VALUES[0] == 0.0 and SIGMA_GRID[0] == pytest.approx(0.01)
    assert 1e-5 in DELTA_VALUES and DELTA_VALUES[-1] == 1e-2


def test_dataset_choice_describes_its_public_facts():
    ds = DatasetChoice("x", 530, COUNTS, 64, 3)
    assert ds.smallest_class == 170
    assert ds.describe() == "N = 530, K = 3 classes, smallest 170, d_x = 64, d_y = 3"
    assert DatasetChoice("y", 10, None, None, None).smallest_class is None


def test_published_vs_valid_rule():
    assert published_vs_valid(1.0, 3.0).verdict == "published_below"
    assert published_vs_valid(1.0, 3.0).ratio == pytest.approx(3.0)
    assert published_vs_valid(2.0, 1.0).verdict == "published_above"
    assert published_vs_valid(1.0, 1.04).verdict == "agree"
    assert published_vs_valid(None, 1.0).verdict == "missing"
    assert published_vs_valid(1.0, math.inf).verdict == "missing"
    assert "3.00" in paper_vs_class_aware(1.0, 3.0)
    assert "needs the class counts" in paper_vs_class_aware(1.0, None)


def test_epsilon_table_one_row_per_accountant_and_reasons_for_gaps():
    rows = epsilon_table(4, 1.0, 1.0, **SETTING)
    assert [r["accountant"] for r in rows] == list_accountants()
    ok = {r["accountant"]: r["epsilon"] for r in rows if r["epsilon"] is not None}
    assert "paper" in ok and "class-aware" in ok and all(e > 0 for e in ok.values())
    # l above the smallest class: nothing computes, each row says why
    bad = epsilon_table(171, 1.0, 1.0, **SETTING)
    ca = next(r for r in bad if r["accountant"] == "class-aware")
    assert ca["epsilon"] is None and ca["notes"].startswith("not available")


def test_figure4_grid_keeps_valid_l_and_names_the_invalid_one():
    sig = SIGMA_GRID[40::20]
    grid = figure4_grid((1, 4, 256), sig, accountant="class-aware", ratio=1.0, **SETTING)
    assert isinstance(grid[256], str) and "l" in grid[256]
    assert len(grid[4]) == len(sig)
    assert all(a > b for a, b in zip(grid[4], grid[4][1:]))      # more noise, smaller epsilon
    assert grid[4][0] < grid[1][0]                               # larger l, smaller epsilon


def test_calibration_never_overshoots_the_target():
    rows = calibration_rows(5.0, (1, 4, 16), accountant="class-aware", ratio=1.0, **SETTING)
    assert [r["l"] for r in rows] == [1, 4, 16]
    for r in rows:
        assert r["sigma_x"] is not None and r["epsilon"] <= 5.0 + 1e-9
    assert rows[0]["sigma_x"] > rows[-1]["sigma_x"]              # larger l needs less noise
    curves = figure4_grid((4,), SIGMA_GRID[::2], accountant="class-aware", ratio=1.0, **SETTING)
    via = calibration_rows(5.0, (4,), accountant="class-aware", ratio=1.0, curves=curves,
                           **SETTING)[0]
    assert via["epsilon"] <= 5.0 + 1e-9 and "curve grid" in via["notes"]
    assert "privacy-loss grid" not in via["notes"]  # an RDP accountant has no loss grid
    assert via["sigma_x"] == pytest.approx(rows[1]["sigma_x"], rel=0.05)


def test_curve_note_says_what_the_pld_curve_grid_is():
    from dpcda.privacy.pld import CURVE_VALUE_INTERVAL, auto_value_intervals

    # the curves' step is per setting: CURVE_VALUE_INTERVAL, doubled where the window is wide
    steps = [auto_value_intervals(s, 4 / 180, 1797, 1e-5)[2] for s in (0.05, 2.0, 40.0)]
    k = [math.log2(h / CURVE_VALUE_INTERVAL) for h in steps]
    assert k[0] == 0 and k[1] > 0 and all(v == pytest.approx(round(v)) for v in k)
    note = curve_note("class-aware-pld")
    assert f"step {CURVE_VALUE_INTERVAL:g} or coarser, chosen per setting" in note
    assert "privacy-loss grid" not in curve_note("class-aware")


def test_epsilon_table_text_marks_the_bounds_and_blanks():
    from dpcda.dashboard.explorer import epsilon_table, epsilon_table_text
    from dpcda.experiments.frontier import public_facts
    from dpcda.privacy import DEFAULT_ACCOUNTANT, NOT_A_BOUND, list_accountants

    f = public_facts("digits")
    rows = epsilon_table(4, 0.25, 0.25, n=f["n"], class_counts=f["class_counts"], d_x=f["d_x"],
                         d_y=f["d_y"], c=1.0, T=f["n"], delta=1e-5, conversion="mironov",
                         max_alpha=256)
    text = epsilon_table_text(rows + [dict(rows[0], epsilon=None, notes="")])
    assert [t["accountant"] for t in text[:-1]] == [f"`{a}`" for a in list_accountants()]
    by = {t["accountant"].strip("`"): t for t in text[:-1]}
    assert by[DEFAULT_ACCOUNTANT]["bound for DP-CDA as implemented"] == "valid bound"
    assert by["paper"]["bound for DP-CDA as implemented"] == NOT_A_BOUND
    assert float(by["paper"]["ε"].replace(",", "")) == pytest.approx(
        next(r["epsilon"] for r in rows if r["accountant"] == "paper"), rel=5e-3)
    assert text[-1]["ε"] == "—" and text[-1]["warnings"] == "—"
    assert all(v is not None and "None" not in v for t in text for v in t.values())
