"""Plain-language notes for every input of the dashboard (the "Explain" toggle).

One note per input name, used by every page (and by the stakeholder report), so a teacher
reads the same sentence wherever ``l`` or ``delta`` appears. Each note says what the input
does and which direction is more private; ``ends`` gives the words printed at the two ends
of a slider (low end first). No Streamlit here: pages draw the notes, the library owns them.
"""

from __future__ import annotations

from dataclasses import dataclass

MORE_PRIVATE = "more private"
LESS_PRIVATE = "less private"


@dataclass(frozen=True)
class Note:
    """What an input does, in plain words, and its privacy direction.

    ``ends`` is ``(low_end, high_end)``: the words at the left and right end of the control,
    e.g. ``("less private", "more private")`` for a noise scale. ``None`` for inputs that have
    no privacy direction (a dataset, a learner).
    """

    key: str
    text: str
    ends: tuple[str, str] | None = None


_NOTES = (
    Note("epsilon", "ε is the privacy budget: how much one person's record can change what is "
         "released. Smaller ε is more private; ε ≤ 1 is strong, ε = 10 is weak but common in "
         "papers.", (MORE_PRIVATE, LESS_PRIVATE)),
    Note("delta", "δ is the small probability that the ε promise fails. Keep it well below "
         "1/N (one over the number of records); smaller δ is more private and makes ε a little "
         "larger.", (MORE_PRIVATE, LESS_PRIVATE)),
    Note("l", "l is how many real records of one class are averaged into each synthetic "
         "sample. Larger l hides each record better (less noise needed for the same ε) but the "
         "samples look more like the class average.", (LESS_PRIVATE, MORE_PRIVATE)),
    Note("sigma_x", "σ_x is the standard deviation of the Gaussian noise added to the "
         "features. More noise is more private and makes samples look like static.",
         (LESS_PRIVATE, MORE_PRIVATE)),
    Note("sigma_y", "σ_y is the noise added to the one-hot label; the learner then sees soft, "
         "sometimes wrong labels. It buys no privacy under the valid accountants: a sample's "
         "label is its class, which depends on no record, so ε does not move (only the paper's "
         "Theorem 1 counts it).", None),
    Note("ratio", "σ_y / σ_x ties the label noise to the feature noise, so one slider moves "
         "both.", None),
    Note("c", "c is the clip norm: every record is shrunk to length at most c before mixing. "
         "At a fixed noise σ, a larger c lets one record move the average more, so it is "
         "less private.", (MORE_PRIVATE, LESS_PRIVATE)),
    Note("T", "T is how many synthetic samples are released. Each one spends a little "
         "privacy, so more samples cost a larger ε (but help the learner).",
         (MORE_PRIVATE, LESS_PRIVATE)),
    Note("accountant", "The accountant is the proof that turns the settings into ε. The "
         "default is a valid bound for the code that ran; 'paper' reproduces the published "
         "numbers and is not a bound for this implementation.", None),
    Note("dataset", "The data to protect. digits ships with the app; MNIST, Fashion-MNIST and "
         "Adult need their files (see the sidebar's note).", None),
    Note("normalization", "How records are scaled before mixing. 'scale' uses a public range "
         "and spends no privacy; 'zscore' uses statistics of the private data and is not "
         "covered by the guarantee.", None),
    Note("allocation", "How the T samples are split over classes: in proportion to the public "
         "class sizes, or equally.", None),
    Note("mechanism", "The way synthetic data is produced: DP-CDA (class-wise mixing), DPMix, "
         "local noise on each record, random projection, or DP-MERF.", None),
    Note("learner", "The model trained on the synthetic data and tested on real held-out "
         "data; its accuracy is the utility the release buys.", None),
    Note("runs", "Each setting is repeated with fresh noise; the spread shows how much luck "
         "is in one number.", None),
    Note("experiment", "What the accuracy is drawn against: l, ε (σ found for each target), a "
         "fixed noise σ (the accountant then reports the ε it gives), or the number of "
         "samples T.", None),
    Note("epochs", "How many passes the learner makes over the synthetic data (torch learners "
         "only; lda, ncm and tree fit in one step). More epochs take longer and cost no "
         "privacy.", None),
    Note("label_mode", "Hard labels: the class each sample was made from. Soft labels: the "
         "noisy label vector that was released. Neither costs extra privacy.", None),
    Note("denoise", "Blurs the released images slightly after release (post-processing): it "
         "costs no privacy and can help a learner.", None),
    Note("conversion", "How a Rényi bound is turned into the (ε, δ) promise; 'improved' gives "
         "a slightly smaller, equally valid ε. It does not change the noise that is added.",
         None),
    Note("max_alpha", "The largest Rényi order the ε is minimised over. Raise it only when a "
         "warning says the best order is at the edge.", None),
    Note("trials", "How many times the audit runs the mechanism with and without the canary "
         "record. More trials give a tighter audited bound and take longer.", None),
    Note("target_epsilon", "The ε you want to reach; the calibration finds the noise that gets "
         "there for each l. Smaller ε is more private and needs more noise.",
         (MORE_PRIVATE, LESS_PRIVATE)),
    Note("noise_mode", "Say how private the release must be (a target ε: the noise is found for "
         "you), or set the noise σ yourself and read the ε it gives.", None),
    Note("grid_size", "How many released samples of each class the picture shows; it changes "
         "only the picture, not the release.", None),
)

NOTES: dict[str, Note] = {n.key: n for n in _NOTES}


def list_notes() -> list[str]:
    """The input names that have a note."""
    return sorted(NOTES)


def get_note(key: str) -> Note:
    """The note for input ``key``; the error lists the known names."""
    try:
        return NOTES[key]
    except KeyError:
        raise ValueError(
            f"key must be one of {', '.join(list_notes())}, got key={key!r}") from None


def ends_text(key: str) -> str:
    """``"← more private · less private →"`` for a slider's caption, or ``""``."""
    ends = get_note(key).ends
    return f"← {ends[0]} · {ends[1]} →" if ends else ""
