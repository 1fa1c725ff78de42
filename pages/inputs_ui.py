"""Typed inputs and problems for the dashboard pages (not a page itself; re-exported by
``pages.common``).

- :func:`int_input` / :func:`float_input`: a typed number refused at the widget with the range
  in words (never clamped, never read as something else), raising :class:`InputRefused` after
  the refusal is shown; the page stops or skips what depends on the value. :func:`typed`
  returns :data:`REFUSED` instead, for a page that draws all its inputs before it stops (a
  widget left undrawn on a run loses its value in the browser).
- :func:`show_problem`: one problem, once, in plain words (from its code, see
  :mod:`dpcda.util.messages`), the precise library message in a "Details" expander; server paths
  in either are replaced by words (:func:`dpcda.util.messages.hide_paths`); the words are shown
  as typed, never as Markdown (:func:`dpcda.util.verbatim.verbatim`: they quote typed values,
  file and column names).
- :func:`missing_data_note`: a dataset that is not on this server, without any server path.
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.inputs import parse_float_text, parse_int_text
from dpcda.util.messages import Problem, hide_paths, problem_of
from dpcda.util.verbatim import verbatim


class InputRefused(ValueError):
    """Raised by :func:`int_input` / :func:`float_input` after the refusal is on the page (do not
    show it again; stop or skip what depends on the value). ``problem`` is the Problem shown."""

    def __init__(self, problem: Problem):
        super().__init__(problem.precise)
        self.problem = problem


def show_problem(exc: BaseException | Problem, *, container=None, warning: bool = False,
                 info: bool = False, lead: str = "") -> Problem:
    """State one problem once, in plain words, with the precise library message in an expander.

    ``exc``: a ``ValueError`` from ``dpcda`` (its code decides the words, see
    :func:`dpcda.util.messages.problem_of`) or a :class:`~dpcda.util.messages.Problem`.
    ``warning`` / ``info``: a yellow / blue box instead of the red one. ``lead``: the page's own
    Markdown before the words (written by the page, never from outside: it is not escaped).
    """
    p = exc if isinstance(exc, Problem) else problem_of(exc)
    where = container or st
    plain, precise = hide_paths(p.plain), hide_paths(p.precise)  # no server path on a page
    # the words quote typed values, file and column names: shown as typed, never as Markdown
    box = where.warning if warning else where.info if info else where.error
    box(lead + verbatim(plain))
    if precise != plain:
        with where.expander("Details"):
            st.code(precise, language=None, wrap_lines=True)
    return p


def _typed(parse, label, *, key, value, container, help, placeholder, **limits):
    where = container or st
    if key not in st.session_state and value is not None:
        st.session_state[key] = f"{value:g}" if isinstance(value, float) else str(value)
    text = where.text_input(label, key=key, help=help, placeholder=placeholder)
    try:
        return parse(text, **limits)
    except ValueError as exc:
        raise InputRefused(show_problem(exc, container=where)) from None


def int_input(label: str, *, key: str, name: str, lo: int, hi: int | None = None, value=None,
              allow_empty: bool = False, container=None, help=None, placeholder=None):
    """A typed integer, refused at the widget unless in ``[lo, hi]`` (``"1e308"`` for a T capped
    at 1e9 is refused with the range in words, never clamped or read as 1). Returns the int
    (``None`` for an empty box when ``allow_empty``); raises :class:`InputRefused` otherwise."""
    return _typed(parse_int_text, label, key=key, value=value, container=container, help=help,
                  placeholder=placeholder, name=name, lo=lo, hi=hi, allow_empty=allow_empty)


def float_input(label: str, *, key: str, name: str, lo=None, hi=None, lo_open=False,
                hi_open=False, value=None, allow_empty=False, container=None, help=None,
                placeholder=None):
    """A typed finite number inside the interval, refused at the widget otherwise (as
    :func:`int_input`)."""
    return _typed(parse_float_text, label, key=key, value=value, container=container, help=help,
                  placeholder=placeholder, name=name, lo=lo, hi=hi, lo_open=lo_open,
                  hi_open=hi_open, allow_empty=allow_empty)


#: What :func:`typed` returns for a refused input (its refusal is already shown at the widget).
REFUSED = "refused"


def typed(read, *args, **kw):
    """A typed input's value (:func:`int_input` / :func:`float_input`), or :data:`REFUSED` once
    its refusal is shown at the widget: the page then draws its other inputs (a widget left
    undrawn loses its value in the browser) and stops after the last one."""
    try:
        return read(*args, **kw)
    except InputRefused:
        return REFUSED


def missing_data_note(name: str, *, container=None) -> None:
    """A dataset whose files are not on this server: one plain line, the how-to in an expander
    (no server path is ever shown)."""
    from dpcda.data import get_dataset_spec, how_to_get

    where, title = container or st, get_dataset_spec(name).title
    digits = get_dataset_spec("digits").title
    where.info(f"The files of **{title}** are not on this server; **{digits}** always works.")
    with where.expander(f"How to add {title}"):
        st.markdown(how_to_get(name))
