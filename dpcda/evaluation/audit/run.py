"""One privacy audit end to end, and what each accountant claims for the same setting."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from dpcda.evaluation.audit.settings import AuditSettings
from dpcda.evaluation.audit.simulate import run_trials
from dpcda.evaluation.audit.stats import bounds_from_statistics


def claim_params(s: AuditSettings, *, delta: float | None = None):
    """The release the audit stands for: K classes of N_k records (for ``whole-record``: the
    public lower bounds n_k = N_k), T = K T_k split equally, sigma_y = sigma_x."""
    from dpcda.privacy import PrivacyParams

    return PrivacyParams(l=s.l, sigma_x=s.sigma_x, sigma_y=s.sigma_x, c=s.c,
                         T=s.n_classes * s.T_class, delta=s.delta if delta is None else delta,
                         class_counts=(s.n_class,) * s.n_classes, allocation="equal")


def covers_canary(name: str, s: AuditSettings) -> bool:
    """Whether accountant ``name``'s neighbouring relation contains the canary's pair: the label
    canary changes a label (only a replace-one, whole-record relation contains it); the features
    canary keeps it (every relation for DP-CDA contains it)."""
    from dpcda.privacy import ACCOUNTANTS
    from dpcda.privacy.events import Relation

    need = Relation.REPLACE_ONE if s.canary == "label" else Relation.CLASS_FEATURES
    return ACCOUNTANTS[name].neighbours.covers(need)


def dpcda_accountants() -> list[str]:
    """Registered accountants that speak about DP-CDA: those the mechanism lists and those that
    declare themselves valid for it (a PLD accountant registered later appears here)."""
    from dpcda.mechanisms import MECHANISMS
    from dpcda.privacy import ACCOUNTANTS

    mech = MECHANISMS.get("dp-cda")
    listed = set(mech.accountants)
    return [n for n, a in ACCOUNTANTS.items() if n in listed or a.supports(mech.event)]


def claimed_epsilons(s: AuditSettings) -> dict:
    """``{"claimed": {name: eps}, "valid": [names], "skipped": {name: why}, "relations":
    {name: words}, "against": name}``.

    ``valid``: the accountants that are upper bounds for Algorithm 1 as implemented *for this
    canary's pair* (valid for DP-CDA, under a relation that contains the pair: for the label
    canary only the whole-record ones); ``other_relation``: those valid for DP-CDA under a
    relation without the pair (the features-only ``class-aware``, ``class-aware-pld`` for the
    label canary: not bounds there). ``against``: the accountant the canary is audited against
    (``whole-record`` for the label canary, ``class-aware-pld`` for the features one). Every
    registered accountant is
    considered: one for another mechanism, or one that needs inputs the audit does not have
    (feature dimensions: the audit runs in one dimension), is listed under ``skipped`` with the
    reason.
    """
    from dpcda.privacy import ACCOUNTANTS

    from dpcda.privacy import compute_epsilon, is_bound_for, list_accountants

    p = claim_params(s)
    ours = dpcda_accountants()
    claimed, skipped, valid, other_relation = {}, {}, [], []
    for name in list_accountants():
        if name not in ours:
            skipped[name] = "an accountant for another mechanism, not for DP-CDA"
            continue
        try:
            claimed[name] = float(compute_epsilon(p, accountant=name).epsilon)
        except ValueError as exc:
            skipped[name] = str(exc)
            continue
        if is_bound_for(name, "dp-cda"):
            (valid if covers_canary(name, s) else other_relation).append(name)
    relations = {n: ACCOUNTANTS[n].relation for n in claimed}
    return {"claimed": claimed, "valid": valid, "other_relation": other_relation,
            "skipped": skipped, "relations": relations,
            "against": s.against if s.against in claimed else None}


def claim_note(name: str, claims: dict) -> str:
    """Why a claim is not an upper bound for the audited pair ("" when it is one)."""
    if name in claims["valid"]:
        return ""
    if name in claims.get("other_relation", ()):
        return "features-only relation: not a bound when the label changes"
    return "as published, not a bound for this implementation"


def run_audit(s: AuditSettings, *, progress: Callable[[int, int], object] | None = None,
              device: str = "cpu", seed: int | None = None) -> dict:
    """Run the audit; returns plain JSON (bounds, the tests chosen, claims; never noise or seed).

    ``epsilon_against`` is the claim of ``against`` (the canary's accountant: ``whole-record``
    for the label canary), ``tightness`` the audited lower bound over it.

    ``progress(done, total)`` is called after every batch of trials (total = 2 x trials);
    it may raise to stop the audit. ``seed`` is for tests only and goes nowhere else.
    """
    from dpcda.mechanisms._torch import resolve_device
    from dpcda.randomness import SecureRandom

    if not isinstance(s, AuditSettings):
        raise ValueError(f"settings must be an AuditSettings, got {type(s).__name__}")
    claims = claimed_epsilons(s)
    dev = resolve_device(device)
    gen = SecureRandom(seed)  # the kernel's own source: the audit measures what releases run
    total, done = 2 * s.trials, 0

    def step(b: int) -> None:
        nonlocal done
        done += b
        if progress is not None:
            progress(done, total)

    t0 = time.perf_counter()
    s0 = run_trials(s, False, s.trials, generator=gen, device=dev, on_batch=step)
    s1 = run_trials(s, True, s.trials, generator=gen, device=dev, on_batch=step)
    out = bounds_from_statistics(s0, s1, delta=s.delta, confidence=s.confidence,
                                 select_fraction=s.select_fraction)
    valid = [claims["claimed"][n] for n in claims["valid"]]
    against = claims["claimed"].get(claims["against"]) if claims["against"] else None
    upper = min(valid) if valid else math.nan
    return {
        **out, **claims, "settings": s.to_dict(),
        "valid_upper": upper,
        "valid_upper_accountant": (claims["valid"][[claims["claimed"][n] for n in
                                                    claims["valid"]].index(upper)]
                                   if valid else None),
        "lower_exceeds_upper": bool(valid and out["epsilon_lower"] > upper),
        "epsilon_against": against,
        "tightness": out["epsilon_lower"] / against if against and math.isfinite(against) else None,
        "seconds": time.perf_counter() - t0, "device": dev.type,
    }


def json_safe(x):
    """An audit result as plain JSON: NaN -> None, ±inf -> "inf"/"-inf" (the CLI prints it and
    the job store records it)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x
