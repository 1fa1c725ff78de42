"""The l the dashboard recommends per ε: the Privacy page's frontier read at a few ε.

    python benchmarks/recommended_l.py [--table PATH] [--accountant whole-record] \
        [--datasets digits mnist fashion-mnist adult] [--eps 0.5 1 2 5 10]

For each dataset and ε: the best measured release with ε at most that value
(:func:`dpcda.experiments.frontier.best_within` of :func:`~dpcda.experiments.frontier.frontier_rows`,
the rows of the default learner only, each release accounted with its own split of T, δ = 1e-5),
printed as a Markdown table row: l, σ, its ε, the accuracy (mean ± std, runs) and the learner.
``--table`` reads another table (e.g. the one shipped before a re-measurement); ``--any-learner``
lets every row in, as the frontier did before issue 28.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    from dpcda.experiments import frontier as fr
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default=None)
    ap.add_argument("--accountant", default=DEFAULT_ACCOUNTANT)
    ap.add_argument("--datasets", nargs="+", default=["digits", "mnist", "fashion-mnist", "adult"])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0, 5.0, 10.0])
    ap.add_argument("--any-learner", action="store_true")
    args = ap.parse_args(argv)

    print(f"# {args.accountant}, delta = 1e-5, table {args.table or fr.TABLE_PATH.name}")
    print("| dataset | ε ≤ | l | σ | ε of the release | accuracy | learner |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets:
        rows = fr.release_rows(name, table=args.table, learner=None if args.any_learner else fr.DEFAULT)
        front = fr.frontier(fr.attach_epsilons(rows, accountant=args.accountant, delta=1e-5,
                                               **fr.public_facts(name)))
        for eps in args.eps:
            b = fr.best_within(front, eps)
            if b is None:
                print(f"| {name} | {eps:g} | — | — | — | none measured | — |")
                continue
            std = "" if math.isnan(b["std"]) else f" ± {b['std']:.3f}"
            print(f"| {name} | {eps:g} | {b['l']} | {b['sigma_x']:.3g} | {b['epsilon']:.3g} | "
                  f"{b['mean']:.3f}{std} ({b['runs']}) | `{b['learner']}` |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
