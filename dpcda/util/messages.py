"""Problems in plain words: a refused input becomes one sentence a teacher can act on.

A page catches a ``ValueError`` and calls :func:`problem_of`; the :class:`Problem` carries a
``code`` (from :data:`dpcda.util.checks.CHECK_CODES`, or ``"invalid"`` for an error raised without
one), a ``plain`` sentence, and the ``precise`` library message for an expander. Pages decide
on codes, never on the English text.

>>> from dpcda.util.checks import check_int
>>> try:
...     check_int("l", 0, 1, 5421, " (the smallest class)")
... except ValueError as exc:
...     problem_of(exc).plain
'The order of mixture l must be a whole number from 1 to 5,421 (the smallest class); 0 is not.'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from dpcda.util.checks import CHECK_CODES, CheckError
from dpcda.util.notices import NOTICE_CODES, Notice

#: Parameter name -> how a sentence names it (unknown names are used as they are).
LABELS = {
    "l": "the order of mixture l",
    "sigma_x": "the feature noise σ_x",
    "sigma_y": "the label noise σ_y",
    "sigma": "the noise σ",
    "ratio": "the noise ratio σ_y / σ_x",
    "delta": "δ",
    "epsilon": "ε",
    "c": "the clip norm c",
    "T": "the number of synthetic samples T",
    "n": "the dataset size N",
    "dataset size": "the dataset size",
    "class_counts": "the class counts",
    "max_alpha": "the largest Rényi order α_max",
    "d_x": "the number of features d_x",
    "d_y": "the number of classes d_y",
    "runs": "the number of runs",
    "seed": "the seed",
}

#: The code of an error raised without one (any ``ValueError`` that is not a CheckError).
UNCODED = "invalid"


@dataclass(frozen=True)
class Problem:
    """One problem: ``code`` to decide on, ``plain`` to show, ``precise`` for an expander."""

    code: str
    plain: str
    precise: str
    name: str = ""


def label(name: str) -> str:
    """How a sentence names parameter ``name`` (``"delta"`` -> ``"δ"``)."""
    return LABELS.get(name, name)


def _num(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, (int, float)) and abs(v) >= 1e15:
        return f"{float(v):.3g}"
    if isinstance(v, int) or (isinstance(v, float) and math.isfinite(v) and v.is_integer()):
        return f"{int(v):,}"
    if isinstance(v, float):
        return f"{v:g}"
    text = str(v).strip()
    try:  # typed text that reads as a number is shown as typed, without quotes
        float(text.replace(",", "").replace("_", ""))
        return text
    except ValueError:
        return f"'{text[:40]}…'" if len(text) > 40 else f"'{text}'"


def range_words(lo=None, hi=None, lo_open: bool = False, hi_open: bool = False) -> str:
    """An interval in words: ``"from 1 to 5,421"``, ``"between 0 and 1"``, ``"above 0"``."""
    if lo is not None and hi is not None:
        if lo_open and hi_open:
            return f"between {_num(lo)} and {_num(hi)}"
        if not lo_open and not hi_open:
            return f"from {_num(lo)} to {_num(hi)}"
        return (f"above {_num(lo)} and " if lo_open else f"at least {_num(lo)} and ") + (
            f"below {_num(hi)}" if hi_open else f"at most {_num(hi)}")
    if lo is not None:
        return f"above {_num(lo)}" if lo_open else f"of at least {_num(lo)}"
    if hi is not None:
        return f"below {_num(hi)}" if hi_open else f"of at most {_num(hi)}"
    return "that is finite"


def _sentence(text: str) -> str:
    """Capitalise the first letter, but never a symbol: δ stays δ (Δ is another quantity)."""
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def plain_text(exc: CheckError) -> str:
    """The plain sentence for a coded refusal."""
    who = _sentence(label(exc.name))
    why = exc.why.strip()
    why = f" {why}" if why.startswith("(") else ""
    code = exc.code
    if code == "int_range":
        rng = range_words(exc.lo, exc.hi)
        return f"{who} must be a whole number {rng}{why}; {_num(exc.value)} is not."
    if code == "number_range":
        rng = range_words(exc.lo, exc.hi, exc.lo_open, exc.hi_open)
        if exc.lo is None and exc.hi is None:
            return f"{who} must be a finite number; {_num(exc.value)} is not."
        return f"{who} must be a number {rng}{why}; {_num(exc.value)} is not."
    if code == "choice":
        return f"{who} must be one of: {exc.allowed}; {_num(exc.value)} is not."
    if code == "sigma_pair":
        return ("Both noise scales must be zero (no privacy at all) or both above zero; "
                f"{label(exc.name)} is zero and the other is not.")
    if code == "not_a_number":
        wanted = exc.allowed or "a number"
        if exc.value in ("", None):
            return f"{who} is empty: type {wanted}."
        return f"{who} must be {wanted}; {_num(exc.value)} is not."
    return _sentence(str(exc))


def notice_text(notice: Notice) -> str:
    """The plain sentence for a coded warning (:class:`dpcda.util.notices.Notice`)."""
    f = notice.fields
    if notice.code == "non_private":
        return "With no noise (σ = 0) the release has no privacy at all: ε is infinite."
    if notice.code == "max_alpha_edge":
        return (f"The best Rényi order is the largest one tried ({f.get('max_alpha')}): a larger "
                "α_max could give a smaller ε.")
    if notice.code == "delta_not_below_1_over_n":
        n = f.get("n")
        return (f"δ = {f.get('delta'):g} is too large for {_num(n)} records: publishing one "
                f"record at random would meet it. Choose δ below 1/N = {1 / n:.2g}.")
    if notice.code == "pld_rdp_cap":
        return ("This setting spends so much privacy (ε in the hundreds or more) that the exact "
                "(PLD) analysis is out of its numerical range; the ε shown is the RDP bound, which "
                "is also valid.")
    return _sentence(str(notice))


def problem_of(exc: BaseException | str) -> Problem:
    """A :class:`Problem` for a refused input (a CheckError), a warning (a coded Notice, e.g.
    from ``EpsilonResult.warnings``) or any other error or text.

    Anything without a known code keeps its own message as the plain text (code ``"invalid"``).
    """
    precise = str(exc)
    if isinstance(exc, CheckError) and exc.code in CHECK_CODES:
        return Problem(exc.code, plain_text(exc), precise, exc.name)
    if isinstance(exc, Notice) and exc.code in NOTICE_CODES:
        return Problem(exc.code, notice_text(exc), precise)
    return Problem(UNCODED, _sentence(precise), precise)


def unique_problems(problems) -> list[Problem]:
    """``problems`` without repeats (same plain text), in order: each problem is stated once."""
    seen, out = set(), []
    for p in problems:
        if p.plain not in seen:
            seen.add(p.plain)
            out.append(p)
    return out


#: A server file path: absolute (``/a/b``), home-relative (``~/a``) or a Windows drive path,
#: with at least one folder; a sentence's full stop after it is kept. Not ``1/N``,
#: ``σ_y/σ_x``, ``and/or`` (a word before the slash) and not a URL (``://``).
_PATH = re.compile(r"(?<![\w/:.~<>])(?:~|[A-Za-z]:)?[/\\](?:[\w.\-]+[/\\])+(?:[\w.\-]*[\w\-])?"
                   r"|(?<![\w/:.])~[/\\](?:[\w.\-/\\]*[\w\-/\\])?")


def hide_paths(text: str, placeholder: str = "(a file on the server)") -> str:
    """``text`` with every server file path replaced by ``placeholder``: pages show messages
    from the library or a worker (a failed job, a worker that could not start) without where
    things live on the server; the precise form goes to the server's log, not the page.

    >>> hide_paths("No such file: '/srv/dpcda/jobs.sqlite3' (1/N of the data)")
    "No such file: '(a file on the server)' (1/N of the data)"
    """
    return _PATH.sub(placeholder, str(text))
