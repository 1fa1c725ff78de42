"""What the Samples page may read about a dataset's class sizes (no Streamlit).

Under the ``whole-record`` relation the class sizes are private; its accountant reads public
lower bounds ``n_k`` on them. A built-in split has its published counts
(:func:`dpcda.mechanisms.published_class_bounds`); an upload has none, so every number the page
shows about it comes from public inputs and the release's card (the project rule: anything a
reader publishes is a function of public inputs and the noisy release; docs/security.md, "No
private count in a message"):

- a target epsilon: sigma is set *at release* by the library's own calibration, on lower bounds
  from a DP histogram of the labels (a share of epsilon; docs/whole-record.md §11); before it the
  page says so (:func:`pending_text`) instead of a sigma computed from the true sizes;
- an explicit sigma (or a target on data too small for the histogram, :func:`histogram_serves`):
  the library can only account it with the data's own sizes, treated as public, which its card
  says with the ``class_sizes_from_data`` notice, and so does the page (:func:`setting_notices`);
- the mosaic, the legibility hint and the "Shown so far" tally read the bounds the release's
  card published (:func:`public_bounds`), and nothing before a release;
- the l slider offers the grid up to ``N // K`` (:func:`l_limit`; N is public), not up to the
  smallest class; an l the data cannot serve is refused where the release decides it: from the
  DP label histogram's bounds (:class:`Refused`, :func:`histogram_refusal_text`, the histogram
  counted: :func:`refused_histogram`), or, where the exact sizes are read, before any draw
  (:func:`l_refusal`), in words naming l and the rule only.

Under the other accountants the class sizes are public by their relation (their cards publish
them): nothing changes there.
"""

from __future__ import annotations

from dataclasses import dataclass


def sizes_private(dataset, accountant: str) -> bool:
    """Whether ``accountant`` reads class sizes that ``dataset`` does not publish: a
    ``whole-record`` accountant on data without published class bounds (an upload)."""
    from dpcda.mechanisms import published_class_bounds
    from dpcda.mechanisms.dp_cda_account import BOUNDS_ACCOUNTANTS

    return accountant in BOUNDS_ACCOUNTANTS and published_class_bounds(dataset) is None


def histogram_serves(dataset, *, l: int, T: int, epsilon: float, delta: float) -> bool:
    """Whether a release of ``dataset`` at target ``epsilon`` draws its class bounds from a DP
    label histogram, as :func:`dpcda.mechanisms.generate_dpcda` decides
    (the same :func:`dpcda.privacy.label_histogram.target_plan`, on public inputs only: N, K,
    d, l, T, the target): on data too small for it the release reads the class sizes as public instead (its
    card's ``class_sizes_from_data``)."""
    from dpcda.privacy.label_histogram import target_plan

    return target_plan(epsilon, delta, N=dataset.n_train, K=dataset.n_classes, d=dataset.d_x,
                       T=T, l=l) is not None


def accounting_facts(dataset, accountant: str, *, target: float | None = None, l: int = 1, T: int = 1,
                     delta: float = 1e-5) -> dict:
    """The public facts the page's accountant reads before a release: ``n``, ``class_counts``,
    ``d_x``, ``d_y``. ``class_counts`` is None where the sizes are private and the noise is a
    ``target`` epsilon that a DP label histogram serves (:func:`histogram_serves`: sigma is then
    set at release, nothing is computed from the sizes before it); otherwise the data's sizes,
    as the release's card reads them (with its ``class_sizes_from_data`` notice where they are
    private, :func:`setting_notices`)."""
    hidden = (target is not None and sizes_private(dataset, accountant)
              and histogram_serves(dataset, l=l, T=T, epsilon=target, delta=delta))
    counts = None if hidden else tuple(int(k) for k in dataset.class_counts)
    return dict(n=dataset.n_train, class_counts=counts, d_x=dataset.d_x, d_y=dataset.n_classes)


def public_bounds(dataset, card: dict | None = None) -> tuple[int, ...] | None:
    """Public lower bounds ``n_k`` for a ``whole-record`` composition of what the page drew (the
    "Shown so far" tally): a built-in split's published counts; else those the release's ``card``
    published (``data.class_bounds``: a DP label histogram's, or the data's own sizes where the
    card says it treated them as public); else None (nothing to read them from yet)."""
    from dpcda.mechanisms import published_class_bounds

    if published_class_bounds(dataset) is not None:
        return tuple(int(k) for k in dataset.class_counts)
    bounds = ((card or {}).get("data") or {}).get("class_bounds")
    return None if bounds is None else tuple(int(k) for k in bounds)


