"""Job-store UI shared by the Utility and Compare pages (not a page itself)."""

from __future__ import annotations

from collections import Counter
from typing import Callable

import streamlit as st

from dpcda.util.messages import hide_paths


def sweep_progress(store, sid: int, status_at_start: str, jobs: list, *, key: str,
                   describe: Callable, noun: str = "sweep", failed_in_expander: bool = True) -> None:
    """Draw a sweep's progress; while jobs are queued or running, poll the store every 2 s.

    ``status_at_start``/``jobs`` are what this page run drew; as soon as the store says otherwise
    (a job finished, the sweep's status moved on) the whole page reruns, and polling stops once
    every job is done. ``describe(job)`` names a job in its progress bar. Keys start with ``key``.
    """
    from dpcda.jobs import cancel_sweep, ensure_worker, live_workers

    seen = (sid, status_at_start, sum(j.terminal for j in jobs))
    active = any(not j.terminal for j in jobs)

    @st.fragment(run_every=2 if active else None)
    def progress() -> None:
        now = store.jobs(sweep_id=sid)
        status = store.get_sweep(sid).status
        done = sum(j.terminal for j in now)
        if (sid, status, done) != seen:
            st.rerun()
        count = Counter(j.status for j in now)
        st.progress(done / len(now), text=f"{status}: {done} of {len(now)} job(s) finished · "
                    + " · ".join(f"{count[s]} {s}" for s in
                                 ("done", "running", "queued", "failed", "cancelled") if count[s]))
        for j in (j for j in now if j.status == "running"):
            frac = (j.epoch or 0) / j.n_epochs if j.n_epochs else 0.0
            where = f"epoch {j.epoch} of {j.n_epochs}" if j.n_epochs else (j.message or "starting")
            where += " · cancelling" if j.cancel_requested else ""
            st.progress(min(frac, 1.0), text=f"job #{j.id}: {describe(j)}: {where}")
        if count["queued"] or count["running"]:
            # Workers bound to one sweep (the CLI's in-process one) do not run this page's jobs.
            if not live_workers(store, general_only=True):
                st.warning("No worker is running for this store, so queued jobs will wait.")
                if st.button("Start a worker", key=f"{key}_start_worker"):
                    ensure_worker(store)
                    st.rerun()
            if st.button(f"Cancel {noun}", key=f"{key}_cancel"):
                cancel_sweep(sid, store)
                st.rerun()
        failed = [j for j in now if j.status == "failed"]
        if failed:
            lines = [f"- job #{j.id} ({describe(j)}): " + (f"`{j.reason}` · " if j.reason else "")
                     + hide_paths((j.message or getattr(j, 'error', None) or 'failed').splitlines()[0])
                     for j in failed]
            if failed_in_expander:
                with st.expander(f"{len(failed)} failed job(s)"):
                    st.markdown("\n".join(lines))
            else:
                st.error("\n".join(lines))

    progress()


def executor_choice(container, key: str) -> str:
    """``"embedded"``, or ``"ray"`` when ``$DPCDA_RAY_ADDRESS`` is set (and ray installed) and
    the user picks it; draws nothing otherwise."""
    from dpcda.jobs import ray_setting

    address = ray_setting()
    if address is None:
        return "embedded"
    pick = container.radio("Run jobs on", ["this machine", f"Ray ({address})"], key=f"{key}_executor",
                           help="Ray: each job a Ray task on the cluster at $DPCDA_RAY_ADDRESS; "
                                "results are stored here as usual.")
    return "embedded" if pick == "this machine" else "ray"


def start_worker(store, noun: str = "sweep", executor: str = "embedded") -> None:
    """Make sure a background worker (a Ray driver for ``executor="ray"``) runs the store's
    queue; if none can be started, say how to start one by hand (the jobs stay queued)."""
    from dpcda.jobs import get_executor, ray_setting

    address = ray_setting() if executor == "ray" else None
    try:
        get_executor(executor, address=address).ensure_background(store)
    except (OSError, RuntimeError, ValueError) as exc:
        ray = " --executor ray --address $DPCDA_RAY_ADDRESS" if address else ""
        st.warning(f"The {noun} is queued but no worker could be started. Run "
                   f"`python -m dpcda worker{ray}` in a shell on this server (with the same "
                   "DPCDA_HOME setting as this dashboard).")
        with st.expander("Details"):
            st.code(hide_paths(exc), language=None)


def open_job_store():
    """The job store shared by every session. A store that cannot be used: one message in plain
    words (no server path; the path and the precise error only in a "Details" expander; for a
    corrupt store a button that moves it aside) and the page stops."""
    from dpcda.jobs import JobStore
    from dpcda.jobs.store_errors import StoreError, move_aside

    try:
        return JobStore()
    except StoreError as exc:
        st.error(exc.plain)
        with st.expander("Details"):
            st.code(str(exc.path), language=None)
            if exc.code == "corrupt" and st.button("Move it aside and start a fresh store",
                                                   key="jobs_move_aside"):
                st.info(f"Kept the old file as {move_aside(exc.path).name}.")
                st.rerun()
        st.stop()
    except (OSError, RuntimeError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else hide_paths(exc)
        st.error(f"The job store cannot be opened: {why.rstrip('.')}.")
        with st.expander("Details"):
            st.code(f"{type(exc).__name__}: {exc}", language=None)
        st.stop()


def measurement_progress(store, dataset: str, l: int, sigma_x: float, n_pending: int) -> None:
    """The Privacy page's one-click measurement in progress, polled every second."""
    from dpcda.experiments import frontier as fr

    @st.fragment(run_every=1)
    def poll() -> None:
        now = fr.pending_jobs(store, dataset, l=l, sigma_x=sigma_x)
        if len(now) != n_pending:
            st.rerun()
        running = [j for j in now if j.status == "running"]
        st.info(f"Measuring: {len(now)} run(s) to go"
                + (f" (job #{running[0].id}: {running[0].message or 'starting'})" if running
                   else " (waiting for the worker)") + ".")

    poll()


def sweep_from_address(param: str, sweeps, key: str, noun: str) -> None:
    """Select the stored sweep whose id the address's ``param`` carries (a refreshed tab finds
    it again) in the selectbox ``key``; an id that is not among ``sweeps`` is said once, quoted
    as typed (never as Markdown), and removed from the address."""
    import re

    from dpcda.util.verbatim import quoted

    wanted = st.query_params.get(param)
    if wanted is None:
        return
    if re.fullmatch(r"[0-9]{1,18}", wanted) and int(wanted) in sweeps:  # ASCII digits only
        st.session_state[key] = int(wanted)
        return
    st.warning(f"{noun} {quoted(wanted)} (from the address) is not in the job store.")
    del st.query_params[param]


def tally_jobs(store, jobs: list) -> None:
    """Count the release of every finished job shown here in the server's tally of draws from
    the private data (:mod:`dpcda.dashboard.shown`, once per job) and say where it stands."""
    from dpcda.dashboard import shown
    from dpcda.data.presets import PRESETS
    from dpcda.experiments.config import job_config

    if not jobs:
        return
    cfg = job_config(jobs[0])
    if cfg.dataset in PRESETS:
        shown.record_jobs(cfg.dataset, store, jobs)
        st.caption(shown.builtin_text(cfg.dataset, cfg.delta))
