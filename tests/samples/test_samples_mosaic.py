"""dpcda.samples.mosaic: one sample per (l, epsilon), each at its own calibrated noise."""

from __future__ import annotations

import math

import numpy as np

from dpcda.mechanisms.prepare import fit_preprocessor
from dpcda.samples.mosaic import class_table, mosaic_cells, row_sigmas


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


def test_row_sigmas_meet_every_epsilon_with_one_full_calibration():
    # A toy accountant: epsilon(sigma) = 2 / sigma^1.7 (decreasing), calibrated exactly.
    calls = []

    def eps_at(s):
        return 2.0 / s ** 1.7

    def calibrate_one(e):
        calls.append(e)
        return (2.0 / e) ** (1 / 1.7) * (1 + 1e-12)

    got = row_sigmas((math.inf, 20.0, 10.0, 5.0), calibrate_one=calibrate_one, eps_at=eps_at)
    assert sorted(got) == [5.0, 10.0, 20.0] and calls == [10.0]  # one full calibration
    for e, s in got.items():
        assert eps_at(s) <= e and s <= (2.0 / e) ** (1 / 1.7) * 1.07  # met, little extra noise

    def refuse(e):
        raise ValueError(f"epsilon={e:g} cannot be reached")

    bad = row_sigmas((20.0, 10.0), calibrate_one=refuse, eps_at=eps_at)
    assert all(isinstance(v, str) and "cannot be reached" in v for v in bad.values())
    # A curved accountant the power law overshoots: nudged up or calibrated, never above epsilon.
    wavy = lambda s: 2.0 / s ** 1.7 * (1 + 0.3 * math.sin(5 * s))  # noqa: E731
    cal = []

    def exact(e):
        cal.append(e)
        lo, hi = 1e-3, 1e3
        for _ in range(200):
            mid = (lo * hi) ** 0.5
            lo, hi = (mid, hi) if wavy(mid) > e else (lo, mid)
        return hi

    for e, s in row_sigmas((40.0, 10.0, 2.0), calibrate_one=exact, eps_at=wavy).items():
        assert wavy(s) <= e
