"""CAPE sites that build themselves from their own files (dpcda.mechanisms.site_source): the
caller passes locators, never records; the release equals the in-memory one."""

from __future__ import annotations

import re
import traceback

import numpy as np
import pytest

from dpcda.mechanisms import cape_engine, site_source
from dpcda.mechanisms.cape import generate_sites
from dpcda.mechanisms.site_source import DatasetPart, SiteFile, site_sources
from dpcda.mechanisms.sites import sites_from_arrays

KW = dict(mode="cape", l=4, T=60, sigma_x=0.5, normalize="scale", seed=13)


def write_sites(tmp_path, S=3, n=42, d=4, header=True, seed=2, names=None):
    """``S`` CSV files (label first, pixel values) and the same records in memory."""
    r = np.random.default_rng(seed)  # test data only
    parts, paths = [], []
    for s in range(S):
        X = r.integers(0, 256, (n, d)).astype(np.float64)
        y = np.arange(n) % 3
        parts.append((X, y))
        path = tmp_path / f"site{s}.csv"
        cols = names or [f"f{j}" for j in range(d)]
        rows = [",".join(["label", *cols])] if header else []
        rows += [",".join([str(k), *(str(int(v)) for v in x)]) for x, k in zip(X, y)]
        path.write_text("\n".join(rows) + "\n")
        paths.append(str(path))
    return parts, paths


DP_CENTER = dict(normalize="dp-center", sigma_x=None, epsilon=5.0, bounds=(0, 255))


@pytest.mark.parametrize("setting", [{}, DP_CENTER], ids=["scale", "dp-center"])
def test_release_from_files_equals_the_in_memory_release(tmp_path, setting):
    parts, paths = write_sites(tmp_path)
    kw = {**KW, **setting}
    a = generate_sites(sites_from_arrays(parts, 3), engine="inline", **kw)
    b = generate_sites(site_sources(paths, "0,1,2"), engine="inline", **kw)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert np.array_equal(a.y_soft, b.y_soft)
    ca, cb = a.card, b.card
    assert set(ca) == set(cb) and set(ca["parameters"]) == set(cb["parameters"])
    assert ca["privacy"] == cb["privacy"]  # every threat model's epsilon, accountant, t
    assert (cb["mode"], cb["sites"], cb["split"]) == ("cape", 3, "files")
    assert {k for k in ca["parameters"] if ca["parameters"][k] != cb["parameters"][k]} == \
        {"site_records"}
    assert "its own records" in cb["parameters"]["site_records"]


def test_the_caller_sends_locators_and_never_reads_a_site_file(tmp_path, monkeypatch):
    parts, paths = write_sites(tmp_path)
    sent = []
    real_open = cape_engine.open_engine

    def spy(name, specs, **kw):
        specs = list(specs)
        sent.extend(specs)
        return real_open(name, specs, **kw)

    def refuse(*a, **k):
        raise AssertionError("the caller's process read a site's records")

    monkeypatch.setattr(cape_engine, "open_engine", spy)
    monkeypatch.setattr(site_source, "load_site", refuse)  # in this process only
    with pytest.raises(AssertionError, match="caller's process read"):  # inline: sites are here
        generate_sites(site_sources(paths, "0,1,2"), engine="inline", **KW)
    want = generate_sites(sites_from_arrays(parts, 3), engine="inline", **KW)
    sent.clear()
    rel = generate_sites(site_sources(paths, "0,1,2"), engine="local", **KW)
    assert rel.card["parameters"]["engine"] == "local"
    assert np.array_equal(rel.X, want.X)  # the workers loaded the files themselves
    assert [sp["source"] for sp in sent] == [SiteFile(p) for p in paths]
    for sp in sent:  # a locator, the public class names, the site's index: no array, no record
        assert "X" not in sp and "y" not in sp
        assert not any(isinstance(v, np.ndarray) for v in sp.values())


