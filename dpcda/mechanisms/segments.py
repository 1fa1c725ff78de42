"""Snap one-hot categorical segments back to one-hot after mixing (tabular data, paper §5).

A synthetic row's categorical segment holds a noisy average of one-hot codes in the normalized
(and clipped) space. Each segment is decoded and re-encoded:

* decode: in the raw scale centred on the normalizer's shift (``z_j / inv_scale_j``), by the
  rule ``decode`` names (:mod:`dpcda.mechanisms.decoding`; the generator's default is the
  calibrated posterior, which keeps rare categories rare). The argmax rule is
  ``argmax_j (z_j / inv_scale_j)``. Clipping multiplies a real row by a positive factor, which this
  argmax ignores, so a real row (l = 1, no noise) always decodes to its own category whatever
  its clip factor; a plain ``inverse_transform`` would instead drift towards the most frequent
  category when rows are clipped hard (z-scored Adult rows have norm ~10 against c = 1).
* re-encode: the normalized code of that category, ``(e_j - shift) * inv_scale`` (what the
  normalizer makes of a one-hot row, before clipping; for ``"scale"`` with one-hot bounds
  [0, 1] this is plain 0/1).

Measured with the argmax rule on UCI Adult (epsilon = 10, paper accountant, z-score, c = 1, T = N;
mean of 2 runs, accuracy on the real test split): decision tree (depth 8) 0.803 at l = 16 and 0.761 at l = 64,
logistic regression 0.804 / 0.764. Decoding via a plain ``inverse_transform`` instead gave
0.779 / 0.771 (tree) and 0.802 / 0.705 (logistic); re-encoding at the segment's own norm
instead of the unit code gave 0.761 / 0.643 (tree). Without re-encoding: 0.718 / 0.633 (tree).

Post-processing of the released values only: it costs no privacy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def segment_spans(segments, d: int) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` from Segment objects or pairs, checked to fit ``d``, no overlap."""
    spans = []
    for s in segments:
        try:
            a, b = (s.start, s.stop) if hasattr(s, "start") else s
            a, b = int(a), int(b)
        except (TypeError, ValueError):
            raise ValueError("segments must be Segment objects or (start, stop) pairs, "
                             f"got {s!r}") from None
        if not (0 <= a < b <= d):
            raise ValueError(f"segment {s!r} must satisfy 0 <= start < stop <= d={d}")
        spans.append((a, b))
    covered = np.zeros(d, dtype=bool)
    for a, b in sorted(spans):
        if covered[a:b].any():
            raise ValueError(f"segments overlap at columns {a}:{b}")
        covered[a:b] = True
    return spans


def snap_segments(Z: np.ndarray, spans: Sequence[tuple[int, int]], shift: np.ndarray,
                  inv_scale: np.ndarray, *, decode: str = "argmax", sigma: float = 0.0,
                  c: float = 1.0, rng=None,
                  groups: np.ndarray | None = None) -> np.ndarray:
    """A copy of ``Z`` with every segment decoded and re-encoded (see the module docstring).

    ``decode``: the rule choosing each row's category, one of
    :data:`dpcda.mechanisms.decoding.DECODERS` (``sigma``: the feature noise ``sigma_x``;
    ``c``: the clip norm; ``groups``: released hard labels, for the per-label marginals).
    """
    from dpcda.mechanisms.decoding import check_decoder, choose_codes

    check_decoder(decode)
    out = np.array(Z, dtype=np.float32, copy=True)
    rows = np.arange(len(out))
    d_live = max(1, int(np.count_nonzero(inv_scale)))
    fallback_m = min(1.0, float(c) / np.sqrt(d_live))
    for a, b in spans:
        block = out[:, a:b].astype(np.float64)
        inv = inv_scale[a:b]
        sh = shift[a:b]
        live = inv != 0  # a constant column (category absent from the data) is never chosen
        if not live.any():
            continue
        cols = np.flatnonzero(live)
        s = block[:, cols] / inv[cols]
        code = cols[choose_codes(s, sh[cols], inv[cols], decoder=decode, sigma=float(sigma),
                                 fallback_m=fallback_m, rng=rng, groups=groups)]
        target = np.broadcast_to(-sh * inv, (len(out), b - a)).copy()
        target[rows, code] = (1.0 - sh[code]) * inv[code]
        out[:, a:b] = target.astype(np.float32)
    return out
