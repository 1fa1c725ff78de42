"""dpcda.dashboard.samples.setting: the page's noise, T and image-shape parsing, file names."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.privacy import calibrate
from dpcda.dashboard.samples.setting import (T_CAP, default_T, generate_release, noise_for, parse_image_shape,
                                   quick_epsilon, release_stem, report_settings)

FACTS = dict(n=600, class_counts=(200, 200, 200), d_x=16, d_y=3)
SETTING = dict(l=4, T=600, c=1.0, delta=1e-5, accountant="class-aware", conversion="mironov",
               max_alpha=256, allocation="equal")


def test_noise_for_epsilon_matches_calibrate_and_sigma_roundtrips():
    nz = noise_for("epsilon", 5.0, **SETTING, **FACTS)
    cal = calibrate(epsilon=5.0, **{k: v for k, v in SETTING.items()}, n=600,
                    class_counts=(200, 200, 200), d_x=16, d_y=3)
    assert nz.sigma == pytest.approx(cal.sigma_x) and nz.epsilon <= 5.0
    back = noise_for("sigma", nz.sigma, **SETTING, **FACTS)
    assert back.epsilon == pytest.approx(nz.epsilon, rel=1e-6)
    assert math.isinf(noise_for("sigma", 0.0, **SETTING, **FACTS).epsilon)
    with pytest.raises(ValueError, match="mode must be"):
        noise_for("eps", 1.0, **SETTING, **FACTS)


def test_generate_release_uses_the_given_noise_and_records_the_target():
    from dpcda.data.dataset import Dataset

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 255, size=(600, 16)).astype(np.float32)
    y = np.repeat(np.arange(3), 200)
    ds = Dataset(name="toy", X_train=X, y_train=y, X_test=X[:30], y_test=y[:30],
                 class_names=("a", "b", "c"), image_shape=(1, 4, 4))
    nz = noise_for("epsilon", 5.0, **SETTING, **FACTS)
    rel = generate_release(ds, nz, target_epsilon=5.0, normalize="scale",
                           **{k: v for k, v in SETTING.items()})
    p = rel.card["privacy"]
    assert rel.card["parameters"]["sigma_x"] == nz.sigma and p["calibrated_to_epsilon"] == 5.0
    assert p["epsilon"] == pytest.approx(nz.epsilon, rel=1e-9) and p["accountant"] == "class-aware"
    # the page's release meets the target delta with floating point's share, as a calibrated one
    fp = p["floating_point"]
    assert fp["delta_total"] <= SETTING["delta"] and p["calibrated_to_delta"] == SETTING["delta"]
    assert fp["epsilon_total"] <= 5.0 and rel.card["parameters"]["delta"] == SETTING["delta"]


def test_report_settings_names_the_noise_and_the_dataset():
    setting = dict(SETTING, normalize="scale", noise=("epsilon", 10.0))
    got = report_settings(("builtin", "digits"), setting)
    assert got["dataset"] == "digits" and got["epsilon"] == 10.0 and "sigma_x" not in got
    assert got["normalization"] == "scale" and got["l"] == 4 and got["T"] == 600
    up = report_settings(("upload", "abc", "x.csv"), dict(setting, noise=("sigma", 0.3)))
    assert up["dataset"] is None and up["sigma_x"] == 0.3 and "epsilon" not in up
    assert "sigma_y" not in up  # tied
    apart = report_settings(("builtin", "digits"), dict(setting, noise=("sigma", 0.3), sigma_y=2.0))
    assert apart["sigma_y"] == 2.0 and apart["sigma_x"] == 0.3
    from dpcda.dashboard.reproduce import reproduce

    assert "--sigma-y 2" in str(reproduce(page="samples", **apart).cli)


def test_parse_image_shape_and_stem():
    assert parse_image_shape("1,28,28") == (1, 28, 28) and parse_image_shape("28x28") == (28, 28)
    assert parse_image_shape("  ") is None
    for bad in ("28", "0,28,28", "a,b", "1,2,3,4"):
        with pytest.raises(ValueError, match="image shape must be"):
            parse_image_shape(bad)
    assert release_stem("digits", 4, 9.98) == "dpcda_digits_l4_eps9.98"
    assert release_stem("my data/x", 1, math.inf) == "dpcda_my-data-x_l1_epsinf"
    assert default_T(60000) == 60000 > T_CAP and default_T(500) == 500  # T = N, as on Privacy


@pytest.mark.parametrize("accountant", ["class-aware", "class-aware-pld"])
def test_quick_epsilon_bounds_the_accountants_epsilon(accountant):
    s = dict(SETTING, accountant=accountant)
    exact = noise_for("sigma", 0.8, **s, **FACTS).epsilon
    quick = quick_epsilon(0.8, **s, **FACTS)
    assert exact <= quick <= exact * 1.1  # an upper bound, and a close one


def test_setting_text_names_the_accountant_its_caveat_and_dp_center():
    from dpcda.privacy import NOT_A_BOUND
    from dpcda.dashboard.samples import setting_text

    from dpcda.dashboard.samples import Noise

    kw = dict(l=4, T=1347, c=1.0, noise=Noise(0.3161, 10.0), delta=1e-5)
    ok = setting_text(accountant="class-aware-pld", normalize="scale", **kw)
    assert ok.startswith("**Current setting:** l = 4") and "σ_x = σ_y = 0.316," in ok
    assert "ε = 10 (class-aware-pld)" in ok and NOT_A_BOUND not in ok
    assert f"(paper; {NOT_A_BOUND})" in setting_text(accountant="paper", normalize="scale", **kw)
    centred = setting_text(accountant="class-aware-pld", normalize="dp-center", **kw)
    assert "the mixing and the `dp-center` statistics together" in centred
    both = setting_text(accountant="whole-record", normalize="dp-center",
                        **{**kw, "noise": Noise(0.3161, 10.0, mixing_epsilon=9.5)})
    assert "ε = 10 (whole-record; the mixing and the `dp-center` statistics together; the mixing " \
           "alone: 9.5, the Privacy page's headline)" in both
    aimed = setting_text(accountant="whole-record", normalize="dp-center", target=10.0,
                         **{**kw, "noise": Noise(0.3161, 10.0, mixing_epsilon=9.5)})
    assert "the mixing alone at this σ: 9.5)" in aimed and "Privacy" not in aimed
    apart = setting_text(accountant="whole-record", normalize="scale",
                         **{**kw, "noise": Noise(0.3161, 10.0, None, 0.5)})
    assert "σ_x = 0.316, σ_y = 0.5," in apart


@pytest.mark.parametrize("mode, value", [("sigma", 1.5), ("epsilon", 8.0)])
@pytest.mark.parametrize("accountant", ["whole-record", "class-aware-pld"])
def test_dp_center_noise_is_the_releases(mode, value, accountant):
    """With dp-center the page's ε composes the statistics release exactly as the release's card
    does, for an explicit σ and for a target ε (which sets the statistics' share)."""
    from dpcda.data import load_dataset
    from dpcda.dashboard.samples import generate_release

    ds = load_dataset("digits")
    facts = dict(n=ds.n_train, class_counts=tuple(ds.class_counts), d_x=ds.d_x, d_y=ds.n_classes)
    s = dict(l=4, T=500, c=1.0, delta=1e-5, accountant=accountant)
    nz = noise_for(mode, value, **s, **facts, normalize="dp-center")
    plain = noise_for(mode, value, **s, **facts, normalize="scale")
    rel = generate_release(ds, nz, target_epsilon=value if mode == "epsilon" else None, **s,
                           normalize="dp-center", compare_accountants=False)
    card = rel.card
    assert card["normalization"]["method"] == "dp-center"
    assert card["parameters"]["sigma_x"] == pytest.approx(nz.sigma, rel=1e-9)
    assert card["privacy"]["epsilon"] == pytest.approx(nz.epsilon, rel=1e-9)
    assert nz.mixing_epsilon == pytest.approx(noise_for("sigma", nz.sigma, **s, **facts).epsilon, rel=1e-9)
    assert plain.mixing_epsilon is None
    if mode == "sigma":  # the statistics cost something on top of the mixing
        assert nz.epsilon > plain.epsilon == nz.mixing_epsilon
    else:  # both meet the target; dp-center needs more noise for it
        assert nz.epsilon <= value and nz.sigma > plain.sigma


def test_label_noise_apart_from_feature_noise():
    from dpcda.data import load_dataset
    from dpcda.dashboard.samples import generate_release

    ds = load_dataset("digits")
    facts = dict(n=ds.n_train, class_counts=tuple(ds.class_counts), d_x=ds.d_x, d_y=ds.n_classes)
    s = dict(l=4, T=300, c=1.0, delta=1e-5, accountant="whole-record")
    tied = noise_for("sigma", 1.0, **s, **facts)
    louder = noise_for("sigma", 1.0, **s, **facts, sigma_y=3.0)
    assert louder.sigma_y == 3.0 and louder.label_sigma == 3.0 and tied.label_sigma == 1.0
    # a class's soft label is onehot(k) + noise: it depends on no record, so ε does not move
    assert louder.epsilon == pytest.approx(tied.epsilon, rel=1e-12)
    rel = generate_release(ds, louder, **s, normalize="scale", compare_accountants=False)
    assert rel.card["parameters"]["sigma_y"] == 3.0
    assert rel.card["privacy"]["epsilon"] == pytest.approx(louder.epsilon, rel=1e-9)
