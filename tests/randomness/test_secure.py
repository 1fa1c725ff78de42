"""The secure source: keyed with 256 bits from the OS, seeds that mean all their bits, exact draws."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats

import dpcda.randomness.secure as secure
from dpcda.randomness import SecureRandom


class _CountingUrandom:
    def __init__(self, real):
        self.real, self.calls = real, []

    def __call__(self, n):
        self.calls.append(n)
        return self.real(n)


def test_unseeded_source_is_keyed_with_256_bits_from_the_os(monkeypatch):
    spy = _CountingUrandom(secure.os.urandom)
    monkeypatch.setattr(secure.os, "urandom", spy)
    SecureRandom()
    assert sum(spy.calls) >= 32  # a 256-bit ChaCha20 key, all of it from the OS
    spy.calls.clear()
    SecureRandom(seed=3)
    assert spy.calls == []  # a seeded source reads no entropy: it is reproducible, not private


def test_every_release_draws_a_fresh_256_bit_key(monkeypatch):
    from sklearn.datasets import load_digits

    from dpcda.mechanisms import generate_dpcda

    d = load_digits()
    spy = _CountingUrandom(secure.os.urandom)
    monkeypatch.setattr(secure.os, "urandom", spy)
    a = generate_dpcda(d.data, d.target, l=4, T=200, sigma_x=0.5, bounds=(0, 16))
    b = generate_dpcda(d.data, d.target, l=4, T=200, sigma_x=0.5, bounds=(0, 16))
    assert len(spy.calls) == 2 and min(spy.calls) >= 32
    assert not np.array_equal(a.X, b.X)
    assert a.card["privacy"]["seeded"] is False and b.card["privacy"]["seeded"] is False


def test_a_short_os_read_is_refused(monkeypatch):
    monkeypatch.setattr(secure.os, "urandom", lambda n: b"\x00" * (n - 1))
    with pytest.raises(RuntimeError, match="too few random bytes"):
        SecureRandom()


def test_seeds_differing_above_bit_32_give_unrelated_streams():
    """torch's MT19937 kept only the low 32 bits of a seed (s and s + 2^32 drew the same)."""
    s = 123_456
    a, b, c = (SecureRandom(seed=v).words(64) for v in (s, s + 2 ** 32, s))
    assert np.array_equal(a, c)
    assert not np.any(a == b)
    assert SecureRandom(seed=2 ** 200 + 5).words(4).shape == (4,)  # any size of integer


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True])
def test_bad_seed_is_refused(bad):
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        SecureRandom(seed=bad)


def test_the_key_cannot_be_pickled_or_shown():
    r = SecureRandom()
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(r)
    assert "OS-keyed" in repr(r) and "NOT private" in repr(SecureRandom(seed=1))


def test_words_are_uniform_bits():
    w = SecureRandom(seed=11).words(200_000)
    bits = np.unpackbits(w.view(np.uint8)).reshape(-1, 64).mean(axis=0)
    assert np.abs(bits - 0.5).max() < 5 * 0.5 / np.sqrt(len(w))
    u = SecureRandom(seed=12).random(200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > 1e-4


def test_keystream_is_continuous_across_calls():
    a = SecureRandom(seed=5)
    b = SecureRandom(seed=5)
    parts = np.concatenate([a.words(3), a.words(1000), a.words(5)])
    assert np.array_equal(parts, b.words(1008))


def test_permutation_is_a_uniform_permutation():
    r = SecureRandom(seed=8)
    p = r.permutation(1000)
    assert sorted(p.tolist()) == list(range(1000))
    # position of element 0 over many permutations of 5: uniform over the 5 places
    firsts = np.array([np.flatnonzero(r.permutation(5) == 0)[0] for _ in range(5000)])
    assert stats.chisquare(np.bincount(firsts, minlength=5)).pvalue > 1e-4
    assert r.permutation(0).shape == (0,) and r.permutation(1).tolist() == [0]


def test_releases_seeded_s_and_s_plus_2_to_the_32_differ():
    """The attack's premise: the legacy generator made these two releases identical."""
    from sklearn.datasets import load_digits

    from dpcda.mechanisms import generate_dpcda

    d = load_digits()
    kw = dict(l=4, T=300, sigma_x=0.5, bounds=(0, 16))
    s = 2024
    a = generate_dpcda(d.data, d.target, seed=s, **kw)
    b = generate_dpcda(d.data, d.target, seed=s + 2 ** 32, **kw)
    c = generate_dpcda(d.data, d.target, seed=s, **kw)
    assert np.array_equal(a.X, c.X) and np.array_equal(a.y, c.y)
    assert not np.array_equal(a.X, b.X) and not np.array_equal(a.y, b.y)
    assert a.card["privacy"]["seeded"] is True and a.card["privacy"]["private"] is False
    assert "not private" in a.card["privacy"]["randomness"]
    assert "NOT PRIVATE" in a.card["privacy"]["label"]
    unseeded = generate_dpcda(d.data, d.target, **kw)
    assert unseeded.card["privacy"]["private"] is True and "label" not in unseeded.card["privacy"]
    assert a.summary().startswith("SEEDED RELEASE: reproducible, NOT PRIVATE.")


def test_one_key_never_wraps_chacha20s_block_counter(monkeypatch):
    monkeypatch.setattr(secure, "MAX_BYTES", 1000)
    r = SecureRandom(seed=1)
    r.bytes(900)
    with pytest.raises(RuntimeError, match="exhausted"):
        r.bytes(200)


def _in_child(fn) -> tuple[int, str]:
    """Run ``fn`` in a forked child; (its exit code, what it wrote)."""
    import os

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(r)
        code, msg = 0, b""
        try:
            msg = repr(fn()).encode()
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            code, msg = 3, f"{type(e).__name__}: {e}".encode()
        os.write(w, msg[:4000])
        os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = f.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out


@pytest.mark.parametrize("draw", ["bytes", "words", "random", "below", "permutation",
                                  "torch_seed", "normal"])
def test_a_forked_child_cannot_repeat_the_parents_draws(draw):
    """A child of fork shares the parent's ChaCha20 state: without the pid check it would draw
    exactly what the parent draws next (the parent's next words are checked against it)."""
    from dpcda.randomness.noise import standard_normal

    src = SecureRandom()
    src.words(3)
    calls = {"bytes": lambda: src.bytes(16), "words": lambda: src.words(4),
             "random": lambda: src.random(4), "below": lambda: src.below(10, 4),
             "permutation": lambda: src.permutation(5), "torch_seed": src.torch_seed,
             "normal": lambda: standard_normal(src, 3)}
    code, out = _in_child(lambda: calls[draw]().tolist() if draw != "torch_seed"
                          else calls[draw]())
    assert code == 3, f"the child drew from the parent's source: {out}"
    assert out.startswith("ForkedSourceError") and "create a new SecureRandom() in the child" in out
    fresh_code, _ = _in_child(lambda: SecureRandom().words(2).tolist())  # the remedy works
    assert fresh_code == 0
    src.words(2)  # the parent itself keeps drawing
