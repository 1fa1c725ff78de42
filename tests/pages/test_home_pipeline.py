"""The Home page's pipeline diagram is drawn from today's defaults (pages/pipeline.py): it
names the default accountant, samples per class and normalisation read from the library, and a
changed default changes the diagram and its paragraph."""

from __future__ import annotations

import dataclasses

from dpcda.mechanisms import MECHANISMS, default_normalization_for
from dpcda.privacy import ACCOUNTANTS, DEFAULT_ACCOUNTANT
from pages.pipeline import pipeline_defaults, pipeline_dot, pipeline_summary


def _with_default(mechanism, **defaults):
    """The registry entry with some parameters' defaults changed (a default accountant is the
    entry's first accountant)."""
    params = tuple(dataclasses.replace(p, default=defaults[p.name]) if p.name in defaults else p
                   for p in mechanism.params)
    accountants = mechanism.accountants
    if "accountant" in defaults:
        first = defaults["accountant"]
        accountants = (first, *(a for a in accountants if a != first))
    return dataclasses.replace(mechanism, params=params, accountants=accountants)


def test_the_diagram_shows_todays_defaults():
    mech = MECHANISMS.get("dp-cda")
    d = pipeline_defaults()
    assert d.accountant == mech.param("accountant").default == DEFAULT_ACCOUNTANT
    assert d.allocation == mech.param("allocation").default
    dot, text = pipeline_dot(), pipeline_summary()
    assert f"{DEFAULT_ACCOUNTANT} accountant" in dot and f"`{DEFAULT_ACCOUNTANT}`" in text
    assert f"{d.allocation}:" in dot
    for name in ("mnist", "adult"):
        assert f"{default_normalization_for(name)}:" in dot
    if not ACCOUNTANTS[DEFAULT_ACCOUNTANT].rdp:
        assert "RDP" not in dot and "Rényi" not in text
    if d.allocation != "equal":
        assert "floor(T/K)" not in dot and "⌊T/K⌋" not in text
    if all(default_normalization_for(n) != "zscore" for n in ("mnist", "fashion-mnist", "adult")):
        assert "z-score" not in dot


def test_changing_a_default_changes_the_diagram():
    mech = MECHANISMS.get("dp-cda")
    today = pipeline_dot()
    other_alloc = "equal" if mech.param("allocation").default != "equal" else "proportional"
    changed = pipeline_defaults(_with_default(mech, allocation=other_alloc))
    assert f"{other_alloc}:" in pipeline_dot(changed) and pipeline_dot(changed) != today
    assert pipeline_summary(changed) != pipeline_summary()

    rdp_name = "class-aware" if DEFAULT_ACCOUNTANT != "class-aware" else "class-aware-pld"
    changed = pipeline_defaults(_with_default(mech, accountant=rdp_name))
    dot = pipeline_dot(changed)
    assert f"{rdp_name} accountant" in dot and dot != today
    assert ("Rényi DP" in dot) == bool(ACCOUNTANTS[rdp_name].rdp)
    # under another accountant MNIST's measured dp-center default does not apply (scale instead)
    assert {n for n, _ in changed.normalizations} != {n for n, _ in pipeline_defaults().normalizations} \
        or DEFAULT_ACCOUNTANT != "class-aware-pld"
