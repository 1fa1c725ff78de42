"""Extreme and non-finite feature values (issue 26, item 3): every finite record is clipped to
norm c in float64, no release holds a non-finite value, and NaN/inf is refused before anything
private is used, in words that hold no data value, count or position."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import dpcda.mechanisms.baselines as baselines_mod
import dpcda.mechanisms.dp_cda as dp_cda_mod
import dpcda.mechanisms.dp_merf as dp_merf_mod
from dpcda.data.preprocess import clip_rows
from dpcda.mechanisms import (generate_dp_merf, generate_dpcda, generate_dpmix, generate_local,
                              generate_random_projection)
from dpcda.mechanisms.dp_cda import generate_dpcda_traced
from dpcda.mechanisms.prepare import fit_preprocessor


def _digits():
    from sklearn.datasets import load_digits

    d = load_digits()
    return d.data.astype(np.float64), d.target.astype(np.int64)


def _small(seed=0, n=60, d=6):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    return rng.uniform(0, 16, size=(n, d)) + 2.0 * y[:, None], y


@pytest.mark.parametrize("normalize, value", [("scale", 1e41), ("none", 1e39),
                                              ("scale", -1e300), ("none", 1.7e308)])
def test_one_extreme_value_gives_no_nan_rows(normalize, value):
    """Issue 26's reproduction: on the old code 2-18 rows of the release were NaN."""
    X, y = _digits()
    X[7, 3] = value
    kw = {"bounds": (0, 16)} if normalize == "scale" else {}
    rel = generate_dpcda(X, y, l=4, T=1340, epsilon=10, delta=1e-5, normalize=normalize,
                         seed=1, device="cpu", **kw)
    assert np.isfinite(rel.X).all() and np.isfinite(rel.y_soft).all()
    rows = rel.preprocess(X)
    assert np.isfinite(rows).all()
    norms = np.sqrt(np.einsum("ij,ij->i", rows.astype(np.float64), rows.astype(np.float64)))
    assert norms.max() <= 1.0
    assert norms[7] == pytest.approx(1.0, rel=1e-5)  # the extreme record is clipped to c


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
special = st.sampled_from([1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308,
                           5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, 0.0, 3.5e38, 1e41])
values = st.one_of(finite, special)


@settings(max_examples=200, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)), elements=values),
       c=st.sampled_from([1e-3, 1.0, 7.5, 1e6]))
def test_clip_rows_any_finite_rows(X, c):
    out = clip_rows(X, c)
    assert out.dtype == np.float32 and np.isfinite(out).all()
    n = np.sqrt(np.einsum("ij,ij->i", out.astype(np.float64), out.astype(np.float64)))
    assert (n <= c).all()
    big = np.max(np.abs(X), axis=1) > 2 * c  # a row far above c comes back at norm c
    np.testing.assert_allclose(n[big], c, rtol=1e-5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=arrays(np.float64, (12, 4), elements=values),
       normalize=st.sampled_from(["scale", "none", "zscore", "dp-center"]),
       sigma=st.sampled_from([0.0, 0.3]))
def test_release_of_any_finite_rows_is_finite(rows, normalize, sigma):
    """Arbitrary finite float64 rows (+-1e300, subnormals): a finite release whose pre-noise
    rows have norm <= c."""
    y = np.arange(12) % 2
    kw = {"bounds": (-1.0, 1.0)} if normalize in ("scale", "dp-center") else {}
    noise = {"epsilon": 5.0} if normalize == "dp-center" else {"sigma_x": sigma}
    rel, mixed = generate_dpcda_traced(rows, y, l=2, T=8, c=1.0, normalize=normalize,
                                       seed=3, device="cpu", compare_accountants=False,
                                       return_indices=True, **noise, **kw)
    assert np.isfinite(rel.X).all() and np.isfinite(rel.y_soft).all()
    pre = rel.preprocess(rows)
    n = np.sqrt(np.einsum("ij,ij->i", pre.astype(np.float64), pre.astype(np.float64)))
    assert np.isfinite(pre).all() and (n <= 1.0).all()


@pytest.mark.parametrize("gen, kw", [
    (generate_dpmix, dict(l=4, epsilon=5.0)),
    (generate_local, dict(epsilon=5.0)),
    (generate_random_projection, dict(epsilon=5.0)),
    (generate_dp_merf, dict(epsilon=5.0, steps=2, n_features=50, batch_size=30)),
])
@pytest.mark.parametrize("normalize, value", [("scale", 1e41), ("none", 1e39)])
def test_every_mechanism_releases_finite_values(gen, kw, normalize, value):
    X, y = _small()
    X[5, 2] = value
    b = {"bounds": (0, 20)} if normalize == "scale" else {}
    rel = gen(X, y, normalize=normalize, seed=2, device="cpu", **b, **kw)
    assert np.isfinite(rel.X).all() and np.isfinite(rel.y_soft).all()


def test_dp_merf_unclipped_extreme_row_is_finite():
    X, y = _small()
    X[5, 2] = 1e39
    rel = generate_dp_merf(X, y, epsilon=5.0, c=None, normalize="none", steps=2, n_features=50,
                           batch_size=30, seed=2, device="cpu")
    assert np.isfinite(rel.X).all()


