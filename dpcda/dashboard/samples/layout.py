"""How wide the Samples page draws its pictures: sized to the page, not to a fixed pixel count.

>>> picture_columns((100, 80), (100, 20))   # a 10 x 8 grid of digits beside 10 x 2 means
[80.0, 20.0, 66.66666666666669]
>>> picture_columns((100, 80), None)        # the grid alone (a preview): [grid, words]
[80.0, 86.66666666666669]
"""

from __future__ import annotations

#: The pictures' height as a share of the row's width (a 16:10 or 4:3 screen keeps them in view).
HEIGHT_SHARE = 0.6


def picture_columns(grid_shape, means_shape, *, height_share: float = HEIGHT_SHARE) -> list[float]:
    """Column weights ``[grid, means, words]`` for a row holding the sample grid and the class
    means, each stretched to its column: the two pictures share one height (their weights are
    their widths at the grid's pixel size) and that height is about ``height_share`` of the
    row's width; the words fill what is left (at least a tenth of the row). ``means_shape``
    None: the grid alone, ``[grid, words]``."""
    rows = grid_shape[0] if means_shape is None else max(grid_shape[0], means_shape[0])
    grid_w = grid_shape[1] * rows / grid_shape[0]
    means_w = 0.0 if means_shape is None else means_shape[1] * rows / means_shape[0]
    total = max(rows / height_share, (grid_w + means_w) * 10 / 9)
    if means_shape is None:
        return [float(grid_w), float(total - grid_w)]
    return [float(grid_w), float(means_w), float(total - grid_w - means_w)]
