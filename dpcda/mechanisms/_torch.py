"""Torch plumbing shared by the generators: device choice and the random generator.

torch is imported inside the functions so that ``import dpcda.mechanisms`` stays cheap.

A release's private draws come from :class:`dpcda.randomness.secure.SecureRandom`
(ChaCha20 keyed from the operating system); :func:`public_generator` is only for draws that
never touch private data. Nothing records a key or a seed.
"""

from __future__ import annotations

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


def public_generator(device, source):
    """A fast ``torch.Generator`` on ``device`` for randomness that never touches private data
    (model initialisation, DP-MERF's random frequencies and codes, a public projection).

    Its seed is drawn from the release's
    :class:`~dpcda.randomness.secure.SecureRandom` ``source`` (so a seeded release stays
    reproducible) and forgotten. MT19937 keeps 32 bits of it: never use this generator for a
    draw that depends on private data (subsets, order, noise)."""
    import torch

    gen = torch.Generator(device=device)
    gen.manual_seed(source.torch_seed())
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
