"""Bounded reading of ``.npz`` / ``.npy`` files: the headers first, the arrays only if they fit.

A compressed file's size says little about what it holds: 1.5 MB of deflated zeros unpacks to
gigabytes, and an ``.npy`` header may claim any shape (8 TiB) for a few bytes of data, which
numpy then tries to allocate before reading. :func:`check_arrays` reads only the headers (each
member's ``.npy`` header inside an ``.npz``; the zip directory's declared size for any other
member) and refuses the file, before anything is allocated, when

- the arrays together declare more than :data:`MAX_ARRAY_BYTES` (shape x itemsize), or
- they hold more than :data:`MAX_VALUES` values (what they take once converted to float64,
  the form dpcda works in), or
- an array holds Python objects (pickles), or a header cannot be read.

Every refusal is a ``ValueError`` naming the file (``what``) and the limit.
"""

from __future__ import annotations

import io
import math
import os
import zipfile
from pathlib import Path
from typing import BinaryIO, Union

import numpy as np

MAX_ARRAY_BYTES = 2 << 30  # 2 GiB declared by the headers, all arrays of one file together
MAX_VALUES = 1 << 28  # 268,435,456 values: 2 GiB as float64
Source = Union[bytes, bytearray, memoryview, str, os.PathLike]


def _header(f: BinaryIO, what: str, member: str) -> tuple[tuple[int, ...], np.dtype]:
    fmt = np.lib.format
    try:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = fmt.read_array_header_2_0(f)
        else:  # (3, 0): utf-8 field names; numpy has no public reader for it
            shape, _, dtype = fmt._read_array_header(f, version)
    except (ValueError, OSError, EOFError, SyntaxError, TypeError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{what}: the header of array {member!r} cannot be read "
                         f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") \
            from None
    return tuple(int(s) for s in shape), dtype


def _limit_words() -> str:
    return (f"limit {MAX_ARRAY_BYTES / 2**30:g} GiB and {MAX_VALUES:,} values, "
            "dpcda.data.array_limits")


def declared_arrays(source: Source, *, what: str = "file") -> dict[str, tuple]:
    """``{member: (shape, dtype)}`` from the headers only (an ``.npz``'s non-array members:
    ``((declared bytes,), uint8)``); ``ValueError`` for a file that is neither."""
    data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else None
    opened = io.BytesIO(data) if data is not None else open(Path(source), "rb")
    with opened as f:
        magic = f.read(6)
        f.seek(0)
        if magic == b"\x93NUMPY":
            return {"": _header(f, what, "")}
        try:
            zf = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ValueError(f"{what} is not a valid .npz or .npy file ({exc})") from None
        out = {}
        with zf:
            for info in zf.infolist():
                name = info.filename
                if not name.endswith(".npy"):
                    out[name] = ((int(info.file_size),), np.dtype(np.uint8))
                    continue
                try:
                    member = zf.open(info)
                except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
                    raise ValueError(f"{what}: array {name[:-4]!r} cannot be read ({exc})") \
                        from None
                with member:
                    out[name[:-4]] = _header(member, what, name[:-4])
        return out


def check_arrays(source: Source, *, what: str = "file") -> dict[str, tuple]:
    """:func:`declared_arrays`, refused (``ValueError``) beyond the limits above."""
    arrays = declared_arrays(source, what=what)
    total_bytes = total_values = 0
    for name, (shape, dtype) in arrays.items():
        if dtype.hasobject:
            raise ValueError(f"{what}: array {name!r} holds Python objects; object (pickled) "
                             "arrays are not allowed")
        if any(s < 0 for s in shape):
            raise ValueError(f"{what}: array {name!r} declares a negative shape {shape}")
        n = math.prod(shape)
        total_values += n
        total_bytes += n * dtype.itemsize
    if total_bytes > MAX_ARRAY_BYTES or total_values > MAX_VALUES:
        items = list(arrays.items())
        detail = ", ".join(f"{k or 'array'} {list(s)} {d}" for k, (s, d) in items[:4]) + (
            f" and {len(items) - 4} more" if len(items) > 4 else "")
        raise ValueError(f"{what} is too large once unpacked: its headers declare "
                         f"{total_bytes / 2**30:.3g} GiB in {total_values:,} values ({detail}; "
                         f"{_limit_words()})")
    return arrays
