"""Fault injection for the reliability tests: a process kills itself at a named point.

``$DPCDA_FAULT`` = ``<point>@<n>`` (several separated by commas): the process SIGKILLs itself
the ``n``-th time it passes ``<point>`` (``n`` >= 1), as if the machine died there. Points:
``claim`` (inside the claim transaction), ``generation`` and ``training`` (every checkpoint of
an experiment job in that phase), ``result-write`` (inside the transaction that records a
job's outcome, before it commits). Unset (always, outside the tests): :func:`hit` is one
dictionary check.
"""

from __future__ import annotations

import os
import signal

FAULT_ENV = "DPCDA_FAULT"
POINTS = ("claim", "generation", "training", "result-write")

_plan: dict[str, int] = {}
_seen: dict[str, int] = {}


def parse(spec: str) -> dict[str, int]:
    """``"training@3,result-write@1"`` -> {"training": 3, "result-write": 1}."""
    plan = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        point, _, n = part.partition("@")
        if point not in POINTS or not n.isdigit() or int(n) < 1:
            raise ValueError(f"{FAULT_ENV} must be <point>@<n> with point one of {', '.join(POINTS)} "
                             f"and n >= 1, got {part!r}")
        plan[point] = int(n)
    return plan


def arm(spec: str | None) -> None:
    """Replace the plan (None or '': no faults) and reset the counters."""
    _plan.clear()
    _seen.clear()
    _plan.update(parse(spec or ""))


def hit(point: str | None) -> None:
    """Count a pass through ``point``; SIGKILL this process on the planned pass."""
    if not _plan or point not in _plan:
        return
    _seen[point] = _seen.get(point, 0) + 1
    if _seen[point] == _plan[point]:
        os.kill(os.getpid(), signal.SIGKILL)


arm(os.environ.get(FAULT_ENV))
