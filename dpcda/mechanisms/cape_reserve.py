"""The calibration reserve of a CAPE release: the target epsilon holds after floating point.

A centralized release keeps back :func:`dpcda.randomness.noise.float_reserve` (a bound on what
its grid-rounded values add, whatever the noise scale). CAPE's aggregate carries more floating
point error (the S shares' sampler errors, the fixed point; docs/decentral.md, Theorem 3), so
its :func:`dpcda.mechanisms.cape_grid.lattice_cost` can exceed that reserve: the card's
total ``epsilon + epsilon_added`` of threat model (a) would then be above the target.
:func:`calibrate_cape` checks the total at the calibrated noise and, while it exceeds the
target, aims lower by what floating point adds there (with a margin); the loop ends only on a
total that is checked to hold, or refuses.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.randomness.noise import aimed, calibration_aim

#: Re-aims before refusing; each aims lower by ``_MARGIN`` times the cost just measured.
_ROUNDS = 6
_MARGIN = 1.25
#: How far below its aim a calibration usually lands (relative: the PLD calibration refines
#: until it is within 1e-4); CAPE's cost within the reserve plus this may need no re-aim.
_LANDING = 1e-4


def cape_epsilon_added(S: int, c: float, sx: float, sy: float, n_x: int, n_y: int,
                       extra=None) -> float:
    """What floating point adds to a CAPE release of ``n_x`` feature and ``n_y`` label values
    at noise ``(sx, sy)``: the lattice sum of the S sites' shares on the public share grid
    (:func:`dpcda.mechanisms.cape_grid.lattice_cost`); ``extra``: a
    :class:`~dpcda.randomness.noise.FloatCost` added (``dp-center``'s statistics step)."""
    from dpcda.mechanisms.cape_float import value_bound
    from dpcda.mechanisms.cape_grid import lattice_cost, share_grid_bits

    F = share_grid_bits(S, sx, sy)
    if F is None:
        return 0.0 if extra is None else extra.epsilon_added
    A = value_bound(c, sx, sy, S)
    cost = lattice_cost(S, S, A, F, (n_x, sx), (n_y, sy))
    return (cost if extra is None else cost + extra).epsilon_added


def first_aim(target, *, S: int, c: float, n_x: int, n_y: int, n_aim: int | None = None,
              extra=None, sigma_guess: float | None = None, ratio: float = 1.0):
    """The first epsilon :func:`calibrate_cape` calibrates to: the centralized aim
    (:func:`calibration_aim` for ``n_aim`` values), lowered, where a guess of the noise is
    given (``sigma_guess``, ``sigma_y = ratio sigma_x``) and CAPE's cost exceeds the
    centralized reserve (plus where a calibration usually lands below its aim, ``_LANDING``)
    anywhere from half to twice that guess, by the most it adds there
    (with the loop's margin), so that one calibration
    usually suffices. Only where the first calibration starts: the loop still checks the total
    at the noise it gets and aims again while it exceeds the target."""
    aim = calibration_aim(target, n_x + n_y if n_aim is None else n_aim)
    if sigma_guess is None or aim is None or not math.isfinite(target) or not sigma_guess > 0:
        return aim
    costs = [cape_epsilon_added(S, c, s, ratio * s, n_x, n_y, extra)
             for s in sigma_guess * 2.0 ** np.linspace(-1.0, 1.0, 9)]
    if min(costs) <= target - aim + _LANDING * aim:
        return aim  # the centralized aim may hold CAPE's cost: the centralized noise first
    added = max(costs)
    lower = (target - _MARGIN * added) * (1.0 - 2.0 ** -40)
    return min(aim, lower) if lower > 0 else aim


def calibrate_cape(account_at, target, *, S: int, c: float, n_x: int, n_y: int,
                   n_aim: int | None = None, extra=None, sigma_guess: float | None = None,
                   ratio: float = 1.0):
    """``(sx, sy, privacy)`` from ``account_at(aim)`` (a calibration to epsilon ``aim``; ``aim``
    None: no target) such that ``privacy["epsilon"] + epsilon_added <= target``. The first aim
    is :func:`first_aim`: the centralized one (:func:`calibration_aim` for ``n_aim`` values,
    default ``n_x + n_y``: the centralized release's count gives the same noise as it), or,
    with ``sigma_guess``, below it by CAPE's own cost near the guess (one calibration instead
    of two: each is seconds at MNIST's size); ``privacy``
    names the target and the reserve kept (:func:`aimed`). ``extra``: the floating-point cost
    of a step whose noise does not move (``dp-center``'s statistics), added to the check."""
    aim = first_aim(target, S=S, c=c, n_x=n_x, n_y=n_y, n_aim=n_aim, extra=extra,
                    sigma_guess=sigma_guess, ratio=ratio)
    sx, sy, privacy = account_at(aim)
    if target is None or not math.isfinite(target):
        return sx, sy, privacy
    for _ in range(_ROUNDS):
        eps = privacy.get("epsilon")
        added = cape_epsilon_added(S, c, sx, sy, n_x, n_y, extra) if sx > 0 or sy > 0 else 0.0
        if eps is None or eps + added <= target:
            aimed(privacy, target, aim)
            if "calibration_aim" in privacy:
                privacy["calibration_aim"]["why"] = (
                    "the noise is calibrated to the target minus a bound on what floating point "
                    "adds (CAPE's aggregate: docs/decentral.md, Theorem 3), so threat model "
                    "(a)'s epsilon + epsilon_added (privacy.floating_point) is at most the target")
            return sx, sy, privacy
        aim = min(aim, target - _MARGIN * added) * (1.0 - 2.0 ** -40)
        if not aim > 0:
            break
        sx, sy, privacy = account_at(aim)
    raise ValueError(f"epsilon={target:g} cannot be reached across sites={S}: floating point "
                     "alone adds about as much (docs/decentral.md, Theorem 3); choose a larger "
                     "epsilon")
