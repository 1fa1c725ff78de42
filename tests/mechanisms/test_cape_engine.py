"""The CAPE sites as parties: X25519 key agreement, masks, tampering, dropouts, the engines
(dpcda.mechanisms.cape_keys, cape_site, cape_engine, cape_run)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpcda.mechanisms.cape import generate_sites
from dpcda.mechanisms.cape_engine import InlineEngine, resolve_engine
from dpcda.mechanisms.cape_keys import KeyAgreementError, KeyPair, verify_directory
from dpcda.mechanisms.cape_masks import MaskMismatch, SiteDropout, check_range, uniform_subsets
from dpcda.mechanisms.cape_site import CapeSite
from dpcda.mechanisms.sites import split_sites
from dpcda.randomness.secure import SecureRandom


def _parties(S=4, n=30, d=3, K=2, seed=1):
    r = np.random.default_rng(seed)  # test data only, never a private draw
    src = SecureRandom(seed)
    return [CapeSite(i, S, r.uniform(0, 1, (n, d)), np.arange(n) % K, K,
                     key=src.bytes(32).tobytes()) for i in range(S)]


def _agree(sites, session=bytes(range(32)), tamper=None):
    ids = {s.index: s.enrol() for s in sites}
    shares = [s.hello(session) for s in sites]
    if tamper is not None:
        shares = tamper(shares)
    for s in sites:
        s.agree(shares, ids, session)
    return ids, shares


def _prepare(sites, F=50, A=2.0):
    from dpcda.mechanisms.prepare import fit_preprocessor

    pre = fit_preprocessor(sites[0]._X, "none", c=1.0)
    for s in sites:
        s.prepare(pre, 1.0, np.full(sites[0]._X.shape[1] + sites[0].K, 0.3), F, A, 2)


def test_both_ends_of_every_pair_derive_the_same_key_and_others_do_not():
    src = SecureRandom(5)
    a, b, c = KeyPair(0, src), KeyPair(1, src), KeyPair(2, src)
    session = src.bytes(32).tobytes()
    k_ab, k_ba = a.pair_key(1, b.public, session), b.pair_key(0, a.public, session)
    assert k_ab == k_ba and len(k_ab) == 32
    assert a.pair_key(2, c.public, session) != k_ab
    assert a.pair_key(1, b.public, bytes(32)) != k_ab  # another release, another key
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(a)


def test_masks_from_the_key_agreement_cancel_exactly():
    sites = _parties()
    _agree(sites)
    _prepare(sites)
    counts = np.array([1, 0, 2, 1, 0])
    msgs = [s.message(0, counts, True) for s in sites]
    total = msgs[0][0].copy()
    for M, _ in msgs[1:]:
        total += M
    ideal = sum(g for _, g in msgs)
    from dpcda.mechanisms.cape_masks import from_fixed, to_fixed

    exact = to_fixed(msgs[0][1], 50, 2.0)
    for _, g in msgs[1:]:
        exact += to_fixed(g, 50, 2.0)
    assert (total == exact).all()  # the masks cancel bit for bit in the ring
    assert np.abs(from_fixed(total, 50) - ideal).max() < 1e-12
    assert not (msgs[0][0] == exact).all()  # and a message alone is masked
    check_range(total, 4, 50, 2.0)


def test_a_tampered_public_key_is_refused_before_any_message():
    sites = _parties()

    def swap(shares):  # the relay replaces site 2's key by one of its own
        own = KeyPair(2, SecureRandom(9))
        return [dataclasses.replace(sh, public=own.public) if sh.index == 2 else sh
                for sh in shares]

    with pytest.raises(KeyAgreementError, match="site 2's public key"):
        _agree(sites, tamper=swap)
    assert all(not s._streams for s in sites[:2])  # no pair stream keyed: nothing can be sent


def test_a_tampered_key_that_passes_the_check_breaks_cancellation_and_aborts():
    # if the identities themselves were swapped (the out-of-band pinning failed), the keys
    # derive but differ: the masks do not cancel, and the aggregator's range check aborts
    sites = _parties()
    session = bytes(32)
    ids = {s.index: s.enrol() for s in sites}
    shares = [s.hello(session) for s in sites]
    for s in sites:
        s.agree(shares, ids, session)
    intruder = KeyPair(3, SecureRandom(11))
    sites[0]._streams[3] = SecureRandom.from_key(intruder.pair_key(0, sites[0]._pair.public,
                                                                   session))
    _prepare(sites)
    msgs = [s.message(1, np.array([1, 1, 0, 2]), False) for s in sites]
    total = msgs[0].copy()
    for M in msgs[1:]:
        total += M
    with pytest.raises(MaskMismatch, match="did not cancel"):
        check_range(total, 4, 50, 2.0)


def test_the_directory_needs_every_site_once():
    sites = _parties(S=3)
    ids = {s.index: s.enrol() for s in sites}
    shares = [s.hello(bytes(32)) for s in sites]
    with pytest.raises(KeyAgreementError, match="one public key per site"):
        verify_directory(shares[:2], ids, bytes(32), 3)


def test_numpy_subsets_are_uniform_and_distinct():
    src = SecureRandom(3)
    idx = uniform_subsets(5, 2, 20000, generator=src)
    assert (idx[:, 0] != idx[:, 1]).all()
    pairs = np.sort(idx, axis=1)
    freq = np.bincount(pairs[:, 0] * 5 + pairs[:, 1], minlength=25)
    freq = freq[freq > 0]
    assert len(freq) == 10  # every one of C(5, 2) subsets
    from scipy.stats import chisquare

    assert chisquare(freq).pvalue > 1e-4
    assert uniform_subsets(4, 4, 3, generator=src).shape == (3, 4)  # Floyd's fallback


def _small_sites(S=3):
    r = np.random.default_rng(2)
    X = r.uniform(0, 1, (120, 4))
    y = np.repeat(np.arange(3), 40)
    return split_sites(X, y, sites=S, split="iid", n_classes=3, rng=SecureRandom(4))


def test_a_dropout_aborts_and_the_engine_leaves_nothing_running():
    sites = _small_sites()
    with pytest.raises(SiteDropout, match="nothing is published"):
        generate_sites(sites, mode="cape", l=4, T=30, sigma_x=0.5, normalize="none", drop=(2,),
                       engine="inline")


def test_engines_resolve_by_size_and_refuse_unknown_names():
    assert resolve_engine("auto", 1000, 3) == "inline"
    assert resolve_engine("inline", 10**9, 3) == "inline"
    from dpcda.mechanisms.cape_engine import cores

    assert resolve_engine("auto", 10**9, 10) == ("local" if cores() > 1 else "inline")
    with pytest.raises(ValueError, match="engine must be one of"):
        resolve_engine("flower", 10, 3)
    eng = InlineEngine([dict(index=0, S=1, X=np.zeros((2, 1)), y=np.array([0, 1]), K=2)])
    assert eng.call("class_sizes", {0: ()})[0].tolist() == [1, 1]


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_local_engine_gives_the_inline_release_bit_for_bit_and_stops_its_workers(monkeypatch):
    from dpcda.mechanisms import cape_engine

    pids: list[int] = []
    close = cape_engine.LocalEngine.close

    def spy(self):
        pids.extend(p.pid for p in self._procs)
        close(self)

    monkeypatch.setattr(cape_engine.LocalEngine, "close", spy)
    sites = _small_sites()
    kw = dict(mode="cape", l=4, T=60, sigma_x=0.5, normalize="none", seed=13)
    a = generate_sites(sites, engine="inline", **kw)
    b = generate_sites(sites, engine="local", **kw)
    W = min(3, cape_engine.cores())
    assert b.card["parameters"]["engine"] == "local" and len(pids) == W
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not any(_alive(p) for p in pids)
    with pytest.raises(SiteDropout):  # an abort mid-stream stops the workers too
        generate_sites(sites, engine="local", drop=(0,), **kw)
    assert len(pids) == 2 * W and not any(_alive(p) for p in pids)


def test_a_relay_that_swaps_a_key_aborts_the_release_end_to_end(monkeypatch):
    from dpcda.mechanisms import cape_engine, cape_site

    call = cape_engine.InlineEngine.call
    own = KeyPair(2, SecureRandom(9)).public  # the relay's own key in place of site 2's

    def relay(self, method, args):
        if method == "agree":  # site 0 is shown a directory where site 2's key is swapped
            shares, ids, session = args[0]
            swapped = [dataclasses.replace(sh, public=own) if sh.index == 2 else sh for sh in shares]
            args = {**args, 0: (swapped, ids, session)}
        return call(self, method, args)

    monkeypatch.setattr(cape_engine.InlineEngine, "call", relay)
    sites = _small_sites()
    kw = dict(mode="cape", l=4, T=60, sigma_x=0.5, normalize="none", engine="inline")
    with pytest.raises(KeyAgreementError, match="site 2's public key"):
        generate_sites(sites, **kw)  # the signature check catches it before any message
    # had the pinning failed too (no signature check), the masks would not cancel: abort
    monkeypatch.setattr(cape_site, "verify_directory",
                        lambda shares, ids, session, S: {sh.index: sh.public for sh in shares})
    with pytest.raises(MaskMismatch, match="did not cancel"):
        generate_sites(sites, **kw)
