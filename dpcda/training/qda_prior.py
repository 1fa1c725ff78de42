"""The tangent prior of noise-aware QDA (issue 28): images of a class vary by small shifts,
rotations, scalings, shears and stroke thickness (Simard et al.'s tangent distance).

For an image ``x`` the tangent vectors ``t_j(x)`` are the derivatives of ``x`` under each of
these public transformations (computed from the image gradient, after a Gaussian smoothing of
0.7 pixel fixed in advance, as in Simard's tangent-distance papers). The learner scores a
test image under ``N(mu_k, C_k + sum_j lam_j t_j(x) t_j(x)^T)``: the class Gaussian widened
along the image's own tangents (the two-sided tangent distance's Gaussian form), exactly, by
Woodbury. The transformation variances ``lam_j`` come from the release alone: along the
tangents ``T_k`` of each class mean the corrected covariance should be ``T_k^T Sigma_hat_k
T_k ~ G_k Lam G_k + floor_k G_k`` (``G_k = T_k^T T_k``); ``Lam`` (diagonal, >= 0) is the
non-negative least-squares fit of these ``r^2`` equations over all classes together.
"""

from __future__ import annotations

import numpy as np

#: x shift, y shift, rotation, scaling, two shears (axis, diagonal), thickness.
TANGENT_NAMES = ("shift_x", "shift_y", "rotation", "scaling", "shear_axis", "shear_diag",
                 "thickness")
#: Gaussian smoothing (pixels) before differentiating: fixed in advance, not tuned.
SMOOTH = 0.7


def image_tangents(X, image_shape) -> np.ndarray:
    """``(n, 7, d)`` tangent vectors of the flat images ``X`` (``(n, d)``, ``image_shape`` =
    ``(C, H, W)`` or ``(H, W)``); the same transformation moves every channel."""
    from scipy import ndimage

    shape = tuple(int(s) for s in image_shape)
    if len(shape) == 2:
        shape = (1, *shape)
    C, H, W = shape
    X = np.asarray(X, dtype=np.float64)
    n = len(X)
    img = ndimage.gaussian_filter(X.reshape(n, C, H, W), sigma=(0, 0, SMOOTH, SMOOTH))
    gy, gx = np.gradient(img, axis=(2, 3))
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    yy -= (H - 1) / 2
    xx -= (W - 1) / 2
    T = (gx, gy, yy * gx - xx * gy, xx * gx + yy * gy, xx * gx - yy * gy, yy * gx + xx * gy,
         np.sqrt(gx * gx + gy * gy))
    return np.stack([t.reshape(n, -1) for t in T], axis=1)


def tangent_variances(means, covs_release, noise_var: float, mix_factors, floors,
                      image_shape) -> np.ndarray:
    """The transformation variances ``lam_j`` (``(7,)``, >= 0) from the release's class means
    and class covariances (release space, ``S_k``), by the joint NNLS of the module docstring."""
    from scipy.optimize import nnls

    rows, rhs = [], []
    for mu, S, f, fl in zip(means, covs_release, mix_factors, floors):
        T = image_tangents(np.asarray(mu)[None], image_shape)[0]
        G = T @ T.T
        A = (T @ S @ T.T - noise_var * G) / f - fl * G
        r = len(T)
        rows.append(np.einsum("aj,jb->abj", G, G).reshape(r * r, r))
        rhs.append(A.reshape(-1))
    B, a = np.concatenate(rows), np.concatenate(rhs)
    scale = np.maximum(np.sqrt(np.sum(B * B, axis=0)), 1e-300)  # column scaling: conditioning
    lam, _ = nnls(B / scale, a)
    return lam / scale
