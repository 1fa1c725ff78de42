"""Input checks shared by the library: every problem is a ``ValueError`` that names the
parameter, the allowed values and the value given (pure Python; imports nothing heavy)."""

from __future__ import annotations

import math
import numbers


def is_int(value, *, integral_floats: bool = False) -> bool:
    """An integer (never a bool); with ``integral_floats`` also a float such as ``4.0``."""
    if isinstance(value, bool):
        return False
    return isinstance(value, numbers.Integral) or (
        integral_floats and isinstance(value, float) and value.is_integer())


def check_int(name: str, value, lo: int, hi: int | None = None, why: str = "", *,
              integral_floats: bool = False) -> int:
    """``int(value)`` if it is an integer in ``[lo, hi]``, else a ValueError naming ``name``."""
    if is_int(value, integral_floats=integral_floats) and value >= lo and (
            hi is None or value <= hi):
        return int(value)
    rng = f"in [{lo}, {hi}]" if hi is not None else f">= {lo}"
    raise ValueError(f"{name} must be an integer {rng}{why}, got {name}={value!r}")


def check_float(name: str, value, *, lo: float | None = None, lo_open: bool = False,
                hi: float | None = None, hi_open: bool = False, extra: str = "") -> float:
    """``float(value)`` if finite and inside the interval (named in the error), else ValueError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    ok = math.isfinite(v) and not isinstance(value, bool)
    if ok and lo is not None:
        ok = v > lo if lo_open else v >= lo
    if ok and hi is not None:
        ok = v < hi if hi_open else v <= hi
    if ok:
        return v
    left = "-inf" if lo is None else f"{lo:g}"
    right = "inf" if hi is None else f"{hi:g}"
    rng = ("(" if lo is None or lo_open else "[") + f"{left}, {right}" + \
          (")" if hi is None or hi_open else "]")
    raise ValueError(f"{name} must be a finite number in {rng}{extra}, got {name}={value!r}")


def check_delta(delta) -> float:
    """delta in the open interval (0, 1)."""
    return check_float("delta", delta, lo=0.0, lo_open=True, hi=1.0, hi_open=True)


def check_sigma_pair(sigma_x: float, sigma_y: float) -> None:
    """Both noise scales zero (the explicit non-private setting) or both positive."""
    if (sigma_x == 0.0) != (sigma_y == 0.0):
        zero, other = ("sigma_x", "sigma_y") if sigma_x == 0.0 else ("sigma_y", "sigma_x")
        raise ValueError(f"{zero} must be > 0 unless sigma_x = sigma_y = 0 (the non-private "
                         f"setting), got {zero}=0 with {other}={max(sigma_x, sigma_y):g}")