def bounds_failure(dataset, card: dict | None = None) -> float:
    """The probability that :func:`public_bounds` do not hold: a DP label histogram's ``beta``
    (``privacy.label_histogram.failure_probability`` on the ``card``) where its bounds are read,
    else 0 (published counts, or the data's own sizes)."""
    from dpcda.mechanisms import published_class_bounds

    if published_class_bounds(dataset) is not None:
        return 0.0
    hist = ((card or {}).get("privacy") or {}).get("label_histogram") or {}
    return float(hist.get("failure_probability") or 0.0)


def mosaic_facts(dataset, accountant: str, card: dict | None = None) -> dict:
    """The facts the mosaic and the legibility hint calibrate on: the accounting facts, with
    :func:`public_bounds` (of ``card``) as the class sizes where they are private and their sum
    as ``n``, as :func:`dpcda.mechanisms.dp_cda_account.account_parts` reads them (None before a
    release: no mosaic then)."""
    facts = accounting_facts(dataset, accountant)
    if sizes_private(dataset, accountant):
        bounds = public_bounds(dataset, card)  # n: their sum, as the release's accountant reads them
        facts.update(class_counts=bounds, n=None if bounds is None else sum(bounds))
    return facts


def hint_limit(dataset, accountant: str, facts: dict) -> int:
    """The largest ``l`` the legibility hint may name: the smallest class where the sizes are
    public; where they are private, what the bounds of :func:`mosaic_facts` allow under
    whole-record (``min(n_k) - 1``), never the private smallest class."""
    if sizes_private(dataset, accountant):
        return min(facts["class_counts"]) - 1
    return int(min(dataset.class_counts))


def mosaic_rows(ls, dataset, accountant: str, facts: dict) -> tuple[int, ...]:
    """The mosaic's rows ``ls`` it may draw: where the class sizes are private, those up to
    :func:`hint_limit` (the bounds allow them, so no row is left out because of a private size:
    :func:`~dpcda.dashboard.samples.mosaic.mosaic_cells` drops an l above its class's size);
    else all of them."""
    if not sizes_private(dataset, accountant):
        return tuple(ls)
    return tuple(v for v in ls if v <= hint_limit(dataset, accountant, facts)) or (1,)


def setting_notices(dataset, accountant: str, *, sigma: float | None, target: float | None = None,
                    l: int = 1, T: int = 1, delta: float = 1e-5) -> list:
    """The coded notices of the page's setting before a release: ``class_sizes_from_data`` where
    the class sizes are private and the release will read them as public (an explicit ``sigma``
    > 0, or a ``target`` no DP label histogram serves: :func:`histogram_serves`), as its card
    will say."""
    from dpcda.util.notices import notice

    if not sizes_private(dataset, accountant):
        return []
    if (sigma is not None and sigma > 0) or (target is not None and not histogram_serves(
            dataset, l=l, T=T, epsilon=target, delta=delta)):
        return [notice("class_sizes_from_data")]
    return []


def pending_text(*, l: int, T: int, c: float, target: float, accountant: str, delta: float) -> str:
    """The page's "Current setting" line where sigma is set at release (a target epsilon on
    private class sizes): public inputs only, no sigma."""
    from dpcda.privacy.label_histogram import DEFAULT_LABEL_SHARE
    from dpcda.report.formatting import fmt_delta, fmt_int

    return (f"**Current setting:** l = {l}, T = {fmt_int(T)}, c = {c:g}, target ε = {target:g} "
            f"({accountant}), δ = {fmt_delta(delta)} → σ_x = σ_y is set at release: this data's "
            "class sizes are private under this relation, so the release first draws public lower "
            f"bounds on them from a DP histogram of its labels ({DEFAULT_LABEL_SHARE:.0%} of ε, "
            "its card says how) and calibrates σ to the rest. Its card states the σ and ε.")



