"""Adult: accuracy on the real test split of a decision tree (depth 8, min leaf 20, as the
library's tabular default) trained on a DP-CDA release, per one-hot decoder, same mixed rows.

    DPCDA_DATA_DIR=... python benchmarks/adult_decode_accuracy.py [--runs 2] [--l 16 64]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.data import load_dataset  # noqa: E402
from dpcda.mechanisms.decoding import DECODERS  # noqa: E402
from dpcda.mechanisms.dp_cda import generate_dpcda_traced  # noqa: E402
from dpcda.mechanisms.prepare import affine_of  # noqa: E402
from dpcda.mechanisms.segments import segment_spans, snap_segments  # noqa: E402
from dpcda.privacy import DEFAULT_ACCOUNTANT  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0])
    ap.add_argument("--l", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--norms", nargs="+", default=["zscore", "scale"])
    a = ap.parse_args()
    torch.set_num_threads(1)
    ds = load_dataset("adult")
    spans = segment_spans(ds.segments, ds.d_x)
    for norm in a.norms:
        kw = {"bounds": ds.feature_bounds} if norm == "scale" else {}
        for eps in a.eps:
            for l in a.l:
                acc = {dec: [] for dec in DECODERS}
                for run in range(a.runs):
                    rel, mixed = generate_dpcda_traced(
                        ds.X_train, ds.y_train, l=l, T=ds.n_train, epsilon=eps,
                        accountant=DEFAULT_ACCOUNTANT, normalize=norm, segments=ds.segments,
                        class_names=ds.class_names, compare_accountants=False, seed=run,
                        decode="argmax", **kw)
                    shift, inv = affine_of(rel.preprocess, ds.d_x)
                    test = rel.preprocess(ds.X_test)
                    for dec in DECODERS:
                        Xs = snap_segments(mixed.X, spans, shift, inv, decode=dec,
                                           sigma=rel.card["parameters"]["sigma_x"], c=1.0,
                                           rng=np.random.default_rng(100 + run), groups=mixed.y)
                        tree = DecisionTreeClassifier(max_depth=8, min_samples_leaf=20,
                                                      random_state=0).fit(Xs, mixed.y)
                        acc[dec].append(float((tree.predict(test) == ds.y_test).mean()))
                print(f"{norm:6s} eps={eps:<4g} l={l:<3d} " + "  ".join(
                    f"{dec} {np.mean(v):.3f} ± {np.std(v):.3f}" for dec, v in acc.items()),
                    flush=True)


if __name__ == "__main__":
    main()
