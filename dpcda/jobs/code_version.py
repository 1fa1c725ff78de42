"""Which dpcda code a worker runs, so that a worker started before an upgrade says so.

A worker imports dpcda once, when it starts, and keeps that code: a learner, a mechanism or a
default added since is unknown to it (a worker started before ``qda`` existed refused ``qda``
jobs with "model must be one of …"). :func:`code_fingerprint` hashes the package's Python
sources (path and content, 180 files in about 12 ms); the worker records it when its module is
imported (:data:`STARTED_WITH`) and, before running a claimed job, compares it with the sources
on disk now (:func:`stale_code_message`): when they differ it hands the job back to the queue,
says why in the job's message and stops, so a fresh worker (the next page that starts one, or
``python -m dpcda worker``) runs it with the code it was submitted with.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import dpcda

#: The package's folder (its sources are hashed).
PACKAGE = Path(dpcda.__file__).resolve().parent


def code_fingerprint(root: Path | None = None) -> str:
    """A short hash of every ``*.py`` under ``root`` (default: the dpcda package), path and
    content, in path order."""
    root = PACKAGE if root is None else Path(root)
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        try:
            h.update(p.read_bytes())
        except OSError:  # removed while hashing: the code is changing anyway
            h.update(b"\1missing")
        h.update(b"\0")
    return h.hexdigest()[:12]


#: The fingerprint of the code this process imported (taken when this module is first imported,
#: which the worker does as it starts).
STARTED_WITH = code_fingerprint()


def stale_code_message(started_with: str = STARTED_WITH, now: str | None = None) -> str | None:
    """None while the code on disk is the code this process started with; else the sentence a
    job handed back carries (both fingerprints, dpcda's version, what to do)."""
    now = code_fingerprint() if now is None else now
    if now == started_with:
        return None
    return (f"requeued: this worker runs dpcda {dpcda.__version__} code {started_with}, imported when it "
            f"started; the code on disk is now {now} (changed since: an upgrade or an edit), so it "
            "may not know this job's learner, mechanism or defaults. The worker stopped; restart it "
            "(python -m dpcda worker) or start the job again from a page, which starts a fresh one")
