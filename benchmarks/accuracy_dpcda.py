"""Accuracy of learners trained on a DP-CDA release, tested on the real test split.

    .venv/bin/python benchmarks/accuracy_dpcda.py --dataset fashion-mnist --eps 10 --l 4 \
        --learners linear ncm cnn:group cnn:bn --epochs 3 --runs 3

A learner is ``model[:cnn_norm][+option=value...]``, e.g. ``cnn:bn+eval_noise=1`` (evaluate on
test images with noise of the release's sigma added), ``cnn:group+denoise=1.0``,
``linear+soft`` (soft-label cross-entropy), ``cnn:group+blur=1.0`` (filter train and test),
``cnn:bn+const`` (constant learning rate), ``lda`` (noise-aware LDA with the release's sigma),
``lda+plain`` (ordinary shrinkage LDA), ``lda+nolabel`` (no label-noise model), ``lda+shrink=0.001``.
Every run draws a fresh release (release seed
``run``) and a fresh initialisation; figures are mean +- std (ddof=1) over runs.
torch uses one thread (the machine is shared). Never prints the noise or the seeds' draws.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accuracy_common import dpcda_release, load_images, sigma_for, zscore_clip  # noqa: E402


def parse_learner(spec: str, sigma: float) -> tuple[str, dict]:
    head, *opts = spec.split("+")
    model, _, norm = head.partition(":")
    kw: dict = {"model": model}
    if model == "lda":
        kw["noise_std"] = sigma  # the release's public sigma_x
        kw["label_noise_std"] = sigma  # ... and sigma_y (= sigma_x here): label-noise model
    if norm:
        kw["cnn_norm"] = norm
    for o in opts:
        key, _, val = o.partition("=")
        if key == "soft":
            kw["label_mode"] = "soft"
        elif key == "eval_noise":
            kw["eval_noise_std"] = sigma
            kw["eval_noise_draws"] = int(val or 1)
        elif key == "denoise":
            kw["denoise_sigma"] = float(val)
        elif key == "blur":
            kw["denoise_sigma"] = float(val)
            kw["denoise_test"] = True
        elif key == "const":
            kw["scheduler"] = "none"
        elif key == "wd":
            kw["weight_decay"] = float(val)
        elif key == "shrink":
            kw["lda_shrinkage"] = float(val)
        elif key == "plain":
            kw["noise_std"] = 0.0
            kw["label_noise_std"] = 0.0
        elif key == "nolabel":
            kw["label_noise_std"] = 0.0
        elif key == "step":
            kw["scheduler"] = "step"
        else:
            raise SystemExit(f"unknown learner option {o!r}")
    return spec, kw


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="fashion-mnist", choices=["mnist", "fashion-mnist"])
    ap.add_argument("--eps", type=float, default=10.0)
    ap.add_argument("--l", type=int, default=4)
    ap.add_argument("--c", type=float, default=1.0)
    ap.add_argument("--T", type=int, default=60000)
    ap.add_argument("--learners", nargs="+", default=["linear", "ncm"])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)  # this script only, to share the CPU politely
    from dpcda.training import TrainConfig, train_and_evaluate

    Xtr, ytr, Xte, yte = load_images(args.dataset)
    Ztr, Zte = zscore_clip(Xtr, Xte, args.c)
    sigma, source = sigma_for(args.eps, args.l, T=args.T, n=len(Xtr), c=args.c)
    print(f"# {args.dataset} eps={args.eps} l={args.l} c={args.c} T={args.T} delta=1e-5 "
          f"sigma_x=sigma_y={sigma:.4f} ({source}); z-score, clip c; input x sqrt(784)/c; "
          f"epochs={args.epochs} batch={args.batch_size} Adam 1e-3 cosine; runs={args.runs}")
    results: dict[str, list[float]] = {}
    for run in range(args.runs):
        rng = np.random.default_rng(1000 + run)
        Xs, ys, Ss = dpcda_release(Ztr, ytr, l=args.l, T=args.T, sigma_x=sigma, sigma_y=sigma, rng=rng)
        for spec in args.learners:
            name, kw = parse_learner(spec, sigma)
            cfg = TrainConfig(epochs=args.epochs, batch_size=args.batch_size, clip_norm=args.c, **kw)
            t0 = time.perf_counter()
            r = train_and_evaluate(Xs, ys, Zte, yte, y_soft=Ss, image_shape=(1, 28, 28),
                                   config=cfg, seed=run)
            per = " ".join(f"{e['test_accuracy']:.4f}" for e in r["per_epoch"]
                           if e["test_accuracy"] is not None)
            print(f"run {run} {name:28s} acc {r['accuracy']:.4f}  per-epoch [{per}]  "
                  f"{time.perf_counter() - t0:.0f}s", flush=True)
            results.setdefault(name, []).append(r["accuracy"])
    print("# summary (mean +- std over runs)")
    for name, accs in results.items():
        a = np.asarray(accs)
        sd = a.std(ddof=1) if len(a) > 1 else float("nan")
        print(f"{args.dataset} eps={args.eps} l={args.l} {name:28s} {a.mean():.4f} +- {sd:.4f} (n={len(a)})")


if __name__ == "__main__":
    main()
