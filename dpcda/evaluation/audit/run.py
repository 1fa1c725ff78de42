"""One privacy audit end to end, and what each accountant claims for the same setting."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from dpcda.evaluation.audit.settings import AuditSettings
from dpcda.evaluation.audit.simulate import run_trials
from dpcda.evaluation.audit.stats import bounds_from_statistics


def claim_params(s: AuditSettings, *, delta: float | None = None):
    """The release the audit stands for: K classes of N_k records, T = K T_k, sigma_y = sigma_x."""
    from dpcda.privacy import PrivacyParams

    return PrivacyParams(l=s.l, sigma_x=s.sigma_x, sigma_y=s.sigma_x, c=s.c,
                         T=s.n_classes * s.T_class, delta=s.delta if delta is None else delta,
                         class_counts=(s.n_class,) * s.n_classes)


def dpcda_accountants() -> list[str]:
    """Registered accountants that speak about DP-CDA: those the mechanism lists and those that
    declare themselves valid for it (a PLD accountant registered later appears here)."""
    from dpcda.mechanisms import MECHANISMS
    from dpcda.privacy import ACCOUNTANTS

    mech = MECHANISMS.get("dp-cda")
    listed = set(mech.accountants)
    return [n for n, a in ACCOUNTANTS.items() if n in listed or a.supports(mech.event)]


def claimed_epsilons(s: AuditSettings) -> dict:
    """``{"claimed": {name: eps}, "valid": [names valid for DP-CDA], "skipped": {name: why}}``.

    Every registered accountant is considered: one for another mechanism, or one that needs
    inputs the audit does not have (feature dimensions: the audit runs in one dimension), is
    listed under ``skipped`` with the reason.
    """
    from dpcda.privacy import compute_epsilon, is_bound_for, list_accountants

    p = claim_params(s)
    ours = dpcda_accountants()
    claimed, skipped, valid = {}, {}, []
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
            valid.append(name)
    return {"claimed": claimed, "valid": valid, "skipped": skipped}


def run_audit(s: AuditSettings, *, progress: Callable[[int, int], object] | None = None,
              device: str = "cpu", seed: int | None = None) -> dict:
    """Run the audit; returns plain JSON (bounds, the tests chosen, claims; never noise or seed).

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
    upper = min(valid) if valid else math.nan
    return {
        **out, **claims, "settings": s.to_dict(),
        "valid_upper": upper,
        "valid_upper_accountant": (claims["valid"][[claims["claimed"][n] for n in
                                                    claims["valid"]].index(upper)]
                                   if valid else None),
        "lower_exceeds_upper": bool(valid and out["epsilon_lower"] > upper),
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