@pytest.mark.parametrize("second", [dict(d=5), dict(names=["f0", "f1", "g2", "f3"])])
def test_mismatched_columns_are_refused_without_a_private_value(tmp_path, second):
    _, paths = write_sites(tmp_path, S=2)
    other = tmp_path / "other"
    other.mkdir()
    _, more = write_sites(other, S=1, seed=5, **second)
    with pytest.raises(ValueError) as err:
        generate_sites(site_sources([*paths, *more], "0,1,2"), engine="inline", **KW)
    msg = str(err.value)
    assert "site_files must share the same feature columns" in msg and "mismatched" in msg
    assert not re.search(r"\d", msg), msg  # no count, no row number


def test_a_label_outside_the_classes_is_refused_without_the_label(tmp_path):
    _, paths = write_sites(tmp_path, S=2)
    with pytest.raises(ValueError, match=r"labels must be among classes=\['0', '1'\]") as err:
        generate_sites(site_sources(paths, ["0", "1"]), engine="inline", **KW)
    assert "2" not in str(err.value)  # the stray label (2) is not repeated
    bad = tmp_path / "bad.csv"
    bad.write_text(open(paths[1]).read() + "1,2,,4,5\n")  # an empty cell on a late row
    with pytest.raises(ValueError, match="could not be read") as err:
        generate_sites(site_sources([paths[0], str(bad)], "0,1,2"), engine="inline", **KW)
    assert "row" not in str(err.value)  # where it fails stays at the site (a row places a record)
    # nor does it leave the site chained to the error: a remote engine (Ray) ships the site's
    # formatted traceback, causes included (it carried "row 44, column 2" to the coordinator)
    assert err.value.__cause__ is None and err.value.__context__ is None
    assert "row" not in "".join(traceback.format_exception(err.value))
    with pytest.raises(ValueError) as direct:  # the loader itself, where the site calls it
        site_source.load_site(SiteFile(str(bad)), 1, 2, ["0", "1", "2"])
    assert "row" in str(direct.value.__cause__)  # the site's own, detailed message
    with pytest.raises(ValueError, match="no file"):
        generate_sites(site_sources([paths[0], str(tmp_path / "gone.csv")], "0,1,2"),
                       engine="inline", **KW)


def test_a_site_checks_its_records_against_the_public_range(tmp_path):
    parts, paths = write_sites(tmp_path, S=2)
    with open(paths[1], "a") as fh:
        fh.write("0,300,1,1,1\n")  # outside [0, 255]: scale without bounds refuses it
    with pytest.raises(ValueError, match="without bounds assumes pixel values"):
        generate_sites(site_sources(paths, "0,1,2"), engine="inline", **KW)
    rel = generate_sites(site_sources(paths, "0,1,2"), engine="inline",
                         **{**KW, "bounds": (0, 300)})
    assert rel.card["mode"] == "cape"
    # the same records in memory are refused too (the in-memory path checked site 0's only)
    parts[1] = (np.vstack([parts[1][0], [[300, 1, 1, 1]]]), np.append(parts[1][1], 0))
    with pytest.raises(ValueError, match="without bounds assumes pixel values"):
        generate_sites(sites_from_arrays(parts, 3), engine="inline", **KW)


def test_dataset_parts_are_loaded_and_cut_at_each_site():
    from dpcda.data import load_dataset

    ds = load_dataset("digits")
    S = 3
    loaded = [site_source.load_site(DatasetPart("digits"), s, S, ds.class_names)
              for s in range(S)]
    rows = np.concatenate([X for X, _, _ in loaded])
    assert len(rows) == len(ds.y_train)  # the parts cover the training split once
    assert len({X.tobytes() for X, _, _ in loaded}) == S
    parts = [(X, y) for X, y, _ in loaded]
    kw = {**KW, "bounds": (0, 16)}
    a = generate_sites(sites_from_arrays(parts, 10), engine="inline", **kw)
    b = generate_sites(site_sources([DatasetPart("digits")] * S, ds.class_names),
                       engine="inline", **kw)
    assert np.array_equal(a.X, b.X) and a.card["privacy"] == b.card["privacy"]