class _Forbidden(Exception):
    pass


def _no_source(*a, **k):
    raise _Forbidden("the secure source was created before the input check")


def _no_fit(*a, **k):
    raise _Forbidden("a preprocessor was fitted before the input check")


@pytest.mark.parametrize("module, gen, kw", [
    (dp_cda_mod, generate_dpcda, dict(l=2, T=30, epsilon=5.0, normalize="dp-center",
                                      bounds=(0, 20))),
    (baselines_mod, generate_dpmix, dict(l=2, epsilon=5.0)),
    (baselines_mod, generate_local, dict(epsilon=5.0)),
    (baselines_mod, generate_random_projection, dict(epsilon=5.0)),
    (dp_merf_mod, generate_dp_merf, dict(epsilon=5.0, steps=2, n_features=50, batch_size=30)),
])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_refused_first_without_data_words(monkeypatch, module, gen, kw, bad):
    monkeypatch.setattr(module, "SecureRandom", _no_source)
    monkeypatch.setattr(module, "fit_preprocessor", _no_fit)
    messages = set()
    for rows in ([5], [3, 17, 40], [0, 59]):  # different counts and positions of bad rows
        X, y = _small()
        X[rows, 1] = bad
        with pytest.raises(ValueError, match="X must be finite") as e:
            gen(X, y, device="cpu", **kw)
        messages.add(str(e.value))
    assert len(messages) == 1  # the wording does not depend on which or how many rows
    assert not any(ch.isdigit() for ch in messages.pop())


def test_scale_without_bounds_error_holds_no_data_value():
    X, y = _small()
    X[4, 0] = 312.625
    with pytest.raises(ValueError, match=r"pixel values in \[0, 255\]") as e:
        fit_preprocessor(X, "scale", c=1.0)
    assert "312" not in str(e.value) and "0.0" not in str(e.value)


def test_dpmix_unclipped_error_holds_no_min_max():
    X, y = _small()
    X = X / 40.0
    X[4, 0] = -0.4375
    with pytest.raises(ValueError, match=r"DPMix needs features in \[0, 1\]") as e:
        generate_dpmix(X, y, l=2, sigma_x=0.5, accountant="dpmix", normalize="none", seed=1,
                       device="cpu")
    assert "0.438" not in str(e.value) and "-0.4" not in str(e.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_cli_refuses_non_finite_data_in_one_line_writing_nothing(monkeypatch, tmp_path, capsys,
                                                                  bad):
    import dpcda.data as data_mod
    from dpcda.cli import main

    real = data_mod.load_dataset

    def tampered(name, **kw):  # a dataset file edited to hold a NaN / inf
        ds = real(name, **kw)
        X = np.array(ds.X_train, dtype=np.float64)
        X[[3, 9], 5] = bad
        return type(ds)(**{**ds.__dict__, "X_train": X})

    monkeypatch.setattr(data_mod, "load_dataset", tampered)
    out = tmp_path / "r.npz"
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "5", "--T", "200",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "X must be finite" in err
    assert not any(ch.isdigit() for ch in err.split("X must be finite", 1)[1])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value, code", [(1e41, 2), (3e38, 0)])
def test_cli_with_one_extreme_value(monkeypatch, tmp_path, capsys, value, code):
    """Beyond float32 a Dataset (which stores float32) refuses in one line and nothing is
    written; within it the release is finite."""
    import dpcda.data as data_mod
    from dpcda.cli import main

    real = data_mod.load_dataset

    def tampered(name, **kw):
        ds = real(name, **kw)
        X = np.array(ds.X_train, dtype=np.float64)
        X[7, 3] = value
        return type(ds)(**{**ds.__dict__, "X_train": X})

    monkeypatch.setattr(data_mod, "load_dataset", tampered)
    out = tmp_path / "r.npz"
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1340",
                 "--out", str(out)]) == code
    err = capsys.readouterr().err
    if code:
        assert err.count("\n") == 1 and "must fit in float32" in err and "1e+41" not in err
        assert list(tmp_path.iterdir()) == []
    else:
        with np.load(out) as z:
            assert np.isfinite(z["X"]).all()


def test_uploads_refuse_what_float32_cannot_hold_and_release_the_rest():
    """An upload beyond float32 is refused without its value; one at 3e38 releases finitely."""
    import io

    from dpcda.data.upload import load_upload
    from dpcda.mechanisms import generate_from_dataset

    X, y = _small()
    for value, ok in ((1e41, False), (3e38, True)):
        Xv = X.copy()
        Xv[5, 2] = value
        buf = io.BytesIO()
        np.savez(buf, X=Xv, y=y)
        if not ok:
            with pytest.raises(ValueError, match="must fit in float32") as e:
                load_upload(buf.getvalue(), "u.npz")
            assert "1e+41" not in str(e.value) and "1e41" not in str(e.value)
            continue
        ds = load_upload(buf.getvalue(), "u.npz")
        rel = generate_from_dataset(ds, "dp-cda", l=2, epsilon=5.0, T=60, normalize="none",
                                    seed=1, device="cpu")
        assert np.isfinite(rel.X).all()
