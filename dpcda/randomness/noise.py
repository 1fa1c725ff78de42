"""Gaussian noise that is safe in floating point: float64 from the secure source, on a public grid.

``add_gaussian(values, sigma, source, bound=...)`` returns ``values + N(0, sigma^2)`` rounded to
the nearest point of the public grid ``gamma Z`` (:func:`grid_for`: ``gamma`` a power of two with
``sigma / gamma`` in [8, 16)). Why and the proof
(docs/security.md, "Floating point"):

* Noise drawn and added in float32 (or float64) leaks through the set of representable outputs
  (Mironov 2012; Jin et al., IEEE S&P 2022). Rounding the noisy value to a public grid far
  coarser than float64's resolution makes the set of possible outputs the same for every input;
  the released value is a post-processing of the ideal Gaussian mechanism up to the sampler's
  error, which is bounded below.
* Sampler: ``Z = +-Phi^-1(V / 2)`` with ``V`` uniform on a grid of 2^191 points (three 64-bit
  words of ChaCha20, one bit of them the sign) and ``Phi^-1`` = ``scipy.special.ndtri``
  (relative error bounded by :data:`NDTRI_REL_ERR`). The cell index is computed
  as ``floor(a) + floor(frac + 1/2 + s Z)`` so no float error scales with the data's magnitude.
* :func:`float_cost`: every cell of width ``gamma`` within :data:`TAIL_B` standard deviations
  of the centre has a realised probability within a factor ``1 +- eta`` of the ideal rounded
  Gaussian's; beyond, the mass is at most ``2 G(TAIL_B - 1)``. A release of ``n`` noisy values
  is then ``(eps + eps_added, delta + delta_added)``-DP whenever the ideal mechanism is
  ``(eps, delta)``-DP; the card records both terms.

Released values are exact in float32 whenever :func:`float32_exact` (every setting but the
near-noiseless); otherwise the float32 cast is a deterministic post-processing.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

#: Cells of the output grid per noise standard deviation: sigma / gamma in [GRID_MIN, 2 GRID_MIN).
GRID_MIN = 8
#: The bulk of the noise (in standard deviations) where the per-cell error bound is proved.
TAIL_B = 14.0
#: Bound on scipy.special.ndtri's relative error on (0, 1/2]. Cephes documents peaks of 7.2e-16
#: on [0.125, 1] and 4.6e-16 below; scipy 1.17 was measured at 1.05e-15 near p = 0.137 (a
#: reviewer's dense scan): the bound keeps a factor 2 (tests/randomness/test_noise.py checks it).
NDTRI_REL_ERR = 2e-15
_U = 2.0 ** -53  # unit roundoff of float64
_NDTRI_CHECKED: float | None = None
_MASK63 = np.uint64((1 << 63) - 1)
_CHUNK = 1 << 20  # values per transform task
_POOL: ThreadPoolExecutor | None = None


def _forget_pool() -> None:
    """A forked child inherits the parent's pool object but not its threads: start afresh."""
    global _POOL
    _POOL = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


@dataclass(frozen=True)
class Grid:
    """The public output grid ``gamma Z`` of one noise scale ``sigma`` (``gamma`` a power of 2)."""

    sigma: float
    gamma: float

    @property
    def s(self) -> float:
        """Grid cells per standard deviation, ``sigma / gamma``."""
        return self.sigma / self.gamma

    def eta(self) -> float:
        """Per-value bound on ``|realised / ideal - 1|`` for every cell in the bulk."""
        s, h = self.s, self.gamma / self.sigma
        spread = s * (NDTRI_REL_ERR * TAIL_B + 8 * _U) + 4 * _U * (s * TAIL_B + 2)
        width = spread * h  # error band at each cell edge, in standard deviations
        grid_v = 2.0 ** -190 / (h * _phi(TAIL_B + h))  # the uniform's grid: 2^-192 steps of V/2
        # band mass / cell mass <= width * max phi / (h * min phi) over |z| <= B + h + width
        return 2.0 * spread * math.exp((TAIL_B + h + width) * (h + 2.0 * width)) + grid_v