def l_limit(dataset) -> int:
    """The largest ``l`` the page's slider offers: the smallest class where the class sizes are
    published (a built-in split); for an upload ``N // K``, the most a smallest class of N rows in
    K classes can hold: public facts only (N is public under every relation the library accounts;
    the class sizes are not), so two uploads differing only in their class sizes get one slider.
    An ``l`` the data cannot serve is refused at the release (:func:`l_refusal`,
    :func:`histogram_refusal_text`), never lowered to fit."""
    from dpcda.mechanisms import published_class_bounds

    if published_class_bounds(dataset) is not None:
        return int(min(dataset.class_counts))
    return max(1, int(dataset.n_train) // int(dataset.n_classes))


def l_lowered_text(asked, now: int, dataset) -> str:
    """The page's message where an ``l`` (e.g. from a link) is above :func:`l_limit` and the slider
    was set to ``now``: the smallest class where it is published; for an upload N/K (public)."""
    from dpcda.mechanisms import published_class_bounds
    from dpcda.report.formatting import fmt_int

    if published_class_bounds(dataset) is not None:
        return (f"l = {asked} is more than this dataset allows (l averages records of one class, "
                f"so it is at most the smallest class): l is now {now}.")
    return (f"l = {asked} is more than any data of this size allows (l averages records of one "
            f"class, and N = {fmt_int(dataset.n_train)} rows in K = {dataset.n_classes} classes "
            f"leave the smallest at most N/K = {fmt_int(l_limit(dataset))}): l is now {now}.")


def l_refusal(dataset, accountant: str, l: int, class_counts) -> str | None:
    """The page's refusal of an ``l`` above an upload's class sizes where its accounting reads the
    exact sizes (``class_counts`` from :func:`accounting_facts`: an explicit sigma, a target no
    DP label histogram serves, a relation that treats the sizes as public): ``l`` and the rule
    only, never a size (the library's own messages there name the smallest class, public for a
    built-in split; None for one). None where ``l`` is allowed or no exact size is read."""
    from dpcda.mechanisms import published_class_bounds
    from dpcda.mechanisms.dp_cda_account import BOUNDS_ACCOUNTANTS

    if class_counts is None or published_class_bounds(dataset) is not None:
        return None
    whole = accountant in BOUNDS_ACCOUNTANTS
    if int(l) <= min(int(k) for k in class_counts) - (1 if whole else 0):
        return None
    rule = (" minus one (under whole-record a class must keep l records after losing one)" if whole
            else "")
    return (f"l = {l} is more than this data allows: l records of one class are averaged per "
            f"sample, so l must be at most the size of the smallest class{rule}. This data's class "
            "sizes are private and not shown. Lower l; nothing was drawn.")


def histogram_refusal_text(l: int) -> str:
    """The page's refusal where a release at a target epsilon drew lower bounds on an upload's
    class sizes from a DP label histogram and ``l`` is above them
    (:class:`dpcda.mechanisms.dp_cda_account.BoundsRefusal`): decided from that DP histogram,
    worded with ``l`` and the rule only (not the bounds, not a size)."""
    return (f"l = {l} is too large for this release: this data's class sizes are private under "
            "whole-record, so the release first drew public lower bounds on them from a DP histogram "
            "of its labels, and l must be at most the smallest bound minus one (a class must keep l "
            "records after losing one). Nothing was released (the histogram's draw is counted under "
            "Shown so far). Lower l, or raise ε: the bounds come closer to the sizes.")


@dataclass(frozen=True)
class Refused:
    """A release refused after it drew a DP label histogram (kept in the page's cache in place of
    the release, so a rerun at the same setting draws nothing more): ``message``, the library's;
    ``bounds``: whether ``l`` was above the histogram's bounds (then the page words it,
    :func:`histogram_refusal_text`)."""

    message: str
    bounds: bool

    @classmethod
    def of(cls, exc: ValueError) -> Refused:
        from dpcda.mechanisms.dp_cda_account import BoundsRefusal

        return cls(str(exc), isinstance(exc, BoundsRefusal))


def refused_histogram(dataset, *, l: int, T: int, epsilon: float, delta: float):
    """The tally's record (:func:`dpcda.dashboard.shown.histogram_drawn`) of the DP label
    histogram a refused release at target ``epsilon`` drew: its noise from
    :func:`dpcda.privacy.label_histogram.target_plan`, as the release planned it (public inputs)."""
    from dpcda.dashboard.shown import histogram_drawn
    from dpcda.privacy.label_histogram import target_plan

    plan = target_plan(epsilon, delta, N=dataset.n_train, K=dataset.n_classes, d=dataset.d_x, T=T, l=l)
    return histogram_drawn(sigma=plan.sigma, n_classes=dataset.n_classes)
