"""Decode and re-encode one-hot categorical segments (vectorized; one numpy pass per segment).

After mixing (averaging rows and adding noise) a one-hot segment holds arbitrary real values;
the DP-CDA paper decodes each segment by argmax and re-encodes it as one-hot. Work in the raw
feature scale: undo a normalizer first (``normalizer.inverse_transform``), because z-scoring
shifts and rescales each one-hot column differently and would change the argmax.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from dpcda.data.dataset import Segment

if TYPE_CHECKING:
    import pandas as pd


def _check(X: np.ndarray, segments: Sequence[Segment]) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (N x d), got shape {X.shape}")
    for s in segments:
        if not isinstance(s, Segment):
            raise ValueError(f"segments must be Segment objects (Dataset.segments), got {s!r}")
        if s.stop > X.shape[1]:
            raise ValueError(f"segment {s.name!r} spans columns {s.start}:{s.stop} but X has "
                             f"{X.shape[1]} columns")
    return X


def segment_codes(X: np.ndarray, segment: Segment) -> np.ndarray:
    """Argmax category index per row (ties -> first); -1 where the segment is all zeros."""
    block = np.asarray(X)[:, segment.start:segment.stop]
    codes = np.argmax(block, axis=1).astype(np.int64)
    codes[~block.any(axis=1)] = -1
    return codes


def reencode_segments(X: np.ndarray, segments: Sequence[Segment]) -> np.ndarray:
    """A copy of ``X`` with each segment snapped to one-hot at its argmax.

    Columns outside the segments are unchanged. A segment that is exactly all zeros (an unseen
    category in the real test split) stays all zeros.
    """
    X = _check(X, segments)
    out = np.array(X, copy=True)
    rows = np.arange(len(out))
    for s in segments:
        codes = segment_codes(X, s)
        out[:, s.start:s.stop] = 0
        hit = codes >= 0
        out[rows[hit], s.start + codes[hit]] = 1
    return out


def decode_segments(X: np.ndarray, segments: Sequence[Segment],
                    feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """A table with one column per categorical segment (argmax category label, ``None`` where the
    segment is all zeros) and one per remaining numeric column, in column order.

    Numeric columns are named from ``feature_names`` (``Dataset.feature_names``) or ``x<j>``.
    """
    import pandas as pd  # here, not at the top: importing dpcda.data stays free of pandas
    X = _check(X, segments)
    d = X.shape[1]
    if feature_names is not None and len(feature_names) != d:
        raise ValueError(f"feature_names must have {d} entries (one per column of X), "
                         f"got {len(feature_names)}")
    starts = {s.start: s for s in segments}
    covered = np.zeros(d, dtype=bool)
    for s in segments:
        if covered[s.start:s.stop].any():
            raise ValueError(f"segment {s.name!r} overlaps another segment")
        covered[s.start:s.stop] = True
    cols: dict[str, object] = {}
    j = 0
    while j < d:
        if j in starts:
            s = starts[j]
            codes = segment_codes(X, s)
            labels = np.asarray(s.categories + (None,), dtype=object)  # index -1 -> None
            cols[s.name] = labels[codes]
            j = s.stop
        else:
            name = feature_names[j] if feature_names is not None else f"x{j}"
            cols[name] = X[:, j]
            j += 1
    return pd.DataFrame(cols)
