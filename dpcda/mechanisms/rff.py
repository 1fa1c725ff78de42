"""DP-MERF's machinery in torch: random Fourier features, the per-class mean embedding, and a
conditional generator fitted to a (noisy) embedding.

Harder, Adamczewski & Park, "DP-MERF: Differentially private mean embeddings with random
features for practical privacy-preserving data generation", AISTATS 2021:

* features (their Eq. 3): ``phi(x) = [cos(W x), sin(W x)] / sqrt(D/2)`` with the ``D/2`` rows of
  ``W`` drawn i.i.d. ``N(0, I / length_scale^2)``, so that ``phi(x) . phi(x')`` approximates the
  Gaussian kernel ``exp(-||x - x'||^2 / (2 length_scale^2))`` and ``||phi(x)|| = 1`` exactly,
  for every ``x``;
* the joint embedding of ``(x, onehot(y))`` (their Eq. 6): ``E = (1/N) sum_i phi(x_i)
  onehot(y_i)^T`` (D x K), column k holding ``(1/N) sum_{i: y_i = k} phi(x_i)``;
* the generator ``G(z, k)`` minimises ``sum_k ||E_k - p_k m_k(G)||^2`` with ``m_k(G)`` the mean
  feature of a batch of generated class-k samples and ``p_k`` the class proportion: the
  squared MMD (in the random-feature space) between the embedding and the generator's, with
  the generator's labels drawn with probabilities ``p``.

Everything is chunked (at most :data:`~dpcda.mechanisms._torch.CHUNK_BYTES` per temporary) and
runs on any torch device.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpcda.util.cancellation import checkpoint
from dpcda.mechanisms._torch import CHUNK_BYTES


def draw_frequencies(d: int, n_features: int, length_scale: float, *, generator, device):
    """``W`` (``n_features/2`` x d), entries ``N(0, 1/length_scale^2)`` (data-independent)."""
    import torch

    W = torch.randn((n_features // 2, d), generator=generator, device=device, dtype=torch.float32)
    return W / float(length_scale)


def features(X, W):
    """``phi(X)`` (n x D): ``[cos(X W^T), sin(X W^T)] / sqrt(D/2)``; every row has norm 1."""
    import torch

    Z = X @ W.T
    return torch.cat((torch.cos(Z), torch.sin(Z)), dim=1) / math.sqrt(W.shape[0])


@functools.cache
def _weighted_features():
    import torch

    class WeightedFeatures(torch.autograd.Function):
        """``[cos(X W^T), sin(X W^T)]^T M`` (D x K), differentiable in ``X`` only.

        What autograd would do through :func:`features`, without its waste: the n x D
        ``phi(X)`` is never formed (no concatenation, no scaling: the caller folds
        ``1/sqrt(D/2)`` into ``M``), and the backward reuses ``cos`` and ``sin`` instead of
        evaluating them again."""

        @staticmethod
        def forward(ctx, X, W, M):
            Z = (X.to(W.dtype) @ W.T).to(X.dtype)  # no copies when W has X's dtype
            C = torch.cos(Z)
            S = Z.sin_()
            ctx.save_for_backward(C, S, W, M)
            ctx.x_dtype = X.dtype
            return torch.cat((M.T @ C, M.T @ S), dim=1).T  # (M^T C)^T: C^T M is 8x slower

        @staticmethod
        def backward(ctx, grad):
            C, S, W, M = ctx.saved_tensors
            h = C.shape[1]
            dZ = C * (M @ grad[h:].T)  # d/dZ sin = cos; d/dZ cos = -sin
            dZ.addcmul_(S, M @ grad[:h].T, value=-1.0)
            return (dZ.to(W.dtype) @ W).to(ctx.x_dtype), None, None

    return WeightedFeatures.apply


def weighted_features(X, W, M):
    """``phi(X)^T M * sqrt(D/2)`` = ``[cos(X W^T), sin(X W^T)]^T M`` (D x K) for weights ``M``
    (n x K), differentiable in ``X``; the scale ``1/sqrt(D/2)`` of ``phi`` is the caller's (fold
    it into ``M``). Costs two n x d x D/2 products (forward, backward) and little else; they
    run in ``W``'s dtype (bfloat16: see :func:`matmul_dtype`), everything else in ``X``'s."""
    return _weighted_features()(X, W, M)


PRECISION_CHOICES = ("auto", "float32", "bfloat16")
#: Below this many features per record ``"auto"`` keeps float32 (the products are not what costs).
BF16_MIN_D = 256


def matmul_dtype(precision: str, device, d: int):
    """The dtype of the two n x d x D/2 products ``X W^T`` and ``dZ W`` (fp32 accumulation;
    cos, sin, the embedding and the generator stay float32).

    ``"auto"``: bfloat16 for d >= :data:`BF16_MIN_D` on a CPU that multiplies it natively
    (AVX512-BF16 or AMX; measured on this project's CPU: 7.5 ms instead of 16 ms for 500 x 784
    x 2000, the MNIST release 49.5 -> 31.8 s; digits, d = 64, gained nothing), float32
    elsewhere (other CPUs emulate bfloat16; GPUs unchanged). The rounding (relative 2^-9 on x,
    W and the phase) is far below the generator's own minibatch noise, and ``||phi(x)|| = 1``
    holds for every x either way, so the sensitivity and the accounting do not change."""
    import torch

    if precision not in PRECISION_CHOICES:
        raise ValueError(f"precision must be one of {', '.join(PRECISION_CHOICES)}, got "
                         f"precision={precision!r}")
    if precision == "auto":
        cpu = getattr(torch, "cpu", None)
        native = torch.device(device).type == "cpu" and any(
            bool(getattr(cpu, f, lambda: False)()) for f in
            ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
        precision = "bfloat16" if native and d >= BF16_MIN_D else "float32"
    return getattr(torch, precision)


def class_embedding(X: np.ndarray, y: np.ndarray, K: int, W, *, device):
    """``E`` (D x K) = ``(1/N) sum_i phi(x_i) onehot(y_i)^T`` in float64, in row chunks.

    The private path: the phases ``X W^T`` may be rounded (bfloat16/float32; any phase gives a
    unit-norm feature), but cos, sin and the sum are float64, and the sum is scaled by
    ``1 - max(2^-20, 4 N^2 2^-53)`` so that its rounding never lifts the sensitivity above
    ``2 / N`` (docs/security.md)."""
    import torch

    N, D = len(X), 2 * W.shape[0]
    rows = max(1, CHUNK_BYTES // (16 * (D + X.shape[1])))
    E = torch.zeros((D, K), dtype=torch.float64, device=device)
    with torch.no_grad():
        for s in range(0, N, rows):
            checkpoint()  # a running job's cancel / time limit takes effect between chunks
            xb = torch.from_numpy(np.ascontiguousarray(X[s:s + rows], dtype=np.float32)).to(device)
            yb = torch.from_numpy(y[s:s + rows]).to(device)
            onehot = torch.nn.functional.one_hot(yb, K).to(torch.float64)
            Z = (xb.to(W.dtype) @ W.T).to(torch.float64)
            # an unclipped (c=None) extreme row can overflow its phase: any phase gives a
            # unit-norm feature, so a non-finite one is replaced by 0 (a per-record map)
            Z = torch.nan_to_num(Z, nan=0.0, posinf=0.0, neginf=0.0)
            E[:D // 2] += torch.cos(Z).T @ onehot
            E[D // 2:] += Z.sin_().T @ onehot
    shrink = 1.0 - max(2.0 ** -20, 4.0 * float(N) ** 2 * 2.0 ** -53)
    return E * (shrink / (N * math.sqrt(W.shape[0])))


def make_generator_net(code_dim: int, K: int, d: int, hidden: tuple[int, ...], bounded: bool):
    """MLP ``[z, onehot(k)] -> hidden (ReLU, batch norm) -> d`` (sigmoid when features are in
    [0, 1]); the published fully connected conditional generator's shape."""
    from torch import nn

    layers, width = [], code_dim + K
    for h in hidden:
        layers += [nn.Linear(width, h), nn.BatchNorm1d(h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, d))
    if bounded:
        layers.append(nn.Sigmoid())
    return nn.Sequential(*layers)


