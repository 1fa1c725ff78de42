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
