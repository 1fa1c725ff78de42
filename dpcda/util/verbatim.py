r"""Text from outside (a link's value, an uploaded file's name, columns or labels) shown as itself
inside the dashboard's Markdown: no link, image, formatting, formula, colour or icon can come
from it (issue 29).

Streamlit draws ``st.markdown``, ``st.error``, ``st.caption`` and the like as Markdown with
GitHub's extensions, ``$…$`` formulas, ``:red[…]`` directives, and rewrites of the *text* after
parsing (``:smile:`` emoji, ``:material/…:`` and ``:streamlit:`` icons, bare ``http://``,
``www.`` and e-mail addresses made links, ``->`` arrows). A backslash before an ASCII punctuation
character stops the first kind (CommonMark), not the second: the rewrites see the unescaped text.
:func:`verbatim` therefore does both:

- a backslash before every character that can start inline syntax (``\ ` * ~ [ ] < > & $ |``,
  and ``_`` unless it sits inside a word, where it never emphasises, so ``σ_x`` stays as typed),
  and before a block marker at the start (``#``, ``-``, ``1.``);
- an invisible WORD JOINER (U+2060) where a rewrite would match: after ``:`` and ``@`` before a
  word character or ``/``, inside ``www.``, between the characters of ``->``, ``<=``, ``--``;
- every run of white space (line breaks included) as one space: a line break would let the
  next line start a heading, a list or a table; bidirectional controls are dropped (they would
  reorder the words around the value on screen).

A code span is no way out: a value with backticks ends it early, and Streamlit rewrites
``:material/`` even there. The text a reader sees (and copies) is the value, apart from the
invisible joiners and collapsed spaces.

>>> print(verbatim("![x](http://host/t.png) **σ_x**").replace(JOINER, "<WJ>"))
!\[x\](http:<WJ>//host/t.png) \*\*σ_x\*\*
>>> shorten("a" * 50, 8)
'aaaaaaa…'
"""

from __future__ import annotations

import re

#: The invisible character put where a rewrite of Streamlit's would otherwise match.
JOINER = "\u2060"

# Inline syntax: escaped everywhere ("_" only where it could emphasise: not inside a word).
_ESCAPE = re.compile(r"[\\`*~\[\]<>&$|]|(?<![^\W_])_|_(?![^\W_])")
# Block markers at the start of the text (a heading, quote, list, rule, table, fence).
_LEAD = re.compile(r"^(\d{1,9})([.)])|^([#>+\-=])")
# Where Streamlit's text rewrites match: shortcodes, icons and URLs after ":" (and "://"),
# e-mail addresses after "@", "www.", and the typographic arrows and dashes.
_BREAK = re.compile(r"(?<=[:@])(?=[\w+\-/])|(?<=[wW]{3})(?=\.)|(?<=[<\-~>=])(?=[\->=])")
_SPACE = re.compile(r"\s+")
# Bidirectional controls: they would let a value reorder the words around it on screen.
_BIDI = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Verbatim(str):
    """Markdown made by :func:`verbatim`: already safe, so a Markdown table
    (:func:`dpcda.report.formatting.markdown_table`) puts it in a cell as it is."""


def verbatim(text) -> Verbatim:
    """Markdown that Streamlit shows as ``text`` (``str()`` of it), with nothing interpreted:
    see the module's notes. Never longer than about three times ``text``; pass values
    through :func:`shorten` where they may be long."""
    if isinstance(text, Verbatim):
        return text
    text = _SPACE.sub(" ", _BIDI.sub("", str(text))).strip()
    text = _BREAK.sub(JOINER, text)
    text = _ESCAPE.sub(lambda m: "\\" + m.group(0), text)
    return Verbatim(_LEAD.sub(lambda m: (m.group(1) + "\\" + m.group(2)) if m.group(1)
                              else "\\" + m.group(3), text, count=1))


def shorten(text, limit: int = 60) -> str:
    """``text`` (``str()`` of it) cut to at most ``limit`` characters, an ellipsis marking a cut."""
    text = str(text)
    return text if len(text) <= limit else text[:max(limit - 1, 0)] + "…"


def quoted(value, limit: int = 60) -> str:
    """A value from outside as Markdown, quoted, through :func:`shorten`: ``'value'``."""
    return verbatim(f"'{shorten(value, limit)}'")