def _phi(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def grid_for(sigma: float, bound: float) -> Grid:
    """The public grid for noise ``sigma`` on values with ``|value| <= bound`` (both public):
    ``gamma = 2^(floor(log2 sigma) - 3)``, so ``sigma / gamma`` is in [8, 16) always.

    Every grid value within ``bound + 15 sigma`` is a float32 when that is below ``2^24 gamma``
    (``sigma`` above about ``bound / 2^20``; :func:`float32_exact`); below, storing a release as
    float32 rounds the grid values, a deterministic post-processing that costs no privacy."""
    if not (sigma > 0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a finite number > 0, got sigma={sigma!r}")
    if not (bound >= 0 and math.isfinite(bound)):
        raise ValueError(f"bound must be a finite number >= 0, got bound={bound!r}")
    e = math.floor(math.log2(sigma)) - int(math.log2(GRID_MIN))
    top = bound + (TAIL_B + 1.0) * sigma
    if top / 2.0 ** e >= 2.0 ** 52:
        raise ValueError(f"sigma={sigma:g} is too small for values up to {bound:g}: the grid "
                         "would exceed float64's exact integers")
    return Grid(sigma=float(sigma), gamma=math.ldexp(1.0, e))


def float32_exact(g: Grid, bound: float) -> bool:
    """Whether every grid value within ``bound + 15 sigma`` is exactly a float32."""
    return bound + (TAIL_B + 1.0) * g.sigma < 2.0 ** 24 * g.gamma


def _half_uniform(words: np.ndarray) -> np.ndarray:
    """``V / 2`` (float64) from a ``(3, n)`` uint64 block: ``V = A 2^-63 + B 2^-127 + (C + 1/2)
    2^-191``, ``A`` the first word's low 63 bits, ``B`` and ``C`` the other two words: uniform
    on a grid of 2^191 points, computed with relative error below 4 u. Every value takes the
    same three words and the same operations (no branch on the noise)."""
    v = (words[0] & _MASK63).astype(np.float64)
    v *= 2.0 ** -64
    t = words[1].astype(np.float64)
    t *= 2.0 ** -128
    v += t
    t = words[2].astype(np.float64)
    t += 0.5
    t *= 2.0 ** -192
    v += t
    return v


def check_ndtri() -> float:
    """Refuse to draw noise when this scipy's ``ndtri`` exceeds :data:`NDTRI_REL_ERR` (the bound
    the floating-point proof uses) at any reference point
    (:mod:`dpcda.randomness.ndtri_reference`); checked once per process. A check at
    fixed points catches a changed implementation, it does not prove the bound everywhere (the
    test suite's dense scan against mpmath does that for the pinned scipy)."""
    global _NDTRI_CHECKED
    if _NDTRI_CHECKED is None:
        import scipy

        from dpcda.randomness.ndtri_reference import ndtri_error

        err = ndtri_error()
        if not err <= NDTRI_REL_ERR:
            raise RuntimeError(
                f"scipy {scipy.__version__}'s ndtri has relative error {err:.3g} at a reference "
                f"point, above the bound {NDTRI_REL_ERR:g} that the noise's floating-point proof "
                "uses (docs/security.md): no noise is drawn; install the scipy version the "
                "project pins")
        _NDTRI_CHECKED = err
    return _NDTRI_CHECKED


def _transform(source, n: int, finish) -> None:
    """Draw three words per value (in order), then in parallel chunks build ``V / 2`` and call
    ``finish(a, b, half_uniforms, negative)``. ``ndtri`` is checked first (:func:`check_ndtri`)."""
    check_ndtri()
    words = source.words((3, n))
    negative = words[0].view(np.int64)  # < 0: the sign bit is set

    def task(a, b):
        finish(a, b, _half_uniform(words[:, a:b]), negative[a:b] < 0)

    _parallel(task, n)


def _abs_normal(half_v: np.ndarray) -> np.ndarray:
    """``|Z| = -ndtri(V / 2)`` in place."""
    from scipy.special import ndtri

    z = ndtri(half_v, out=half_v)
    return np.negative(z, out=z)


def standard_normal(source, n: int) -> np.ndarray:
    """``n`` standard normals (float64) from a :class:`~dpcda.randomness.SecureRandom`."""
    out = np.empty(int(n))

    def finish(a, b, half_v, neg):
        z = _abs_normal(half_v)
        out[a:b] = np.negative(z, out=z, where=neg)

    _transform(source, int(n), finish)
    return out


def add_gaussian(values, sigma: float, source, *, bound: float,
                 grid: Grid | None = None) -> np.ndarray:
    """``values + N(0, sigma^2)`` element-wise, rounded to the public grid (a float64 array of
    grid values, exact in float32 when :func:`float32_exact`). ``sigma = 0`` returns the values
    as they are (the non-private setting). ``bound``: a public bound on ``|values|``.

    The grid index is ``floor(q) + floor(frac(q) + 1/2 + s Z)`` with ``q = value / gamma``
    (exact: ``gamma`` is a power of two) and ``s = sigma / gamma``: no rounding error grows
    with the value's magnitude."""
    x = np.asarray(values)
    if x.dtype != np.float64:  # a private value rounded to float32 first would leak its rounding
        raise TypeError(f"private values must be float64 before noise is added, got {x.dtype}")
    if sigma == 0:
        return x.copy()
    g = grid if grid is not None else grid_for(sigma, bound)
    limit = 2.0 ** 52  # beyond float64's exact integers: clamped (post-processing)
    flat = x.reshape(-1)
    out = np.empty(flat.size)
    inv, s = 1.0 / g.gamma, g.s

    def finish(a, b, half_v, neg):
        z = _abs_normal(half_v)
        z *= s
        np.negative(z, out=z, where=neg)  # s Z
        q = flat[a:b] * inv
        k = np.floor(q)
        q -= k  # frac(q), exact
        q += 0.5
        q += z
        np.floor(q, out=q)
        q += k
        np.clip(q, -limit, limit, out=q)
        q *= g.gamma
        out[a:b] = q

    _transform(source, flat.size, finish)
    return out.reshape(x.shape)


def _parallel(task, n: int) -> None:
    """Run ``task(a, b)`` over ``[0, n)`` in chunks on a small thread pool (numpy and scipy's
    element-wise kernels release the GIL; the random words were drawn before, in order)."""
    global _POOL
    spans = [(a, min(n, a + _CHUNK)) for a in range(0, n, _CHUNK)]
    if len(spans) <= 1:
        for a, b in spans:
            task(a, b)
        return
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)),
                                   thread_name_prefix="dpcda-noise")
    for f in [_POOL.submit(task, a, b) for a, b in spans]:
        f.result()