def clip_rows_torch(X, c: float | None):
    """Scale rows with norm above ``c`` down to ``c`` (differentiable); ``c=None``: identity."""
    import torch

    if c is None:
        return X
    norms = torch.linalg.vector_norm(X, dim=1, keepdim=True)
    return X * torch.clamp(c / torch.clamp(norms, min=1e-12), max=1.0)


def _inputs(labels, K: int, code_dim: int, generator, device):
    import torch

    z = torch.randn((len(labels), code_dim), generator=generator, device=device)
    return torch.cat((z, torch.nn.functional.one_hot(labels, K).to(z.dtype)), dim=1)


def fit_generator(E, p: np.ndarray, d: int, W, *, c: float | None, bounded: bool,
                  hidden: tuple[int, ...], code_dim: int, steps: int, batch_size: int, lr: float,
                  generator, device):
    """Train a generator against the embedding ``E`` (D x K) and class proportions ``p``
    (post-processing: it sees only ``E``, ``p`` and data-independent settings)."""
    import torch

    K = E.shape[1]
    net = make_generator_net(code_dim, K, d, hidden, bounded).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 0.9 ** (5.0 * t / steps))
    target = E.to(torch.float32)
    w = torch.as_tensor(p, dtype=torch.float32, device=device)
    per_class = max(2, batch_size // K)
    labels = torch.arange(K, device=device).repeat_interleave(per_class)
    # per-class means of phi: 1/per_class for the class, 1/sqrt(D/2) of phi folded in
    weights = torch.nn.functional.one_hot(labels, K).to(torch.float32) / (
        per_class * math.sqrt(W.shape[0]))
    net.train()
    for _ in range(steps):
        checkpoint()
        out = clip_rows_torch(net(_inputs(labels, K, code_dim, generator, device)), c)
        gen_emb = weighted_features(out, W, weights)  # D x K: per-class mean features
        loss = torch.sum((target - gen_emb * w) ** 2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    net.eval()
    return net


def sample(net, labels: np.ndarray, K: int, *, c: float | None, code_dim: int, generator,
           device, chunk: int = 8192) -> np.ndarray:
    """Generated features for the given labels (float32, rows clipped to ``c``)."""
    import torch

    out = []
    with torch.no_grad():
        for s in range(0, len(labels), chunk):
            lb = torch.from_numpy(labels[s:s + chunk]).to(device)
            out.append(clip_rows_torch(net(_inputs(lb, K, code_dim, generator, device)), c).cpu())
    return torch.cat(out).numpy().astype(np.float32, copy=False)


def allocate(n: int, p: np.ndarray) -> np.ndarray:
    """Integer counts summing to ``n`` proportional to ``p`` (largest remainder)."""
    raw = n * np.asarray(p, dtype=float)
    counts = np.floor(raw).astype(np.int64)
    rest = n - int(counts.sum())
    if rest > 0:
        counts[np.argsort(-(raw - counts), kind="stable")[:rest]] += 1
    return counts
