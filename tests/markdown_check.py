"""What Streamlit would make of a Markdown body (not a test itself): issue 29's checks that text
from outside (a link, an upload) brings no link, image, formatting, formula, colour or icon.

CommonMark is rendered by markdown-it-py (its CommonMark preset plus GitHub's strikethrough and
tables); what it does not know is checked on the source (``$…$`` formulas, ``:red[…]``
directives, single ``~`` strikethrough, ``:material/`` icons); Streamlit's rewrites of the text
after parsing are checked on the rendered text with the patterns of its frontend (1.67):
remark-emoji's shortcodes (also ``:streamlit:`` and the ``:material_…:`` icons), GitHub's bare
``http://``, ``www.`` and e-mail links, and the typographic arrows.
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").enable(["strikethrough", "table"])
#: Payloads for a link's values: a picture fetched from outside, a link inside the app's own
#: warning, formatting, HTML, a formula, a colour, icons, bare links, backticks, line breaks.
PAYLOADS = (
    "![x](http://evil.example/t.png)",
    "[Click here](https://evil.example/r)",
    "__b__ ~~s~~ ~t~ *e* `c`",
    "<img src=http://evil.example/i.png>",
    ":red[r] :smile: $x^2$ www.evil.example",
    "[j](javascript:alert(1)) a@evil.example",
    "``a`b``` :material/home: -> :streamlit:",
    "x\n\n# h\n- li\n> q\n1. n",
)
_TAGS = re.compile(r"<(a|img|em|strong|del|s|code|h[1-6]|ul|ol|li|blockquote|table|hr|pre|br)\b")
_REWRITES = {
    "emoji or icon shortcode": re.compile(r":\+1:|:-1:|:[\w+-][\w_+-]*:"),
    "bare link": re.compile(r"(?i)https?://|www\.|[-.\w+]+@[-\w]+(?:\.[-\w]+)+"),
    "arrow": re.compile(r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),
}
_SOURCE = {
    "formula": re.compile(r"(?<!\\)\$"),
    "directive": re.compile(r":[A-Za-z][\w-]*\\?\["),
    "strikethrough": re.compile(r"(?<!\\)~"),
    "icon": re.compile(r":material/|:streamlit:"),
}


def tags(md: str) -> list[str]:
    """The HTML elements (of :data:`_TAGS`) that the Markdown ``md`` is drawn with, in order."""
    return _TAGS.findall(_MD.render(md))


def shown_text(md: str) -> str:
    """The text a reader sees of ``md`` (tags dropped, entities read, the invisible word
    joiners removed, white space collapsed)."""
    text = html.unescape(re.sub(r"<[^>]+>", "", _MD.render(md)))
    return " ".join(text.replace("\u2060", "").split())


def problems(md: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """What in ``md`` would not be shown as plain text: elements beyond ``allowed`` (the page's
    own, e.g. ``("strong",)`` for a bold lead, in order), rewrites of the text, formulas,
    directives and icons in the source."""
    out = []
    got = tags(md)
    if got != list(allowed):
        out.append(f"elements {got}, expected {list(allowed)}")
    text = html.unescape(re.sub(r"<[^>]+>", "", _MD.render(md)))
    out += [f"{what}: {m.group(0)!r}" for what, rx in _REWRITES.items() for m in rx.finditer(text)]
    out += [f"{what} in the source: {m.group(0)!r}" for what, rx in _SOURCE.items()
            for m in rx.finditer(md)]
    return out


def seen(payload: str, limit: int | None = None) -> str:
    """How a payload reads once shown (white space collapsed; cut to ``limit`` characters with
    an ellipsis, as a refusal quotes a long value)."""
    text = " ".join(payload.split())
    return text if limit is None or len(text) <= limit else text[:limit] + "…"
