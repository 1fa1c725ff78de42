"""How long a DP-CDA release takes to generate, estimated from its size (no data touched).

The Samples page draws a release as the sliders move when it is quick (under
:data:`FAST_SECONDS`) and offers a button otherwise. The model has three terms, measured on
this project's 2-core CPU with one torch thread (``benchmarks/browser_samples.py`` prints the
page's real times; README, "Samples page"):

- ``N * d``: normalizing and clipping the whole training split (about 3.5e-8 s per value;
  MNIST's 60,000 x 784 take about 1.6 s);
- ``T * d``: drawing, averaging and noising the T samples (about 8e-8 s per value);
- ``T * d * l``: the rows gathered into the means (about 1e-9 s per value).

The noise calibration is not counted: the page needs it (and caches it) before anything else.
Measured (s, best of 2): digits T = 1,347, l = 4: 0.06 (model 0.06); MNIST T = 10,000, l = 4:
2.1 (model 2.4); MNIST T = 60,000, l = 64: 9.0 (model 8.7).
"""

from __future__ import annotations

FAST_SECONDS = 1.0
_BASE, _PER_ND, _PER_TD, _PER_TDL = 0.05, 3.5e-8, 8e-8, 1e-9


def estimate_release_seconds(*, n: int, d: int, T: int, l: int) -> float:
    """Estimated seconds to generate a DP-CDA release of ``T`` samples of ``d`` features from
    ``n`` training rows with order of mixture ``l`` (calibration excluded)."""
    for name, v in (("n", n), ("d", d), ("T", T), ("l", l)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {name}={v!r}")
    return _BASE + _PER_ND * n * d + _PER_TD * T * d + _PER_TDL * T * d * l


def is_quick(*, n: int, d: int, T: int, l: int, limit: float = FAST_SECONDS) -> bool:
    """True when the release is estimated to take less than ``limit`` seconds."""
    return estimate_release_seconds(n=n, d=d, T=T, l=l) < limit
