"""Plain records read from the job store: :class:`Job` and :class:`Sweep`."""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.jobs import db as _db


@dataclass(frozen=True)
class Job:
    id: int
    sweep_id: int | None
    kind: str
    config: dict
    config_hash: str
    status: str
    epoch: int | None
    n_epochs: int | None
    metrics: dict | None
    message: str | None
    error: str | None
    cancel_requested: bool
    worker_id: str | None
    heartbeat_at: float | None
    attempts: int
    max_attempts: int
    created: float
    started: float | None
    finished: float | None
    result: dict | None
    reused_from: int | None
    force: bool
    reason: str | None = None  # a code of dpcda.jobs.reasons.REASONS (why it ended or was requeued)
    time_limit: float | None = None  # seconds it may run
    stall_after: float | None = None  # seconds without progress before it counts as stalled
    steps: int | None = None  # progress counter, advanced by the job's own loops
    fraction: float | None = None  # fraction done, when the job knows it
    progress_at: float | None = None  # when the counter last moved (wall clock)

    @classmethod
    def from_row(cls, row) -> "Job":
        keys = row.keys()
        d = {k: row[k] for k in cls.__dataclass_fields__ if k in keys}  # ignore columns added later
        for key in ("config", "metrics", "result"):
            d[key] = _db.loads(d[key])
        d["cancel_requested"] = bool(d["cancel_requested"])
        d["force"] = bool(d["force"])
        return cls(**d)

    @property
    def reason_text(self) -> str:
        """The plain description of :attr:`reason` ('' when there is none)."""
        from dpcda.jobs.reasons import describe

        return describe(self.reason)

    @property
    def terminal(self) -> bool:
        return self.status in _db.TERMINAL_STATUSES


@dataclass(frozen=True)
class Sweep:
    id: int
    created: float
    name: str
    config: dict
    status: str
    cancel_requested: bool


def sweep_from_row(row) -> Sweep:
    return Sweep(id=row["id"], created=row["created"], name=row["name"], config=_db.loads(row["config"]),
                 status=row["status"], cancel_requested=bool(row["cancel_requested"]))
