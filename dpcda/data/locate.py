"""Where dataset files are looked for, the download cache, and the "files not found" error.

Search order for a dataset ``name`` (first folder holding every needed file wins):

1. the ``data_dir`` argument: ``data_dir/<name>/``, ``data_dir/<TorchvisionName>/raw/``, ``data_dir/``;
2. ``$DPCDA_DATA_DIR/<name>/`` and ``$DPCDA_DATA_DIR/<TorchvisionName>/raw/``;
3. the cache, ``$DPCDA_CACHE_DIR`` or ``~/.cache/dpcda`` (same two layouts; downloads land here);
4. dataset-specific system folders (Debian's ``/usr/share/datasets/fashion-mnist``).

When nothing is found, a download into the cache is tried unless ``DPCDA_OFFLINE=1``. Downloads
never hang offline: a 3-second TCP probe of the download host runs first.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Callable, Iterable, Sequence
from urllib.parse import urlparse

from dpcda.data.dataset import DatasetUnavailable

DATA_DIR_ENV = "DPCDA_DATA_DIR"
CACHE_DIR_ENV = "DPCDA_CACHE_DIR"
OFFLINE_ENV = "DPCDA_OFFLINE"
PROBE_TIMEOUT_S = 3.0


def cache_dir() -> Path:
    """The download cache: ``$DPCDA_CACHE_DIR`` or ``~/.cache/dpcda``."""
    env = os.environ.get(CACHE_DIR_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "dpcda"


def offline() -> bool:
    return os.environ.get(OFFLINE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def check_data_dir(data_dir: object) -> Path | None:
    if data_dir is None:
        return None
    if not isinstance(data_dir, (str, os.PathLike)):
        raise ValueError(f"data_dir must be a folder path (str or Path) or None, got {data_dir!r}")
    p = Path(data_dir).expanduser()
    if not p.is_dir():
        raise ValueError(f"data_dir must be an existing folder, got data_dir={str(p)!r}")
    return p


def candidate_dirs(name: str, data_dir: Path | None, *, subdirs: Sequence[str],
                   system: Sequence[str] = ()) -> list[Path]:
    """Folders to search, in order (``subdirs`` are tried under each root, e.g. ``mnist``, ``MNIST/raw``)."""
    out: list[Path] = []
    if data_dir is not None:
        out += [data_dir / s for s in subdirs] + [data_dir]
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        out += [Path(env).expanduser() / s for s in subdirs]
    out += [cache_dir() / s for s in subdirs]
    out += [Path(s) for s in system]
    seen, uniq = set(), []
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq


def find_first(dirs: Iterable[Path], match: Callable[[Path], object]) -> tuple[Path, object] | None:
    """The first folder for which ``match(folder)`` returns something truthy, with that result."""
    for d in dirs:
        if d.is_dir():
            found = match(d)
            if found:
                return d, found
    return None


def host_reachable(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Can a TCP connection to ``url``'s host be opened within ``timeout`` seconds?"""
    u = urlparse(url)
    port = u.port or (443 if u.scheme == "https" else 80)
    try:
        with socket.create_connection((u.hostname, port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def try_download(url: str, fetch: Callable[[Path], None]) -> str | None:
    """Run ``fetch(cache_dir())`` unless offline; return ``None`` on success or why it did not work."""
    if offline():
        return f"download skipped ({OFFLINE_ENV}=1)"
    if not host_reachable(url):
        return f"download skipped: {urlparse(url).hostname} is not reachable (offline?)"
    try:
        cache = cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        fetch(cache)
    except Exception as e:  # noqa: BLE001 - any failure becomes part of the helpful error
        return f"download failed: {type(e).__name__}: {e}"
    return None


def unavailable(title: str, name: str, files: Sequence[str], searched: Sequence[Path],
                download_note: str | None, *, layout: str | None = None) -> DatasetUnavailable:
    env = os.environ.get(DATA_DIR_ENV)
    where = f"{env}/{name}/" if env else f"<datasets folder>/{name}/"
    looked = ", ".join(str(p) for p in searched) or "(nowhere)"
    msg = (f"{title} files not found. Put {', '.join(files)} in {where} and set "
           f"{DATA_DIR_ENV} to the datasets folder (or pass data_dir=)")
    if layout:
        msg += f"; {layout}"
    msg += f". Searched: {looked}."
    if download_note:
        msg += f" {download_note[0].upper()}{download_note[1:]}."
    return DatasetUnavailable(msg)
