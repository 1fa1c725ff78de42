"""Preprocessing in front of a generator: normalize, then clip rows (DP-CDA steps 1-2).

The normalizers themselves live in :mod:`dpcda.data.preprocess`; this module picks one from a
name (or takes a fitted one), remembers the clip norm, and describes both for the data card.
The fitted :class:`Preprocessor` is what a trainer applies to the real test split; it is never
exported (a z-score carries the private data's mean and std).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NORMALIZE_CHOICES = ("zscore", "scale", "none")
#: Normalisations with statistics estimated under DP: only a generator that composes their
#: privacy cost into its epsilon may use them (DP-CDA: :mod:`dpcda.privacy.composed`).
DP_NORMALIZE_CHOICES = ("dp-center",)
ALL_NORMALIZE_CHOICES = NORMALIZE_CHOICES + DP_NORMALIZE_CHOICES

_NOTES = {
    "zscore": "per-feature z-score with mean and std computed on the private training data: "
              "these statistics are NOT covered by the differential-privacy guarantee",
    "scale": "features scaled by a fixed, public, data-independent range (pixels: x / 255): "
             "nothing is learned from the private data",
    "none": "features used as given (the caller's own preprocessing, not recorded here)",
    "dp-center": "public range scaled to [0, 1], square root, minus a per-feature mean estimated "
                 "under differential privacy (one Gaussian release composed into the epsilon)",
}


@dataclass(frozen=True, eq=False)
class Preprocessor:
    """``__call__(X) = clip_rows(normalizer.transform(X), c)`` (each step optional)."""

    method: str
    normalizer: object = field(default=None, repr=False)
    c: float | None = None

    def __call__(self, X) -> np.ndarray:
        """Float32 rows; normalised and clipped in float64, block by block, so that no finite
        value, however large, reaches a float32 cast before the clip (docs/security.md,
        "Extreme values"). Without ``c`` the values are clamped to float32's finite range."""
        from dpcda.data.preprocess import CLIP_CHUNK, check_clip, check_finite, clip64, finite_as

        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D array (N x d), got shape {X.shape}")
        check_finite(X)
        c = None if self.c is None else check_clip(self.c)
        out = np.empty(X.shape, dtype=np.float32)
        for i in range(0, X.shape[0], CLIP_CHUNK):
            block = _transform64(self.normalizer, X[i:i + CLIP_CHUNK])
            out[i:i + CLIP_CHUNK] = clip64(block, c) if c is not None else \
                finite_as(block, np.float32)
        return out

    @property
    def uses_private_statistics(self) -> bool:
        return bool(getattr(self.normalizer, "uses_private_statistics", False))

    @property
    def stats_mu(self) -> float | None:
        """GDP parameter of the normaliser's DP statistics release (None: no such release)."""
        return getattr(self.normalizer, "mu", None) if self.method in DP_NORMALIZE_CHOICES \
            else None

    def card(self) -> dict:
        note = getattr(self.normalizer, "description", None) or _NOTES.get(self.method, "")
        if self.uses_private_statistics:
            note = _NOTES["zscore"] if self.method == "zscore" else note + \
                " (statistics from the private data: not covered by the guarantee)"
        out = {"method": self.method,
               "statistics_from_private_data": self.uses_private_statistics,
               "covered_by_guarantee": not self.uses_private_statistics,
               "clip_norm": self.c, "note": note}
        if self.stats_mu is not None:
            out["statistics_under_dp"] = {
                "mu_gdp": float(self.stats_mu), "sensitivity": "sqrt(d) (unit cube, replace-one)",
                "composed": "exactly, into the release's epsilon (privacy loss distributions)"}
        return out


def _transform64(normalizer, X: np.ndarray) -> np.ndarray:
    """``normalizer.transform(X)`` as finite float64 (the identity for ``None``)."""
    if normalizer is None:
        return np.asarray(X, dtype=np.float64)
    try:
        out = normalizer.transform(X, dtype=np.float64)
    except TypeError:  # a caller's own normalizer without a dtype: its float32 output, clamped
        out = normalizer.transform(X)
    return np.nan_to_num(np.asarray(out, dtype=np.float64), nan=0.0,
                         posinf=np.finfo(np.float64).max, neginf=-np.finfo(np.float64).max)


def fit_preprocessor(X, normalize, *, c: float | None, bounds=None, stats_mu: float | None = None,
                     rng=None) -> Preprocessor:
    """Fit on the private training features ``X``.

    ``normalize``: ``"zscore"``, ``"scale"`` (``bounds`` = public per-feature ``(low, high)``;
    default pixels ``[0, 255]``), ``"none"``, or an already fitted normalizer (an object with
    ``transform``, ``method`` and ``uses_private_statistics``, e.g. from
    :func:`dpcda.data.fit_normalizer`). ``c``: clip norm, or None for no clipping.
    ``"dp-center"`` (:mod:`dpcda.data.dp_normalize`) needs ``stats_mu``, the GDP parameter of
    its one Gaussian release, which the caller must compose into its epsilon; ``rng``: the
    release's :class:`dpcda.randomness.SecureRandom`.
    """
    if isinstance(normalize, str):
        if normalize in DP_NORMALIZE_CHOICES:
            if stats_mu is None:
                raise ValueError(f"normalize={normalize!r} estimates statistics under DP and is "
                                 "available for dp-cda only (its epsilon composes their cost); "
                                 f"choose one of {', '.join(NORMALIZE_CHOICES)}")
            from dpcda.data.dp_normalize import fit_dp_center

            return Preprocessor(normalize, fit_dp_center(X, bounds=bounds, mu=stats_mu, rng=rng), c)
        if normalize not in NORMALIZE_CHOICES:
            raise ValueError(f"normalize must be one of {', '.join(NORMALIZE_CHOICES)} or a fitted "
                             f"normalizer, got normalize={normalize!r}")
        if normalize == "none":
            if bounds is not None:
                raise ValueError("bounds applies to normalize='scale' only")
            return Preprocessor("none", None, c)
        from dpcda.data.preprocess import fit_normalizer

        return Preprocessor(normalize, fit_normalizer(X, normalize, bounds=bounds), c)
    if not all(hasattr(normalize, a) for a in ("transform", "method", "uses_private_statistics")):
        raise ValueError(f"normalize must be one of {', '.join(NORMALIZE_CHOICES)} or a fitted "
                         f"normalizer, got {type(normalize).__name__}")
    if bounds is not None:
        raise ValueError("bounds cannot be combined with an already fitted normalizer")
    return Preprocessor(str(normalize.method), normalize, c)


def affine_of(pre: Preprocessor, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature ``(shift, inv_scale)`` of the normalizer (identity for ``"none"``)."""
    norm = pre.normalizer
    if norm is None:
        return np.zeros(d), np.ones(d)
    return np.asarray(norm.shift, dtype=np.float64), np.asarray(norm.inv_scale, dtype=np.float64)
