"""Issue 28 item 2: stronger learner ideas against `lda` and `qda`, side by side on the SAME release.

    OMP_NUM_THREADS=1 DPCDA_DATA_DIR=... python benchmarks/learner_ideas.py --dataset mnist \\
        --epsilon 1 --l 8 [--normalize scale] [--ensemble-ls 4 8 16]

One release at the target epsilon (the default accountant, ``whole-record``; the dataset's default
normalisation unless ``--normalize``; c, allocation and delta = 1e-5 the defaults; T = N), scored on
the real test split (evaluation only: no learner sees it). Learners (all post-processing of the
release and its public card: sigma_x, sigma_y, l, the class bounds):

- ``lda``, ``qda``: the project's noise-aware learners, as the job runner fits them;
- ``lda+qda``: the mean of their class log-probabilities (no extra budget);
- ``lda-tangent``: the ``lda``'s means and pooled covariance with ``qda``'s tangent prior
  (:class:`dpcda.training.lda_tangent.TangentLDA`, the opt-in ``model="lda-tangent"``);
- ``lda-shift``: the ``lda`` made shift-invariant by whole-pixel test-time shifts weighted by
  the release-fitted shift variances (:func:`lda_shift`);
- ``mlp-qda`` / ``mlp-lda``: an MLP (torch, float32, CPU) trained each epoch on fresh samples
  of the fitted class Gaussians (clean space: the noise and the mixing removed); for ``qda`` the
  samples are widened along their own tangents by the release-fitted tangent variances, as
  ``qda`` widens a test image. ``qda+mlp-qda``, ``lda+mlp-lda``: each pair averaged;
- ``mlp-release+qda``: the MLP trained each epoch on the release rows (hard labels) plus fresh
  ``qda`` samples;
- ``ens-l-lda`` / ``ens-l-qda`` / ``ens-l-both``: releases at several l (``--ensemble-ls``), each at
  ``(epsilon / m, delta / m)`` under the default accountant, so that by sequential composition the
  m releases together are ``(epsilon, delta)``-DP (basic composition: a pessimistic split; each
  card's epsilon is read back and the sum checked against the target); the models' class
  log-probabilities averaged. Each release has its own DP preprocessing, so the test split is
  preprocessed per release.

The MLP's settings are fixed in advance (2 x 256 ReLU, Adam 1e-3 with a cosine schedule, batch
256, ``--epochs`` epochs of ``--per-class`` fresh samples per class), never tuned on the test
split. CPU seconds: process CPU time of each training (fit, and for the MLPs sampling and
training; not the test scoring), one thread. The sampling seed is a benchmark convenience: the
samples are post-processing of a release, never a private draw. Never prints noise.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _log_probs(s):
    s = np.where(np.isfinite(s), s, -1e300)
    s = s - s.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


class Fitted:
    """One release's lda and qda, fitted as ``dpcda.training.loop._run_closed`` fits them."""

    def __init__(self, rel, ds, X_test):
        from dpcda.training.learners import NoiseAwareLDA
        from dpcda.training.qda import NoiseAwareQDA, mixing_factors

        p = rel.data_card.parameters
        sizes = rel.data_card.data.get("class_bounds") or rel.data_card.data.get("class_counts")
        K = ds.n_classes
        X = np.asarray(rel.X, dtype=np.float32).reshape(len(rel.X), -1)
        d = X.shape[1]
        self.scale = math.sqrt(d) / float(p["c"])
        self.noise_var = (float(p["sigma_x"]) * self.scale) ** 2
        self.Xtr, self.ytr = X * np.float32(self.scale), np.asarray(rel.y, dtype=np.int64)
        self.Xte = np.asarray(X_test, dtype=np.float64).reshape(len(X_test), -1) * self.scale
        self.K, self.shape = K, tuple(ds.image_shape)
        self.cpu, self.scores = {}, {}
        t = time.process_time()
        self.lda = NoiseAwareLDA(K, noise_var=self.noise_var, label_noise_std=float(p["sigma_y"]))
        self.lda.fit(self.Xtr, self.ytr, noisy_labels=np.asarray(rel.y_soft))
        self.cpu["lda"] = time.process_time() - t
        self.scores["lda"] = _log_probs(self.lda.scores(self.Xte))
        t = time.process_time()
        self.qda = NoiseAwareQDA(K, noise_var=self.noise_var,
                                 mix_factors=tuple(mixing_factors(int(p["l"]), sizes)),
                                 image_shape=self.shape)
        self.qda.fit(self.Xtr, self.ytr)
        self.cpu["qda"] = time.process_time() - t
        self.scores["qda"] = _log_probs(self.qda.scores(self.Xte))


