"""Importing the optional ``ray`` package, with the install hint in the error (shared by the
executor registry and the Ray runner, so neither imports the other for it)."""

from __future__ import annotations

RAY_INSTALL_HINT = "pip install 'dpcda[ray]' (or pip install 'ray>=2.9')"


def import_ray():
    """``import ray``, or a ValueError naming the executor and how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ValueError(f"executor='ray' needs the optional ray package, which is not installed "
                         f"({exc}): {RAY_INSTALL_HINT}") from None
    return ray
