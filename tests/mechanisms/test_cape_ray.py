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


def test_ray_actors_build_themselves_from_their_own_files(tmp_path, monkeypatch):
    """The driver passes each actor a locator only (it cannot read the files here: its loader
    is refused), the actors read them on their node; the release equals the in-memory one, and
    a site's mismatched columns come back as the same one-line ValueError as inline."""
    from dpcda.mechanisms import site_source
    from dpcda.mechanisms.cape_ray import _PKG_ROOT
    from dpcda.mechanisms.site_source import site_sources
    from dpcda.mechanisms.sites import sites_from_arrays

    r = np.random.default_rng(3)  # test data only
    parts, paths = [], []
    for s in range(3):
        X = r.integers(0, 256, (30, 4)).astype(np.float64)
        y = np.arange(30) % 3
        parts.append((X, y))
        rows = [",".join([str(k), *(str(int(v)) for v in x)]) for x, k in zip(X, y)]
        (tmp_path / f"s{s}.csv").write_text("\n".join(rows) + "\n")
        paths.append(str(tmp_path / f"s{s}.csv"))
    (tmp_path / "odd.csv").write_text("0,1,2,3\n1,1,2,3\n2,1,2,3\n" * 5)
    kw = dict(mode="cape", l=4, T=60, sigma_x=0.5, normalize="scale", seed=21)
    want = generate_sites(sites_from_arrays(parts, 3), engine="inline", **kw)

    def refuse(*a, **k):
        raise AssertionError("the driver read a site's records")

    monkeypatch.setattr(site_source, "load_site", refuse)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": _PKG_ROOT}})
    try:
        got = generate_sites(site_sources(paths, "0,1,2"), engine="ray", **kw)
        assert got.card["parameters"]["engine"] == "ray" and got.card["split"] == "files"
        assert np.array_equal(got.X, want.X) and got.card["privacy"] == want.card["privacy"]
        with pytest.raises(ValueError, match="must share the same feature columns") as err:
            generate_sites(site_sources([*paths[:2], str(tmp_path / "odd.csv")], "0,1,2"),
                           engine="ray", **kw)
        assert "\n" not in str(err.value) and type(err.value) is ValueError
        with pytest.raises(ValueError, match="labels must be among") as err:  # in the actor
            generate_sites(site_sources(paths, "0,1"), engine="ray", **kw)
        assert "\n" not in str(err.value) and type(err.value) is ValueError
        bad = tmp_path / "bad.csv"  # where a site's file fails stays on its node: the actor's
        bad.write_text(open(paths[1]).read() + "1,2,,4,5\n")  # traceback carried "row 31"
        with pytest.raises(ValueError, match="could not be read") as err:
            generate_sites(site_sources([paths[0], str(bad)], "0,1,2"), engine="ray", **kw)
        assert "row" not in str(err.value) and "row" not in str(err.value.__context__)
    finally:
        ray.shutdown()
