"""The Choose page's candidates in the address, so that a meeting's shortlist can be shared as a
link (no Streamlit here).

One query parameter, ``candidates``, holds up to three settings, each written with the shared
setting's own names (:meth:`Setting.to_query <dpcda.dashboard.setting.Setting.to_query>`, the
command line's flags), only those that differ from a :class:`~dpcda.dashboard.setting.Setting`'s
defaults, the dataset always::

    candidates=A~dataset:digits,l:4,sigma_x:1;B~dataset:digits,l:16,sigma_x:0.5&chosen=B

A label (``A~``) may be left out: the next free letter is taken. The address carries parameters
only: the candidates' numbers are measured again when the link is opened, never read from it.
:func:`decode` refuses each malformed candidate on its own (a ValueError naming ``candidates``
and what is allowed) and keeps the others; :func:`check_chosen` does the same for ``chosen``.

>>> from dpcda.dashboard.setting import Setting
>>> text = encode([("A", Setting(dataset="digits", l=16, sigma_x=0.5))])
>>> text
'A~dataset:digits,l:16,sigma_x:0.5'
>>> decode(text)[0] == [("A", Setting(dataset="digits", l=16, sigma_x=0.5))]
True
"""

from __future__ import annotations

from typing import Iterable

from dpcda.dashboard.setting import FIELDS, Setting
from dpcda.report.choice import LETTERS, MAX_CANDIDATES
from dpcda.util.verbatim import shorten

PARAM, CHOSEN = "candidates", "chosen"  # the query parameters
#: A link's ``candidates`` is read up to this many characters (issue 29); at most
#: :data:`~dpcda.report.choice.MAX_CANDIDATES` candidates are read (kept or refused, one by one),
#: and what is beyond is said in one sentence.
MAX_LINK_CHARS = 2000
SEP, LABEL, PAIRS, VALUE = ";", "~", ",", ":"
FORM = (f"up to {MAX_CANDIDATES} settings separated by '{SEP}', each written "
        f"[A{LABEL}]name{VALUE}value{PAIRS}name{VALUE}value with the names {', '.join(FIELDS)} "
        f"(a label one of {', '.join(LETTERS[:MAX_CANDIDATES])})")


def encode_setting(s: Setting) -> str:
    """``s`` as ``name:value`` pairs: the dataset, and every field not at its default."""
    default = Setting().to_query()
    return PAIRS.join(f"{k}{VALUE}{v}" for k, v in s.to_query().items()
                      if k == "dataset" or default.get(k) != v)


def encode(labelled: Iterable[tuple[str, Setting]]) -> str:
    """The ``candidates`` value of ``(label, setting)`` pairs ("" for none)."""
    return SEP.join(f"{label}{LABEL}{encode_setting(s)}" for label, s in labelled)


def _refused(text: str, why: str) -> ValueError:
    return ValueError(f"{PARAM} must be {FORM}; the candidate {shorten(text)!r} is refused: {why}")


def decode_setting(text: str, shown: str | None = None) -> Setting:
    """The setting of one candidate's ``name:value`` pairs (a ValueError naming ``candidates``
    and the allowed form and names otherwise, quoting ``shown``, default ``text``; a name not
    given takes its default)."""
    shown = text if shown is None else shown
    values: dict[str, str] = {}
    for pair in text.split(PAIRS):
        name, sep, value = pair.partition(VALUE)
        name = name.strip()
        if not sep or name not in FIELDS:
            raise _refused(shown, f"{shorten(pair)!r} is not name{VALUE}value with a name among "
                                  "them")
        if name in values:
            raise _refused(shown, f"{name} is given twice")
        values[name] = value.strip()
    setting, problems = Setting.from_query(values)
    if problems:
        raise _refused(shown, "; ".join(str(p) for p in problems))
    return setting


def decode(text: str | None) -> tuple[list[tuple[str, Setting]], list[ValueError]]:
    """``(label, setting)`` of each well-formed candidate of a ``candidates`` value, in order,
    and a ValueError for each refused one (a bad label or setting, a label or setting given
    twice); empty parts are skipped.
    Bounded: the first :data:`MAX_LINK_CHARS` characters are read, and the first
    :data:`~dpcda.report.choice.MAX_CANDIDATES` candidates in them; the rest is one ValueError
    ("N more ignored")."""
    out: list[tuple[str, Setting]] = []
    problems: list[ValueError] = []
    written = set()  # every label written, kept or refused: a refused A is no other's A
    parts, ignored = _parts(text or "")
    for i, part in enumerate(parts):
        if i >= MAX_CANDIDATES:
            ignored += len(parts) - i
            break
        label, sep, body = part.rpartition(LABEL)
        label = label.strip()
        written.add(label)
        try:
            if sep and label not in LETTERS[:MAX_CANDIDATES]:
                raise _refused(part, f"its label {shorten(label, 12)!r} is not one of the letters")
            if label and label in (x for x, _ in out):
                raise _refused(part, f"the label {label} is given twice")
            setting = decode_setting(body, part)
            if setting in (s for _, s in out):
                raise _refused(part, "the same setting is already a candidate")
        except ValueError as exc:
            problems.append(exc)
            continue
        out.append((label, setting))
    if ignored:
        problems.append(ValueError(
            f"{PARAM}: {ignored:,} more {'candidate' if ignored == 1 else 'candidates'} ignored "
            f"(at most {MAX_CANDIDATES} are read from a link, in its first {MAX_LINK_CHARS:,} "
            "characters)"))
    kept = {x for x, _ in out if x}
    letters = [x for x in LETTERS[:MAX_CANDIDATES] if x not in kept]
    free = iter(sorted(letters, key=lambda x: x in written))  # a refused one's letter last
    return sorted(((x or next(free), s) for x, s in out), key=lambda p: p[0]), problems


def _parts(text: str) -> tuple[list[str], int]:
    """The non-empty parts of a ``candidates`` value within :data:`MAX_LINK_CHARS` characters
    (a part cut there is left out), and how many parts are beyond."""
    head, beyond = text, 0
    if len(text) > MAX_LINK_CHARS:
        cut = text.rfind(SEP, 0, MAX_LINK_CHARS + 1)
        head, rest = text[:max(cut, 0)], text[max(cut, 0):]
        beyond = sum(1 for p in rest.split(SEP) if p.strip())
    return [p.strip() for p in head.split(SEP) if p.strip()], beyond


def check_chosen(text: str | None, labels: Iterable[str]) -> str | None:
    """The ``chosen`` label of the address (``None`` when absent); a ValueError naming
    ``chosen`` and the candidates' labels when it is not one of them."""
    labels = list(labels)
    if text is None or not str(text).strip():
        return None
    if text.strip() not in labels:
        raise ValueError(f"{CHOSEN} must be one of {', '.join(labels) or '(no candidates)'}, "
                         f"got {CHOSEN}={shorten(text)!r}")
    return text.strip()
