"""The fast training loop: train on (synthetic) data, evaluate on the real test split.

Everything lives in tensors on one device; an epoch is a random permutation of row indices
cut into batches (no DataLoader, no worker processes, no per-sample Python). The device is
picked automatically (cuda > mps > cpu); bf16 autocast is used on CUDA only. The loop never
changes ``torch.set_num_threads`` and never touches the global RNG state outside a
``torch.random.fork_rng`` block.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np

from dpcda.training.config import TrainConfig
from dpcda.training.inputs import (as_batch, as_labels, denoise_images, input_scale_factor,
                                   prior_shift, soft_targets)
from dpcda.util.cancellation import checkpoint
from dpcda.training.models import get_model, model_spec, normalize_shape

OnEpoch = Callable[[int, int, dict], "bool | None"]


def pick_device(preference: str = "auto") -> str:
    """``"auto"``: cuda if available, else mps, else cpu. An explicit but absent device raises."""
    import torch

    cuda = torch.cuda.is_available()
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if preference == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if (preference == "cuda" and not cuda) or (preference == "mps" and not mps):
        raise ValueError(f"device must be one available on this machine (cpu{', cuda' if cuda else ''}"
                         f"{', mps' if mps else ''}); got device={preference!r}")
    return preference


def _prepare(X_train, y_train, X_test, y_test, y_soft, image_shape, config: TrainConfig):
    spec = model_spec(config.model)
    if image_shape is None and np.ndim(X_train) >= 3:
        image_shape = np.shape(X_train)[1:]
    shape = normalize_shape(image_shape) if image_shape is not None else None
    if shape is not None and len(shape) == 1:
        shape = None
    if spec.needs_image and shape is None:
        raise ValueError(
            f"image_shape is required for model={config.model!r} when X_train is flat "
            "(e.g. image_shape=(1, 28, 28))"
        )
    Xtr = as_batch(X_train, "X_train", shape)
    Xte = as_batch(X_test, "X_test", shape)
    if Xte.shape[1:] != Xtr.shape[1:]:
        raise ValueError(f"X_test rows must have the shape of X_train rows {Xtr.shape[1:]}, "
                         f"got {Xte.shape[1:]}")
    ytr = as_labels(y_train, "y_train", len(Xtr))
    yte = as_labels(y_test, "y_test", len(Xte))
    if config.n_classes is not None:
        K = config.n_classes
    elif y_soft is not None:
        if np.ndim(y_soft) != 2 or np.shape(y_soft)[0] != len(ytr):
            raise ValueError(f"y_soft must have shape ({len(ytr)}, K), got {np.shape(y_soft)}")
        K = int(np.shape(y_soft)[1])
    else:
        K = int(max(ytr.max(), yte.max())) + 1
    K = max(K, 2)
    if max(ytr.max(), yte.max()) >= K:
        raise ValueError(f"labels must be < n_classes={K}, got max label {max(ytr.max(), yte.max())}")
    soft = None
    if config.label_mode == "soft":
        if y_soft is None:
            raise ValueError("label_mode='soft' needs y_soft (the release's noisy soft labels)")
        soft = soft_targets(y_soft, ytr, K)
    if config.denoise_sigma > 0:
        if shape is None:
            raise ValueError("denoise_sigma > 0 needs image_shape (it filters images)")
        Xtr = denoise_images(Xtr, config.denoise_sigma)
        if config.denoise_test:
            Xte = denoise_images(Xte, config.denoise_sigma)
    if not spec.needs_image:
        Xtr, Xte = Xtr.reshape(len(Xtr), -1), Xte.reshape(len(Xte), -1)
    d = int(np.prod(Xtr.shape[1:]))
    scale = input_scale_factor(config.input_scale, n_features=d, clip_norm=config.clip_norm)
    return spec, Xtr, ytr, Xte, yte, soft, K, scale, shape


def train_and_evaluate(X_train, y_train, X_test, y_test, *, y_soft=None, image_shape=None,
                       config: TrainConfig, on_epoch: OnEpoch | None = None,
                       seed: int | None = None) -> dict[str, Any]:
    """Train ``config.model`` on ``(X_train, y_train)`` and report accuracy on ``(X_test, y_test)``.

    ``X_test``/``y_test`` must be the *real, unmixed* test split, already preprocessed by the
    caller exactly like the data the release was made from (same normaliser fitted on the
    training split, same clip norm c; docs/specification.md §1 step 5). The test data is used for evaluation
    only. The loop itself then applies the same input scaling to both (``config.input_scale``);
    denoising (``config.denoise_sigma``) touches the training images only unless
    ``config.denoise_test`` (then the filter is part of the model and applies to both).

    ``X_*`` may be flat ``(n, d)`` (then give ``image_shape=(C, H, W)`` for image models) or
    ``(n, C, H, W)``. ``y_soft`` (``(n, K)``) is needed for ``label_mode="soft"``.

    ``on_epoch(epoch, n_epochs, metrics)`` is called after every epoch (1-based); returning
    ``False`` stops training (the result then has ``cancelled=True``); an exception it raises
    propagates. ``seed`` makes initialisation, shuffling and dropout reproducible (on CPU).

    Returns ``accuracy`` (final epoch, on the test split; ``None`` if cancelled before any
    evaluation), ``per_epoch`` (list of metric dicts), ``seconds`` (wall clock of the call),
    ``train_seconds``, ``device``, ``samples_per_s`` (training throughput), ``epochs_run``,
    ``cancelled``, ``model``, ``n_train``, ``n_test``, ``n_classes``, ``input_scale``.
    """
    if not isinstance(config, TrainConfig):
        raise ValueError(f"config must be a TrainConfig, got config={type(config).__name__}")
    t_start = time.perf_counter()
    spec, Xtr, ytr, Xte, yte, soft, K, scale, shape = _prepare(
        X_train, y_train, X_test, y_test, y_soft, image_shape, config)
    shift = prior_shift(config.class_prior, ytr, K)
    if spec.kind == "closed":
        out = _run_closed(spec.name, Xtr, ytr, Xte, yte, soft, K, scale, shift, config, on_epoch, seed,
                          noisy_labels=y_soft, image_shape=shape)
    else:
        out = _run_torch(Xtr, ytr, Xte, yte, soft, K, scale, shift, config, on_epoch, seed)
    out.update(model=config.model, n_train=len(Xtr), n_test=len(Xte), n_classes=K,
               input_scale=scale, seconds=time.perf_counter() - t_start)
    return out


def _noisy_average(score_fn, X: np.ndarray, config: TrainConfig, rng: np.random.Generator) -> np.ndarray:
    """Mean class probabilities over eval-noise draws (one clean pass if no eval noise)."""
    if config.eval_noise_std <= 0:
        return score_fn(X)
    acc = None
    for _ in range(config.eval_noise_draws):
        noise = rng.normal(0.0, config.eval_noise_std, size=X.shape).astype(np.float32)
        s = score_fn(X + noise)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        acc = p if acc is None else acc + p
    return np.log(acc / config.eval_noise_draws + 1e-30)


def _run_closed(name, Xtr, ytr, Xte, yte, soft, K, scale, shift, config, on_epoch, seed, *,
                noisy_labels=None, image_shape=None):
    opts: dict[str, Any] = {}
    fit_kw: dict[str, Any] = {}
    if name == "tree":
        opts = {"max_depth": config.tree_max_depth, "min_samples_leaf": config.tree_min_samples_leaf,
                "random_state": seed}
    elif name == "lda":
        opts = {"noise_var": (config.noise_std * scale) ** 2, "shrinkage": config.lda_shrinkage,
                "label_noise_std": config.label_noise_std}
        if config.label_noise_std > 0 and noisy_labels is not None:
            fit_kw["noisy_labels"] = np.asarray(noisy_labels)  # the release's raw soft labels
    elif name == "lda-tangent":  # the lda's inputs, and the qda's for the tangent variances
        opts = {"noise_var": (config.noise_std * scale) ** 2, "shrinkage": config.lda_shrinkage,
                "label_noise_std": config.label_noise_std, "mix_factors": config.mix_factors,
                "image_shape": image_shape}
        if config.label_noise_std > 0 and noisy_labels is not None:
            fit_kw["noisy_labels"] = np.asarray(noisy_labels)
    elif name == "qda":
        opts = {"noise_var": (config.noise_std * scale) ** 2, "mix_factors": config.mix_factors,
                "image_shape": image_shape}  # images: the tangent prior
    learner = get_model(name, input_shape=Xtr.shape[1:], n_classes=K, **opts)
    t0 = time.perf_counter()
    checkpoint()
    learner.fit(Xtr * scale, ytr, soft, **fit_kw)
    train_s = time.perf_counter() - t0
    checkpoint()
    rng = np.random.default_rng(seed)
    scores = _noisy_average(lambda X: learner.scores(X * scale), Xte, config, rng)
    if shift is not None:
        scores = scores + shift
    acc = float(np.mean(scores.argmax(axis=1) == yte))
    train_acc = float(np.mean(learner.predict(Xtr * scale) == ytr))
    metrics = {"epoch": 1, "loss": None, "train_accuracy": train_acc, "test_accuracy": acc,
               "lr": None, "seconds": train_s}
    cancelled = on_epoch is not None and on_epoch(1, 1, dict(metrics)) is False
    out = {"accuracy": acc, "per_epoch": [metrics], "train_seconds": train_s, "device": "cpu",
           "samples_per_s": len(Xtr) / max(train_s, 1e-9), "epochs_run": 1,
           "cancelled": bool(cancelled)}
    if getattr(learner, "choice_", None) is not None:  # hyper-parameters chosen in fit
        out["learner_choice"] = dict(learner.choice_)
    return out


def _lr_lambda(config: TrainConfig, steps_per_epoch: int):
    total = config.epochs * steps_per_epoch
    if config.scheduler == "cosine":
        return lambda step: 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))
    if config.scheduler == "step":
        return lambda step: 0.5 ** ((step // steps_per_epoch) // config.step_epochs)
    return lambda step: 1.0


def _run_torch(Xtr, ytr, Xte, yte, soft, K, scale, shift, config, on_epoch, seed):
    import torch
    import torch.nn.functional as F

    dev = torch.device(pick_device(config.device))
    use_amp = config.amp and dev.type == "cuda"
    fork_devices = [torch.cuda.current_device()] if dev.type == "cuda" else []
    with torch.random.fork_rng(devices=fork_devices):
        if seed is not None:
            torch.manual_seed(seed)
        gen = torch.Generator()
        if seed is not None:
            gen.manual_seed(seed)
        else:
            gen.seed()
        model = get_model(config.model, input_shape=Xtr.shape[1:], n_classes=K,
                          norm=config.cnn_norm).to(dev)
        X = torch.from_numpy(np.ascontiguousarray(Xtr * np.float32(scale))).to(dev)
        Y = torch.from_numpy(ytr).to(dev)
        S = torch.from_numpy(soft).to(dev) if soft is not None else None
        Xt = torch.from_numpy(np.ascontiguousarray(Xte)).to(dev)
        Yt = torch.from_numpy(yte).to(dev)
        shift_t = torch.from_numpy(shift).float().to(dev) if shift is not None else None

        n, bs = len(X), config.batch_size
        steps = math.ceil(n / bs)
        opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, _lr_lambda(config, steps))
        sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

        def evaluate() -> float:
            model.eval()
            correct = torch.zeros((), dtype=torch.long, device=dev)
            with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp):
                for i in range(0, len(Xt), config.eval_batch_size):
                    checkpoint()
                    xb = Xt[i:i + config.eval_batch_size]
                    if config.eval_noise_std > 0:
                        prob = 0
                        for _ in range(config.eval_noise_draws):
                            noise = torch.randn(xb.shape, generator=gen).to(dev) * config.eval_noise_std
                            prob = prob + F.softmax(model((xb + noise) * scale).float(), dim=1)
                        logp = torch.log(prob / config.eval_noise_draws + 1e-30)
                    else:
                        logp = F.log_softmax(model(xb * scale).float(), dim=1)
                    if shift_t is not None:
                        logp = logp + shift_t
                    correct += (logp.argmax(dim=1) == Yt[i:i + config.eval_batch_size]).sum()
            return float(correct.item()) / len(Xt)

        per_epoch: list[dict] = []
        train_s, seen, cancelled, acc = 0.0, 0, False, None
        for epoch in range(1, config.epochs + 1):
            model.train()
            sync()
            t0 = time.perf_counter()
            perm = torch.randperm(n, generator=gen).to(dev)
            loss_sum = torch.zeros((), device=dev)
            correct = torch.zeros((), dtype=torch.long, device=dev)
            for i in range(0, n, bs):
                checkpoint()  # a running job's cancel / time limit takes effect between batches
                idx = perm[i:i + bs]
                xb, yb = X[idx], Y[idx]
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp):
                    logits = model(xb)
                logits = logits.float()
                if S is not None:
                    loss = -(S[idx] * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
                else:
                    loss = F.cross_entropy(logits, yb)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                sched.step()
                loss_sum += loss.detach() * len(idx)
                correct += (logits.detach().argmax(dim=1) == yb).sum()
            sync()
            dt = time.perf_counter() - t0
            train_s += dt
            seen += n
            test_acc = evaluate() if (config.eval_every_epoch or epoch == config.epochs) else None
            if test_acc is not None:
                acc = test_acc
            metrics = {"epoch": epoch, "loss": float(loss_sum.item()) / n,
                       "train_accuracy": float(correct.item()) / n, "test_accuracy": test_acc,
                       "lr": float(sched.get_last_lr()[0]), "seconds": dt}
            per_epoch.append(metrics)
            if on_epoch is not None and on_epoch(epoch, config.epochs, dict(metrics)) is False:
                cancelled = epoch < config.epochs
                break
    return {"accuracy": acc, "per_epoch": per_epoch, "train_seconds": train_s, "device": dev.type,
            "samples_per_s": seen / max(train_s, 1e-9), "epochs_run": len(per_epoch),
            "cancelled": cancelled}
