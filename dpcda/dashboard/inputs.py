"""Reading typed inputs strictly: a dataset size or class counts, an integer, a number.

No silent coercion: ``"1e308"`` typed for ``T`` is refused with the range (it never becomes
``T = 1`` or the largest allowed value), ``"4.5"`` is not an integer, an empty box is ``None``
only where the caller allows it. Every refusal is a :class:`dpcda.util.checks.CheckError` with a
code, so a page shows it in plain words (:func:`dpcda.util.messages.problem_of`).

>>> parse_int_text("60,000", name="T", lo=1, hi=10**9)
60000
>>> parse_counts("6000, 6000, 5000")
(17000, (6000, 6000, 5000))
"""

from __future__ import annotations

import math

from dpcda.util.checks import CheckError, check_float, check_int


def _number(text: str, name: str) -> float:
    """``float`` of typed text (``_``, ``,`` and spaces as thousands separators); else a CheckError."""
    cleaned = text.strip().replace("_", "").replace(",", "").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise CheckError(f"{name} must be a number, got {name}={text!r}", code="not_a_number",
                         name=name, value=text) from None
    if math.isnan(value):
        raise CheckError(f"{name} must be a number, got {name}={text!r}", code="not_a_number",
                         name=name, value=text)
    return value


def parse_int_text(text: str | None, *, name: str, lo: int, hi: int | None = None,
                   allow_empty: bool = False, why: str = "") -> int | None:
    """The integer typed in ``text``, refused (CheckError) unless it is in ``[lo, hi]``.

    ``"6e4"`` reads 60000; ``"4.5"``, ``"1e308"`` (above ``hi``), ``"inf"`` and ``"abc"`` are
    refused, never rounded or clamped. An empty box is ``None`` when ``allow_empty``.
    """
    if text is None or not text.strip():
        if allow_empty:
            return None
        raise CheckError(f"{name} must be an integer, got an empty value", code="not_a_number",
                         name=name, value="")
    value = _number(text, name)
    if math.isfinite(value) and value.is_integer():
        value = int(value)
    try:
        return check_int(name, value, lo, hi, why)
    except CheckError as exc:  # name the value as typed (1e308, not its 309 digits)
        raise CheckError(str(exc).rsplit(", got ", 1)[0] + f", got {name}={text.strip()!r}",
                         code=exc.code, name=name, value=text.strip(), allowed=exc.allowed,
                         lo=lo, hi=hi, why=why) from None


def parse_float_text(text: str | None, *, name: str, lo: float | None = None,
                     hi: float | None = None, lo_open: bool = False, hi_open: bool = False,
                     allow_empty: bool = False, why: str = "") -> float | None:
    """The finite number typed in ``text`` inside the interval, else a CheckError."""
    if text is None or not text.strip():
        if allow_empty:
            return None
        raise CheckError(f"{name} must be a number, got an empty value", code="not_a_number",
                         name=name, value="")
    return check_float(name, _number(text, name), lo=lo, hi=hi, lo_open=lo_open,
                       hi_open=hi_open, why=why)


def parse_counts(text: str) -> tuple[int, tuple[int, ...] | None]:
    """A typed dataset size: one integer is N, a comma-separated list is the class counts.

    Returns ``(n, class_counts)`` (``class_counts`` is ``None`` for a single N); a refusal is a
    CheckError for ``"dataset size"`` (``not_a_number`` or ``int_range``).
    """
    name = "dataset size"
    shape = "N (one whole number) or the class counts separated by commas, like 6000, 6000, 5000"
    parts = [p.strip().replace("_", "") for p in text.replace(";", ",").split(",")]
    parts = [p for p in parts if p]
    if not parts:
        raise CheckError("dataset size must be N (one integer) or comma-separated class counts, "
                         "got an empty value", code="not_a_number", name=name, value="",
                         allowed=shape)
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise CheckError("dataset size must be N (one integer) or comma-separated positive "
                         f"integer class counts such as '6000, 6000, 5000', got {text!r}",
                         code="not_a_number", name=name, value=text, allowed=shape) from None
    if any(v < 1 for v in values):
        raise CheckError(f"every count must be a positive integer, got {text!r}",
                         code="int_range", name=name, value=min(values), allowed=">= 1", lo=1)
    if len(values) == 1:
        return values[0], None
    return sum(values), tuple(values)


def with_exact(values, value) -> tuple:
    """``values`` (a slider's grid, ascending) with ``value`` among them when it is a number not
    on the grid: a link's exact l, σ or δ is kept as given, not moved to the nearest grid point
    (which would read another ε than the command line for the same setting).

    >>> with_exact((0.0, 0.05, 0.1), 0.0648)
    (0.0, 0.05, 0.0648, 0.1)
    >>> with_exact((1, 2, 4), None)
    (1, 2, 4)
    """
    values = tuple(values)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value in values:
        return values
    return tuple(sorted(values + (type(values[0])(value) if values else value,)))
