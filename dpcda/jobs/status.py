"""Jobs as rows for display (the ``dpcda jobs`` command and the pages' job panels).

Each row names the job's status and, where it ended early or went back to the queue, the
reason as a code (:mod:`dpcda.jobs.reasons`) plus its plain description; running jobs show
their progress (epoch, fraction, the progress counter) and how long ago it last moved.
"""

from __future__ import annotations

import time

from dpcda.jobs.reasons import describe

STATUS_COLUMNS = ("job_id", "sweep_id", "kind", "status", "reason", "attempts", "progress",
                  "last_progress_s", "message")


def progress_text(job) -> str:
    """``epoch 3 of 10``, ``42%`` or ``12 steps`` for a running job ('' when unknown)."""
    if job.n_epochs:
        return f"epoch {job.epoch or 0} of {job.n_epochs}"
    if job.fraction is not None:
        return f"{100 * job.fraction:.0f}%"
    return f"{job.steps} steps" if job.steps else ""


def job_rows(store, *, sweep_id: int | None = None, status: str | None = None,
             now: float | None = None) -> list[dict]:
    """One plain dict per job (columns :data:`STATUS_COLUMNS` plus ``reason_text``)."""
    now = time.time() if now is None else now
    rows = []
    for j in store.jobs(sweep_id=sweep_id, status=status):
        since = j.progress_at if j.progress_at is not None else j.started
        rows.append(dict(
            job_id=j.id, sweep_id=j.sweep_id, kind=j.kind, status=j.status, reason=j.reason,
            reason_text=describe(j.reason), attempts=f"{j.attempts}/{j.max_attempts}",
            progress=progress_text(j) if j.status == "running" else "",
            last_progress_s=round(now - since, 1) if j.status == "running" and since else None,
            message=(j.message or "").splitlines()[0] if j.message else ""))
    return rows


def format_rows(rows: list[dict]) -> str:
    """Aligned text for the terminal."""
    header = ["job", "sweep", "kind", "status", "reason", "attempts", "progress", "message"]
    lines = [[str(r["job_id"]), "" if r["sweep_id"] is None else str(r["sweep_id"]), r["kind"],
              r["status"], r["reason"] or "", r["attempts"], r["progress"], r["message"]]
             for r in rows]
    widths = [max([len(h)] + [len(line[i]) for line in lines]) for i, h in enumerate(header)]
    fmt = lambda row: "  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])
