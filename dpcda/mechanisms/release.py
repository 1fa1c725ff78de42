"""A synthetic release (arrays + data card) and its exports.

A :class:`Release` holds what may be published: the synthetic features ``X`` (float32), hard
labels ``y`` (int64, the argmax of the soft labels) and soft labels ``y_soft`` (float32), plus
its data card (given as a :class:`~dpcda.mechanisms.data_card.DataCard`, kept as its JSON in
``card``, typed again in ``data_card``). It never holds the random seed, the generator's state
or the noise. ``preprocess`` (not exported) applies the same preprocessing to real data, e.g.
the test split a model trained on the release is evaluated on; for z-score it carries
statistics of the private data, so it is kept out of every export.

Exports: :func:`save_npz` writes ``<stem>.npz`` (arrays ``X``, ``y``, ``y_soft`` and any
public ``extras`` such as a projection matrix) and ``<stem>.json`` (the data card);
:func:`to_csv_bytes` gives a CSV (label first, then the features); :func:`load_npz` reads a
saved release back.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from dpcda.mechanisms.data_card import DataCard
from dpcda.util.csv_safe import safe_cell

# Keys a data card must never contain, at any depth (checked on every Release).
FORBIDDEN_CARD_KEYS = frozenset({"seed", "rng", "rng_state", "random_state", "generator",
                                 "noise", "indices"})
ARRAY_NAMES = ("X", "y", "y_soft")


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def _walk_keys(obj, path=""):
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            yield str(k), f"{path}.{k}" if path else str(k)
            yield from _walk_keys(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _walk_keys(v, f"{path}[{i}]")


@dataclass(frozen=True, eq=False)
class Release:
    """A synthetic dataset ready to publish. See the module docstring."""

    X: np.ndarray
    y: np.ndarray
    y_soft: np.ndarray
    card: dict  # the card's JSON (a DataCard given here is stored as its to_json())
    extras: Mapping[str, np.ndarray] = field(default_factory=dict)
    preprocess: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float32)
        y = np.asarray(self.y, dtype=np.int64)
        ys = np.asarray(self.y_soft, dtype=np.float32)
        if X.ndim != 2 or y.shape != (len(X),) or ys.ndim != 2 or len(ys) != len(X):
            raise ValueError("a release needs X (n x d), y (n,) and y_soft (n x K) of one "
                             f"length n, got shapes {X.shape}, {y.shape}, {ys.shape}")
        for name, a in (("X", X), ("y", y), ("y_soft", ys)):
            object.__setattr__(self, name, _readonly(a))
        extras = {str(k): _readonly(np.asarray(v)) for k, v in dict(self.extras).items()}
        clash = set(extras) & set(ARRAY_NAMES)
        if clash:
            raise ValueError(f"extras must not reuse the names {sorted(clash)}")
        object.__setattr__(self, "extras", extras)
        if isinstance(self.card, DataCard):
            object.__setattr__(self, "card", self.card.to_json())
        if not isinstance(self.card, Mapping):
            raise ValueError(f"card must be a DataCard or a dict, got {type(self.card).__name__}")
        for key, where in _walk_keys(self.card):
            if key.lower() in FORBIDDEN_CARD_KEYS:
                raise ValueError(f"a data card must not contain {where!r} (no seed, RNG state or "
                                 "noise is ever exported)")
        card = json.loads(json.dumps(self.card, allow_nan=False))  # JSON-safe deep copy
        object.__setattr__(self, "card", card)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.y_soft.shape[1])

    @property
    def data_card(self) -> DataCard:
        """The card, typed (:class:`~dpcda.mechanisms.data_card.DataCard`): read from
        ``card``, its JSON form (a ValueError where that is not a dpcda card of a known version)."""
        return DataCard.from_json(self.card)

    def card_json(self) -> str:
        return json.dumps(self.card, indent=2, allow_nan=False)

    def summary(self) -> str:
        """One paragraph: algorithm, epsilon and its accountant, shapes (never a seed)."""
        c, p = self.card, self.card.get("privacy", {})
        eps = p.get("epsilon_text", "?")
        name, title = p.get("accountant"), p.get("accountant_title")
        acc = f"{name} accountant ({title})" if name and title else f"{name or title or '?'} accountant"
        params = c.get("parameters", {})
        ptxt = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in params.items() if v is not None)
        others = p.get("other_accountants") or {}
        otxt = "".join(
            f" Under the {k} accountant the same noise gives epsilon = "
            f"{epsilon_text(v.get('epsilon'))}"
            + (f" ({v['bound_note']})" if v.get("bound_note") else "") + "."
            for k, v in others.items())
        note = p.get("bound_note")  # older cards: the epsilon text may not carry it yet
        head = f" ({note})" if note and note not in str(eps) else ""
        rel = f" Neighbours: {p['relation']}" if p.get("relation") else ""
        fp = p.get("floating_point") or {}
        if fp.get("epsilon_total") is not None:
            rel += (f" Floating point adds at most {fp['epsilon_added']:.1g} to epsilon and "
                    f"{fp['delta_added']:.1g} to delta (docs/security.md)"
                    + (": delta_total is at least 1, so NO GUARANTEE is established for the "
                       "released floats at this epsilon; use more noise." if fp.get("vacuous")
                       else "."))
        norm = c.get("normalization", {})
        ntxt = norm.get("method", "?") + (" (statistics from the private data, not covered by the "
                                          "guarantee)" if norm.get("statistics_from_private_data")
                                          else "")
        warn = ("SEEDED RELEASE: reproducible, NOT PRIVATE. " if p.get("seeded") else "")
        return (f"{warn}{c.get('algorithm_title', c.get('algorithm'))} release of "
                f"{c.get('dataset') or 'the input data'}: {self.n} samples x {self.X.shape[1]} "
                f"features, {self.n_classes} classes (hard labels y, soft labels y_soft). "
                f"epsilon = {eps}{head} at delta = {p.get('delta')} under the {acc}"
                f"{' (' + p['conversion'] + ' conversion)' if p.get('conversion') else ''}.{rel}"
                f"{otxt} "
                f"Parameters: {ptxt}. Normalization: {ntxt}.")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def epsilon_text(epsilon: float | None) -> str:
    if epsilon is None or not math.isfinite(epsilon):
        return "inf (non-private: no noise)"
    return f"{epsilon:.6g}"


def _paths(path) -> tuple[Path, Path]:
    p = Path(path)
    if p.suffix != ".npz":
        p = p.with_name(p.name + ".npz")
    return p, p.with_suffix(".json")


def save_npz(release: Release, path) -> tuple[Path, Path]:
    """Write ``<stem>.npz`` (X, y, y_soft, extras) and ``<stem>.json`` (the data card)."""
    if not isinstance(release, Release):
        raise ValueError(f"release must be a Release, got {type(release).__name__}")
    npz, card = _paths(path)
    if not npz.parent.is_dir():
        raise ValueError(f"the folder {str(npz.parent)!r} does not exist")
    with open(npz, "wb") as fh:
        np.savez(fh, X=release.X, y=release.y, y_soft=release.y_soft, **release.extras)
    card.write_text(release.card_json() + "\n", encoding="utf-8")
    return npz, card


def load_npz(path) -> Release:
    """Read a release written by :func:`save_npz` (the card from ``<stem>.json`` if present)."""
    npz, card_path = _paths(path)
    if not npz.is_file():
        raise ValueError(f"no release file at {str(npz)!r}")
    with np.load(npz, allow_pickle=False) as z:
        missing = [k for k in ARRAY_NAMES if k not in z.files]
        if missing:
            raise ValueError(f"{str(npz)!r} is not a dpcda release: missing arrays {missing}")
        arrays = {k: z[k] for k in z.files}
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    return Release(X=arrays.pop("X"), y=arrays.pop("y"), y_soft=arrays.pop("y_soft"), card=card,
                   extras=arrays)


def _csv_cell(name) -> str:
    """A header cell: never read as a formula (:func:`dpcda.util.csv_safe.safe_cell`), quoted when
    it holds a comma, quote or newline (RFC 4180)."""
    text = safe_cell(name)
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(c in text for c in ',"\n\r') else text


def to_csv_bytes(release: Release, *, max_rows: int | None = None, soft_labels: bool = False,
                 float_format: str = "%.6g", feature_names=None) -> bytes:
    """CSV of the release: a header, then per row the hard label, then the features
    (``feature_names`` if given, e.g. an uploaded CSV's header, else ``x0..x{d-1}``); with
    ``soft_labels`` the soft label columns ``p0..p{K-1}`` follow."""
    if not isinstance(release, Release):
        raise ValueError(f"release must be a Release, got {type(release).__name__}")
    n = release.n if max_rows is None else min(release.n, int(max_rows))
    if n < 0:
        raise ValueError(f"max_rows must be >= 0, got max_rows={max_rows!r}")
    d, k = release.X.shape[1], release.n_classes
    if feature_names is not None and len(feature_names) != d:
        raise ValueError(f"feature_names must have {d} entries (one per feature), got {len(feature_names)}")
    names = [f"x{j}" for j in range(d)] if feature_names is None else [_csv_cell(f) for f in feature_names]
    header = ["label"] + names + ([f"p{j}" for j in range(k)] if soft_labels else [])
    buf = io.StringIO()
    buf.write(",".join(header) + "\n")
    fmt = ",".join(["%d"] + [float_format] * (d + (k if soft_labels else 0)))
    step = 4096
    for s in range(0, n, step):
        e = min(n, s + step)
        block = [release.y[s:e, None].astype(np.float64), release.X[s:e].astype(np.float64)]
        if soft_labels:
            block.append(release.y_soft[s:e].astype(np.float64))
        np.savetxt(buf, np.hstack(block), fmt=fmt, delimiter=",")
    return buf.getvalue().encode("utf-8")