@dataclass(frozen=True)
class FloatCost:
    """What floating point adds to a release's guarantee (docs/security.md, "Floating point")."""

    n_values: int
    eta: float
    tail: float

    def __add__(self, other: "FloatCost") -> "FloatCost":
        return FloatCost(self.n_values + other.n_values, max(self.eta, other.eta),
                         max(self.tail, other.tail))

    @property
    def epsilon_added(self) -> float:
        return self.n_values * math.log1p(2 * self.eta / (1 - self.eta))

    def delta_added(self, epsilon: float | None, delta: float) -> float:
        """For a mechanism whose ideal version is ``(epsilon, delta)``-DP."""
        if epsilon is None or not math.isfinite(epsilon):
            return 0.0
        ea = self.epsilon_added
        grow = math.expm1(self.n_values * math.log1p(self.eta)) * delta
        with np.errstate(over="ignore"):
            far = self.n_values * self.tail * (1.0 + math.exp(min(epsilon + ea, 700.0)))
        return float(grow + far)

    def card(self, epsilon: float | None, delta: float) -> dict:
        """The card's ``privacy.floating_point`` block, with the totals the release satisfies;
        ``vacuous``: ``delta_total`` is at least 1 (from epsilon of about 70 at MNIST's size, where the
        tail term's ``e^epsilon`` wins), so the totals establish no guarantee."""
        added_d = self.delta_added(epsilon, delta)
        finite = epsilon is not None and math.isfinite(epsilon)
        return {"method": "float64 Gaussian (inverse CDF of a ChaCha20 uniform with up to 191 "
                          "bits), rounded to a public power-of-two grid (docs/security.md)",
                "noisy_values": int(self.n_values), "epsilon_added": self.epsilon_added,
                "delta_added": added_d,
                "epsilon_total": epsilon + self.epsilon_added if finite else None,
                "delta_total": delta + added_d if finite else None,
                # delta_total >= 1: the (epsilon_total, delta_total) statement says nothing
                "vacuous": bool(finite and not delta + added_d < 1.0)}


def eta_upper() -> float:
    """An upper bound on :meth:`Grid.eta` for every grid :func:`grid_for` gives (``s = sigma /
    gamma`` in [8, 16)): the spread grows with ``s`` (taken at 16), the exponential and the
    uniform's grid term shrink with it (taken at ``h = 1/8``, the grid term at ``h = 1/16``)."""
    s_hi, h_hi, h_lo = 2.0 * GRID_MIN, 1.0 / GRID_MIN, 1.0 / (2.0 * GRID_MIN)
    spread = s_hi * (NDTRI_REL_ERR * TAIL_B + 8 * _U) + 4 * _U * (s_hi * TAIL_B + 2)
    width = spread * h_hi
    grid_v = 2.0 ** -190 / (h_lo * _phi(TAIL_B + h_hi))
    return 2.0 * spread * math.exp((TAIL_B + h_hi + width) * (h_hi + 2.0 * width)) + grid_v


def float_reserve(n_values: int) -> float:
    """An upper bound on what floating point adds to epsilon (:attr:`FloatCost.epsilon_added`)
    for ``n_values`` grid-rounded values, whatever the noise scale: what a calibration keeps
    back so that the card's total (ideal epsilon + floating point) never exceeds the target."""
    eta = eta_upper()
    return float(n_values) * math.log1p(2 * eta / (1 - eta))


