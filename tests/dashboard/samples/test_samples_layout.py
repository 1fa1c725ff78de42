"""The Samples page's pictures sized to the page (issue 21, item 7)."""

from __future__ import annotations

import pytest

from dpcda.dashboard.samples import picture_columns


@pytest.mark.parametrize(("grid", "means"), [((80, 64), (80, 16)), ((280, 448), (280, 56)),
                                             ((30, 240), (30, 20)), ((160, 16), (160, 32))])
def test_both_pictures_share_one_height_and_fill_the_row(grid, means):
    g, m, words = picture_columns(grid, means)
    row = g + m + words
    # stretched to its column, a picture's height is its column's width times its aspect
    h_grid, h_means = g * grid[0] / grid[1], m * means[0] / means[1]
    assert h_grid == pytest.approx(h_means)
    assert h_grid <= 0.6 * row * (1 + 1e-9)   # in view on a projector
    assert words >= row / 10 - 1e-9          # room for the words beside them
    assert g / row > 0.3 or h_grid == pytest.approx(0.6 * row)  # never a thumbnail in a wide row
