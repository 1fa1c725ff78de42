"""``python -m dpcda sites``: the three modes across S sites, measured (docs/decentral.md).

    python -m dpcda sites --dataset digits --sites 10 --split iid --epsilon 1 --runs 1 --json

Splits the dataset's training split into ``--sites`` simulated sites, releases it
``centralized``, ``cape`` and ``local``, trains the default learner on each and tests on the
real test split. Prints per mode the accuracy and the epsilon (towards an outside reader, with
its accountant; ``--json`` adds every threat model's). Writes no file. Bad input: one line on
stderr, exit 2, naming the parameter, never a private count.

    python -m dpcda sites --site-files /data/a.csv /data/b.csv --classes 0,1 --T 5000 \
        --epsilon 1 --engine ray [--test-file test.csv] [--out synth.npz] --json

Instead of ``--dataset``: one file per site, each a path *on that site's machine*, which only
the site reads (:mod:`dpcda.cli.sites_files`, docs/cape_engine.md); ``cape`` only.
"""

from __future__ import annotations

import json


def register(sub) -> None:
    from dpcda.mechanisms.sites import SPLITS

    p = sub.add_parser("sites", help="DP-CDA across S sites: centralized, CAPE and local, measured",
                       description="Split a dataset's training split into S simulated sites and "
                                   "compare the centralized, CAPE and local releases' accuracy "
                                   "and epsilon (docs/decentral.md).")
    p.add_argument("--dataset", default=None, help="dataset name (or --site-files)")
    p.add_argument("--sites", type=int, default=None,
                   help="number of sites S (>= 1; with --dataset)")
    p.add_argument("--split", default=None, choices=SPLITS, help="how records are placed (iid)")
    p.add_argument("--site-column", type=int, default=None,
                   help="by-column: index of the feature column that names each record's site")
    p.add_argument("--alpha", type=float, default=None,
                   help="skewed: Dirichlet concentration (default 0.5)")
    p.add_argument("--epsilon", type=float, required=True, help="target epsilon")
    p.add_argument("--delta", type=float, default=1e-5, help="delta (default 1e-5)")
    p.add_argument("--l", type=int, default=4, help="order of mixture (default 4)")
    p.add_argument("--T", type=int, default=None, help="synthetic samples (default: N)")
    p.add_argument("--colluding", default=None,
                   help="threat model (c): comma-separated t (colluding sites, 1..S-1; "
                        "default 1, S/2, S-1)")
    p.add_argument("--normalize", default="scale", choices=("scale", "dp-center", "none"),
                   help="scale (public range, default), dp-center (public range, square root, "
                        "minus a mean estimated under DP; in cape by the same masked protocol, "
                        "composed into every threat model's epsilon) or none")
    p.add_argument("--runs", type=int, default=None, help="runs averaged (default 1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    from dpcda.cli.sites_files import add_arguments

    add_arguments(p)
    p.set_defaults(handler=_cmd_sites)


def _cmd_sites(args) -> int:
    from dpcda.cli.sites_files import cmd_site_files, colluding_list, dataset_only
    from dpcda.experiments.sites_run import run_sites

    if args.site_files is not None:
        return cmd_site_files(args)
    dataset_only(args)

    colluding = colluding_list(args)
    res = run_sites(dataset=args.dataset, sites=args.sites, split=args.split or "iid",
                    epsilon=args.epsilon, runs=1 if args.runs is None else args.runs, l=args.l,
                    T=args.T, delta=args.delta, alpha=0.5 if args.alpha is None else args.alpha,
                    column=args.site_column, colluding=colluding, normalize=args.normalize)
    if args.json:
        print(json.dumps({m: {k: v for k, v in r.items() if k != "accuracies"}
                          for m, r in res.items()}))
        return 0
    for mode, r in res.items():
        eps = "inf" if r["epsilon"] is None else f"{r['epsilon']:.3g}"
        print(f"{mode:12s} accuracy {r['accuracy']:.4f}  epsilon {eps} ({r['accountant']}, "
              f"outside reader)  release {r['release_seconds']:.2f} s")
    return 0