def calibration_aim(epsilon: float | None, n_values: int) -> float | None:
    """The epsilon a calibration aims at for a target ``epsilon`` (None: no target): the target
    minus :func:`float_reserve`, less a relative 2^-40 so that the sum's rounding cannot lift
    the total above the target. Refuses a target too small to hold the reserve."""
    if epsilon is None or not math.isfinite(epsilon):
        return epsilon
    reserve = float_reserve(n_values)
    aim = (epsilon - reserve) * (1.0 - 2.0 ** -40)
    if not aim > 0:
        raise ValueError(f"epsilon={epsilon:g} cannot be reached: floating point alone adds up to "
                         f"{reserve:.2g} for {int(n_values)} noisy values (docs/security.md, "
                         "'Floating point'); choose a larger epsilon")
    return aim


def tail_upper() -> float:
    """The mass beyond the bulk each noisy value may have (:attr:`FloatCost.tail` of every grid
    :func:`float_cost` gives)."""
    from scipy.special import ndtr

    return 2.0 * float(ndtr(-(TAIL_B - 1.0)))


def delta_aim(delta: float, epsilon: float | None, n_values: int) -> float:
    """The delta a calibration to the target ``epsilon`` accounts the ideal release at, for a
    target ``delta``: what floating point adds to delta (:meth:`FloatCost.delta_added`, at most
    ``delta' (e^(n log1p eta) - 1) + n tail (1 + e^epsilon)`` once epsilon + its floating-point
    share is at most the target) kept back, less a relative 2^-40, so that the card's
    ``delta_total`` never exceeds ``delta``. No target epsilon (None or inf): ``delta`` itself;
    so too when the bound's tail term alone reaches ``delta`` (epsilon near 80 and above, where
    ``e^epsilon`` outgrows the tail's 2.4e-39): nothing can be kept back there, and the card's
    ``privacy.floating_point.delta_total`` states the larger total, as before."""
    numbers = all(isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool)
                  for v in (delta, epsilon))
    if not numbers or not math.isfinite(epsilon) or not 0.0 < delta < 1.0:
        return delta  # no target, or a value the caller's own check refuses in its own words
    n = float(n_values)
    grow = math.expm1(n * math.log1p(eta_upper()))
    far = n * tail_upper() * (1.0 + math.exp(min(float(epsilon), 700.0)))
    aim = (float(delta) - far) / (1.0 + grow) * (1.0 - 2.0 ** -40)
    return aim if aim > 0 else delta


def aimed(privacy: dict, target: float | None, aim: float | None, *, delta: float | None = None,
          delta_aimed: float | None = None) -> dict:
    """``privacy`` (modified, returned) naming the target, not the aim, as what it was calibrated
    to, with the reserve kept for floating point (and, with ``delta`` and ``delta_aimed`` of
    :func:`delta_aim`, the same for delta)."""
    if target is not None and aim is not None and aim != target:
        privacy["calibrated_to_epsilon"] = float(target)
        privacy["calibration_aim"] = {
            "epsilon": float(aim), "float_reserve": float(target - aim),
            "why": "the noise is calibrated to the target minus a bound on what floating point "
                   "adds, so epsilon + epsilon_added (privacy.floating_point) is at most the "
                   "target"}
        if delta is not None and delta_aimed is not None and delta_aimed != delta:
            privacy["calibrated_to_delta"] = float(delta)
            privacy["calibration_aim"].update(
                delta=float(delta_aimed), delta_float_reserve=float(delta - delta_aimed),
                why=privacy["calibration_aim"]["why"] + "; likewise delta + delta_added is at most "
                    "the target delta (the ideal release is accounted at the smaller delta)")
    return privacy


def float_cost(*parts: tuple[int, Grid | None]) -> FloatCost:
    """The cost of releasing ``n`` grid-rounded values for each ``(n, grid)`` part (grid None:
    no noise, no cost). ``eta``: the largest per-value bound; ``tail``: the bulk's complement."""
    live = [(int(n), g) for n, g in parts if g is not None and n > 0]
    if not live:
        return FloatCost(0, 0.0, 0.0)
    n = sum(k for k, _ in live)
    eta = max(g.eta() for _, g in live)
    if not eta < 0.5:  # cannot happen with sigma / gamma in [8, 16); a guard for the proof
        raise ValueError(f"the sampler's error bound eta = {eta:g} is outside the lemma's range")
    return FloatCost(n_values=n, eta=eta, tail=tail_upper())
