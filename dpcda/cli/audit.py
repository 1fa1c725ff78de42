"""``python -m dpcda audit``: an empirical privacy audit of DP-CDA (see ``docs/audit.md``)."""

from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser(
        "audit", help="empirical lower bound on epsilon from running the generator",
        description="Run DP-CDA's mixing kernel many times on two neighbouring datasets of a "
                    "worst-case canary record (label: moved to another class, both classes "
                    "run; features: its features replaced, label kept); print a rigorous lower "
                    "bound on epsilon (Clopper-Pearson, 95%%), a Gaussian-DP estimate, the "
                    "canary's accountant (whole-record; class-aware-pld) and what every "
                    "accountant claims for the same setting.")
    p.add_argument("--l", type=float, required=True, help="order of mixture")
    p.add_argument("--sigma-x", type=float, required=True, help="feature noise (> 0)")
    p.add_argument("--trials", type=float, default=None,
                   help="runs per arm (each of the two neighbouring datasets); default: about "
                        "1.2e8 / (T_k l), halved for the label canary (two classes per run), "
                        "within [100, 10000] (<= 5 min on 2 CPU cores)")
    p.add_argument("--n-class", type=float, default=6000,
                   help="N_k, records of the audited class (default 6000, MNIST-like)")
    p.add_argument("--T-class", type=float, default=6000,
                   help="T_k, mixtures released for that class (default 6000)")
    p.add_argument("--n-classes", type=float, default=10,
                   help="K, number of classes, for the accountants' claims (default 10)")
    p.add_argument("--c", type=float, default=1.0, help="L2 clip norm (default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="delta (default 1e-5)")
    p.add_argument("--statistic", default="lr", help="lr (likelihood ratio, default) or sum")
    p.add_argument("--canary", default="label",
                   help="label (default: the record moves to another class, the worst realised pair of "
                        "the default whole-record relation) or features (label kept: the "
                        "features-only class-aware-pld relation)")
    p.add_argument("--device", default="cpu", help="torch device for the trials (default cpu)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_cmd_audit)


def summary_lines(r: dict) -> list[str]:
    """The human-readable report of an audit result."""
    from dpcda.evaluation.audit.run import claim_note

    s = r["settings"]
    canary = s.get("canary", "features")
    lines = [(f"audit: {canary} canary, l = {s['l']}, sigma_x = {s['sigma_x']:g}, "
              f"N_k = {s['n_class']}, T_k = {s['T_class']}, c = {s['c']:g}, "
              f"delta = {s['delta']:g}, {s['trials']} trials per arm"),
             f"epsilon lower bound (95%, rigorous): {r['epsilon_lower']:.4g}",
             f"epsilon under a Gaussian-DP fit:     {r['epsilon_gdp']:.4g} (mu = {r['mu_gdp']:.4g})"]
    if r.get("against") and isinstance(r.get("epsilon_against"), (int, float)):
        lines.append(f"audited against {r['against']}: epsilon {r['epsilon_against']:.4g} "
                     f"(lower bound / it = {r['tightness']:.2f}); relation: "
                     f"{r['relations'][r['against']]}")
    for name, eps in r["claimed"].items():
        note = claim_note(name, r)
        lines.append(f"claimed by {name}: {eps:.4g}" + (f" ({note})" if note else ""))
    if r.get("lower_exceeds_upper"):
        lines.append("ALERT: the lower bound exceeds a valid upper bound (a bug somewhere)")
    return lines


def _cmd_audit(args) -> int:
    from dpcda.evaluation.audit import AuditSettings, json_safe, run_audit

    s = AuditSettings(l=args.l, sigma_x=args.sigma_x, n_class=args.n_class,
                      T_class=args.T_class, n_classes=args.n_classes, c=args.c,
                      delta=args.delta, trials=args.trials, statistic=args.statistic,
                      canary=args.canary)
    r = run_audit(s, device=args.device)
    if args.json:
        json.dump(json_safe(r), sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(summary_lines(r)) + "\n")
    return 0
