"""The shared setting on a page (not a page itself): held in the session, mirrored in the address.

Every page reads :func:`shared_setting` (a :class:`dpcda.dashboard.setting.Setting`; on a
session's first run it comes from the address, ``?dataset=mnist&l=16&sigma_x=0.5``), fills its
widgets from it when the reader arrives from another page (:func:`seed`), and writes back what
its widgets say (:func:`publish`), which also rewrites the address: a link reproduces the view.
A refused value in the address is said in plain words on the page (:func:`address_problems`),
the rest of the setting is kept.

Streamlit forgets the value of a widget that a run does not draw (every widget of the page left
behind), so the setting lives in a plain session value, never in a widget's key.
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.setting import FIELDS, Setting
from dpcda.util.messages import problem_of

KEY = "dpcda_setting"
_PROBLEMS = "dpcda_setting_problems"
_PAGE = "dpcda_setting_page"  # the page whose widgets last read the setting
_CHOSEN = "dpcda_setting_chosen"  # the address carried a setting, or a page has written it


def shared_setting() -> Setting:
    """The session's setting (from the address on its first run)."""
    ss = st.session_state
    if KEY not in ss:
        setting, problems = Setting.from_query(st.query_params.to_dict())
        if "dataset" not in st.query_params:  # no dataset asked for: one whose files are here
            from dataclasses import replace

            from dpcda.data import dataset_availability

            if not dataset_availability(setting.dataset).present:
                setting = replace(setting, dataset="digits")  # bundled: always here
        ss[KEY], ss[_PROBLEMS] = setting, [problem_of(p) for p in problems]
        ss[_CHOSEN] = any(name in st.query_params for name in FIELDS)
    return ss[KEY]


def chosen() -> bool:
    """Whether the session's setting is the reader's: carried by the address on the session's
    first run, or written by a page since (a page with defaults of its own, such as Compare's
    quick digits, keeps them for a reader who has chosen nothing yet)."""
    shared_setting()
    return bool(st.session_state.get(_CHOSEN))


def address_problems(container=None) -> None:
    """Say, once and in plain words, which values of the address were refused (in the main
    area, where the reader looks); the link's text is shown as typed, never as Markdown."""
    from dpcda.util.verbatim import verbatim

    shared_setting()  # read from the address on the session's first run, if not yet
    problems = st.session_state.pop(_PROBLEMS, None)
    if problems:
        (container or st).error(
            "**The link's setting was partly refused; the rest is kept.** "
            + " ".join(verbatim(p.plain) for p in problems))


def seed(page: str, values: dict) -> bool:
    """Put ``values`` (widget key -> value from the setting) into the widgets of ``page`` when
    the reader has just arrived on it (or a key is missing); returns whether it did."""
    ss = st.session_state
    arrived = ss.get(_PAGE) != page
    ss[_PAGE] = page
    for key, value in values.items():
        if arrived or key not in ss:
            ss[key] = value
    return arrived


def publish(setting: Setting) -> Setting:
    """Make ``setting`` the session's and write it into the address (other parameters of the
    address, such as ``sweep``, are kept)."""
    st.session_state[KEY] = setting
    st.session_state[_CHOSEN] = True
    query = setting.to_query()
    for name in FIELDS:
        if name in query:
            if st.query_params.get(name) != query[name]:
                st.query_params[name] = query[name]
        elif name in st.query_params:
            del st.query_params[name]
    return setting


def update(**changes) -> Setting:
    """:func:`publish` the session's setting with ``changes``; a refused change leaves that
    field as it was (the page shows the problem at its widget)."""
    setting = shared_setting()
    for name, value in changes.items():
        try:
            setting = setting.replace(**{name: value})
        except ValueError:
            pass
    return publish(setting)


def arriving(page: str) -> bool:
    """Whether the reader is arriving on ``page`` (from another page, or on the session's first
    run): a page whose widget values cost a computation reads the setting only then."""
    return st.session_state.get(_PAGE) != page


_NOW = "dpcda_noise_now"  # (σ_x, ε) of the setting last drawn: a switch of noise mode keeps it


def remember_noise(sigma: float, epsilon: float) -> None:
    """Note the noise and ε the page just drew (for :func:`keep_noise`)."""
    st.session_state[_NOW] = (float(sigma), float(epsilon))


def keep_noise(mode_key: str, eps_key: str, sigma_key: str, target_label: str):
    """An ``on_change`` for a page's noise-mode radio: switching to a target ε fills the target
    with the ε just shown, switching to an explicit σ sets the σ just used (not the defaults:
    the setting read the same before and after the switch)."""
    def switch() -> None:
        import math

        ss = st.session_state
        now = ss.get(_NOW)
        if not now:
            return
        sigma, eps = now
        if ss.get(mode_key) == target_label:
            if math.isfinite(eps) and eps > 0:
                ss[eps_key] = f"{eps:.4g}"
        else:
            ss[sigma_key] = sigma
    return switch
