"""Class allocation: T_k per class and the class-aware accountant's max over classes."""

import dataclasses

import numpy as np
import pytest

from dpcda.privacy import PrivacyParams, compute_epsilon, samples_per_class
from dpcda.privacy.rdp import rdp_subsampled_gaussian

COUNTS = (300, 100, 600)


def test_equal_and_proportional_counts():
    assert samples_per_class(1000, COUNTS, "equal").tolist() == [333, 333, 333]
    assert samples_per_class(1000, COUNTS, "proportional").tolist() == [300, 100, 600]
    assert samples_per_class(500, COUNTS, "proportional").tolist() == [150, 50, 300]


@pytest.mark.parametrize("bad", [dict(allocation="random"), dict(T=5, allocation="proportional")])
def test_bad_allocation_names_the_parameter(bad):
    kw = dict(T=1000, class_counts=COUNTS, allocation="equal") | bad
    with pytest.raises(ValueError, match="allocation|T must"):
        PrivacyParams(l=4, sigma_x=0.5, sigma_y=0.5, delta=1e-5, **kw)


def test_class_aware_is_max_over_classes():
    p = PrivacyParams(l=4, sigma_x=0.3, sigma_y=0.3, T=1000, class_counts=COUNTS, delta=1e-5,
                      allocation="proportional")
    got = compute_epsilon(p, accountant="class-aware", max_alpha=64)
    r = 2.0 / (0.3 ** 2 * 16)
    per_class = [t * rdp_subsampled_gaussian(r, 4 / n, 64).ravel() for t, n in
                 zip(p.samples_per_class, COUNTS)]
    np.testing.assert_allclose(got.rdp, np.max(per_class, axis=0), rtol=1e-12)
    # the equal split charges the smallest class 333 steps instead of 100: more epsilon
    eq = compute_epsilon(dataclasses.replace(p, allocation="equal"), accountant="class-aware",
                         max_alpha=64)
    assert eq.epsilon > got.epsilon
