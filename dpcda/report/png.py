"""A tiny PNG writer (zlib only): uint8 images as PNG bytes or ``data:`` URIs for the report.

Grey (H x W) and RGB (H x W x 3) images, 8 bits per channel, no interlacing, filter 0 on every
row (PNG spec, ISO/IEC 15948, sections 11.2.2 IHDR, 11.2.4 IDAT, 11.2.5 IEND).
"""

from __future__ import annotations

import base64
import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_bytes(image: np.ndarray) -> bytes:
    """PNG file bytes of a uint8 image (H x W grey or H x W x 3 RGB)."""
    img = np.asarray(image)
    if img.dtype != np.uint8:
        raise ValueError(f"image must be uint8, got dtype {img.dtype}")
    if img.ndim == 2:
        colour = 0
    elif img.ndim == 3 and img.shape[2] == 3:
        colour = 2
    else:
        raise ValueError(f"image must be H x W (grey) or H x W x 3 (RGB), got shape {img.shape}")
    h, w = img.shape[:2]
    if h < 1 or w < 1:
        raise ValueError(f"image must have at least one pixel, got shape {img.shape}")
    rows = np.ascontiguousarray(img).reshape(h, -1)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()  # filter 0 per row
    head = struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)
    return (SIGNATURE + _chunk(b"IHDR", head) + _chunk(b"IDAT", zlib.compress(raw, 9))
            + _chunk(b"IEND", b""))


def data_uri(image: np.ndarray) -> str:
    """``data:image/png;base64,...`` of a uint8 image (for an ``<img src>``: no network)."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(image)).decode("ascii")
