"""The dashboard's guided path: four steps from choosing ε to deciding, in plain words.

One source for Home's step cards, each page's opening sentence (:func:`pages.common.step_intro`)
and its "next step" link, and for the stakeholder report. No Streamlit here.

>>> get_step("pages/samples.py").name, next_step(get_step("pages/samples.py")).title
('See the data', 'Utility')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One step: its ``number`` (1-4), ``name``, the ``page`` file and its ``title`` and
    ``icon`` (a Streamlit Material icon name), what to ``do`` there and what to ``look_for``
    (a sentence that follows "Look for"), and the Explain ``note`` key that matters most."""

    number: int
    name: str
    page: str
    title: str
    icon: str
    do: str
    look_for: str
    note: str

    def sentence(self) -> str:
        """What to do and what to look for, as one short paragraph."""
        return f"{self.do} Look for {self.look_for}"


STEPS: tuple[Step, ...] = (
    Step(1, "Choose ε", "pages/privacy.py", "Privacy", ":material/shield_lock:",
         "Pick the dataset, then move the sliders for l and the noise: the big number is ε, "
         "the privacy budget of the release.",
         "how ε falls as the noise or l grows, and the accuracy that ε buys beside it.",
         "epsilon"),
    Step(2, "See the data", "pages/samples.py", "Samples", ":material/image:",
         "Make a synthetic copy of the data at that setting and look at the images.",
         "whether each class still shows through the noise; if every image is static, try a "
         "larger l.", "l"),
    Step(3, "Measure utility", "pages/utility.py", "Utility", ":material/monitoring:",
         "Train a model on the synthetic data and test it on real data, for a few ε or l.",
         "how much accuracy is lost as ε gets smaller, and how far the runs spread.", "learner"),
    Step(4, "Compare and decide", "pages/compare.py", "Compare", ":material/compare_arrows:",
         "Put DP-CDA beside other methods at the same ε, then pick the setting to release.",
         "the smallest ε whose accuracy is still good enough for the job.", "mechanism"),
)


def get_step(page: str) -> Step:
    """The step shown on ``page`` (a file such as ``"pages/samples.py"``); the error lists them."""
    for step in STEPS:
        if step.page == page:
            return step
    raise ValueError(f"page must be one of {', '.join(s.page for s in STEPS)}, got page={page!r}")


def next_step(step: Step) -> Step | None:
    """The step after ``step`` (``None`` after the last one)."""
    return STEPS[step.number] if step.number < len(STEPS) else None
