"""Noise-aware QDA against noise-aware LDA on DP-CDA releases under every default (issue 28).

    DPCDA_DATA_DIR=... python benchmarks/accuracy_qda.py --datasets mnist fashion-mnist \\
        --points 10:64 1:8 --runs 3
    ... --datasets mnist --learners qda --ceiling-only    # the non-private ceiling alone
    ... --learners lda lda-tangent                        # the opt-in lda-tangent beside lda

Each run draws one release (the default accountant, ``whole-record``; ``dp-center``; the default
allocation; c = 1; T = N unless the point says ``eps:l:T``; delta = 1e-5) at each point, trains
both learners on the same release with the inputs the job runner gives them (sigma_x, sigma_y, l
and the class bounds from the card; the image shape, for QDA's tangent prior) and scores them
on the real test split. Beside it the non-private ceiling of each learner: trained
on the real training split, normalised and clipped as the release's rows were (no mixing, no
noise). Prints mean +- std per point, QDA's hyper-parameter choice (made without the test split)
and the training seconds (wall clock; on a shared machine, say so). Never prints noise.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _fit(model, rel, X_test, y_test, ds, card):
    from dpcda.training import TrainConfig, train_and_evaluate
    from dpcda.training.qda import mixing_factors

    p = card.parameters
    train = dict(model=model, n_classes=ds.n_classes, noise_std=float(p["sigma_x"]),
                 clip_norm=float(p["c"]))
    if model in ("lda", "lda-tangent"):
        train["label_noise_std"] = float(p["sigma_y"])
    if model in ("qda", "lda-tangent"):
        sizes = card.data.get("class_bounds") or card.data.get("class_counts")
        train["mix_factors"] = tuple(mixing_factors(int(p["l"]), sizes))
    return train_and_evaluate(rel.X, rel.y, X_test, y_test, y_soft=rel.y_soft,
                              image_shape=ds.image_shape, config=TrainConfig.from_dict(train))


def _ceiling(model, rel, ds, full=False):
    from dpcda.training import TrainConfig, train_and_evaluate

    pre = rel.preprocess
    cfg = TrainConfig.from_dict(dict(model=model, n_classes=ds.n_classes))
    out = train_and_evaluate(pre(ds.X_train), ds.y_train, pre(ds.X_test), ds.y_test,
                             image_shape=ds.image_shape, config=cfg)
    return out if full else out["accuracy"]


def _ms(v):
    return f"{np.mean(v):.4f} +- {np.std(v, ddof=1) if len(v) > 1 else math.nan:.4f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["mnist", "fashion-mnist"])
    ap.add_argument("--points", nargs="+", default=["10:64", "1:8"], help="eps:l or eps:l:T")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--learners", nargs="+", default=["lda", "qda"])
    ap.add_argument("--no-ceiling", action="store_true",
                    help="skip the non-private ceiling (the same for every point of a dataset)")
    ap.add_argument("--ceiling-only", action="store_true",
                    help="only the non-private ceiling (one release per dataset, for its preprocessing)")
    args = ap.parse_args(argv)

    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset

    for name in args.datasets:
        ds = load_dataset(name)
        ceiling = {}
        if args.ceiling_only:
            eps, l = (float(v) for v in args.points[0].split(":")[:2])
            rel = generate_from_dataset(ds, "dp-cda", l=int(l), T=ds.n_train, epsilon=eps)
            for m in args.learners:
                out = _ceiling(m, rel, ds, full=True)
                print(f"{name:14s} non-private ceiling {m}: {out['accuracy']:.4f} (train "
                      f"{out['train_seconds']:.1f} s)" + (f" choice={out.get('learner_choice')}"
                                                          if m == "qda" else ""), flush=True)
            continue
        for point in args.points:
            parts = point.split(":")
            eps, l = float(parts[0]), int(parts[1])
            T = int(parts[2]) if len(parts) > 2 else ds.n_train
            acc = {m: [] for m in args.learners}
            secs = {m: [] for m in args.learners}
            choice, sigma = None, None
            for _ in range(args.runs):
                rel = generate_from_dataset(ds, "dp-cda", l=l, T=T, epsilon=eps)
                card = rel.data_card
                sigma = card.parameters["sigma_x"]
                X_test = rel.preprocess(ds.X_test)
                for m in args.learners:
                    out = _fit(m, rel, X_test, ds.y_test, ds, card)
                    acc[m].append(out["accuracy"])
                    secs[m].append(out["train_seconds"])
                    choice = out.get("learner_choice", choice)
                if not ceiling:
                    ceiling = {m: math.nan if args.no_ceiling else _ceiling(m, rel, ds)
                               for m in args.learners}
            for m in args.learners:
                print(f"{name:14s} eps={eps:<4g} l={l:<3d} T={T:<6d} sigma_x={sigma:.4f} {m}: {_ms(acc[m])} "
                      f"({args.runs} runs; train {np.mean(secs[m]):.1f} s; non-private ceiling "
                      f"{ceiling[m]:.4f})" + (f" choice={choice}" if m != "lda" else ""), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