def lda_shift(fit: Fitted, lt) -> np.ndarray:
    """``lda`` made shift-invariant by test-time shifts: class k's score is the log of the sum,
    over whole-pixel shifts s of the test image in {-1, 0, 1}^2, of the prior N(s; 0, diag(the
    release-fitted shift variances of ``qda``, px^2)) times the Gaussian likelihood of the shifted
    image under N(mu_k, C / f) (the ``lda``'s covariance in clean units). A shift along an axis
    whose variance is 0 is not tried. Benchmark only (issue 28, smooth-image prior)."""
    from scipy import ndimage

    lam = fit.qda._model[2]
    f = float(np.mean(fit.qda.mix_factors))
    P = lt._P * f
    mu = fit.lda.means_
    Pm = mu @ P
    c = np.sum(Pm * mu, axis=1)
    img = fit.Xte.reshape(len(fit.Xte), *fit.shape)
    total = None
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if (dy and lam[1] <= 0) or (dx and lam[0] <= 0):
                continue
            X = ndimage.shift(img, (0,) * (img.ndim - 2) + (dy, dx), order=0, mode="nearest")
            X = X.reshape(len(X), -1)
            q = np.sum((X @ P) * X, axis=1)[:, None] - 2 * X @ Pm.T + c[None, :]
            prior = -0.5 * ((dy * dy / lam[1] if dy else 0.0) + (dx * dx / lam[0] if dx else 0.0))
            sc = -0.5 * q + prior
            total = sc if total is None else np.logaddexp(total, sc)
    total[:, ~fit.lda.present_] = -np.inf
    return _log_probs(total)


def qda_sampler(fit: Fitted, rng):
    """Fresh samples of the fitted ``qda`` class Gaussians (clean space), widened along the
    tangents of their signal part (mean + spikes) by the release-fitted tangent variances."""
    from dpcda.training.qda_prior import image_tangents

    means, classes, lam = fit.qda._model

    def draw(n):
        Xs, ys = [], []
        for k, c in enumerate(classes):
            if c is None:
                continue
            var, U, floor = c
            d = means.shape[1]
            z = rng.standard_normal((n, len(var)))
            sig = means[k] + (z * np.sqrt(np.maximum(var - floor, 0.0))) @ U.T
            x = sig + np.sqrt(floor) * rng.standard_normal((n, d))
            if lam is not None and np.any(lam > 0):
                T = image_tangents(sig, fit.shape)
                g = rng.standard_normal((n, len(lam))) * np.sqrt(lam)
                x += np.einsum("nj,njd->nd", g, T)
            Xs.append(x.astype(np.float32))
            ys.append(np.full(n, k))
        return np.concatenate(Xs), np.concatenate(ys)
    return draw


def lda_sampler(fit: Fitted, rng):
    """Fresh samples of the fitted ``lda`` Gaussians: its class means, its clean pooled covariance
    in clean units (the ``lda``'s covariance is f Sigma: a scale that changes no ``lda``
    decision, but samples that much tighter than the test images teach an MLP the wrong spread)."""
    V, ev = fit.lda.covariance_eig_  # release units (f Sigma): divided by the mean mixing factor
    means = fit.lda.means_
    root = V * np.sqrt(ev / float(np.mean(fit.qda.mix_factors)))

    def draw(n):
        Xs, ys = [], []
        for k in np.flatnonzero(fit.lda.present_):
            Xs.append((means[k] + rng.standard_normal((n, len(ev))) @ root.T).astype(np.float32))
            ys.append(np.full(n, k))
        return np.concatenate(Xs), np.concatenate(ys)
    return draw


