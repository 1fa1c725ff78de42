"""Building blocks of a release's data card (:class:`~dpcda.mechanisms.data_card.DataCard`).

A card records what was done and what the guarantee assumes, never how the randomness was
drawn: no seed, no RNG state, no noise, no selected indices (see
:data:`dpcda.mechanisms.release.FORBIDDEN_CARD_KEYS`).
"""

from __future__ import annotations

import math

from dpcda.mechanisms.data_card import DataCard
from dpcda.mechanisms.release import epsilon_text, now_iso
from dpcda.util.notices import Notice, notice


def _num(v):
    """A JSON-safe number: finite float/int, or None for inf/nan."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def bound_fields(accountant: str, mechanism: str | None) -> dict:
    """``relation`` (plain words), ``valid_bound`` and, where the accountant is not a valid
    bound for ``mechanism``, ``bound_note`` (:data:`dpcda.privacy.NOT_A_BOUND`)."""
    from dpcda.privacy import caveat, get_accountant

    out = {"relation": get_accountant(accountant).relation}
    if mechanism is not None:
        note = caveat(accountant, mechanism)
        out["valid_bound"] = not note
        if note:
            out["bound_note"] = note
    return out


def privacy_from_result(res, *, calibrated_to: float | None = None,
                        others: dict | None = None, mechanism: str | None = None) -> dict:
    """The privacy block from a :class:`dpcda.privacy.EpsilonResult`; ``mechanism`` (registry
    name) records whether each epsilon is a valid bound for it (:func:`bound_fields`)."""
    from dpcda.privacy import ACCOUNTANT_INFO, CONVERSION_TITLES, NOT_A_BOUND

    acc = ACCOUNTANT_INFO[res.accountant]
    block = {
        "private": bool(res.private),
        "epsilon": _num(res.epsilon),
        "epsilon_text": epsilon_text(res.epsilon),
        "delta": float(res.delta),
        "accountant": res.accountant,
        "accountant_title": acc.title,
        "relation": acc.relation,
        "assumptions": acc.assumptions,
        "conversion": res.conversion,
        "conversion_title": CONVERSION_TITLES.get(res.conversion, res.conversion),
        "alpha": res.alpha if res.alpha is None else float(res.alpha),
        "max_alpha": int(res.max_alpha),
        "at_max_alpha": bool(res.at_max_alpha),
        "warnings": list(res.warnings),
        "calibrated_to_epsilon": calibrated_to,
        **bound_fields(res.accountant, mechanism),
    }
    lower = getattr(res, "epsilon_discretisation_lower", None)
    if lower is not None and res.private:  # PLD: the exact epsilon lies in [lower, epsilon]
        block["epsilon_discretisation_lower"] = _num(lower)
        block["discretisation_bound"] = _num(res.discretisation_bound)
        block["epsilon_text"] += f" (exact value within {res.discretisation_bound:.2g} below)"
    if mechanism is not None and res.private and not block["valid_bound"]:
        block["epsilon_text"] += f" ({NOT_A_BOUND})"
    if not res.private:
        block["label"] = "NON-PRIVATE: sigma_x = sigma_y = 0, epsilon = infinity"
    if others:
        block["other_accountants"] = {k: {**v, **bound_fields(k, mechanism)}
                                      for k, v in others.items()}
    return block


def data_block(*, dataset, N, class_counts, class_names, image_shape, d, class_bounds=None,
               bounds_source: str = "data") -> dict:
    """The card's ``data`` block. ``class_bounds`` (whole-record accounting): the public lower
    bounds on the class sizes it used; the class sizes themselves are then published only where
    they were the bounds (``bounds_source="data"``: treated as public, and said so)."""
    private_counts = class_bounds is not None and bounds_source != "data"
    note = ("N and the class counts N_k enter the privacy accounting and are treated as public "
            "by the accountants")
    if class_bounds is not None:
        note = ("N is public; the class sizes N_k are private under the whole-record relation: the "
                "accountant used the public lower bounds n_k (class_bounds), "
                + ("here the data's own class sizes, so they are treated as public" if not private_counts
                   else "and the class sizes are not published"))
    out = {
        "dataset": dataset,
        "N": int(N),
        "class_counts": None if private_counts else [int(k) for k in class_counts],
        "class_counts_note": note,
        "class_names": None if class_names is None else [str(c) for c in class_names],
        "image_shape": None if image_shape is None else [int(s) for s in image_shape],
        "d_x": int(d),
        "K": len(class_counts),
    }
    if class_bounds is not None:
        out["class_bounds"] = [int(k) for k in class_bounds]
        out["class_bounds_source"] = {"data": "the data's class sizes", "given": "given (public)",
                                      "published": "the dataset's published class counts",
                                      "dp-histogram": "lower confidence bounds from a DP "
                                                      "histogram of the labels (privacy."
                                                      "label_histogram)",
                                      }.get(bounds_source, bounds_source)
    return out


def make_card(*, algorithm: str, title: str, parameters: dict, privacy: dict, data: dict,
              normalization: dict, release: dict, postprocessing: list | None = None) -> DataCard:
    """The typed card (:class:`~dpcda.mechanisms.data_card.DataCard`); ``privacy["warnings"]``
    become its coded notices."""
    from dpcda import __version__

    return DataCard(
        algorithm=algorithm, algorithm_title=title, library="dpcda", library_version=__version__,
        created_at=now_iso(), dataset=data.get("dataset"), parameters=parameters,
        privacy=privacy, data=data, normalization=normalization, release=release,
        postprocessing=postprocessing or [],
        notices=tuple(Notice.from_json(w) for w in privacy.get("warnings", [])))


#: What an unseeded release's randomness is (docs/security.md).
RANDOMNESS_TEXT = ("ChaCha20 keyed with 256 bits from the operating system for this release; "
                   "the key is never stored")
SEEDED_TEXT = "reproducible: not private (anyone who knows how it was made can replay every draw)"


def add_randomness(privacy: dict, source, float_cost=None) -> dict:
    """``privacy`` (modified and returned) with ``seeded``, the randomness used and, where
    noise was rounded to a grid, what floating point adds to the guarantee
    (:class:`dpcda.randomness.noise.FloatCost`); a seeded release is marked not private."""
    privacy["seeded"] = bool(source.seeded)
    privacy["randomness"] = SEEDED_TEXT if source.seeded else RANDOMNESS_TEXT
    if float_cost is not None and float_cost.n_values:
        fp = float_cost.card(privacy.get("epsilon"), float(privacy.get("delta") or 0.0))
        privacy["floating_point"] = fp
        if fp["vacuous"]:
            privacy["warnings"] = [*privacy.get("warnings", []),
                                   notice("float_no_bound", epsilon=fp["epsilon_total"],
                                          delta_total=fp["delta_total"])]
    if source.seeded:  # the epsilon stays: what the same noise gives when drawn unseeded
        privacy["warnings"] = [*privacy.get("warnings", []),
                               notice("seeded_release", seeded_text=SEEDED_TEXT)]
        privacy["private"] = False
        privacy.setdefault("label", "NOT PRIVATE: a seeded release (reproducible); its epsilon "
                                    "is what the same noise gives when drawn from the operating "
                                    "system")
    return privacy
