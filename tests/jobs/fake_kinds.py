"""Fake job kinds for the job-runner tests, loaded into real worker processes through
``DPCDA_JOB_PLUGINS=tests.jobs.fake_kinds`` (importable from the repository root)."""

from __future__ import annotations

import os
import time

from dpcda.jobs import register_kind


@register_kind("fake-epochs")
def fake_epochs(config: dict, ctx) -> dict:
    """``epochs`` epochs of ``seconds`` each, reporting progress; stops when told to."""
    n = int(config.get("epochs", 3))
    for epoch in range(1, n + 1):
        time.sleep(float(config.get("seconds", 0.0)))
        if not ctx.on_epoch(epoch, n, {"loss": 1.0 / epoch, "test_accuracy": epoch / n}):
            return {"stopped_at": epoch, "pid": os.getpid()}
    return {"value": config.get("value"), "epochs": n, "pid": os.getpid()}


@register_kind("fake-record")
def fake_record(config: dict, ctx) -> dict:
    """Append '<job id> <pid>' to a log file (O_APPEND: whole lines, never interleaved)."""
    time.sleep(float(config.get("seconds", 0.0)))
    fd = os.open(config["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{ctx.job_id} {os.getpid()}\n".encode())
    finally:
        os.close(fd)
    return {"pid": os.getpid(), "i": config["i"]}


@register_kind("fake-fail")
def fake_fail(config: dict, ctx) -> dict:
    raise RuntimeError(f"fake failure {config.get('why', '')}".strip())


@register_kind("fake-cancel-check")
def fake_cancel_check(config: dict, ctx) -> dict:
    """Waits (up to a limit) for a cancel flag, using check_cancelled() (raises JobCancelled)."""
    deadline = time.monotonic() + float(config.get("limit", 10.0))
    while time.monotonic() < deadline:
        ctx.check_cancelled()
        time.sleep(0.05)
    return {"timed_out": True}


def _normalize(config: dict) -> dict:
    return {"x": 0, **config}


register_kind("fake-normalized", normalize=_normalize)(lambda config, ctx: {"x": config["x"]})


@register_kind("fake-die-once")
def fake_die_once(config: dict, ctx) -> dict:
    """Appends its pid to ``marker``; the first attempt (no marker yet) then SIGKILLs its own
    process, as if the machine running it had died: the Ray executor's retry test."""
    import signal

    first = not os.path.exists(config["marker"])
    with open(config["marker"], "a") as fh:
        fh.write(f"{os.getpid()}\n")
    if first or config.get("always"):
        os.kill(os.getpid(), signal.SIGKILL)
    return {"pid": os.getpid()}


@register_kind("fake-sleep")
def fake_sleep(config: dict, ctx) -> dict:
    """Appends its pid to ``marker`` when it starts, then sleeps ``seconds`` (no cancel checks:
    only killing its process stops it early)."""
    with open(config["marker"], "a") as fh:
        fh.write(f"{os.getpid()}\n")
    time.sleep(float(config.get("seconds", 30.0)))
    return {"pid": os.getpid(), "slept": True}


@register_kind("fake-checkpoints")
def fake_checkpoints(config: dict, ctx) -> dict:
    """Calls the library's checkpoint() every 10 ms for ``seconds`` (a loop with cancel hooks,
    like the generators' and the training loops'); ``stall_at``: then hangs without progress."""
    from dpcda.util.cancellation import checkpoint

    deadline = time.monotonic() + float(config.get("seconds", 30.0))
    n = 0
    while time.monotonic() < deadline:
        checkpoint()
        n += 1
        if config.get("stall_at") is not None and n >= int(config["stall_at"]):
            time.sleep(float(config.get("hang", 60.0)))  # alive, but no progress
        time.sleep(0.01)
    return {"checkpoints": n}


def _native(config: dict, ctx) -> dict:
    """Appends its pid to ``marker``, then one long native call that releases the GIL and
    checks no signal (PBKDF2, ``iterations`` rounds; 1.5e8 take about 30 s): like a decision
    tree's fit on MNIST, no checkpoint and no signal handler runs until it returns."""
    import hashlib

    with open(config["marker"], "a") as fh:
        fh.write(f"{os.getpid()}\n")
    hashlib.pbkdf2_hmac("sha256", b"dpcda", b"salt", int(config.get("iterations", 150_000_000)))
    return {"pid": os.getpid()}


try:  # a kind the worker runs in a child process it can end
    register_kind("fake-native", isolated=True)(_native)
except TypeError:  # a dpcda without isolated kinds: runs in the worker's own process
    register_kind("fake-native")(_native)
