"""Shared by the Adult decoder benchmarks: releases of UCI Adult whose mixed rows are decoded by
every one-hot decoder, so the decoders are compared on the same rows."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.mechanisms.decoding import DECODERS  # noqa: E402
from dpcda.mechanisms.dp_cda import generate_dpcda_traced  # noqa: E402
from dpcda.mechanisms.prepare import affine_of  # noqa: E402
from dpcda.mechanisms.segments import segment_spans, snap_segments  # noqa: E402
from dpcda.privacy import DEFAULT_ACCOUNTANT  # noqa: E402


def decoded_releases(ds, *, norm: str, eps: float, l: int, runs: int):
    """Per run: ``(release, mixed, real test split in the release's space, {decoder: rows})``.

    Equal allocation floor(T/K) per class, T = N, the library's default accountant; the release
    is drawn once with the argmax decoder and its mixed rows are decoded again by each decoder.
    """
    spans = segment_spans(ds.segments, ds.d_x)
    kw = {"bounds": ds.feature_bounds} if norm == "scale" else {}
    for run in range(runs):
        rel, mixed = generate_dpcda_traced(
            ds.X_train, ds.y_train, l=l, T=ds.n_train, epsilon=eps, accountant=DEFAULT_ACCOUNTANT,
            normalize=norm, allocation="equal", segments=ds.segments, class_names=ds.class_names,
            compare_accountants=False, seed=run, decode="argmax", **kw)
        shift, inv = affine_of(rel.preprocess, ds.d_x)
        decoded = {dec: snap_segments(mixed.X, spans, shift, inv, decode=dec,
                                      sigma=rel.card["parameters"]["sigma_x"], c=1.0,
                                      rng=np.random.default_rng(100 + run), groups=mixed.y)
                   for dec in DECODERS}
        yield rel, mixed, rel.preprocess(ds.X_test), decoded
