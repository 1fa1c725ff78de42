"""Training throughput: dpcda's fast loop vs a plain torch DataLoader loop, side by side.

    .venv/bin/python benchmarks/bench_training.py [--slice 2000] [--repeats 3] [--threads 1]

Same model (the Table 2 ``cnn``, GroupNorm default, or ``--norm``; then ``linear``, where the
per-sample compute is tiny and loader overhead shows), same data (60,000 random
1x28x28 float32 images, 10 classes), same optimiser (Adam 1e-3), batch 256, same device.
Each repeat trains both loops for one pass over a ``--slice``-sample slice for the CNN (the
CPU here is shared, so its full epochs are extrapolated: seconds per 60,000-sample epoch =
60,000 / rate) and over all 60,000 samples for the cheap models.
The order alternates between repeats; the median rate is reported. Timings exclude model
construction and evaluation for both.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def dataloader_loop(X, y, *, model_name: str, norm: str, batch_size: int, device: str,
                    seed: int) -> float:
    """The plain baseline: TensorDataset + DataLoader(shuffle=True, num_workers=0)."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from dpcda.training import get_model

    torch.manual_seed(seed)
    model = get_model(model_name, input_shape=X.shape[1:], n_classes=10, norm=norm).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(y)),
                        batch_size=batch_size, shuffle=True, num_workers=0)
    model.train()
    t0 = time.perf_counter()
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if device == "cuda":
        torch.cuda.synchronize()
    return len(X) / (time.perf_counter() - t0)


def fast_loop(X, y, Xte, yte, *, model_name: str, norm: str, batch_size: int,
              seed: int) -> tuple[float, str]:
    from dpcda.training import TrainConfig, train_and_evaluate

    cfg = TrainConfig(model=model_name, cnn_norm=norm, epochs=1, batch_size=batch_size,
                      eval_every_epoch=False, input_scale=1.0)
    r = train_and_evaluate(X, y, Xte, yte, config=cfg, seed=seed)
    return r["samples_per_s"], r["device"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slice", type=int, default=2000, help="samples per timed pass")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (this script only)")
    ap.add_argument("--norm", default="group", choices=["group", "bn", "bn-batch", "none"])
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--models", nargs="+", default=["cnn", "linear"],
                    help="torch models to compare (cnn is the Table 2 CNN)")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from dpcda.training import pick_device

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60000, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, size=60000).astype(np.int64)
    Xte, yte = X[:10], y[:10]
    device = pick_device()
    print(f"device={device} torch_threads={args.threads} batch={args.batch_size} "
          f"slice={args.slice} repeats={args.repeats} data=60,000 x 1x28x28 random float32")
    for model_name in args.models:
        kw = dict(model_name=model_name, norm=args.norm, batch_size=args.batch_size)
        # warm-up (first-use imports and allocator) for both, untimed
        fast_loop(X[:512], y[:512], Xte, yte, seed=0, **kw)
        dataloader_loop(X[:512], y[:512], device=device, seed=0, **kw)
        fast, plain = [], []
        # convolutional models: a slice (extrapolated); the others are cheap: full 60,000
        n = args.slice if "cnn" in model_name else 60000
        for rep in range(args.repeats):
            lo = (rep * n) % (60000 - n + 1)
            Xs, ys = X[lo:lo + n], y[lo:lo + n]
            # the lambdas run within this iteration, so the loop variables they read are current
            runs = [("fast", lambda: fast_loop(Xs, ys, Xte, yte, seed=rep, **kw)[0]),  # noqa: B023
                    ("plain", lambda: dataloader_loop(Xs, ys, device=device, seed=rep, **kw))]  # noqa: B023
            for name, fn in (runs if rep % 2 == 0 else runs[::-1]):
                (fast if name == "fast" else plain).append(fn())
        f, p = statistics.median(fast), statistics.median(plain)
        label = f"{model_name}" + (f"(norm={args.norm})" if model_name == "cnn" else "")
        how = f"extrapolated from {n} samples" if n < 60000 else "measured"
        print(f"[{label}] fast loop (tensors on device, index batches): {f:10.0f} samples/s "
              f"-> {60000 / f:8.2f} s per 60,000-sample epoch ({how})")
        print(f"[{label}] plain DataLoader(TensorDataset, workers=0):  {p:10.0f} samples/s "
              f"-> {60000 / p:8.2f} s per 60,000-sample epoch ({how})")
        print(f"[{label}] ratio fast / plain: {f / p:.2f}x  (per repeat: fast "
              f"{[round(v) for v in fast]}, plain {[round(v) for v in plain]})", flush=True)


if __name__ == "__main__":
    main()
