"""The one family of input checks of the library (scalars; array checks for the generators are in
:mod:`dpcda.mechanisms.validation` and build on these): every problem is a ``ValueError`` that
names the parameter, the allowed values and the value given, e.g.
``l must be an integer in [1, 5421] (the smallest class), got l=0``.

Integers: an ``int`` or an integral float (``4.0``, as JSON and command lines deliver them) is
accepted and returned as ``int``; ``4.5``, ``True``, ``"4"`` are refused. Pure Python.

Errors are values: every check raises :class:`CheckError` (a ``ValueError``) carrying a ``code``
(one of :data:`CHECK_CODES`), the parameter name, the value and the allowed range, so a page can
turn it into plain words (:func:`dpcda.util.messages.problem_of`) without matching on its text.
"""

from __future__ import annotations

import math
import numbers

# Warnings are coded too (:mod:`dpcda.util.notices`); re-exported here for older imports.
from dpcda.util.notices import NOTICE_CODES, Notice  # noqa: F401

#: code -> what it means. ``int_range``: not an integer in the range; ``number_range``: not a
#: finite number in the interval; ``choice``: not one of the allowed names; ``sigma_pair``: one
#: noise scale zero and the other not; ``not_a_number``: typed text that is not a number.
CHECK_CODES = {
    "int_range": "not an integer in the allowed range",
    "number_range": "not a finite number in the allowed interval",
    "choice": "not one of the allowed values",
    "sigma_pair": "one noise scale is zero and the other is not",
    "not_a_number": "typed text that is not a number",
}


class CheckError(ValueError):
    """A refused input: ``str(exc)`` is the precise message; the fields are for plain words.

    ``code`` (a key of :data:`CHECK_CODES`), ``name`` (the parameter), ``value`` (as given),
    ``allowed`` (the range or choices as the message writes them, e.g. ``"in [1, 5421]"``),
    ``lo``/``hi``/``lo_open``/``hi_open`` (the interval, ``None`` for an open end), ``why`` (the
    reason for the range, e.g. ``" (the smallest class)"``, may be empty).
    """

    def __init__(self, message: str, *, code: str, name: str, value=None, allowed: str = "",
                 lo=None, hi=None, lo_open: bool = False, hi_open: bool = False, why: str = ""):
        super().__init__(message)
        self.code, self.name, self.value, self.allowed, self.why = code, name, value, allowed, why
        self.lo, self.hi, self.lo_open, self.hi_open = lo, hi, lo_open, hi_open


def is_int(value) -> bool:
    """An integer (never a bool), or an integral float such as ``4.0``."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, numbers.Real) and math.isfinite(float(value)) and \
        float(value).is_integer()


def int_range(lo: int, hi: int | None = None) -> str:
    """``"in [lo, hi]"`` or ``">= lo"`` (the wording of every integer error)."""
    return f"in [{lo}, {hi}]" if hi is not None else f">= {lo}"


def check_int(name: str, value, lo: int, hi: int | None = None, why: str = "") -> int:
    """``int(value)`` if it is an integer in ``[lo, hi]``, else a ValueError naming ``name``."""
    if is_int(value) and value >= lo and (hi is None or value <= hi):
        return int(value)
    raise CheckError(f"{name} must be an integer {int_range(lo, hi)}{why}, got {name}={value!r}",
                     code="int_range", name=name, value=value, allowed=int_range(lo, hi), lo=lo,
                     hi=hi, why=why)


def float_range(lo: float | None, hi: float | None, lo_open: bool = False,
                hi_open: bool = False) -> str:
    """``"> 0"``, ``">= 0"``, ``"in (0, 1)"``... (the wording of every number error)."""
    if hi is None and lo is None:
        return "(any)"
    if hi is None:
        return f"{'>' if lo_open else '>='} {lo:g}"
    if lo is None:
        return f"{'<' if hi_open else '<='} {hi:g}"
    return ("(" if lo_open else "[") + f"{lo:g}, {hi:g}" + (")" if hi_open else "]")


def check_float(name: str, value, *, lo: float | None = None, lo_open: bool = False,
                hi: float | None = None, hi_open: bool = False, why: str = "") -> float:
    """``float(value)`` if finite and inside the interval (named in the error), else ValueError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    ok = math.isfinite(v) and not isinstance(value, (bool, str))
    if ok and lo is not None:
        ok = v > lo if lo_open else v >= lo
    if ok and hi is not None:
        ok = v < hi if hi_open else v <= hi
    if ok:
        return v
    rng = float_range(lo, hi, lo_open, hi_open)
    rng = "in " + rng if rng.startswith(("(", "[")) else rng
    raise CheckError(f"{name} must be a finite number {rng}{why}, got {name}={value!r}",
                     code="number_range", name=name, value=value, allowed=rng, lo=lo, hi=hi,
                     lo_open=lo_open, hi_open=hi_open, why=why)


def check_choice(name: str, value, choices) -> str:
    """``value`` if it is one of ``choices``, else a ValueError listing them."""
    if isinstance(value, str) and value in choices:
        return value
    allowed = ", ".join(map(str, choices))
    raise CheckError(f"{name} must be one of {allowed}, got {name}={value!r}", code="choice",
                     name=name, value=value, allowed=allowed)


def check_delta(delta) -> float:
    """delta in the open interval (0, 1)."""
    return check_float("delta", delta, lo=0.0, lo_open=True, hi=1.0, hi_open=True)


def check_sigma_pair(sigma_x: float, sigma_y: float) -> None:
    """Both noise scales zero (the explicit non-private setting) or both positive."""
    if (sigma_x == 0.0) != (sigma_y == 0.0):
        zero, other = ("sigma_x", "sigma_y") if sigma_x == 0.0 else ("sigma_y", "sigma_x")
        raise CheckError(f"{zero} must be > 0 unless sigma_x = sigma_y = 0 (the non-private "
                         f"setting), got {zero}=0 with {other}={max(sigma_x, sigma_y):g}",
                         code="sigma_pair", name=zero, value=0.0, allowed="> 0", lo=0.0,
                         lo_open=True)


def check_sigmas(sigma_x, sigma_y) -> tuple[float, float]:
    """Two noise scales >= 0, both zero (non-private) or both positive."""
    sx = check_float("sigma_x", sigma_x, lo=0.0,
                     why=" (0 only with sigma_y = 0: the non-private setting)")
    sy = check_float("sigma_y", sigma_y, lo=0.0,
                     why=" (0 only with sigma_x = 0: the non-private setting)")
    check_sigma_pair(sx, sy)
    return sx, sy


def shape_text(shape) -> str:
    """An array's shape as a message may say it: the row axis as ``N``, never its length (the
    number of records of the data is the data's own, private, count): ``(N, 28, 28)``, ``()``."""
    shape = tuple(int(s) for s in shape)
    if not shape:
        return "()"
    return "(" + ", ".join(["N", *map(str, shape[1:])]) + (",)" if len(shape) == 1 else ")")
