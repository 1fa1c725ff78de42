"""dpcda.experiments.sites_files: a CAPE release from the sites' own files, evaluated on the
coordinator's test file."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.experiments.sites_files import run_site_files


def _csv(path, d=4, seed=0, n=42):
    r = np.random.default_rng(seed)  # test data only
    rows = [",".join([str(k % 3), *(str(int(v)) for v in r.integers(0, 256, d))])
            for k in range(n)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_the_release_is_evaluated_on_the_test_file(tmp_path):
    paths = [_csv(tmp_path / f"s{s}.csv", seed=s) for s in range(3)]
    res, rel = run_site_files(site_files=paths, classes="0,1,2", epsilon=5.0, T=60,
                              engine="inline", test_file=_csv(tmp_path / "t.csv", seed=8))
    r = res["cape"]
    assert rel.X.shape == (60, 4) and rel.card["split"] == "files"
    assert 0.0 <= r["accuracy"] <= 1.0 and r["learner"] == "tree"  # the tabular default
    assert r["epsilon"] == rel.card["privacy"]["epsilon"] and r["sites"] == 3


def test_bad_settings_are_refused_by_name(tmp_path):
    paths = [_csv(tmp_path / f"s{s}.csv", seed=s) for s in range(2)]
    base = dict(site_files=paths, classes="0,1,2", epsilon=5.0, T=60, engine="inline")
    for extra, words in [(dict(engine="gpu"), "engine must be one of auto, inline"),
                         (dict(normalize="zscore"), "normalize must be one of scale"),
                         (dict(T=0), "T must be"),
                         (dict(colluding=[2]), "t must be an integer in"),
                         (dict(test_file=_csv(tmp_path / "t.csv", d=5)),
                          "test_file must have the sites' feature columns")]:
        with pytest.raises(ValueError, match=words):
            run_site_files(**{**base, **extra})


def test_a_bad_test_file_is_refused_as_the_test_file(tmp_path):
    """The test file is read here, not at a site: its refusals name test_file (they named
    site_files and "site 0's machine")."""
    paths = [_csv(tmp_path / f"s{s}.csv", seed=s) for s in range(2)]
    base = dict(site_files=paths, classes="0,1,2", epsilon=5.0, T=60, engine="inline")
    bad = tmp_path / "bad.csv"
    bad.write_text(open(paths[0]).read() + "1,2,,4,5\n")
    two = tmp_path / "two.csv"
    two.write_text("0,1,2,3,4\n5,1,2,3,4\n")  # a label outside the classes
    for test_file, words in [(str(tmp_path / "gone.csv"), "test_file: no file"),
                             (str(bad), "test_file .* could not be used"),
                             (str(two), r"test_file .* labels among classes=\['0', '1', '2'\]")]:
        with pytest.raises(ValueError, match=words) as err:
            run_site_files(**{**base, "test_file": test_file})
        assert "site_files" not in str(err.value) and "site 0" not in str(err.value)
