"""Inputs an operator may give that once ended in a traceback (issue 18, item 4): each is one
line on stderr and exit status 2, and nothing is written, queued or half-written."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from dpcda.cli import main


def _one_line(capsys, argv) -> str:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv, says", [
    (["epsilon", "--preset", "mnist", "--l", "4", "--sigma-x", "1",
      "--T", "100000000000000000000"], "T must be an integer in [1, 1000000000]"),
    (["epsilon", "--preset", "mnist", "--l", "4", "--sigma-x", "1", "--c", "1e308"],
     "c must be a finite number in (0, 10000]"),
    (["epsilon", "--preset", "mnist", "--l", "4", "--sigma-x", "1e308"],
     "sigma_x must be a finite number in [0, 10000]"),
    (["calibrate", "--preset", "mnist", "--l", "4", "--epsilon", "1e-300"],
     "epsilon must be a finite number in [0.001, 10000]"),
])
def test_privacy_numbers_that_overflow_are_refused(capsys, argv, says):
    assert says in _one_line(capsys, argv)


def test_generate_refuses_huge_noise_and_unwritable_outputs_before_any_work(tmp_path, capsys):
    base = ["generate", "--dataset", "digits", "--l", "4"]
    err = _one_line(capsys, base + ["--sigma-x", "1e308", "--out", str(tmp_path / "a.npz")])
    assert "sigma_x must be a finite number in [0, 10000]" in err
    folder = tmp_path / "x.npz"
    folder.mkdir()
    err = _one_line(capsys, base + ["--sigma-x", "1", "--out", str(folder)])
    assert "--out must be a file path, got the folder" in err
    card_folder = tmp_path / "c.json"
    card_folder.mkdir()
    err = _one_line(capsys, base + ["--sigma-x", "1", "--out", str(tmp_path / "c.npz")])
    assert "data card" in err and "folder" in err
    # /proc refuses new files even for root: a place this process cannot write
    err = _one_line(capsys, base + ["--sigma-x", "1", "--out", "/proc/dpcda-test.npz"])
    assert "--out: cannot write in the folder '/proc'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "x.npz"]


def test_a_failed_write_leaves_no_half_written_release(tmp_path, monkeypatch):
    """The release and its card are written beside --out and renamed into place: a write that
    fails (a full disk) leaves neither, and an older release there stays whole."""
    import errno

    from dpcda.cli.generate import _save

    out = tmp_path / "r.npz"
    out.write_bytes(b"old release")

    def full_disk(rel, path):
        path.write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(ValueError, match="the disk is full"):
        _save(full_disk, None, out)
    assert out.read_bytes() == b"old release"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.npz"]


def _jobs(db) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("extra, says", [
    (["--epsilons", "1e-300"], "epsilon must be a finite number in [0.001, 10000] (or inf)"),
    (["--epsilons", "10,1e308"], "got epsilon=1e+308"),
    (["--epsilons", "10", "--T", "1000000000000"], "T must be an integer in [1, 1000000000]"),
    (["--epsilons", "10", "--T", "5"], "T must be an integer in [10, 1000000000]"),
    (["--sigmas", "0.5,1e308"], "sigma_x must be a finite number in [0, 10000]"),
    (["--epsilons", "10", "--c", "1e308"], "c must be a finite number in (0, 10000]"),
    (["--epsilons", "10", "--out", "/nonexistent/r.csv"], "--out: the folder '/nonexistent'"),
])
def test_sweep_refuses_its_grid_before_anything_is_queued(tmp_path, capsys, extra, says):
    db = tmp_path / "jobs.sqlite3"
    err = _one_line(capsys, ["sweep", "--dataset", "digits", "--ls", "2,4", "--db", str(db),
                             *extra])
    assert says in err
    assert _jobs(db) == 0


def test_sweep_refuses_unknown_and_missing_datasets(tmp_path, capsys, monkeypatch):
    db = tmp_path / "jobs.sqlite3"
    err = _one_line(capsys, ["sweep", "--dataset", "nosuch", "--epsilons", "10", "--ls", "1",
                             "--db", str(db)])
    assert "unknown dataset 'nosuch'" in err
    empty = tmp_path / "datasets"
    (empty / "cache").mkdir(parents=True)
    monkeypatch.setenv("DPCDA_DATA_DIR", str(empty))
    monkeypatch.setenv("DPCDA_CACHE_DIR", str(empty / "cache"))
    monkeypatch.setenv("DPCDA_OFFLINE", "1")
    err = _one_line(capsys, ["sweep", "--dataset", "cifar10", "--epsilons", "10", "--ls", "4",
                             "--db", str(db)])
    assert "dataset 'cifar10' cannot be loaded here" in err and "not found" in err
    assert _jobs(db) == 0


def _release(folder, **arrays):
    """A digits release file as generate writes it (X in [0, 1] rows, y, y_soft, its card)."""
    rng = np.random.default_rng(0)
    n = 200
    base = dict(X=rng.uniform(0, 0.1, (n, 64)).astype(np.float32),
                y=np.arange(n) % 10, y_soft=np.eye(10, dtype=np.float32)[np.arange(n) % 10])
    base.update(arrays)
    path = folder / "r.npz"
    np.savez(path, **base)
    path.with_suffix(".json").write_text(json.dumps(
        {"dataset": "digits", "normalization": {"method": "scale", "clip_norm": 1.0}}))
    return path


def test_fidelity_of_a_sound_release_runs(tmp_path, capsys):
    assert main(["fidelity", "--dataset", "digits", "--release", str(_release(tmp_path)),
                 "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["classes"]) == 10


@pytest.mark.parametrize("arrays, says", [
    (dict(y=np.full(200, 99)), "labels y must be in 0..9 (digits has 10 classes), got labels 99..99"),
    (dict(X=np.full((200, 64), np.nan, np.float32)), "features X must be finite numbers"),
    (dict(X=np.zeros((0, 64), np.float32), y=np.zeros(0, int), y_soft=np.zeros((0, 10))),
     "at least one row"),
])
def test_fidelity_refuses_a_release_it_cannot_compare(tmp_path, capsys, arrays, says):
    err = _one_line(capsys, ["fidelity", "--dataset", "digits", "--release",
                             str(_release(tmp_path, **arrays))])
    assert says in err


def test_fidelity_refuses_a_release_whose_header_claims_8_tib(tmp_path, capsys):
    import io
    import zipfile

    path = _release(tmp_path)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False,
                                                "shape": (2**40,)})
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("X.npy", head.getvalue() + b"\0" * 64)
        for name, a in (("y", np.zeros(8, int)), ("y_soft", np.zeros((8, 10)))):
            buf = io.BytesIO()
            np.save(buf, a)
            z.writestr(f"{name}.npy", buf.getvalue())
    err = _one_line(capsys, ["fidelity", "--dataset", "digits", "--release", str(path)])
    assert "too large once unpacked" in err and "X [1099511627776] float64" in err


def test_sweep_max_attempts_reaches_every_job(tmp_path, capsys):
    """``--max-attempts`` (issue 18, item 6): the jobs may be started that many times."""
    db = tmp_path / "jobs.sqlite3"
    assert main(["sweep", "--dataset", "digits", "--epsilons", "10", "--ls", "4", "--model", "ncm",
                 "--max-attempts", "5", "--quiet", "--db", str(db)]) == 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT max_attempts, status FROM jobs").fetchall() == [(5, "done")]
    conn.close()
    capsys.readouterr()
    err = _one_line(capsys, ["sweep", "--dataset", "digits", "--ls", "4", "--max-attempts", "0",
                             "--db", str(db)])
    assert "--max-attempts must be an integer >= 1" in err
