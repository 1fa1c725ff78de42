"""One mechanism specification: registering a mechanism is all the CLI, jobs and pages need."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpcda.mechanisms import (
    MECHANISMS,
    Mechanism,
    Param,
    all_accountants,
    generate_dpmix,
    register_mechanism,
    unregister_mechanism,
)
from dpcda.privacy import (ACCOUNTANTS, CLASS_MIXTURE, NOT_A_BOUND, Accountant, Relation,
                           ReleaseEvent, get_accountant)

TOY_EVENT = ReleaseEvent("toy-mix", Relation.REPLACE_ONE)


def bound_for(accountant: str) -> list[str]:
    """The registered mechanisms whose event ``accountant`` supports."""
    return [m for m in MECHANISMS if get_accountant(accountant).supports(MECHANISMS.get(m).event)]


def _toy_generate(X, y, *, l, epsilon=None, sigma_x=None, sigma_y=None, delta=1e-5, T=None,
                  accountant="toy-acc", normalize="none", c=1.0, **kw):
    """DPMix under another name (what matters is that the toy's entry reaches everyone)."""
    return generate_dpmix(X, y, l=l, epsilon=epsilon, sigma_x=sigma_x, sigma_y=sigma_y,
                          delta=delta, T=T, accountant="dpmix-clipped", normalize="scale",
                          c=c, **{k: v for k, v in kw.items() if k in ("dataset", "device",
                                                                        "class_names",
                                                                        "image_shape", "bounds")})


@pytest.fixture
def toy():
    acc = Accountant("toy-acc", "Toy accountant", "toy", 2, (), ACCOUNTANTS["paper"].rdp,
                     relation="toy relation", kinds=("toy-mix",))
    ACCOUNTANTS[acc.name] = acc
    mech = register_mechanism(Mechanism(
        "toy", "Toy mixer", _toy_generate, "a toy",
        (Param("l", "int", None, lo=1, required=True), Param("T", "int", None, lo=1),
         Param("accountant", "str", "toy-acc", choices=("toy-acc", "paper")),
         Param("c", "float", 1.0, lo=0.0, lo_open=True),
         Param("normalize", "str", "none", choices=("none", "scale"))),
        ("toy-acc", "paper"), "none", label_mode="soft", learner="linear", l_bound="n",
        event=TOY_EVENT))
    yield mech
    unregister_mechanism("toy")
    del ACCOUNTANTS["toy-acc"]
    assert "toy" not in MECHANISMS


def test_entry_declares_parameters_as_data():
    m = MECHANISMS.get("dp-cda")
    assert m.mixes and m.param("l").required and m.param("l").kind == "int"
    assert m.param("delta").check(1e-5) == 1e-5
    with pytest.raises(ValueError, match=r"^l must be an integer >= 1, got l=0$"):
        m.param("l").check(0)
    with pytest.raises(ValueError, match="has no parameter 'p'"):
        m.param("p")
    assert not MECHANISMS.get("local").mixes and not MECHANISMS.get("random-projection").noise_scale


def test_every_default_accountant_is_a_valid_bound():
    for name in MECHANISMS:
        m = MECHANISMS.get(name)
        assert m.is_valid_bound(m.default_accountant), name
        assert m.check_accountant(None) == m.default_accountant
    assert MECHANISMS.get("dpmix").default_accountant == "dpmix-clipped"
    assert not MECHANISMS.get("dpmix").is_valid_bound("dpmix-low")
    with pytest.raises(ValueError, match="accountant must be one of dpmix-clipped, dpmix, "
                                         "dpmix-low for mechanism='dpmix', got accountant='paper'"):
        MECHANISMS.get("dpmix").check_accountant("paper")


def test_entry_refuses_a_default_that_is_not_a_bound():
    with pytest.raises(ValueError, match="must be a valid bound for it; 'paper' does not support "
                                         "its event"):
        Mechanism("bad", "Bad", _toy_generate, "", (), ("paper",), "scale", event=CLASS_MIXTURE)
    with pytest.raises(ValueError, match="unknown accountant 'nope'"):
        Mechanism("bad", "Bad", _toy_generate, "", (), ("nope",), "scale", event=CLASS_MIXTURE)
    with pytest.raises(ValueError, match="label_mode must be one of hard, soft"):
        Mechanism("dpmix", "Bad", _toy_generate, "", (), ("dpmix-clipped",), "scale",
                  label_mode="mixed", event=CLASS_MIXTURE)
    with pytest.raises(ValueError, match="must declare event=ReleaseEvent"):
        Mechanism("bad", "Bad", _toy_generate, "", (), ("class-aware",), "scale")
    with pytest.raises(ValueError, match="cost_model must be one of mixing, projection, generator"):
        Mechanism("bad", "Bad", _toy_generate, "", (), ("class-aware",), "scale",
                  event=CLASS_MIXTURE, cost_model="fast")
    with pytest.raises(ValueError, match="relation must be one of"):
        ReleaseEvent("class-mixture", "class-features")
    with pytest.raises(ValueError, match="mechanism 'dpmix' is already registered"):
        register_mechanism(MECHANISMS.get("dpmix"))


def test_a_registered_mechanism_reaches_cli_and_jobs(toy, tmp_path, capsys):
    from dpcda.cli import build_parser, main
    from dpcda.experiments.run import normalize

    assert "toy" in MECHANISMS.names() and "toy-acc" in all_accountants()
    parser = build_parser()
    args = parser.parse_args(["generate", "--dataset", "digits", "--mechanism", "toy", "--l", "3",
                              "--epsilon", "10", "--out", "x.npz"])
    from dpcda.cli.generate import _params

    kw = _params(args)
    assert kw["accountant"] == "toy-acc" and kw["l"] == 3
    assert main(["generate", "--dataset", "digits", "--mechanism", "toy", "--epsilon", "10",
                 "--out", str(tmp_path / "t.npz")]) == 2
    assert "--mechanism toy needs --l" in capsys.readouterr().err
    assert main(["generate", "--dataset", "digits", "--mechanism", "toy", "--l", "2",
                 "--epsilon", "10", "--p", "3", "--out", str(tmp_path / "t.npz")]) == 2
    assert "--p does not apply to --mechanism toy" in capsys.readouterr().err

    cfg = normalize({"dataset": "digits", "mechanism": "toy", "l": 200, "epsilon": 10.0})
    assert cfg["accountant"] == "toy-acc" and cfg["normalization"] == "none"
    assert cfg["train"]["model"] == "linear" and cfg["train"]["label_mode"] == "soft"
    with pytest.raises(ValueError, match="accountant must be one of toy-acc, paper"):
        normalize({"dataset": "digits", "mechanism": "toy", "l": 2, "accountant": "dpmix"})


def test_cli_unknown_after_unregister(toy):
    unregister_mechanism("toy")
    try:
        from dpcda.cli import UsageError, build_parser

        with pytest.raises(UsageError, match="invalid choice: 'toy'"):
            build_parser().parse_args(["generate", "--dataset", "digits", "--mechanism", "toy",
                                       "--l", "3", "--epsilon", "10", "--out", "x.npz"])
    finally:
        register_mechanism(toy)


def test_dpmix_clips_to_c_and_dppro_is_valid(monkeypatch):
    from dpcda.mechanisms import generate_random_projection
    from dpcda.privacy.gaussian import gaussian_delta

    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 256, size=(200, 16)).astype(float), np.repeat([0, 1], 100)
    rel = generate_dpmix(X, y, l=4, sigma_x=0.0, sigma_y=0.0, c=0.5, bounds=(0.0, 255.0), seed=1)
    assert np.linalg.norm(rel.X, axis=1).max() <= 0.5 + 1e-5  # means of rows clipped to 0.5
    assert rel.card["parameters"]["c"] == 0.5
    pub = generate_dpmix(X, y, l=4, sigma_x=0.0, sigma_y=0.0, accountant="dpmix",
                         bounds=(0.0, 255.0), seed=1)
    assert pub.card["parameters"]["c"] is None and np.linalg.norm(pub.X, axis=1).max() > 1
    r = generate_random_projection(X, y, epsilon=10.0, delta=1e-5, p=4, c=1.0, seed=2,
                                   bounds=(0.0, 255.0))
    par = r.card["parameters"]
    mu = 2.0 * par["spectral_norm_R"] / par["noise_std"]  # replace-one sensitivity 2c s(R)
    assert gaussian_delta(10.0, mu) == pytest.approx(1e-5, rel=1e-6)
    assert r.card["privacy"]["valid_bound"] and r.card["privacy"]["accountant"] == "gaussian"
    r2 = generate_random_projection(X, y, epsilon=10.0, p=4, accountant="dppro", seed=2,
                                    bounds=(0.0, 255.0))
    assert NOT_A_BOUND in r2.card["privacy"]["epsilon_text"]
    assert gaussian_delta(10.0, r2.card["parameters"]["spectral_norm_R"]
                          / r2.card["parameters"]["noise_std"]) > 5e-5  # published: not a bound
    json.dumps(r.card)


