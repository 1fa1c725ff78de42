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

from adult_decoding_common import decoded_releases  # noqa: E402

from dpcda.data import load_dataset  # noqa: E402
from dpcda.mechanisms.decoding import DECODERS  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0])
    ap.add_argument("--l", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--norms", nargs="+", default=["zscore", "scale"])
    a = ap.parse_args()
    torch.set_num_threads(1)
    ds = load_dataset("adult")
    for norm in a.norms:
        for eps in a.eps:
            for l in a.l:
                acc = {dec: [] for dec in DECODERS}
                for _, mixed, test, decoded in decoded_releases(ds, norm=norm, eps=eps, l=l,
                                                                runs=a.runs):
                    for dec, Xs in decoded.items():
                        tree = DecisionTreeClassifier(max_depth=8, min_samples_leaf=20,
                                                      random_state=0).fit(Xs, mixed.y)
                        acc[dec].append(float((tree.predict(test) == ds.y_test).mean()))
                print(f"{norm:6s} eps={eps:<4g} l={l:<3d} " + "  ".join(
                    f"{dec} {np.mean(v):.3f} ± {np.std(v):.3f}" for dec, v in acc.items()),
                    flush=True)


if __name__ == "__main__":
    main()
