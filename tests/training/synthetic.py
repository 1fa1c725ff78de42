"""Synthetic releases the learner tests share (test data only: a seeded numpy generator is fine
here, nothing private is drawn): DP-CDA's mixing of one class, and small shifted shapes."""

from __future__ import annotations

import numpy as np
from scipy import ndimage


def mix(rng, Xk, l, T, sigma):
    """DP-CDA's mixing: means of l distinct records of the class, plus N(0, sigma^2 I)."""
    idx = np.array([rng.choice(len(Xk), size=l, replace=False) for _ in range(T)])
    return Xk[idx].mean(axis=1) + rng.normal(0.0, sigma, size=(T, Xk.shape[1]))


def shifted_shapes(rng, k, n, sd, H=16):
    """``n`` images (flattened, H x H) of shape ``k`` of four, randomly shifted (sd pixels)."""
    rows = ["#####", "#....", "#....", "#....", "#...."], ["#####", "..#..", "..#..", "..#..", "..#.."], \
        ["#...#", ".#.#.", "..#..", ".#.#.", "#...#"], ["#####", "#...#", "#...#", "#...#", "#####"]
    t = np.zeros((H, H))
    t[5:10, 5:10] = [[c == "#" for c in row] for row in rows[k]]
    return np.array([ndimage.gaussian_filter(ndimage.shift(t, s, order=1), 0.8)
                     for s in rng.normal(0.0, sd, size=(n, 2))]).reshape(n, -1)