def test_gaussian_profile_matches_a_known_value():
    from dpcda.privacy.gaussian import gaussian_delta, gaussian_epsilon, gaussian_sigma

    # Balle & Wang's profile at mu = 1, eps = 1: Phi(-0.5) - e Phi(-1.5)
    assert gaussian_delta(1.0, 1.0) == pytest.approx(0.3085375387 - np.e * 0.0668072013, rel=1e-8)
    s = gaussian_sigma(2.0, 1e-6, sensitivity=3.0)
    assert gaussian_epsilon(s, 1e-6, sensitivity=3.0) == pytest.approx(2.0, rel=1e-8)
    assert bound_for("gaussian") == ["random-projection"]


def test_a_papers_accountant_that_is_not_a_bound_is_labelled_on_the_card():
    rng = np.random.default_rng(1)
    X, y = rng.uniform(size=(300, 6)), np.repeat([0, 1, 2], 100)
    low = generate_dpmix(X, y, l=4, epsilon=5.0, accountant="dpmix-low", normalize="none", seed=1)
    assert low.card["privacy"]["valid_bound"] is False
    assert NOT_A_BOUND in low.card["privacy"]["epsilon_text"] and NOT_A_BOUND in low.summary()
    ok = generate_dpmix(X, y, l=4, epsilon=5.0, normalize="none", seed=1)
    assert ok.card["privacy"]["valid_bound"] is True
    assert NOT_A_BOUND not in ok.summary()
    assert ok.card["privacy"]["relation"].startswith("Two datasets are neighbours when one record")


def test_uploads_without_a_public_range_default_to_clipping_only():
    import numpy as np

    from dpcda.data.dataset import Dataset
    from dpcda.mechanisms import default_normalization, generate_from_dataset

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)).astype(np.float32), np.arange(60) % 2
    kw = dict(name="mine", X_train=X, y_train=y, X_test=X[:10], y_test=y[:10],
              class_names=("a", "b"))
    upload = Dataset(**kw)
    assert default_normalization(upload) == "none"
    rel = generate_from_dataset(upload, l=4, T=20, sigma_x=0.5)
    assert rel.card["normalization"]["method"] == "none"
    assert rel.card["normalization"]["covered_by_guarantee"] is True
    bounded = Dataset(**kw, feature_bounds=(-5.0, 5.0))
    assert default_normalization(bounded) == "scale"
