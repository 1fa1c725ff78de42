"""Bad input across sites (issue 27 item 6): a ValueError naming the parameter and the allowed
values, never a private count, before anything is released."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.mechanisms.cape import check_colluding, generate_sites
from dpcda.mechanisms.sites import check_counts_for, sites_from_arrays, split_sites


def _sites(sizes=(7, 9, 11)):
    rng = np.random.default_rng(0)  # test data only; no release is made from it below
    parts = []
    for n in sizes:
        parts.append((rng.random((n, 4)), np.arange(n) % 2))
    return sites_from_arrays(parts, 2)


@pytest.mark.parametrize("colluding,words", [
    ([3], "t must be an integer in [1, 2] (colluding sites, sites=3), got t=3"),
    ([0], "t must be an integer in [1, 2]"),
    ([1, -1], "t must be an integer in [1, 2]"),
    ([1.5], "t must be an integer in [1, 2]"),
])
def test_colluding_t_out_of_range_is_refused_before_any_release(colluding, words):
    with pytest.raises(ValueError) as err:
        generate_sites(_sites(), mode="cape", l=2, T=20, sigma_x=1.0, colluding=colluding)
    assert words in str(err.value)


def test_colluding_needs_two_sites_and_is_sorted():
    assert check_colluding([2, 1, 2], 3) == [1, 2]
    with pytest.raises(ValueError, match=r"need at least 2 sites \(sites=1\)"):
        check_colluding([1], 1)


@pytest.mark.parametrize("counts,every,words", [
    ([[10, 0], [10, 9]], True, "a site holds no record of some class"),
    ([[30, 3], [40, 4]], True, "sites=2 is more than the classes allow"),
    ([[30, 3], [40, 6]], True, "every site needs at least l=4 records"),
    ([[1, 1], [1, 1]], False, "l=4 exceeds the records of a pooled class"),
])
def test_counts_checks_name_parameters_never_a_count(counts, every, words):
    with pytest.raises(ValueError) as err:
        check_counts_for(np.asarray(counts), 4, every_site=every)
    msg = str(err.value)
    assert words in msg
    assert not any(f"{c}" in msg.replace("l=4", "").replace("sites=2", "")
                   for c in (3, 6, 7, 9, 10, 20, 30, 40, 70))


def test_mismatched_columns_and_bad_alpha_are_refused():
    with pytest.raises(ValueError, match="mismatched columns"):
        sites_from_arrays([(np.zeros((3, 4)), np.zeros(3, int)), (np.zeros((3, 5)), np.zeros(3, int))], 2)
    X, y = np.zeros((10, 3)), np.arange(10) % 2
    for alpha in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"alpha must be a finite number > 0 \(the Dirichlet"):
            split_sites(X, y, sites=2, split="skewed", alpha=alpha, n_classes=2)
