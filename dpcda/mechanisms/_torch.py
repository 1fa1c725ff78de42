"""Torch plumbing shared by the generators: device choice and the random generator.

torch is imported inside the functions so that ``import dpcda.mechanisms`` stays cheap.

A release draws its randomness from the operating system (``os.urandom``) and never records
it; experiments may pass ``seed=`` for reproducibility, and the seed then still goes nowhere
(not into the data card, not into any export, not into a log).
"""

from __future__ import annotations

import os
from contextlib import contextmanager

# Bytes a gathered/temporary tensor chunk may take (kept well under ~256 MB).
CHUNK_BYTES = 64 << 20


def resolve_device(device=None):
    """``device`` as a ``torch.device``; None picks ``cuda``, then ``mps``, then ``cpu``."""
    import torch

    if device is not None:
        try:
            dev = torch.device(device)
        except (RuntimeError, TypeError) as exc:
            raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:N' or 'mps', "
                             f"got {device!r}") from exc
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device {device!r} was asked for but CUDA is not available here")
        if dev.type == "mps" and not _mps_available():
            raise ValueError(f"device {device!r} was asked for but MPS is not available here")
        return dev
    if torch.cuda.is_available():
        return torch.device("cuda")
    if _mps_available():
        return torch.device("mps")
    return torch.device("cpu")


def _mps_available() -> bool:
    import torch

    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def make_generator(device, seed: int | None = None):
    """A ``torch.Generator`` on ``device``; seeded from ``os.urandom`` unless ``seed`` is given.

    The seed is used here and forgotten: nothing returns or stores it.
    """
    import torch

    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
    elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


@contextmanager
def cpu_threads(n: int, device):
    """Run a block with at most ``n`` intra-op CPU threads (restored afterwards; no-op off CPU).

    Loops of many small tensor operations (Floyd's sampling steps) gain nothing from threads
    and lose a lot when the cores are shared: measured on this project's 2-core machine under
    load, 512 Floyd steps on 6000 rows took 4-7 s with 2 threads and 0.17-0.24 s with 1.
    """
    import torch

    if torch.device(device).type != "cpu" or torch.get_num_threads() <= n:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)
