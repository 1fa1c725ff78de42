"""Where the CAPE sites run: engines that host one :class:`~dpcda.mechanisms.cape_site.CapeSite`
per site and carry the coordinator's messages to them (docs/cape_engine.md).

* ``inline``: the sites are objects in the caller's process, run one after the other (tests,
  small releases: no process to start).
* ``local`` (the embedded default for large releases): ``W = min(S, cores)`` worker processes
  (``python -m``, no fork: each site creates its own secure source where it runs), each hosting
  ``S / W`` sites; a site's records are sent to its worker once, its keys are made there, and
  only its masked messages come back (through files in a private RAM-backed folder, at most
  ``WINDOW`` chunks ahead; a local socket carries the rest).
* ``ray``: one Ray actor per site (``ray.init()`` locally, or ``address=`` / ``RAY_ADDRESS`` for a
  cluster; the optional extra ``requirements-ray.txt``).

Every engine offers ``call(method, {site: args})`` -> ``{site: result}`` (the set-up rounds) and
``stream(method, plan)`` -> an iterator over the plan's chunks, each ``{site: result}``, with
the next chunk already being computed while the caller aggregates one (at most ``WINDOW`` in
flight). A site's calls run in order, so both ends of every pair draw their mask words in step.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

ENGINES = ("auto", "inline", "local", "ray")
WINDOW = 2
#: ``auto`` picks ``local`` from this many site message values (S x samples x columns) up.
AUTO_LOCAL_VALUES = 20_000_000
#: The class a local worker hosts per site ("module:Class"; a benchmark may host another).
PARTY = "dpcda.mechanisms.cape_site:CapeSite"


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def resolve_engine(engine: str, n_values: int, S: int) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got engine={engine!r}")
    if engine != "auto":
        return engine
    import socket

    big = n_values >= AUTO_LOCAL_VALUES and S > 1 and cores() > 1
    return "local" if big and hasattr(socket, "AF_UNIX") else "inline"  # local needs Unix sockets


def open_engine(name: str, specs, *, workers: int | None = None, address: str | None = None):
    """An engine hosting one site per spec (``CapeSite``'s constructor keyword arguments)."""
    if name == "inline":
        return InlineEngine(specs)
    if name == "local":
        return LocalEngine(specs, workers=workers)
    if name == "ray":
        from dpcda.mechanisms.cape_ray import RayEngine

        return RayEngine(specs, address=address)
    raise ValueError(f"engine must be one of {', '.join(ENGINES[1:])}, got engine={name!r}")


class InlineEngine:
    """The sites as objects in this process, called one after the other."""

    name = "inline"

    def __init__(self, specs) -> None:
        from dpcda.mechanisms.cape_site import CapeSite

        self.sites = {int(sp["index"]): CapeSite(**sp) for sp in specs}

    def call(self, method: str, args: dict) -> dict:
        return {s: getattr(self.sites[s], method)(*a) for s, a in args.items()}

    def stream(self, method: str, plan):
        for chunk in plan:
            yield self.call(method, chunk)

    def close(self) -> None:
        self.sites.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _serve(conn) -> None:
    """A local worker: receive its sites' class and specs, host them, answer until 'close'."""
    try:
        import importlib

        party, specs = conn.recv()
        module, _, cls = party.partition(":")
        make = getattr(importlib.import_module(module), cls)
        sites = {int(sp["index"]): make(**sp) for sp in specs}
        conn.send(("ok", None))
    except BaseException as exc:  # noqa: BLE001 - reported to the coordinator
        conn.send(("error", exc))
        return
    while True:
        try:
            op, method, payload = conn.recv()
        except EOFError:
            return
        if op == "close":
            return
        try:
            if op == "call":
                conn.send(("ok", {s: getattr(sites[s], method)(*a) for s, a in payload.items()}))
            else:  # "stream": one answer per chunk, in order; arrays through files in RAM
                folder, chunks = payload
                for c, chunk in enumerate(chunks):
                    out = {s: _put(folder, c, s, getattr(sites[s], method)(*a))
                           for s, a in chunk.items()}
                    if c >= WINDOW:  # at most WINDOW chunks unread: wait for the coordinator
                        conn.recv()
                    conn.send(("ok", out))
        except BaseException as exc:  # noqa: BLE001
            conn.send(("error", exc))


def _put(folder: str, c: int, s: int, value):
    """An ndarray answer written to ``folder`` (a RAM-backed directory), its place returned."""
    import numpy as np

    if not isinstance(value, np.ndarray):
        return value
    path = os.path.join(folder, f"{c}-{s}.bin")
    value.tofile(path)
    return _File(path, value.dtype.str, tuple(value.shape))


@dataclass(frozen=True)
class _File:
    """(path, dtype, shape) of an answer in a file: read once, then removed."""

    path: str
    dtype: str
    shape: tuple

    def take(self):
        import numpy as np

        arr = np.fromfile(self.path, dtype=np.dtype(self.dtype)).reshape(self.shape)
        os.unlink(self.path)
        return arr


def _worker_main(address: str) -> None:
    """``python -m dpcda.mechanisms.cape_engine ADDRESS`` (the authentication key on stdin):
    connect back to the coordinator, say which worker this is, serve."""
    from multiprocessing.connection import Client

    w, key = sys.stdin.readline().split()
    conn = Client(address, family="AF_UNIX", authkey=bytes.fromhex(key))
    conn.send(int(w))
    _serve(conn)


class LocalEngine:
    """``W`` worker processes, each hosting some of the sites (see the module docstring). They
    are started with ``subprocess`` (``python -m``), not ``multiprocessing``: nothing of the
    caller's main module is re-imported (scripts without a main guard, Streamlit pages work),
    and they connect back over a Unix socket with a fresh authentication key."""

    name = "local"
    START_TIMEOUT = 180.0

    def __init__(self, specs, *, workers: int | None = None, party: str = PARTY) -> None:
        import subprocess
        import threading
        from multiprocessing.connection import Listener
        from pathlib import Path

        specs = list(specs)
        W = max(1, min(len(specs), int(workers) if workers else cores()))
        self._home: dict[int, int] = {}
        self._conns: list = [None] * W
        self._procs: list = []
        self._streaming = False
        import tempfile

        ram = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self._folder = tempfile.mkdtemp(prefix="dpcda-cape-", dir=ram)  # mode 0700
        key = os.urandom(32)
        listener = Listener(family="AF_UNIX", authkey=key)
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        try:
            for w in range(W):
                p = subprocess.Popen([sys.executable, "-m", "dpcda.mechanisms.cape_engine",
                                      listener.address], stdin=subprocess.PIPE, env=env)
                p.stdin.write(f"{w} {key.hex()}\n".encode())
                p.stdin.close()
                self._procs.append(p)

            def accept():
                for _ in range(W):
                    c = listener.accept()
                    self._conns[c.recv()] = c

            t = threading.Thread(target=accept, daemon=True)
            t.start()
            t.join(self.START_TIMEOUT)
            if t.is_alive() or any(c is None for c in self._conns):
                raise RuntimeError("the local engine's worker processes did not start")
            for w in range(W):
                mine = [sp for i, sp in enumerate(specs) if i % W == w]
                for sp in mine:
                    self._home[int(sp["index"])] = w
                self._conns[w].send((party, mine))
            for c in self._conns:
                self._answer(c)
        except BaseException:
            self.close()
            raise
        finally:
            listener.close()

    @staticmethod
    def _answer(conn):
        status, value = conn.recv()
        if status == "error":
            raise value
        return value

    def _split(self, args: dict) -> list[dict]:
        parts: list[dict] = [{} for _ in self._conns]
        for s, a in args.items():
            parts[self._home[int(s)]][s] = a
        return parts

    def call(self, method: str, args: dict) -> dict:
        parts = self._split(args)
        for c, part in zip(self._conns, parts):
            if part:
                c.send(("call", method, part))
        out: dict = {}
        for c, part in zip(self._conns, parts):
            if part:
                out.update(self._answer(c))
        return out

    def stream(self, method: str, plan):
        plan = list(plan)
        per_worker = [[self._split(chunk)[w] for chunk in plan] for w in range(len(self._conns))]
        for c, chunks in zip(self._conns, per_worker):  # small requests, sent at once
            c.send(("stream", method, (self._folder, chunks)))
        self._streaming = True
        for i in range(len(plan)):
            out: dict = {}
            for c in self._conns:
                got = self._answer(c)
                out.update({s: v.take() if isinstance(v, _File) else v for s, v in got.items()})
                if i + WINDOW < len(plan):
                    c.send(("free", i, None))
            yield out
        self._streaming = False

    def close(self) -> None:
        import subprocess

        if self._streaming:  # an abandoned stream (an abort): the workers are still computing
            for p in self._procs:  # answers nobody reads
                p.terminate()
        for c in self._conns:
            if c is not None:
                try:
                    c.send(("close", None, None))
                except (OSError, ValueError):
                    pass
        for p in self._procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        for c in self._conns:
            if c is not None:
                c.close()
        self._conns, self._procs = [], []
        import shutil

        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":  # run as the module itself, so that pickled classes resolve
    from dpcda.mechanisms.cape_engine import _worker_main as _main

    _main(sys.argv[1])
