"""Snap one-hot categorical segments back to one-hot after mixing (tabular data, paper §5).

A synthetic row's categorical segment holds a noisy average of one-hot codes in the normalized
(and clipped) space. Each segment is decoded by argmax and re-encoded:

* decode: ``argmax_j (z_j / inv_scale_j)``, i.e. in the raw scale centred on the normalizer's
  shift (``x_j - shift_j``). Clipping multiplies a real row by a positive factor, which this
  argmax ignores, so a real row (l = 1, no noise) always decodes to its own category whatever
  its clip factor; a plain ``inverse_transform`` would instead drift towards the most frequent
  category when rows are clipped hard (z-scored Adult rows have norm ~10 against c = 1).
* re-encode: the normalized code of that category, ``(e_j - shift) * inv_scale``, rescaled to
  the segment's own L2 norm, so the re-encoded row sits at the same scale as the clipped real
  rows the model will be tested on (a real row comes back unchanged).

Post-processing of the released values only: it costs no privacy.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def segment_spans(segments, d: int) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` from Segment objects or pairs; checked to fit ``d`` and not overlap."""
    spans = []
    for s in segments:
        try:
            a, b = (s.start, s.stop) if hasattr(s, "start") else s
            a, b = int(a), int(b)
        except (TypeError, ValueError):
            raise ValueError(f"segments must be Segment objects or (start, stop) pairs, got {s!r}") \
                from None
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
                  inv_scale: np.ndarray) -> np.ndarray:
    """A copy of ``Z`` with every segment decoded and re-encoded (see the module docstring)."""
    out = np.array(Z, dtype=np.float32, copy=True)
    rows = np.arange(len(out))
    for a, b in spans:
        block = out[:, a:b].astype(np.float64)
        inv = inv_scale[a:b]
        sh = shift[a:b]
        live = inv != 0  # a constant column (category absent from the data) is never chosen
        if not live.any():
            continue
        score = np.where(live, block / np.where(live, inv, 1.0), -np.inf)
        code = np.argmax(score, axis=1)
        target = -sh[None, :] * inv[None, :] * np.ones((len(out), 1))
        target[rows, code] = (1.0 - sh[code]) * inv[code]
        norm_t = np.linalg.norm(target, axis=1)
        factor = np.divide(np.linalg.norm(block, axis=1), norm_t, out=np.zeros(len(out)),
                           where=norm_t > 0)
        out[:, a:b] = (target * factor[:, None]).astype(np.float32)
    return out
