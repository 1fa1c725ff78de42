"""What the Sites page shows as measured accuracy per normalisation (dpcda.dashboard.sites_accuracy):
dp-center's own rows where the table has them, scale's elsewhere and said so."""

from __future__ import annotations

from dpcda.dashboard import sites as ds
from dpcda.dashboard.sites_accuracy import MODE_TITLES, sites_accuracy
from dpcda.experiments.sites_table import SitesRow, load_sites_table

SCALE_NOTE = "Measured on scale releases"


def row(**kw) -> SitesRow:
    base = dict(dataset="mnist", epsilon=1.0, split="iid", alpha=None, sites=10, mode="cape",
                learner="lda", runs=3, accuracy=0.8, accuracies=(0.8, 0.8, 0.8), commit="abc")
    return SitesRow(**{**base, **kw})


ROWS = [row(mode=m, accuracy=a) for m, a in (("centralized", 0.82), ("cape", 0.81), ("local", 0.77))]
ROWS += [row(mode=m, sites=5, accuracy=0.7) for m in ("centralized", "cape", "local")]
ROWS += [row(mode=m, accuracy=a, normalize="dp-center", commit="ddd", runs=2, accuracies=(a, a))
         for m, a in (("centralized", 0.61), ("cape", 0.62), ("local", 0.51))]


def test_accuracy_by_sites_keeps_the_normalisations_apart():
    kw = dict(dataset="mnist", epsilon=1, split="iid", alpha=None)
    scale = ds.accuracy_by_sites(ROWS, **kw)
    center = ds.accuracy_by_sites(ROWS, normalize="dp-center", **kw)
    assert scale["cape"] == {10: (0.81, 3, "lda", "abc"), 5: (0.7, 3, "lda", "abc")}
    assert center["cape"] == {10: (0.62, 2, "lda", "ddd")}


def test_dp_center_shows_its_own_row_where_there_is_one():
    acc = sites_accuracy(ROWS, dataset="mnist", epsilon=1, split="iid", alpha=None,
                         normalize="dp-center")
    assert acc.at("centralized", 10).accuracy == 0.61 and acc.at("centralized", 10).normalize == "dp-center"
    assert acc.cell("cape", 10) == "0.620 (2 runs, lda, commit ddd)"  # not scale's 0.810
    assert acc.fallback_modes(10) == () and acc.note(10) is None
    assert acc.column(10) == "accuracy (measured)"
    cap = acc.own_caption(10)
    assert "dp-center's own accuracy" in cap and "centralized 0.820" in cap and "commit ddd" in cap


def test_dp_center_falls_back_to_scale_where_it_was_not_measured_and_says_so():
    acc = sites_accuracy(ROWS, dataset="mnist", epsilon=1, split="iid", alpha=None,
                         normalize="dp-center")
    assert acc.at("cape", 5).normalize == "scale"
    assert acc.cell("cape", 5) == "0.700 (on scale, 3 runs, lda, commit abc)"
    assert acc.fallback_modes(5) == ("centralized", "cape", "local")
    assert acc.column(5) == "accuracy (measured on scale)"
    note = acc.note(5)
    assert note.startswith(f"**{SCALE_NOTE}** at S = 5") and "dp-center was measured at S = 10" in note
    assert acc.own_caption(5) is None
    assert acc.cell("cape", 20) == "not measured at this S (measured at S = 5, 10)"


def test_no_dp_center_row_at_all_says_every_accuracy_is_scale_s():
    acc = sites_accuracy(ROWS, dataset="mnist", epsilon=1, split="skewed", alpha=0.5,
                         normalize="dp-center")
    assert "none of them is dp-center's accuracy" in acc.note(10)
    only_scale = [r for r in ROWS if r.normalize == "scale"]
    acc = sites_accuracy(only_scale, dataset="mnist", epsilon=1, split="iid", alpha=None,
                         normalize="dp-center")
    assert acc.note(10).startswith(f"**{SCALE_NOTE}.** Every accuracy")
    assert acc.cell("cape", 10) == "0.810 (on scale, 3 runs, lda, commit abc)"
    assert "scale releases)" in acc.figure_title("mnist", 1, "iid")


def test_scale_shows_scale_rows_only_and_no_note():
    acc = sites_accuracy(ROWS, dataset="mnist", epsilon=1, split="iid", alpha=None)
    assert acc.cell("cape", 10) == "0.810 (3 runs, lda, commit abc)"
    assert acc.note(10) is None and acc.own_caption(10) is None and acc.fallback_modes(10) == ()
    assert [s["name"] for s in acc.series()] == [MODE_TITLES[m] for m in ds.MODES]
    assert all(s["lines"] and s["normalize"] == "scale" for s in acc.series())


def test_the_figure_draws_scale_lines_and_dp_center_markers():
    acc = sites_accuracy(ROWS, dataset="mnist", epsilon=1, split="iid", alpha=None,
                         normalize="dp-center")
    marks = [s for s in acc.series() if not s["lines"]]
    assert [(s["mode"], s["xs"], s["ys"]) for s in marks] == [
        ("centralized", [10], [0.61]), ("cape", [10], [0.62]), ("local", [10], [0.51])]
    lines = [s for s in acc.series() if s["lines"]]
    assert lines[0]["xs"] == [5, 10] and lines[0]["ys"] == [0.7, 0.82]
    assert "dp-center releases (markers)" in acc.figure_title("mnist", 1, "iid")


def test_the_shipped_dp_center_rows_are_what_the_page_shows():
    """The shipped table's dp-center rows (MNIST and Fashion-MNIST, iid, S = 10) are shown as
    dp-center's, not scale's."""
    rows = load_sites_table()
    center = [r for r in rows
              if r.normalize == "dp-center" and r.learner == ds.sites_learner(r.dataset, r.epsilon)]
    assert {(r.dataset, r.sites, r.split) for r in center} >= {("mnist", 10, "iid"),
                                                               ("fashion-mnist", 10, "iid")}
    for r in center:
        acc = sites_accuracy(rows, dataset=r.dataset, epsilon=r.epsilon, split=r.split,
                             alpha=r.alpha, normalize="dp-center")
        got = acc.at(r.mode, r.sites)
        assert (got.accuracy, got.runs, got.commit, got.normalize) == (r.accuracy, r.runs, r.commit,
                                                                        "dp-center")
        assert r.runs == len(r.accuracies) and abs(sum(r.accuracies) / r.runs - r.accuracy) < 1e-4
