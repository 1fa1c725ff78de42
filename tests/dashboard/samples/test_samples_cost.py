"""dpcda.dashboard.samples.cost: the release-time estimate that decides whether the page draws at once."""

from __future__ import annotations

import pytest

from dpcda.dashboard.samples.cost import FAST_SECONDS, estimate_release_seconds, is_quick


def test_digits_is_quick_and_mnist_is_not():
    assert is_quick(n=1347, d=64, T=1347, l=4)                      # digits, the page's default
    assert not is_quick(n=60000, d=784, T=10000, l=4)               # MNIST at the page's cap
    assert estimate_release_seconds(n=60000, d=784, T=10000, l=4) > FAST_SECONDS


def test_estimate_grows_with_every_size():
    base = dict(n=1000, d=100, T=1000, l=4)
    t0 = estimate_release_seconds(**base)
    for k in base:
        assert estimate_release_seconds(**{**base, k: base[k] * 10}) > t0


@pytest.mark.parametrize("bad", [dict(n=0), dict(d=-1), dict(T=1.5), dict(l=True)])
def test_bad_sizes_are_refused(bad):
    with pytest.raises(ValueError, match="must be an integer >= 1"):
        estimate_release_seconds(**{**dict(n=10, d=10, T=10, l=1), **bad})
