"""dpcda.util.verbatim (issue 29): text from outside shown as itself in Streamlit's Markdown."""

from __future__ import annotations

import pytest

from dpcda.report.formatting import markdown_table
from dpcda.util.verbatim import JOINER, quoted, shorten, verbatim
from tests.markdown_check import PAYLOADS, problems, seen, shown_text

MORE = ("---", "***", "___", "+ a", "> q", "12) n", "=", "|a|b|", "&amp; &#60;", "\\[x](y)",
        "x\\", "http://x.y/z", "mailto:a@b.co", "a -- b <= c ~= d <-> e", ":+1: :-1: :white_check_mark:",
        ":blue-background[x] :small[y] :help[z]", "**σ_x** and a_b_c", "tab\tand\r\nCRLF",
        "\u202eevil\u202c right-to-left", "<https://evil.example>", "[x]: https://evil.example",
        "[^1]", "- [ ] task", "    indented", "$$\nx\n$$")


@pytest.mark.parametrize("text", PAYLOADS + MORE)
def test_verbatim_shows_the_text_and_nothing_else(text):
    md = verbatim(text)
    assert problems(md) == []
    expected = seen(text.replace("\u202e", "").replace("\u202c", ""))
    assert shown_text(md) == expected


def test_verbatim_leaves_plain_sentences_as_they_are():
    text = "The feature noise σ_x must be a number; 'abc' is not (one of: equal, proportional)."
    assert verbatim(text) == text
    assert verbatim(verbatim("*x*")) == verbatim("*x*")  # escaped once


def test_backticks_open_no_code_span():
    md = "Value: " + verbatim("``a`b``` ![i](http://e.example/i.png)")
    assert problems(md) == [] and shown_text(md) == "Value: ``a`b``` ![i](http://e.example/i.png)"


def test_shorten_and_quoted_bound_a_long_value():
    assert shorten("abc", 3) == "abc" and shorten("abcd", 3) == "ab…"
    md = quoted("[x](http://e.example/" + "a" * 10_000 + ")", limit=30)
    assert len(md) < 60 and problems(md) == [] and shown_text(md).startswith("'[x](http:")
    assert JOINER in md  # "http:" followed by "//": a bare link is broken invisibly


def test_a_markdown_table_puts_verbatim_cells_in_as_they_are():
    md = markdown_table([{"class": verbatim("**a|b** [l](http://e.example)"), "n": 1}])
    assert problems(md, allowed=("table",)) == []
    assert shown_text(md) == "class n **a|b** [l](http://e.example) 1"
