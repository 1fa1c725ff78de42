"""Why a job ended the way it did (or went back to the queue): a value with a code.

The store keeps the code in the job's ``reason`` column and a sentence in its ``message``;
pages and the CLI show :func:`describe` and never match on the sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

REASONS: dict[str, str] = {
    "error": "the job's code raised an error",
    "cancelled": "cancelled on request",
    "time-limit": "ran past its time limit",
    "stalled": "made no progress for too long while its process lived",
    "worker-gone": "its worker process died or stopped beating its heartbeat",
    "worker-stopped": "its worker was asked to stop (SIGTERM) and handed the job back",
    "reused": "an identical job had already finished; its result was reused",
    "stale-code": "its worker runs older dpcda code than is on disk now and handed the job back "
                  "(restart the worker)",
}


@dataclass(frozen=True)
class Reason:
    code: str
    text: str

    def __post_init__(self) -> None:
        if self.code not in REASONS:
            raise ValueError(f"code must be one of {', '.join(REASONS)}, got code={self.code!r}")

    @property
    def summary(self) -> str:
        return REASONS[self.code]


def describe(code: str | None) -> str:
    """The plain description of a reason code ('' for None)."""
    if code is None:
        return ""
    return REASONS.get(code, code)
