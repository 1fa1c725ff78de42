"""The CAPE sites as Ray actors (the ``ray`` lane: starts a local Ray instance)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.mechanisms.cape import generate_sites
from dpcda.mechanisms.cape_masks import SiteDropout
from dpcda.mechanisms.sites import split_sites
from dpcda.randomness.secure import SecureRandom

ray = pytest.importorskip("ray")


def test_ray_actors_give_the_inline_release_bit_for_bit_and_ray_is_stopped():
    r = np.random.default_rng(2)  # test data only
    X = r.uniform(0, 1, (120, 4))
    y = np.repeat(np.arange(3), 40)
    sites = split_sites(X, y, sites=3, split="iid", n_classes=3, rng=SecureRandom(4))
    kw = dict(mode="cape", l=4, T=60, sigma_x=0.5, normalize="none", seed=13)
    a = generate_sites(sites, engine="inline", **kw)
    b = generate_sites(sites, engine="ray", **kw)
    assert b.card["parameters"]["engine"] == "ray"
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not ray.is_initialized()  # the engine started Ray, so it stopped it
    with pytest.raises(SiteDropout):
        generate_sites(sites, engine="ray", drop=(1,), **kw)
    assert not ray.is_initialized()