def train_mlp(draw, fit: Fitted, *, epochs: int, per_class: int, seed: int, release=None):
    """An MLP trained each epoch on ``draw(per_class)`` (plus the release rows if given);
    returns (test log-probabilities, CPU seconds)."""
    import torch
    from torch import nn

    t = time.process_time()
    torch.manual_seed(seed)
    d = fit.Xtr.shape[1]
    net = nn.Sequential(nn.Linear(d, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, fit.K))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    n_epoch = per_class * fit.K + (0 if release is None else len(release[0]))
    steps = epochs * math.ceil(n_epoch / 256)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        X, y = draw(per_class)
        if release is not None:
            X, y = np.concatenate([X, release[0]]), np.concatenate([y, release[1]])
        X, y = torch.from_numpy(X), torch.from_numpy(y.astype(np.int64))
        perm = torch.randperm(len(X), generator=gen)
        for i in range(0, len(X), 256):
            idx = perm[i:i + 256]
            loss = nn.functional.cross_entropy(net(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    cpu = time.process_time() - t
    with torch.no_grad():
        out = torch.log_softmax(net(torch.from_numpy(fit.Xte.astype(np.float32))), dim=1).numpy()
    return out.astype(np.float64), cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="mnist")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--l", type=int, default=8)
    ap.add_argument("--normalize", default=None, help="default: the dataset's default")
    ap.add_argument("--ensemble-ls", type=int, nargs="*", default=None,
                    help="l of the ensemble's releases (default l/2, l, 2l); none: skip")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--per-class", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0, help="MLP init and sampling (post-processing)")
    ap.add_argument("--skip-mlp", action="store_true")
    ap.add_argument("--mlps", nargs="*", default=["mlp-qda", "mlp-lda", "mlp-release+qda"])
    args = ap.parse_args(argv)

    from dpcda.data import load_dataset
    from dpcda.mechanisms import default_normalization, generate_from_dataset

    ds = load_dataset(args.dataset)
    y_test = np.asarray(ds.y_test)
    extra = {} if args.normalize is None else {"normalize": args.normalize}
    delta = 1e-5

    def release(l, eps, dl):
        return generate_from_dataset(ds, "dp-cda", l=l, T=ds.n_train, epsilon=eps, delta=dl, **extra)

    rows = []  # (learner, accuracy, cpu seconds, note)

    def acc(s):
        return float(np.mean(s.argmax(axis=1) == y_test))

    rel = release(args.l, args.epsilon, delta)
    priv = rel.card["privacy"]
    p = rel.data_card.parameters
    print(f"# {args.dataset} eps={priv['epsilon']:.4g} ({priv['accountant']}, delta={priv['delta']:g}) "
          f"l={args.l} sigma_x={float(p['sigma_x']):.4f} sigma_y={float(p['sigma_y']):.4f} "
          f"normalize={args.normalize or default_normalization(ds)}", flush=True)
    fit = Fitted(rel, ds, rel.preprocess(ds.X_test))
    rows += [("lda", acc(fit.scores["lda"]), fit.cpu["lda"], ""),
             ("qda", acc(fit.scores["qda"]), fit.cpu["qda"], f"choice {fit.qda.choice_['spikes']}"),
             ("lda+qda", acc(fit.scores["lda"] + fit.scores["qda"]), fit.cpu["lda"] + fit.cpu["qda"], "")]
    from dpcda.training.lda_tangent import TangentLDA

    t = time.process_time()
    lt = TangentLDA(fit.K, noise_var=fit.noise_var, label_noise_std=float(p["sigma_y"]),
                    mix_factors=fit.qda.mix_factors, image_shape=fit.shape)
    lt.fit(fit.Xtr, fit.ytr, noisy_labels=np.asarray(rel.y_soft))
    t_fit = time.process_time() - t
    s_lt = _log_probs(lt.scores(fit.Xte))
    rows.append(("lda-shift", acc(lda_shift(fit, lt)), t_fit, "benchmark only"))
    rows.append(("lda-tangent", acc(s_lt), t_fit,
                 f"scoring {time.process_time() - t - t_fit:.0f} CPU s; lam "
                 f"{[round(v, 3) for v in lt.choice_['tangent_variances'] or []]}"))
    for r in rows:
        print(f"{r[0]:20s} {r[1]:.4f} {r[2]:7.1f} s {r[3]}", flush=True)
    if not args.skip_mlp:
        rng = np.random.default_rng(args.seed)
        mlp = [("mlp-qda", qda_sampler(fit, rng), None),
               ("mlp-lda", lda_sampler(fit, rng), None),
               ("mlp-release+qda", qda_sampler(fit, rng), (fit.Xtr, fit.ytr))]
        for name, draw, relrows in (m for m in mlp if m[0] in args.mlps):
            s, cpu = train_mlp(draw, fit, epochs=args.epochs, per_class=args.per_class,
                               seed=args.seed, release=relrows)
            rows.append((name, acc(s), cpu, f"{args.epochs} epochs x {args.per_class}/class"))
            print(f"{name:20s} {rows[-1][1]:.4f} {cpu:7.1f} s", flush=True)
            if name in ("mlp-qda", "mlp-lda"):
                base = name[4:]
                rows.append((f"{base}+{name}", acc(s + fit.scores[base]), cpu + fit.cpu[base], ""))
                print(f"{rows[-1][0]:20s} {rows[-1][1]:.4f}", flush=True)
    ls = args.ensemble_ls if args.ensemble_ls is not None else [max(args.l // 2, 1), args.l, 2 * args.l]
    if ls:
        m = len(ls)
        fits, eps_sum, delta_sum = [], 0.0, 0.0
        for l in ls:
            r = release(l, args.epsilon / m, delta / m)
            eps_sum += float(r.card["privacy"]["epsilon"])
            delta_sum += float(r.card["privacy"]["delta"])
            f = Fitted(r, ds, r.preprocess(ds.X_test))
            fits.append(f)
            print(f"  ens member l={l} eps={r.card['privacy']['epsilon']:.4g} sigma_x="
                  f"{float(r.data_card.parameters['sigma_x']):.4f}: lda {acc(f.scores['lda']):.4f} "
                  f"qda {acc(f.scores['qda']):.4f}", flush=True)
        if eps_sum > args.epsilon * (1 + 1e-9) or delta_sum > delta * (1 + 1e-9):
            raise SystemExit(f"ensemble over budget: eps {eps_sum} delta {delta_sum}")
        note = f"l={ls}, eps {eps_sum:.4g} / delta {delta_sum:.2g} in all (basic composition)"
        for name, keys in (("ens-l-lda", ["lda"]), ("ens-l-qda", ["qda"]), ("ens-l-both", ["lda", "qda"])):
            s = sum(f.scores[k] for f in fits for k in keys)
            cpu = sum(f.cpu[k] for f in fits for k in keys)
            rows.append((name, acc(s), cpu, note))
            print(f"{name:20s} {rows[-1][1]:.4f} {cpu:7.1f} s {note}", flush=True)
    print("\n| learner | accuracy | CPU s (training) | note |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.4f} | {r[2]:.1f} | {r[3]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
