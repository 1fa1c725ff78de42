"""The composition of what a screen has shown (dpcda.privacy.shown_compose), against the
whole-record RDP accountant and against curves summed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.privacy.conversion import eps_improved
from dpcda.privacy.shown_compose import Drawn, compose_shown
from dpcda.privacy.whole_record import whole_record_pld
from dpcda.privacy.whole_record_rdp import rdp_symmetrised, whole_record_rdp

N = (178, 182, 177, 183, 181, 182, 181, 179, 174, 180)  # digits' class sizes (public bounds)
DENSE = tuple(range(2, 65))


def release(sigma=0.3, l=4, t=134):
    return Drawn("release", sigma, l, (t,) * len(N))


def test_two_identical_releases_are_the_accountant_at_twice_the_steps():
    r = release()
    got = compose_shown([r, r], lower_counts=N, delta=1e-5, orders=DENSE)
    ref = whole_record_rdp(sigma=0.3, l=4, lower_counts=N, steps=[2 * 134] * len(N), delta=1e-5,
                           max_alpha=64)
    assert got.epsilon == pytest.approx(ref.epsilon, rel=1e-12)
    assert got.alpha == ref.value_interval and got.releases == 2
    one = compose_shown([r], lower_counts=N, delta=1e-5, orders=DENSE)
    assert one.epsilon == pytest.approx(whole_record_rdp(sigma=0.3, l=4, lower_counts=N,
                                                         steps=[134] * len(N), delta=1e-5,
                                                         max_alpha=64).epsilon, rel=1e-12)
    assert one.epsilon < got.epsilon
    # an upper bound on the exact (PLD) epsilon of the same two releases
    assert got.epsilon >= whole_record_pld(sigma=0.3, l=4, lower_counts=N,
                                           steps=[268] * len(N), delta=1e-5).epsilon


def _by_hand(draws, mu, delta, orders):
    """Every ordered pair of classes, each draw's two sides summed, converted, the worst pair."""
    a = np.asarray(orders)
    worst = 0.0
    for lose in range(len(N)):
        for gain in range(len(N)):
            if lose == gain:
                continue
            total = a * mu ** 2 / 2.0
            for sigma, l, steps in draws:
                s = 2.0 / (l * sigma)
                if steps[lose]:
                    total = total + steps[lose] * rdp_symmetrised(s, l / N[lose], a)
                if steps[gain]:
                    total = total + steps[gain] * rdp_symmetrised(s, l / (N[gain] + 1), a)
            worst = max(worst, float(np.min(eps_improved(a, total, delta))))
    return worst


def test_different_draws_compose_as_their_curves_summed_by_hand():
    cell = tuple(1 if k == 3 else 0 for k in range(len(N)))
    draws = [Drawn("release", 0.35, 4, (134,) * len(N)), Drawn("preview", 0.5, 8, (8,) * len(N)),
             Drawn("mosaic cell", 0.2, 16, cell), Drawn("statistics", 0.0, 1, (0,) * len(N), mu=0.4)]
    got = compose_shown(draws, lower_counts=N, delta=1e-5)
    want = _by_hand([(0.35, 4, (134,) * len(N)), (0.5, 8, (8,) * len(N)), (0.2, 16, cell)], 0.4,
                    1e-5, (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160,
                           192, 256))
    assert got.epsilon == pytest.approx(want, rel=1e-12) and got.releases == 4
    # every draw adds: the composition exceeds each part and grows with every draw
    parts = [compose_shown([d], lower_counts=N, delta=1e-5).epsilon for d in draws]
    assert got.epsilon > max(parts)
    assert compose_shown(draws[:2], lower_counts=N, delta=1e-5).epsilon < got.epsilon


def test_real_records_and_uncovered_draws_make_it_infinite_and_are_kept_apart():
    noisy = [release(), Drawn("mosaic cell", 0.2, 4, (1,) + (0,) * (len(N) - 1))]
    base = compose_shown(noisy, lower_counts=N, delta=1e-5)
    real = Drawn("mosaic cell", 0.0, 1, (1,) + (0,) * (len(N) - 1))
    got = compose_shown(noisy + [real], lower_counts=N, delta=1e-5)
    assert math.isinf(got.epsilon) and got.real == 1 and got.releases == 3
    assert got.noisy_epsilon == base.epsilon
    z = Drawn("preview", 0.3, 4, (8,) * len(N), covered=False)
    got = compose_shown(noisy + [z], lower_counts=N, delta=1e-5)
    assert math.isinf(got.epsilon) and got.uncovered == 1 and got.noisy_epsilon == base.epsilon
    none = compose_shown([], lower_counts=N, delta=1e-5)
    assert none.epsilon == 0.0 and none.releases == 0


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="l must be from 1 to 173"):
        compose_shown([release(l=174)], lower_counts=N, delta=1e-5)
    with pytest.raises(ValueError, match="steps must have one entry per class"):
        compose_shown([Drawn("preview", 0.3, 4, (1, 1))], lower_counts=N, delta=1e-5)
    with pytest.raises(ValueError, match="delta must be in"):
        compose_shown([release()], lower_counts=N, delta=0.0)
    with pytest.raises(ValueError, match="sigma and mu must be >= 0"):
        compose_shown([release(sigma=-1.0)], lower_counts=N, delta=1e-5)
