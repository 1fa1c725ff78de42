"""``dpcda sites --site-files``: a CAPE release in which every site reads its own file.

    python -m dpcda sites --site-files /data/a.csv /data/b.csv /data/c.csv --classes 0,1,2 \\
        --T 3000 --epsilon 1 [--engine ray --address auto] [--test-file t.csv] \\
        [--out synth.npz] --json

Each path is a CSV (label first, as an upload) or an NPZ (``X``, ``y``) *on that site's
machine*: this process passes it to the site and never opens it
(:func:`dpcda.experiments.sites_files.run_site_files`). ``--test-file`` is read here (the
evaluator's own data). Only the ``cape`` mode. ``--out`` writes the release and its card (as
``dpcda generate`` does), checked before anything runs. Bad input: one line on stderr, exit 2,
nothing written; no private count in the message.
"""

from __future__ import annotations

import json

#: Options of ``--dataset`` runs only, and of ``--site-files`` runs only (refused otherwise).
DATASET_ONLY = ("dataset", "sites", "split", "site_column", "alpha", "runs")
FILES_ONLY = ("classes", "test_file", "engine", "address", "bounds", "c", "out")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _verb(given) -> str:
    return "applies" if len(given) == 1 else "apply"


def add_arguments(p) -> None:
    from dpcda.mechanisms.cape_engine import ENGINES

    p.add_argument("--site-files", nargs="+", default=None, metavar="PATH",
                   help="instead of --dataset: one CSV/NPZ per site, a path on that site's "
                        "machine that only the site reads (cape only)")
    p.add_argument("--classes", default=None,
                   help="site files: the class labels, comma-separated, in class order")
    p.add_argument("--test-file", default=None,
                   help="site files: labelled test data (CSV/NPZ, read here) for the accuracy")
    p.add_argument("--engine", default=None, choices=ENGINES,
                   help="site files: where the sites run (default auto; ray for several machines)")
    p.add_argument("--address", default=None,
                   help="site files, engine ray: the cluster (auto, ray://HOST:10001)")
    p.add_argument("--bounds", default=None,
                   help="site files, scale: the public feature range LOW,HIGH (default 0,255)")
    p.add_argument("--c", type=float, default=None, help="site files: clip norm (default 1)")
    p.add_argument("--out", default=None,
                   help="site files: write the release to this .npz (its card to <stem>.json)")


def _refuse_others(args, theirs, their_mode: str, mode: str, ours) -> None:
    """Refuse the options of the other way of naming the data (``theirs``, which belong to
    ``their_mode``), naming the ones that belong to ``mode`` (``ours``)."""
    given = [_flag(k) for k in theirs if getattr(args, k) is not None]
    if given:
        raise ValueError(f"{', '.join(given)} {_verb(given)} to {their_mode} only; with "
                         f"{mode} use {', '.join(_flag(k) for k in ours)}")


def dataset_only(args) -> None:
    """A ``--dataset`` run: refuse the site files' options, require the dataset's."""
    _refuse_others(args, FILES_ONLY, "--site-files", "--dataset", DATASET_ONLY)
    for k in ("dataset", "sites"):
        if getattr(args, k) is None:
            raise ValueError(f"{_flag(k)} is required (or give --site-files instead of "
                             "--dataset)")


def _bounds(text):
    if text is None:
        return None
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"--bounds must be LOW,HIGH (two numbers, the public feature range), "
                         f"got --bounds={text!r}") from None
    return low, high


def cmd_site_files(args) -> int:
    from dpcda.experiments.sites_files import run_site_files

    _refuse_others(args, DATASET_ONLY, "--dataset", "--site-files", FILES_ONLY)
    for k in ("classes", "T"):
        if getattr(args, k) is None:
            raise ValueError(f"{_flag(k)} is required with --site-files (this process reads no "
                             "site's records to find it)")
    out = None
    if args.out is not None:
        from dpcda.cli.outpath import check_out

        out = check_out(args.out, suffix=".npz")  # before any work
        check_out(out.with_suffix(".json"), option="--out's data card")
    res, rel = run_site_files(site_files=args.site_files, classes=args.classes,
                              epsilon=args.epsilon, T=args.T, l=args.l, delta=args.delta,
                              c=1.0 if args.c is None else args.c, normalize=args.normalize,
                              bounds=_bounds(args.bounds), colluding=colluding_list(args),
                              engine=args.engine or "auto", address=args.address,
                              test_file=args.test_file)
    if out is not None:
        from dpcda.cli.generate import _save
        from dpcda.mechanisms import save_npz

        _save(save_npz, rel, out)
    r = res["cape"]
    if args.json:
        print(json.dumps(res))
        return 0
    eps = "inf" if r["epsilon"] is None else f"{r['epsilon']:.3g}"
    acc = "" if r["accuracy"] is None else f"accuracy {r['accuracy']:.4f}  "
    print(f"cape ({r['sites']} sites from their files, engine {r['engine']})  {acc}epsilon "
          f"{eps} ({r['accountant']}, outside reader)  release {r['release_seconds']:.2f} s")
    return 0


def colluding_list(args):
    """``--colluding`` as a list of whole numbers (None: not given)."""
    if args.colluding is None:
        return None
    try:
        return [int(v) for v in args.colluding.split(",")]
    except ValueError:
        raise ValueError("--colluding must list whole numbers t from 1 to S-1 separated by "
                         f"commas, got --colluding={args.colluding!r}") from None
