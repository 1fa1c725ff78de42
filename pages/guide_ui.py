"""The guided path on a page (not a page itself; re-exported by ``pages.common``).

A page opens with :func:`step_intro` (which step it is, what to do, what to look for: the same
words as Home's card, from :mod:`dpcda.dashboard.guide`) and may end with :func:`next_step_link`.
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.guide import STEPS, get_step, next_step


def step_intro(page: str, *, container=None) -> None:
    """One plain sentence under the page title: ``Step 2 of 4 · See the data — …``.

    ``page`` is the page's file as app.py registers it, e.g. ``"pages/samples.py"``.
    """
    step = get_step(page)
    (container or st).caption(f"**Step {step.number} of {len(STEPS)} · {step.name}.** "
                              f"{step.do} **Look for** {step.look_for}")


def next_step_link(page: str, *, container=None) -> None:
    """A link to the next step of the guided path (nothing on the last step).

    Outside app.py's navigation (a page run on its own, e.g. by AppTest) Streamlit cannot link
    to another page: the next step is then named in a caption instead of raising.
    """
    from streamlit.errors import StreamlitPageNotFoundError

    after = next_step(get_step(page))
    if after is None:
        return
    where = container or st
    label = f"Next step: {after.number} · {after.name} (**{after.title}**)"
    try:
        where.page_link(after.page, icon=after.icon, label=label)
    except StreamlitPageNotFoundError:
        where.caption(label + " — open it from the navigation.")
