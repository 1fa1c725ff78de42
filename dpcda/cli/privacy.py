"""Privacy commands: ``epsilon``, ``calibrate``, ``curves`` (never import torch)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from dpcda.util.notices import notices_json

_CONVERSIONS = ("mironov", "improved")


def _accountants() -> list[str]:
    from dpcda.privacy import list_accountants  # numpy/scipy only, never torch

    return list_accountants()


def _int_list(text: str) -> list[int]:
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}") from None
    if not vals:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    return vals


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return v


def _common(p: argparse.ArgumentParser, *, sigma: bool) -> None:
    from dpcda.privacy import DEFAULT_ACCOUNTANT, PAPER_CHOICE

    p.add_argument("--accountant", default=DEFAULT_ACCOUNTANT, choices=_accountants(),
                   help=f"which accountant (default: {DEFAULT_ACCOUNTANT}, a valid bound for DP-CDA "
                        f"as implemented; paper: {PAPER_CHOICE}, not a bound for this "
                        "implementation)")
    p.add_argument("--allocation", default=None, choices=("equal", "proportional"),
                   help="how T is split over the classes: proportional (floor(T n_k / sum n), "
                        "the release's default where class counts or bounds are given by "
                        "--class-counts or --preset) or equal (floor(T/K) each; the default "
                        "without them)")
    p.add_argument("--conversion", default="mironov", choices=_CONVERSIONS,
                   help="RDP -> (eps, delta) conversion (default: mironov, as published)")
    if sigma:
        p.add_argument("--sigma-x", type=_positive_float, required=True, help="feature noise")
        p.add_argument("--sigma-y", type=_positive_float, default=None,
                       help="label noise (default: equal to --sigma-x)")
    p.add_argument("--c", type=_positive_float, default=1.0, help="L2 clip norm (default 1)")
    p.add_argument("--n", type=int, default=None,
                   help="number of private training records N (or give --class-counts)")
    p.add_argument("--T", type=int, default=None, help="number of synthetic samples (default N)")
    p.add_argument("--delta", type=_positive_float, default=1e-5, help="delta (default 1e-5)")
    p.add_argument("--class-counts", type=_int_list, default=None,
                   help="records per class N_k, comma-separated (class-aware needs it)")
    from dpcda.data.presets import list_presets

    p.add_argument("--preset", default=None,
                   help="take N, class counts, d_x and d_y from a dataset preset "
                        f"({', '.join(list_presets())})")
    p.add_argument("--dx", type=int, default=None, help="feature dimension (dpmix accountants)")
    p.add_argument("--dy", type=int, default=None, help="label dimension (dpmix accountants)")
    p.add_argument("--max-alpha", type=int, default=256, help="largest RDP order (default 256)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def register(sub) -> None:
    p = sub.add_parser("epsilon", help="epsilon of one setting",
                       description="Epsilon of a DP-CDA release for one setting.")
    p.add_argument("--l", type=int, required=True, help="order of mixture")
    _common(p, sigma=True)
    p.set_defaults(handler=_cmd_epsilon)

    p = sub.add_parser("calibrate", help="noise for a target epsilon",
                       description="Smallest sigma with epsilon <= target (sigma_y = ratio*sigma_x).")
    p.add_argument("--epsilon", type=_positive_float, required=True, help="target epsilon")
    p.add_argument("--l", type=int, required=True, help="order of mixture")
    p.add_argument("--ratio", type=_positive_float, default=1.0,
                   help="sigma_y / sigma_x (default 1: tied)")
    _common(p, sigma=False)
    p.set_defaults(handler=_cmd_calibrate)

    p = sub.add_parser("curves", help="epsilon vs sigma for several l (Figure 4)",
                       description="Epsilon vs sigma (sigma_y = ratio*sigma_x) for each l.")
    p.add_argument("--ls", type=_int_list, default=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
                   help="orders of mixture, comma-separated (default 1,2,...,512)")
    p.add_argument("--sigma-min", type=_positive_float, default=0.01)
    p.add_argument("--sigma-max", type=_positive_float, default=10.0)
    p.add_argument("--points", type=int, default=100, help="sigmas, log-spaced (default 100)")
    p.add_argument("--ratio", type=_positive_float, default=1.0, help="sigma_y / sigma_x")
    _common(p, sigma=False)
    p.set_defaults(handler=_cmd_curves)


def _setting(args) -> dict:
    counts = args.class_counts
    n, d_x, d_y = args.n, args.dx, args.dy
    if args.preset is not None:
        from dpcda.data.presets import get_preset

        pre = get_preset(args.preset)
        counts = counts or list(pre.class_counts)
        n = n if n is not None else pre.n
        d_x = d_x if d_x is not None else pre.d_x
        d_y = d_y if d_y is not None else pre.d_y
    if n is None and counts is None:
        raise ValueError("give --n (number of private records), --class-counts or --preset")
    from dpcda.privacy import get_accountant

    if counts is not None and "class_counts" not in get_accountant(args.accountant).needs \
            and n is None:
        n = sum(counts)
    T = args.T if args.T is not None else (n if n is not None else sum(counts))
    from dpcda.util.checks import check_int
    from dpcda.experiments.preflight import T_MAX, check_numbers

    # Beyond these ranges the accountants' arithmetic overflows (one line, not a traceback).
    check_numbers(c=args.c, T=T, sigma_x=getattr(args, "sigma_x", None),
                  sigma_y=getattr(args, "sigma_y", None),
                  epsilon=getattr(args, "epsilon", None))
    if n is not None:
        check_int("n", n, 1, T_MAX)
    return dict(c=args.c, T=T, delta=args.delta, n=n,
                class_counts=tuple(counts) if counts else None, d_x=d_x, d_y=d_y,
                allocation=args.allocation or (
                    "proportional" if counts and "class_counts" in get_accountant(args.accountant).needs
                    else "equal"))


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else ("inf" if x > 0 else None)


def _bound(accountant: str) -> dict:
    """JSON fields: the neighbouring relation, and the caveat where the accountant is not a
    valid bound for DP-CDA as implemented."""
    from dpcda.privacy import caveat, get_accountant

    note = caveat(accountant, "dp-cda")
    return {"relation": get_accountant(accountant).relation, "valid_bound": not note,
            **({"bound_note": note} if note else {})}


def _note(accountant: str) -> str:
    from dpcda.privacy import caveat

    note = caveat(accountant, "dp-cda")
    return f" ({note})" if note else ""


def _emit(obj: dict, as_json: bool, lines: list[str]) -> None:
    if as_json:
        json.dump(obj, sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(lines) + "\n")


def _where(r) -> str:
    """``at order alpha = 12`` (RDP) or the discretisation bound (PLD: no order)."""
    if r.alpha is not None or r.epsilon_discretisation_lower is None:
        return f"at order alpha = {r.alpha}"
    return (f"(discretisation bound {r.discretisation_bound:.2g}: the analysis' own exact value is "
            f"at least {r.epsilon_discretisation_lower:.6g})")


def _bracket(r, p) -> tuple[float | None, list[str]]:
    """The proven lower bound on what Algorithm 1 spends at this setting and the line that
    brackets the exact epsilon (or says how much an epsilon that is not a bound understates)."""
    from dpcda.privacy import is_bound_for
    from dpcda.privacy.realised import epsilon_realised_lower, understatement

    relation = "whole-record" if r.accountant == "whole-record" else "features"
    low = epsilon_realised_lower(p, relation) if r.private and p.class_counts is not None else None
    if low is None or not math.isfinite(low):
        return None, []
    if is_bound_for(r.accountant, "dp-cda"):
        return low, [f"the exact epsilon of this code at this setting lies between {low:.6g} (a "
                     f"dataset pair it realises) and {r.epsilon:.6g} ({r.accountant}, a valid bound)"]
    under = understatement(r.epsilon, low)
    if under is None:
        return low, [f"this code can spend at least epsilon = {low:.6g} here (a dataset pair it "
                     "realises)"]
    return low, [f"the {r.accountant} epsilon understates what this code spends by at least "
                 f"{100 * under:.0f}% (it can spend at least {low:.6g}: a dataset pair it realises)"]


def _cmd_epsilon(args) -> int:
    from dpcda.privacy import ACCOUNTANT_INFO, PrivacyParams, compute_epsilon

    s = _setting(args)
    sy = args.sigma_x if args.sigma_y is None else args.sigma_y
    p = PrivacyParams(l=args.l, sigma_x=args.sigma_x, sigma_y=sy, **s)
    r = compute_epsilon(p, accountant=args.accountant, conversion=args.conversion,
                        max_alpha=args.max_alpha)
    obj = {"epsilon": _finite(r.epsilon), "alpha": r.alpha, "delta": r.delta,
           "accountant": r.accountant, "conversion": r.conversion, "l": p.l,
           "sigma_x": p.sigma_x, "sigma_y": p.sigma_y, "c": p.c, "T": p.T, "n": p.n,
           "max_alpha": r.max_alpha, "at_max_alpha": r.at_max_alpha, "private": r.private,
           "epsilon_discretisation_lower": _finite(r.epsilon_discretisation_lower),
           "discretisation_bound": _finite(r.discretisation_bound),
           "warnings": list(r.warnings), "notices": notices_json(r.warnings),
           **_bound(r.accountant)}
    low, bracket = _bracket(r, p)
    obj["epsilon_realised_lower"] = _finite(low)
    lines = [f"epsilon = {r.epsilon:.6g}{_note(r.accountant)} {_where(r)} (delta = {r.delta:g})",
             *bracket,
             f"accountant: {ACCOUNTANT_INFO[r.accountant].title}"
             + (f"; conversion: {r.conversion}" if r.conversion else ""),
             f"neighbours: {ACCOUNTANT_INFO[r.accountant].relation}"]
    lines += [f"warning: {w}" for w in r.warnings]
    _emit(obj, args.json, lines)
    return 0


def _cmd_calibrate(args) -> int:
    from dpcda.privacy import ACCOUNTANT_INFO, PrivacyParams, calibrate

    s = _setting(args)
    cal = calibrate(epsilon=args.epsilon, l=args.l, accountant=args.accountant,
                    conversion=args.conversion, ratio=args.ratio, max_alpha=args.max_alpha, **s)
    obj = {"sigma_x": cal.sigma_x, "sigma_y": cal.sigma_y, "epsilon": cal.epsilon,
           "target": cal.target, "alpha": cal.alpha, "delta": cal.result.delta, "l": args.l,
           "accountant": args.accountant, "conversion": cal.result.conversion,
           "epsilon_discretisation_lower": _finite(cal.result.epsilon_discretisation_lower),
           "discretisation_bound": _finite(cal.result.discretisation_bound),
           "warnings": list(cal.result.warnings), "notices": notices_json(cal.result.warnings),
           **_bound(args.accountant)}
    low, bracket = _bracket(cal.result, PrivacyParams(l=args.l, sigma_x=cal.sigma_x,
                                                      sigma_y=cal.sigma_y, **s))
    obj["epsilon_realised_lower"] = _finite(low)
    lines = [f"sigma_x = {cal.sigma_x:.6g}, sigma_y = {cal.sigma_y:.6g} -> epsilon = "
             f"{cal.epsilon:.6g}{_note(args.accountant)} (target {cal.target:g}) {_where(cal.result)}",
             *bracket,
             f"accountant: {ACCOUNTANT_INFO[args.accountant].title}"
             + (f"; conversion: {cal.result.conversion}" if cal.result.conversion else ""),
             f"neighbours: {ACCOUNTANT_INFO[args.accountant].relation}"]
    lines += [f"warning: {w}" for w in cal.result.warnings]
    _emit(obj, args.json, lines)
    return 0


def _cmd_curves(args) -> int:
    import numpy as np

    from dpcda.privacy import epsilon_grid, get_accountant

    if not (0 < args.sigma_min < args.sigma_max):
        raise ValueError("--sigma-min and --sigma-max must satisfy 0 < sigma-min < sigma-max, got "
                         f"{args.sigma_min:g} and {args.sigma_max:g}")
    if not 1 <= args.points <= 10000:
        raise ValueError(f"--points must be an integer in [1, 10000], got {args.points}")
    s = _setting(args)
    sig = np.geomspace(args.sigma_min, args.sigma_max, args.points)
    eps, alpha = epsilon_grid(ls=args.ls, sigmas=sig, accountant=args.accountant,
                              conversion=args.conversion, ratio=args.ratio,
                              max_alpha=args.max_alpha, return_alpha=True, **s)
    obj = {"accountant": args.accountant, "conversion": args.conversion, "delta": s["delta"],
           "ratio": args.ratio, "sigmas": sig.tolist(), **_bound(args.accountant),
           "curves": [{"l": l, "epsilon": [_finite(e) for e in eps[i]],
                       "alpha": [_finite(a) for a in alpha[i]]} for i, l in enumerate(args.ls)]}
    lines = [f"epsilon by the {args.accountant} accountant{_note(args.accountant)}; neighbours: "
             f"{get_accountant(args.accountant).relation}",
             "l\t" + "\t".join(f"{x:.3g}" for x in sig[:: max(1, len(sig) // 8)])]
    for i, l in enumerate(args.ls):
        lines.append(f"{l}\t" + "\t".join(f"{e:.3g}" for e in eps[i][:: max(1, len(sig) // 8)]))
    _emit(obj, args.json, lines)
    return 0
