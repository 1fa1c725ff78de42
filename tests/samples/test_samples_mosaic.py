"""dpcda.samples.mosaic: one sample per (l, epsilon), each at its own calibrated noise."""

from __future__ import annotations

import math

import numpy as np

from dpcda.mechanisms.prepare import fit_preprocessor
from dpcda.samples.mosaic import class_table, mosaic_cells


def test_cells_mix_l_rows_of_the_class_and_add_the_cells_noise():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 255, (90, 16)).astype(np.float32)
    y = np.repeat(np.arange(3), 30)
    pre = fit_preprocessor(X, "scale", c=1.0, bounds=(0.0, 255.0))
    table = class_table(X, y, 1, pre)
    assert table.shape == (30, 16) and np.all(np.linalg.norm(table, axis=1) <= 1.0 + 1e-6)
    asked = []

    def sigma_for(l, eps):
        asked.append((l, eps))
        if eps < 1:
            raise ValueError("epsilon=0.5 cannot be reached")
        return 0.0 if eps > 100 else 5.0 / eps

    cells = mosaic_cells(table, sigma_for=sigma_for, ls=(1, 4, 64), epsilons=(math.inf, 1000, 10, 0.5),
                         seed=1)
    assert [(c.l, c.epsilon) for c in cells][:4] == [(1, math.inf), (1, 1000), (1, 10), (1, 0.5)]
    assert {c.l for c in cells} == {1, 4}  # l = 64 is larger than the class (30 rows): no row
    assert (1, math.inf) not in asked  # epsilon = inf is sigma = 0 without asking
    by = {(c.l, c.epsilon): c for c in cells}
    # No noise and l = 1: the cell is one preprocessed row of the class.
    assert any(np.allclose(by[(1, math.inf)].x, r, atol=1e-6) for r in table)
    # No noise and l = 4: the mean of 4 distinct rows lies inside the class's range.
    assert np.all(by[(4, 1000)].x <= table.max(axis=0) + 1e-6) and by[(4, 1000)].sigma == 0.0
    noisy = by[(4, 10)]
    assert noisy.sigma == 0.5 and np.abs(noisy.x - table.mean(axis=0)).max() > 0.5
    assert by[(4, 0.5)].error and by[(4, 0.5)].x is None