def test_bad_locators_and_modes_name_the_parameter(tmp_path):
    _, paths = write_sites(tmp_path, S=2)
    for bad, words in [(([str(tmp_path / "a.txt")], "0,1"), "must end in .csv or .npz"),
                       (([], "0,1"), "at least one site"),
                       ((paths, "0"), "classes must list at least 2 distinct"),
                       ((paths, "0,0.0"), "classes must list at least 2 distinct"),
                       (([3], "0,1"), "site_files must be paths")]:
        with pytest.raises(ValueError, match=words):
            site_sources(*bad)
    for mode in ("centralized", "local"):
        with pytest.raises(ValueError, match="mode must be cape for sites given by their files"):
            generate_sites(site_sources(paths, "0,1,2"), **{**KW, "mode": mode})


@pytest.mark.parametrize("files", [True, False], ids=["files", "in-memory"])
def test_l_above_the_pooled_sizes_under_whole_record_names_no_size(tmp_path, files):
    """The pooled class sizes are read from the sites (private): an l the whole-record relation
    refuses (a class must keep l records after losing one) is worded with l and the rule only.
    The accountant's own check said "from 1 to 3 ... the smallest class, 4 records"."""
    r = np.random.default_rng(7)  # test data only
    parts, paths = [], []
    for s, labels in enumerate([[0] * 10 + [1] * 10 + [2] * 2] * 2 + [[0] * 10 + [1] * 10]):
        X = r.integers(0, 256, (len(labels), 4)).astype(np.float64)
        parts.append((X, np.array(labels)))
        rows = [",".join([str(k), *(str(int(v)) for v in x)]) for x, k in zip(X, labels)]
        (tmp_path / f"e{s}.csv").write_text("\n".join(rows) + "\n")
        paths.append(str(tmp_path / f"e{s}.csv"))  # class 2: 4 records in all, l = 4
    sites = site_sources(paths, "0,1,2") if files else sites_from_arrays(parts, 3)
    kw = dict(mode="cape", l=4, T=60, epsilon=1.0, accountant="whole-record", engine="inline")
    with pytest.raises(ValueError, match=r"l must be at most the smallest class size minus "
                                         r"one .*got l=4") as err:
        generate_sites(sites, **kw)
    assert not re.search(r"\d", str(err.value).replace("l=4", "")), str(err.value)
    assert generate_sites(sites, **{**kw, "l": 3}).card["privacy"]["epsilon"] > 0  # l = 3 serves


def test_a_site_sends_a_digest_of_its_header_never_the_names(tmp_path):
    """A headerless file whose first row holds a text cell reads that row as the header (as an
    upload does): the site sent those cells to the coordinator as "names". It sends a digest,
    which still tells mismatched headers apart."""
    from dpcda.mechanisms.cape_site import CapeSite

    _, paths = write_sites(tmp_path, S=1, header=False)
    odd = tmp_path / "odd.csv"
    odd.write_text("0,12,secret,34,56\n" + open(paths[0]).read())
    site = CapeSite(0, 2, K=3, source=SiteFile(str(odd)), classes=("0", "1", "2"))
    d, sent = site.load("scale", None, 1.0)
    assert d == 4 and "secret" not in repr(sent)
    (tmp_path / "n").mkdir()
    _, named = write_sites(tmp_path / "n", S=2, names=["f0", "f1", "f2", "f3"])
    got = [CapeSite(i, 2, K=3, source=SiteFile(p), classes=("0", "1", "2")).load("scale", None, 1.0)
           for i, p in enumerate(named)]
    assert got[0] == got[1] and "f0" not in repr(got)
    assert site_source.check_columns(got) == 4
    with pytest.raises(ValueError, match="mismatched columns"):
        site_source.check_columns([got[0], (d, sent)])
