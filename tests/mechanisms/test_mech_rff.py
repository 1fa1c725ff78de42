"""DP-MERF's random features: the fused class-mean features equal phi(X)^T M and its gradient
equals autograd's through phi (the generator is trained with it)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from dpcda.mechanisms.rff import class_embedding, features, matmul_dtype, weighted_features


def _data(n=37, d=5, h=8, K=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.rand((n, d), generator=g, dtype=torch.float64)
    W = torch.randn((h, d), generator=g, dtype=torch.float64)
    M = torch.rand((n, K), generator=g, dtype=torch.float64)
    return X, W, M


def test_forward_is_phi_transposed_times_weights():
    X, W, M = _data()
    scale = math.sqrt(W.shape[0])
    got = weighted_features(X, W, M / scale)
    assert got.shape == (2 * W.shape[0], M.shape[1])
    torch.testing.assert_close(got, features(X, W).T @ M, rtol=1e-12, atol=1e-12)


def test_gradient_matches_autograd_through_phi():
    X, W, M = _data(seed=1)
    target = torch.randn((2 * W.shape[0], M.shape[1]), dtype=torch.float64)
    Xa = X.clone().requires_grad_(True)
    Xb = X.clone().requires_grad_(True)
    torch.sum((target - features(Xa, W).T @ M) ** 2).backward()
    torch.sum((target - weighted_features(Xb, W, M / math.sqrt(W.shape[0]))) ** 2).backward()
    torch.testing.assert_close(Xb.grad, Xa.grad, rtol=1e-10, atol=1e-12)
    assert Xb.grad.abs().max() > 0  # a real gradient, not zeros on both sides


def test_gradcheck():
    X, W, M = _data(n=6, d=3, h=4, K=2, seed=2)
    X.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x: weighted_features(x, W, M), (X,))


def test_class_embedding_is_the_per_class_mean_feature():
    rng = np.random.default_rng(3)
    X = rng.random((50, 4)).astype(np.float32)
    y = rng.integers(0, 3, 50)
    W = torch.randn((6, 4), generator=torch.Generator().manual_seed(3))
    E = class_embedding(X, y, 3, W, device="cpu")
    phi = features(torch.from_numpy(X).double(), W.double()).numpy()
    want = np.stack([phi[y == k].sum(0) for k in range(3)], axis=1) / len(X)
    assert E.dtype == torch.float64
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-5, atol=1e-7)
    # every phi row has norm 1, so the columns' norms are at most the class shares
    assert np.all(np.linalg.norm(E.numpy(), axis=0) <= np.bincount(y, minlength=3) / 50 + 1e-6)


@pytest.mark.parametrize("n", [1, 500])
def test_no_grad_call_keeps_nothing_differentiable(n):
    X, W, M = _data(n=n)
    with torch.no_grad():
        out = weighted_features(X, W, M)
    assert not out.requires_grad and torch.isfinite(out).all()


def test_bfloat16_products_approximate_the_float32_ones():
    """The products in bfloat16 (rounding 2^-9): values and gradient within a few 1e-3 of
    float32, returned in X's dtype; a real difference (not silently float32)."""
    g = torch.Generator().manual_seed(4)
    X = torch.rand((200, 64), generator=g)
    X = X / X.norm(dim=1, keepdim=True)  # clipped rows, as in the generator
    W = torch.randn((300, 64), generator=g)
    M = torch.nn.functional.one_hot(torch.arange(200) % 4, 4).float() / 50
    target = torch.randn((600, 4), generator=g) * 0.05
    out = {}
    for dt in (torch.float32, torch.bfloat16):
        x = X.clone().requires_grad_(True)
        emb = weighted_features(x, W.to(dt), M)
        torch.sum((target - emb) ** 2).backward()
        assert emb.dtype == x.grad.dtype == torch.float32
        out[dt] = emb.detach(), x.grad
    (e32, g32), (e16, g16) = out[torch.float32], out[torch.bfloat16]
    assert 0 < (e16 - e32).abs().max() < 5e-3
    assert (g16 - g32).norm() < 2e-2 * g32.norm()


def test_matmul_dtype_choices():
    assert matmul_dtype("float32", "cpu", 784) is torch.float32
    assert matmul_dtype("bfloat16", "cpu", 64) is torch.bfloat16
    assert matmul_dtype("auto", "cuda", 784) is torch.float32  # GPUs: unchanged
    assert matmul_dtype("auto", "cpu", 64) is torch.float32  # small d: nothing to gain
    native = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    assert matmul_dtype("auto", "cpu", 784) is (torch.bfloat16 if native else torch.float32)
    with pytest.raises(ValueError, match="precision must be one of auto, float32, bfloat16"):
        matmul_dtype("half", "cpu", 784)
