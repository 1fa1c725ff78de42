"""``python -m dpcda worker`` and ``python -m dpcda sweep``: the durable job runner from the shell.

Both use the same SQLite store as the dashboard (``$DPCDA_HOME/jobs.sqlite3`` unless
``--db``). Only the argument parser is built at import time: the store, pandas and torch are
imported inside the handlers.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys

DEFAULT_EPSILONS = "inf,20,10"
DEFAULT_LS = "1,2,4,8,16,32,64,128,256,512"


def _positive_float(name: str):
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        if not (v > 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"{name} must be a finite number > 0, got {text!r}")
        return v

    return parse


def _int_at_least(name: str, lo: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = lo - 1
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= {lo}, got {text!r}")
        return v

    return parse


def _nonneg_seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"seconds must be a finite number >= 0, got {text!r}")
    return v


def _list_type(parse):
    def check(text: str) -> str:
        try:
            parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    return check


def register(subparsers) -> None:
    from dpcda.experiments.sweep import parse_epsilons, parse_ls, parse_sigmas, parse_Ts

    w = subparsers.add_parser(
        "worker", help="run queued jobs from the job store (the background worker)",
        description="Claim queued jobs from the store and run them one at a time. Several workers "
                    "may share a store; a job is never run by two of them.")
    w.add_argument("--db", metavar="PATH", help="job store (default: $DPCDA_HOME/jobs.sqlite3)")
    w.add_argument("--once", action="store_true", help="run at most one job, then exit")
    w.add_argument("--idle-exit", type=_nonneg_seconds, metavar="SECONDS",
                   help="exit after SECONDS with nothing to do (0: when the queue is empty)")
    w.add_argument("--worker-id", metavar="ID", help=argparse.SUPPRESS)
    w.add_argument("--heartbeat", type=_positive_float("--heartbeat"), default=None,
                   metavar="SECONDS", help="seconds between heartbeats (default 5)")
    w.add_argument("--stale-after", type=_positive_float("--stale-after"), default=None,
                   metavar="SECONDS",
                   help="a running job without a heartbeat for this long is requeued (default 60)")
    _executor_args(w)
    w.set_defaults(handler=_worker)

    s = subparsers.add_parser(
        "sweep", help="train on DP-CDA releases over a grid of epsilon (or sigma), l and T; print "
                      "accuracies",
        description="Queue one experiment per (epsilon or sigma, T, l, run) in the job store, run "
                    "them (with live workers helping), print mean ± std test accuracy per cell. "
                    "Cells already computed with an identical configuration are reused.")
    from dpcda.data import list_datasets

    s.add_argument("--dataset", required=True, help=f"dataset name ({', '.join(list_datasets())})")
    s.add_argument("--epsilons", type=_list_type(parse_epsilons), default=None,
                   help=f"comma-separated target epsilons, inf = non-private (default {DEFAULT_EPSILONS}); "
                        "each point's sigma is calibrated by the accountant")
    s.add_argument("--sigmas", type=_list_type(parse_sigmas), default=None,
                   help="instead of --epsilons: comma-separated fixed noise scales sigma_x "
                        "(sigma_y = sigma_x), as in the thesis's accuracy-versus-noise plot; the "
                        "accountant reports the epsilon of each")
    s.add_argument("--ls", type=_list_type(parse_ls), default=None,
                   help=f"comma-separated orders of mixture l (default {DEFAULT_LS}, "
                        "up to the smallest class)")
    s.add_argument("--runs", type=_int_at_least("--runs", 1), default=1,
                   help="repetitions per cell (default 1)")
    s.add_argument("--epochs", type=_int_at_least("--epochs", 1), help="training epochs (default 5)")
    s.add_argument("--model", default="auto",
                   help="auto (default: the best measured learner per setting, resolved per job: "
                        "tree for tabular data; for images lda (noise-aware LDA) when private, cnn "
                        "when epsilon=inf; digits: ncm "
                        "when private, lda when epsilon=inf), or cnn, dpmix-cnn, fc, linear, ncm, "
                        "lda, qda or tree")
    s.add_argument("--label-mode", choices=("hard", "soft"), help="train on hard or noisy soft labels")
    s.add_argument("--batch-size", type=_int_at_least("--batch-size", 1), help="default 256")
    s.add_argument("--lr", type=_positive_float("--lr"), help="Adam learning rate (default 1e-3)")
    s.add_argument("--device", choices=("auto", "cpu", "cuda", "mps"))
    from dpcda.mechanisms import MECHANISMS, all_accountants
    from dpcda.data.presets import clip_norm_help, dp_center_datasets

    s.add_argument("--mechanism", default=None, choices=MECHANISMS.names(),
                   help="generator (default dp-cda)")
    s.add_argument("--accountant", default=None, choices=all_accountants(),
                   help="privacy accountant (default: the mechanism's own, a valid bound: "
                        + "; ".join(f"{m}: {MECHANISMS.get(m).default_accountant}"
                                    for m in MECHANISMS) + "; paper: as published (for reproducing "
                        "the paper's tables), not a bound for this implementation)")
    s.add_argument("--allocation", choices=("equal", "proportional"),
                   help="dp-cda: samples per class, equal (floor(T/K)) or proportional to the "
                        "public class counts (floor(T N_k / N)); default: "
                        + MECHANISMS.get("dp-cda").param("allocation").default)
    s.add_argument("--conversion", default=None, help="RDP -> (epsilon, delta) conversion (default mironov)")
    s.add_argument("--T", dest="T", type=_list_type(parse_Ts),
                   help="synthetic samples, or a comma-separated list of them to sweep (default N)")
    s.add_argument("--x", choices=("l", "epsilon", "sigma", "T"),
                   help="the axis the sweep is about, recorded for the dashboard's plot (default: T "
                        "if several, else epsilon/sigma if several at one l, else l)")
    s.add_argument("--c", type=_positive_float("--c"), help=f"clip norm (default: {clip_norm_help()})")
    s.add_argument("--delta", type=_positive_float("--delta"), help="delta (default 1e-5)")
    s.add_argument("--normalization", choices=("zscore", "scale", "none", "dp-center"),
                   help="scale (a public, data-independent range: covered by the guarantee), "
                        "zscore (statistics of the private data, not covered by the guarantee), "
                        "none, or dp-center (dp-cda: a mean estimated under DP, composed into "
                        "epsilon); default: the mechanism's, except dp-cda on "
                        f"{' and '.join(dp_center_datasets())} under class-aware-pld: dp-center")
    s.add_argument("--db", metavar="PATH", help="job store (default: $DPCDA_HOME/jobs.sqlite3)")
    s.add_argument("--out", metavar="CSV", help="also write the results table to this CSV file")
    s.add_argument("--force", action="store_true", help="recompute cells already in the store")
    s.add_argument("--name", help="a label for the sweep")
    s.add_argument("--time-limit", type=_positive_float("--time-limit"), metavar="SECONDS",
                   help="a job running longer fails with reason time-limit (default 21600 = 6 h)")
    s.add_argument("--stall-after", type=_positive_float("--stall-after"), metavar="SECONDS",
                   help="a job whose progress counter does not move for this long is stalled: "
                        "requeued once, then failed (default 600)")
    s.add_argument("--max-attempts", type=_int_at_least("--max-attempts", 1), metavar="N",
                   help="times a job is started before it fails for good when its worker dies "
                        "or it stalls (default 2)")
    s.add_argument("--quiet", action="store_true", help="no per-job lines on stderr")
    _executor_args(s)
    s.set_defaults(handler=_sweep)


def _executor_args(p) -> None:
    p.add_argument("--executor", choices=("embedded", "ray"), default="embedded",
                   help="embedded (default: worker processes on this machine) or ray (each job a "
                        "Ray task; needs the optional ray package)")
    p.add_argument("--address", metavar="ADDRESS",
                   help="with --executor ray: auto, local, host:6379 or ray://host:10001 (default: "
                        "$RAY_ADDRESS, else a cluster started with `ray start` here, else a new "
                        "local Ray instance)")


def _executor(args):
    """The executor the command line asks for (ValueError: --address without ray, no ray)."""
    from dpcda.jobs.executors import get_executor

    if args.address is not None and args.executor != "ray":
        raise ValueError(f"--address applies to --executor ray only, got --executor {args.executor}")
    return get_executor(args.executor, address=args.address)


def _raise_stop(signum, frame):  # SIGTERM -> hand the running job back, exit cleanly
    from dpcda.jobs.worker import WorkerStop

    raise WorkerStop(f"signal {signum}")


def _setup_logging() -> None:
    import logging

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def _worker(args) -> int:
    from dpcda.jobs.store import DEFAULT_STALE_AFTER
    from dpcda.jobs.worker import DEFAULT_HEARTBEAT, Worker, WorkerStop

    from dpcda.jobs.kinds import load_plugins

    try:
        load_plugins()
    except ImportError as exc:
        raise ValueError(str(exc)) from None
    executor = _executor(args)
    _setup_logging()
    if executor.name == "ray":
        from dpcda.jobs.ray_runner import RayRunner

        executor.open()
        worker = RayRunner(args.db, worker_id=args.worker_id,
                           stale_after=args.stale_after or DEFAULT_STALE_AFTER)
    else:
        worker = Worker(args.db, worker_id=args.worker_id,
                        heartbeat_interval=args.heartbeat or DEFAULT_HEARTBEAT,
                        stale_after=args.stale_after or DEFAULT_STALE_AFTER)
    if hasattr(worker, "request_stop"):  # SIGTERM: hand the job back at its next checkpoint
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: worker.request_stop(
            f"its worker was stopped (signal {signum}) and handed the job back"))
    else:
        previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        worker.run(once=args.once, idle_exit=args.idle_exit)
    except (WorkerStop, KeyboardInterrupt):
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        executor.close()
    return 0


def _base_config(args) -> dict:
    base = {"dataset": args.dataset}
    for key in ("mechanism", "accountant", "conversion", "c", "delta", "normalization",
                "allocation"):
        value = getattr(args, key)
        if value is not None:
            base[key] = value
    train = {}
    for key in ("model", "epochs", "label_mode", "batch_size", "lr", "device"):
        value = getattr(args, key)
        if value is not None:
            train[key] = value
    if train:
        base["train"] = train
    return base


def point_label(config) -> str:
    """``epsilon=10``, ``epsilon=inf`` or ``sigma=0.7`` for a normalized experiment config
    (its JSON or its :class:`~dpcda.experiments.config.ExperimentConfig`)."""
    from dpcda.experiments.config import ExperimentConfig

    cfg = config if isinstance(config, ExperimentConfig) else ExperimentConfig.from_json(config)
    if cfg.sigma is not None:
        return f"sigma={cfg.sigma:g}"
    eps = cfg.epsilon
    return "epsilon=inf" if math.isinf(eps) else f"epsilon={eps:g}"


def _sweep(args) -> int:
    from dpcda.experiments.config import job_config
    from dpcda.experiments.run import max_l_for
    from dpcda.jobs.store import JobStore
    from dpcda.experiments.sweep import (format_table, parse_epsilons, parse_ls, parse_sigmas, parse_Ts,
                                  submit_sweep, sweep_finished, sweep_results)
    from dpcda.jobs.worker import WorkerStop

    if args.sigmas is not None and args.epsilons is not None:
        raise ValueError("give either --epsilons (sigma calibrated per point) or --sigmas (fixed "
                         "noise), not both")
    epsilons = None if args.sigmas is not None else parse_epsilons(args.epsilons or DEFAULT_EPSILONS)
    sigmas = None if args.sigmas is None else parse_sigmas(args.sigmas)
    Ts = None if args.T is None else parse_Ts(args.T)
    max_l, what = max_l_for(args.dataset, args.mechanism or "dp-cda")
    if args.ls is None:  # the paper's grid, cut at the smallest class; [1] if it does not mix
        from dpcda.mechanisms import MECHANISMS

        mixes = MECHANISMS.get(args.mechanism or "dp-cda").mixes
        ls = [l for l in parse_ls(DEFAULT_LS) if max_l is None or l <= max_l] if mixes else [1]
    else:
        ls = parse_ls(args.ls, max_l=max_l, what=what)
    if args.out:  # before anything is queued, not after every job has run
        from dpcda.cli.outpath import check_out

        check_out(args.out)
    executor = _executor(args)  # no ray package: exit 2 before anything is queued
    store = JobStore(args.db)
    sweep_id = submit_sweep(store, _base_config(args), epsilons=epsilons, sigmas=sigmas, ls=ls,
                            Ts=Ts, runs=args.runs, x=args.x, name=args.name, force=args.force,
                            time_limit=args.time_limit, stall_after=args.stall_after,
                            max_attempts=args.max_attempts)
    jobs = store.jobs(sweep_id=sweep_id)
    reused = sum(j.reused_from is not None for j in jobs)
    print(f"sweep {sweep_id}: {len(jobs)} job(s), {reused} reused from earlier results; store "
          f"{store.path}", file=sys.stderr)
    done = [sum(j.terminal for j in jobs)]

    def report(job) -> None:
        done[0] += 1
        if args.quiet:
            return
        c, r = job_config(job), job.result or {}
        eps = point_label(c)
        what = f"accuracy {r['accuracy']:.4f}" if job.status == "done" and r.get("accuracy") is not None \
            else (job.message or job.status)
        model = c.train.model
        T = f" T={c.T}" if c.T is not None else ""
        print(f"[{done[0]}/{len(jobs)}] {eps} l={c.l}{T} run={c.run} model={model}: "
              f"{job.status}, {what}",
              file=sys.stderr, flush=True)

    pending = not sweep_finished(store, sweep_id)  # all reused: no need to start Ray
    try:
        if pending:
            executor.open()  # connect to Ray (a bad address: one line, exit 2)
    except BaseException:  # also Ctrl-C while Ray connects: nothing stays queued
        store.cancel_sweep(sweep_id)
        raise
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        if pending:
            executor.run_sweep(store, sweep_id, on_finish=report)
    except (WorkerStop, KeyboardInterrupt):
        store.cancel_sweep(sweep_id)
        print(f"sweep {sweep_id} cancelled", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        executor.close()
    table = sweep_results(store, sweep_id)
    accountants = sorted(set(table["accountant"].astype(str)))
    models = {}
    first = job_config(jobs[0])
    for j in jobs:  # model="auto" may pick a different learner per epsilon
        c = job_config(j)
        models.setdefault(point_label(c), c.train.model)
    how = ("epsilon reported for each fixed sigma" if sigmas is not None
           else "sigma calibrated for each target epsilon")
    from dpcda.privacy import caveat, get_accountant

    notes = "".join(f" ({a}: {caveat(a, first.mechanism)})"
                    for a in accountants if caveat(a, first.mechanism))
    rels = "; ".join(f"{a}: {get_accountant(a).relation}" for a in accountants)
    norm = first.normalization
    print(f"# test accuracy on the real test split; {how} by the {', '.join(accountants)} "
          f"accountant{'s' if len(accountants) > 1 else ''}{notes}, "
          f"delta={first.delta:g}; neighbours: {rels}; normalisation {norm}"
          + (" (not covered by the guarantee)" if norm == "zscore" else "") + "; "
          f"model per point: {', '.join(f'{e}: {m}' for e, m in models.items())}")
    print(format_table(table))
    if args.out:
        from dpcda.cli.outpath import write_atomic

        from dpcda.util.csv_safe import safe_frame

        write_atomic(args.out, lambda tmp: safe_frame(table).to_csv(tmp, index=False))
        print(f"wrote {args.out}", file=sys.stderr)
    bad = [j for j in store.jobs(sweep_id=sweep_id) if j.status != "done"]
    for j in bad:
        print(f"job {j.id} {j.status}: {j.message}", file=sys.stderr)
    return 1 if bad else 0
