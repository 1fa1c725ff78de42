"""dpcda.dashboard.samples.mosaic: one sample per (l, epsilon), each at its own calibrated noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.mechanisms.prepare import fit_preprocessor
from dpcda.dashboard.samples.mosaic import class_table, mosaic_cells, mosaic_sigmas, solve_sigma


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


def test_solve_sigma_meets_the_target_closely_and_refuses_the_unreachable():
    calls = []

    def eps_at(s):  # a toy accountant: epsilon = 2 / sigma^1.7
        calls.append(s)
        return 2.0 / s ** 1.7

    for target, start in ((10.0, 0.3), (0.5, 0.01), (300.0, 5.0)):
        calls.clear()
        s = solve_sigma(target, eps_at, start)
        exact = (2.0 / target) ** (1 / 1.7)
        assert eps_at(s) <= target and s <= exact * 1.01  # met, at most 1% extra noise
        assert len(calls) <= 14
    # An epsilon floor (as the RDP conversions have): no noise meets a target below it.
    with pytest.raises(ValueError, match="cannot be reached"):
        solve_sigma(0.5, lambda s: 1.0 + 1.0 / s, 0.3)
    # Infinite epsilon at tiny noise: the search moves up and still meets the target.
    s = solve_sigma(5.0, lambda s: math.inf if s < 0.1 else 1.0 / s, 0.01)
    assert 1.0 / s <= 5.0 and s < 0.21


def test_mosaic_sigmas_cover_every_cell_and_meet_each_epsilon():
    def eps_at(l, s):  # more l, less epsilon at the same noise
        if l > 100:
            raise ValueError("l=128 is larger than the smallest class")
        return 3.0 / (l ** 0.9 * s ** 1.5)

    got = mosaic_sigmas((1, 4, 16, 128), (math.inf, 20.0, 10.0, 5.0), eps_at=eps_at)
    assert sorted({l for l, _ in got}) == [1, 4, 16, 128] and all(math.isfinite(e) for _, e in got)
    for (l, e), s in got.items():
        if l == 128:
            assert isinstance(s, str) and "smallest class" in s
        else:
            assert eps_at(l, s) <= e and eps_at(l, s / 1.02) > e  # met, not much extra noise
    assert got[(4, 10.0)] < got[(1, 10.0)] and got[(1, 5.0)] > got[(1, 20.0)]


def test_mosaic_sigmas_at_is_mosaic_sigmas_on_quick_epsilon_remembered(monkeypatch):
    from dpcda.dashboard.samples import mosaic as mosaic_mod
    from dpcda.dashboard.samples import setting

    priv = dict(T=300, c=1.0, delta=1e-5, n=300, class_counts=[100, 100, 100], d_x=4, d_y=3,
                accountant="class-aware", conversion="mironov", max_alpha=64,
                allocation="equal")
    calls = []
    quick = setting.quick_epsilon

    def counted(sigma, **kw):
        calls.append(sigma)
        return quick(sigma, **kw)

    ls, eps = (1, 4), (math.inf, 10.0, 5.0)
    want = mosaic_sigmas(ls, eps, start=0.5, eps_at=lambda l, s: setting.quick_epsilon(
        s, l=l, **dict(priv, class_counts=tuple(priv["class_counts"]))))
    monkeypatch.setattr(setting, "quick_epsilon", counted)
    mosaic_mod._remembered.clear()
    got = mosaic_mod.mosaic_sigmas_at(ls, eps, start=0.5, **priv)
    assert got == want and set(got) == {(l, e) for l in ls for e in (10.0, 5.0)}
    n = len(calls)
    assert n > 0
    assert mosaic_mod.mosaic_sigmas_at(ls, eps, start=0.5, **priv) == want and len(calls) == n
    got[(1, 10.0)] = -1.0  # the caller's copy: the remembered answer is not changed
    assert mosaic_mod.mosaic_sigmas_at(ls, eps, start=0.5, **priv)[(1, 10.0)] == want[(1, 10.0)]
    mosaic_mod.mosaic_sigmas_at(ls, eps, start=0.6, **priv)  # another start: computed
    assert len(calls) > n


def test_mosaic_sigmas_at_waits_for_the_thread_already_computing_it(monkeypatch):
    import threading

    from dpcda.dashboard.samples import mosaic as mosaic_mod
    from dpcda.dashboard.samples import setting

    priv = dict(T=300, c=1.0, delta=1e-5, n=300, class_counts=(100, 100, 100), d_x=4, d_y=3,
                accountant="class-aware", conversion="mironov", max_alpha=64,
                allocation="equal")
    quick, calls, gate = setting.quick_epsilon, [], threading.Event()

    def slow(sigma, **kw):
        gate.wait(10)
        calls.append(threading.current_thread().name)
        return quick(sigma, **kw)

    monkeypatch.setattr(setting, "quick_epsilon", slow)
    import time

    deadline = time.monotonic() + 120  # a page test's background prefetch may still be running
    while mosaic_mod._running and time.monotonic() < deadline:
        time.sleep(0.05)
    mosaic_mod._remembered.clear()
    first = threading.Thread(target=mosaic_mod.mosaic_sigmas_at, name="prefetch",
                             kwargs=dict(ls=(1,), epsilons=(10.0,), start=0.5, **priv))
    first.start()
    while not mosaic_mod._running:  # the prefetch has claimed the setting
        pass
    result = {}
    second = threading.Thread(target=lambda: result.setdefault(
        "v", mosaic_mod.mosaic_sigmas_at(ls=(1,), epsilons=(10.0,), start=0.5, **priv)))
    second.start()
    gate.set()
    first.join(10)
    second.join(10)
    assert set(calls) == {"prefetch"}  # computed once, by the first thread
    assert set(result["v"]) == {(1, 10.0)} and not mosaic_mod._running
