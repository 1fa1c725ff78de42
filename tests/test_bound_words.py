"""Issue 8, acceptance (d): no card or CLI output shows an epsilon from an accountant that is not
a valid bound for the mechanism that ran without the words of :data:`NOT_A_BOUND`; a valid bound
never carries them.

Every registered mechanism is generated under every accountant its registry entry declares (the
registry is read, not a list written here, so a new mechanism or accountant is covered), and the
privacy commands are run under every accountant they offer.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpcda.cli import main
from dpcda.mechanisms import MECHANISMS
from dpcda.privacy import NOT_A_BOUND, is_bound_for, list_accountants

# Small, cheap settings per mechanism (everything else at the entry's defaults).
CHEAP = {"dp-merf": {"n_features": 20, "steps": 2}}


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(240, 6))
    y = np.repeat([0, 1, 2], 80)
    return X, y


PAIRS = [(m, a) for m in MECHANISMS.names() for a in MECHANISMS.get(m).accountants]


def test_every_mechanism_declares_a_valid_default_and_some_pair_is_not_a_bound():
    for m in MECHANISMS.names():
        assert MECHANISMS.get(m).is_valid_bound(MECHANISMS.get(m).accountants[0]), m
    # the check below must be able to fail: some declared pairs are not bounds
    assert any(not MECHANISMS.get(m).is_valid_bound(a) for m, a in PAIRS)


@pytest.mark.parametrize(("mechanism", "accountant"), PAIRS)
def test_card_and_summary_carry_the_words_exactly_when_not_a_bound(mechanism, accountant):
    mech = MECHANISMS.get(mechanism)
    X, y = _data()
    kw = dict(CHEAP.get(mechanism, {}), epsilon=10.0, delta=1e-3, accountant=accountant,
              normalize="none", seed=3)
    if mech.mixes:
        kw["l"] = 4
    if "T" in mech.param_names:
        kw["T"] = len(y)
    if "accountant" not in mech.param_names:
        kw.pop("accountant")
    rel = mech.generate(X, y, **kw)
    p = rel.card["privacy"]
    assert p["accountant"] == accountant
    valid = mech.is_valid_bound(accountant)
    assert valid == is_bound_for(accountant, mechanism)
    assert p["valid_bound"] is valid
    assert p["relation"]  # the neighbouring relation in words, always
    if valid:
        assert "bound_note" not in p
        assert NOT_A_BOUND not in p["epsilon_text"]
        headline = rel.summary().split("Under the")[0]  # other accountants may follow
        assert NOT_A_BOUND not in headline
    else:
        assert p["bound_note"] == NOT_A_BOUND
        assert NOT_A_BOUND in p["epsilon_text"]
        assert NOT_A_BOUND in rel.summary().split("Under the")[0]
    for name, other in p.get("other_accountants", {}).items():
        assert other["valid_bound"] is is_bound_for(name, mechanism)
        assert (other.get("bound_note") == NOT_A_BOUND) is (not other["valid_bound"])
    json.dumps(rel.card)


def _run(capsys, argv):
    assert main(argv) == 0
    return capsys.readouterr().out


PRIVACY_COMMANDS = {
    "epsilon": ["epsilon", "--l", "16", "--sigma-x", "0.5", "--preset", "mnist"],
    "calibrate": ["calibrate", "--epsilon", "10", "--l", "16", "--preset", "mnist"],
    "curves": ["curves", "--ls", "4,16", "--points", "3", "--preset", "mnist"],
}


@pytest.mark.parametrize("accountant", list_accountants())
@pytest.mark.parametrize("command", sorted(PRIVACY_COMMANDS))
def test_privacy_commands_carry_the_words_exactly_when_not_a_bound(capsys, command, accountant):
    argv = [*PRIVACY_COMMANDS[command], "--accountant", accountant]
    valid = is_bound_for(accountant, "dp-cda")
    first = _run(capsys, argv).splitlines()[0]  # the line that states the epsilon
    assert (NOT_A_BOUND in first) is (not valid), first
    got = json.loads(_run(capsys, [*argv, "--json"]))
    assert got["valid_bound"] is valid and got["relation"]
    assert got.get("bound_note") == (None if valid else NOT_A_BOUND)
