"""The Samples page's download files: a release with its data card, as zip bytes.

Built on demand (the page passes these as deferred callables). Neither file carries the seed
or the noise of the release.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path


def zip_of(files: dict[str, bytes]) -> bytes:
    """A deflated zip archive of ``{name: bytes}``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def npz_zip(release, stem: str) -> bytes:
    """``{stem}.npz`` (X, y, y_soft) and ``{stem}.json`` (the data card) in one zip."""
    from dpcda.mechanisms import save_npz

    with tempfile.TemporaryDirectory() as tmp:
        npz, card = save_npz(release, Path(tmp) / stem)
        return zip_of({npz.name: npz.read_bytes(), card.name: card.read_bytes()})


def csv_zip(release, stem: str, feature_names=None) -> bytes:
    """``{stem}.csv`` (label, features named when ``feature_names`` fits, soft labels) and the
    data card in one zip."""
    from dpcda.mechanisms import to_csv_bytes

    names = feature_names if feature_names is not None and \
        len(feature_names) == release.X.shape[1] else None
    return zip_of({f"{stem}.csv": to_csv_bytes(release, soft_labels=True, feature_names=names),
                   f"{stem}.json": release.card_json().encode()})
