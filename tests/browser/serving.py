"""Serving the dashboard for a real browser: `streamlit run app.py` on a free port with a private
job store, offline, and stopping it and the workers it started. Shared by the browser tests and
the browser benchmarks (benchmarks/browser_*.py), so that both measure the same server.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright never downloads a browser here
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--headless=new",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(home: Path, root: Path = ROOT, wait_s: float = 90,
                 file_watcher: str | None = "none",
                 address: str | None = "127.0.0.1") -> tuple[subprocess.Popen, str]:
    """Start the dashboard of ``root`` and wait until it is healthy; ``(process, url)``. Its
    job store (and worker log) is ``home/dpcda-home``, never the user's ~/.dpcda; offline, so
    that picking a dataset whose files are missing never starts a download; its output goes to
    ``home/server.log``. ``file_watcher``: ``--server.fileWatcherType``, or ``None`` to start
    it as a user does, with only the shipped ``.streamlit/config.toml`` (``address=None``:
    the address too). Raises RuntimeError,
    with that log, if it exits or is not healthy in ``wait_s`` seconds."""
    port = free_port()
    env = dict(os.environ, DPCDA_HOME=str(home / "dpcda-home"), DPCDA_OFFLINE="1")
    log_path = home / "server.log"
    watcher = [] if file_watcher is None else ["--server.fileWatcherType", file_watcher]
    where = [] if address is None else ["--server.address", address]
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), *where,
             "--browser.gatherUsageStats", "false", *watcher],
            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait_s
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return proc, url
        except OSError:
            time.sleep(0.3)
    why = (f"exited with {proc.returncode}" if proc.poll() is not None
           else f"was not healthy in {wait_s:g} s")
    stop_server(proc)
    raise RuntimeError(f"streamlit {why}:\n{log_path.read_text()}")


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server from :func:`start_server` (kill it if it does not exit in 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stop_workers(dpcda_home: Path, timeout: float = 20.0) -> None:
    """SIGTERM every worker the dashboard started on its store (they run in their own session,
    so they outlive the server by design); SIGKILL what is still alive after ``timeout``."""
    from dpcda.jobs import JobStore, live_workers
    from dpcda.jobs.procs import pid_alive

    db = dpcda_home / "jobs.sqlite3"
    if not db.exists():
        return
    pids = [w["pid"] for w in live_workers(JobStore(db), stale_after=1e9) if w["pid"]]
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(pid_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in (p for p in pids if pid_alive(p)):
        os.kill(pid, signal.SIGKILL)


def inotify_watches(pid: int) -> int:
    """How many inotify watches process ``pid`` holds (``inotify wd:`` lines of its open
    inotify descriptors in /proc; Linux only)."""
    count = 0
    for info in Path(f"/proc/{pid}/fdinfo").iterdir():
        try:
            count += sum(line.startswith("inotify wd:") for line in info.read_text().splitlines())
        except OSError:  # closed meanwhile
            continue
    return count
