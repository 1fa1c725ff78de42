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
  card published (:func:`public_bounds`), and nothing before a release.

Under the other accountants the class sizes are public by their relation (their cards publish
them): nothing changes there.
"""

from __future__ import annotations


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

