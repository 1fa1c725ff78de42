"""Measure the table the Sites page ships (dpcda/experiments/sites_table.csv): accuracy of the
three modes across S sites (docs/decentral.md, "Measured").

Every row is one (dataset, epsilon, split, S, mode) measured ``--runs`` times with a fresh split
and fresh releases each (:func:`dpcda.experiments.sites_run.run_sites`: the project's default
learner on the real test split). Rows are appended as soon as a setting is done, so a long
sweep that is stopped keeps what it measured; a setting already in the file with the same learner
is replaced (rows of an earlier default learner stay as a record; the page and the figure read
today's default learner's rows, ``dpcda.experiments.sites_table.default_learner``).

    python benchmarks/sites_table.py --dataset digits --epsilon 10 --sites 1,2,5,10 --runs 1
    DPCDA_DATA_DIR=... python benchmarks/sites_table.py --dataset mnist --epsilon 1 --sites 10 --runs 3
    DPCDA_DATA_DIR=... python benchmarks/sites_table.py --dataset mnist --epsilon 1 \\
        --sites 1,2,5,10,20,50,100 --cape-max 20 --runs 1
    DPCDA_DATA_DIR=... python benchmarks/sites_table.py --dataset mnist --epsilon 1 --sites 10 \\
        --split skewed --alpha 0.5 --modes centralized,cape --runs 3

``--normalize dp-center`` measures releases normalised by ``dp-center`` (a row's ``normalize``;
a setting is keyed with it, so ``scale`` and ``dp-center`` rows stand side by side).
``--from-cli-json FILE --commit C`` adds rows from the output of one-run CLI measurements
instead, one ``dpcda sites ... --runs 1 --json`` line per run (their mean is what ``--runs``
would average: every run a fresh split and fresh releases):

    for i in 1 2 3; do python -m dpcda sites --dataset mnist --sites 10 --split iid \
        --epsilon 1 --normalize dp-center --runs 1 --json >> mnist.json; done
    python benchmarks/sites_table.py --from-cli-json mnist.json --dataset mnist --epsilon 1 \
        --sites 10 --normalize dp-center --commit ddd3a59

``--cape-max``: CAPE is left out above this S (the simulation expands S(S-1)/2 pair-mask streams
of T x (d + K) words in one process: about 2 s a pair at MNIST size on this project's machine).
Each row records the learner, the commit and the seconds it took.

    python benchmarks/sites_table.py --figure docs/sites_accuracy.svg --dataset mnist --epsilon 1

draws the table's accuracy against S per mode (an SVG, ``dpcda.report.svg.line_chart``) instead.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.experiments.sites_table import FIELDS, TABLE_PATH  # noqa: E402


def _commit() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                "dpcda"], cwd=root, text=True, capture_output=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _key(r: dict) -> tuple:
    return tuple(str(r.get(k) or "scale") if k == "normalize" else str(r[k])
                 for k in ("dataset", "epsilon", "split", "alpha", "sites", "mode", "learner",
                           "normalize"))


def _write(path: Path, rows: list[dict]) -> None:
    old = []
    if path.exists():
        with path.open() as f:
            old = list(csv.DictReader(f))
    keys = {_key(r) for r in rows}
    kept = [r for r in old if _key(r) not in keys]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in kept + rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def figure(args) -> None:
    from dpcda.experiments.sites_table import default_learner, load_sites_table
    from dpcda.report.svg import Series, line_chart

    learner = args.learner or default_learner(args.dataset, args.epsilon)
    rows = [r for r in load_sites_table(args.out)
            if (r.dataset, r.epsilon, r.split, r.learner, r.normalize) ==
            (args.dataset, args.epsilon, args.split, learner, args.normalize)]
    series = []
    for mode in ("centralized", "cape", "local"):
        pts = sorted((r.sites, r.accuracy) for r in rows if r.mode == mode)
        if pts:
            series.append(Series(label=mode, xs=tuple(p[0] for p in pts),
                                 ys=tuple(p[1] for p in pts), dashed=mode == "local"))
    learners = sorted({r.learner for r in rows})
    commits = {c for r in rows for c in str(r.commit).replace(",", " ").split()}
    # the commits behind the points are in the table (its commit column), not in the title
    svg = line_chart(series, title=f"{args.dataset}, epsilon = {args.epsilon:g}, {args.split} sites "
                                   f"({args.normalize}, {', '.join(learners)}; "
                                   f"{len(commits)} commits: sites_table.csv)",
                     x_title="sites S", y_title="test accuracy", x_log=True)
    Path(args.figure).write_text(svg + "\n")
    print(f"wrote {args.figure}: {sum(len(s.xs) for s in series)} points")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="digits")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--sites", default="10", help="comma-separated S values")
    ap.add_argument("--split", default="iid")
    ap.add_argument("--alpha", type=float, default=0.5)
    ap.add_argument("--modes", default="centralized,cape,local")
    ap.add_argument("--cape-max", type=int, default=1000, help="leave CAPE out above this S")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--normalize", default="scale", choices=("scale", "dp-center"),
                    help="the releases' normalisation (default scale)")
    ap.add_argument("--out", default=str(TABLE_PATH))
    ap.add_argument("--from-cli-json", default=None,
                    help="add rows from this file of one-run `dpcda sites --json` lines instead")
    ap.add_argument("--commit", default=None,
                    help="--from-cli-json: the commit the runs were measured at")
    ap.add_argument("--figure", default=None, help="write the accuracy-vs-S SVG here and stop")
    ap.add_argument("--learner", default=None,
                    help="--figure: the rows of this learner (default: today's default learner)")
    args = ap.parse_args()
    if args.figure:
        figure(args)
        return
    if args.from_cli_json:
        if not args.commit:
            raise SystemExit("--from-cli-json needs --commit (the commit the runs were measured at)")
        from_cli_json(args)
        return

    import torch

    from dpcda.experiments.sites_run import run_sites

    torch.set_num_threads(1)
    commit = _commit()
    for S in (int(v) for v in args.sites.split(",")):
        modes = tuple(m for m in args.modes.split(",") if m != "cape" or S <= args.cape_max)
        acc: dict = {m: [] for m in modes}
        secs: dict = {m: [] for m in modes}
        for run in range(args.runs):  # one run at a time: the rows so far are written after each
            t0 = time.perf_counter()
            res = run_sites(dataset=args.dataset, sites=S, split=args.split, epsilon=args.epsilon,
                            runs=1, alpha=args.alpha, modes=modes, normalize=args.normalize)
            rows = _rows(args, S, res, acc, secs, commit)
            print(f"  S={S} run {run + 1}: {time.perf_counter() - t0:.0f} s ({commit})", flush=True)
            _write(Path(args.out), rows)


def _rows(args, S: int, res: dict, acc: dict, secs: dict, commit: str) -> list[dict]:
    """The rows of one more run ``res`` (``{mode: run_sites's result}``, one run), its
    accuracies and seconds added to ``acc`` and ``secs`` (the runs so far, per mode)."""
    rows = []
    for mode, r in res.items():
        acc.setdefault(mode, []).append(r["accuracies"][-1] if "accuracies" in r else r["accuracy"])
        secs.setdefault(mode, []).append(r["release_seconds"])
        eps = {f"{t['key']}{t['colluding_sites'] or ''}": t["epsilon"] for t in r["threat_models"]}
        rows.append({"dataset": args.dataset, "epsilon": args.epsilon, "split": args.split,
                     "alpha": args.alpha if args.split == "skewed" else "", "sites": S,
                     "mode": mode, "l": r["l"], "T": r["T"], "learner": r["learner"],
                     "runs": len(acc[mode]), "accuracy": round(sum(acc[mode]) / len(acc[mode]), 4),
                     "accuracies": ";".join(f"{a:.4f}" for a in acc[mode]),
                     "epsilon_a": eps.get("a"), "epsilon_b": eps.get("b"),
                     "release_seconds": round(sum(secs[mode]) / len(secs[mode]), 1),
                     "commit": commit, "normalize": args.normalize})
        print(f"{args.dataset} eps={args.epsilon} {args.split} S={S:3d} {mode:11s} {args.normalize} "
              f"run {len(acc[mode])}: accuracy {acc[mode][-1]:.4f} (mean {rows[-1]['accuracy']}) "
              f"learner {r['learner']} release {r['release_seconds']:.1f} s", flush=True)
    return rows


def from_cli_json(args) -> None:
    """Rows from one-run ``dpcda sites --json`` outputs (one JSON object a line, each a run at
    this setting: its ``runs`` must be 1 and its ``sites``/``split`` this setting's)."""
    import json

    acc: dict = {}
    secs: dict = {}
    rows: list[dict] = []
    S = int(args.sites)
    for line in Path(args.from_cli_json).read_text().splitlines():
        if not line.strip():
            continue
        res = json.loads(line)
        for mode, r in res.items():
            if (r["runs"], r["sites"], r["split"]) != (1, S, args.split):
                raise SystemExit(f"{args.from_cli_json}: {mode} is runs={r['runs']}, sites="
                                 f"{r['sites']}, split={r['split']}; want runs=1, sites={S}, "
                                 f"split={args.split}")
        rows = _rows(args, S, res, acc, secs, args.commit)
    _write(Path(args.out), rows)

if __name__ == "__main__":
    main()
