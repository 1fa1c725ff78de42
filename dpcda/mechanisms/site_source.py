"""Where a site's records live, named publicly: the deployment in which every CAPE site builds
itself from its own files (docs/cape_engine.md, "One process per site on several machines").

The coordinator holds a :class:`SiteSources`: one public *locator* per site and the public
class names. It sends a site only its locator; the site (a
:class:`~dpcda.mechanisms.cape_site.CapeSite` wherever its engine runs it) loads its records
with :func:`load_site` where it runs, checks them against the public normalisation, and answers
the coordinator exactly as a site given its records in memory does. Locators:

* :class:`SiteFile`: a CSV (label in the first column, an optional header) or an NPZ (arrays
  ``X`` and ``y``) at a path *on that site's machine*, parsed as an upload is
  (:mod:`dpcda.data.upload`), all of it the site's training records (no 75/25 split: the
  evaluation's test data are the coordinator's own);
* :class:`DatasetPart`: a registered dataset's training split, loaded where the site runs, of
  which site ``s`` of ``S`` keeps part ``s`` of a public permutation of the row positions cut
  into ``S`` near-equal parts (a simulation of records that live at sites, on machines that
  each hold the public dataset; the cut reads no label and draws nothing private).

Labels are mapped to ``0..K-1`` by the public ``classes`` (text, compared after stripping;
numbers numerically, so ``1`` and ``1.0`` are the same class). Every message names the
parameter and the allowed values, never a record's value, a label or a count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

#: The public seed of :class:`DatasetPart`'s cut (no private data is drawn with it).
PART_SEED = 20270127


@dataclass(frozen=True)
class SiteFile:
    """A CSV or NPZ file at ``path`` on the site's own machine."""

    path: str


@dataclass(frozen=True)
class DatasetPart:
    """Part ``s`` of ``S`` of the registered dataset ``dataset``'s training split (``s`` and
    ``S`` are the site's own index and the number of sites)."""

    dataset: str


@dataclass(frozen=True)
class SiteSources:
    """``S`` sites, each named by its locator, with the public class names (``K`` of them).
    What :func:`dpcda.mechanisms.cape.generate_sites` takes instead of
    :class:`~dpcda.mechanisms.sites.Sites` when the records never come to the caller."""

    sources: tuple
    classes: tuple[str, ...]
    split: str = "files"

    @property
    def S(self) -> int:
        return len(self.sources)

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def _key(v) -> str:
    """A label's comparison key: stripped text; an integral number as its integer."""
    s = str(v).strip()
    try:
        f = float(s)
    except ValueError:
        return s
    return str(int(f)) if np.isfinite(f) and f == int(f) else s


def site_sources(locators, classes) -> SiteSources:
    """:class:`SiteSources` from locators (a :class:`SiteFile`, a :class:`DatasetPart`, or a
    path string) and the public class names; ValueError naming the parameter otherwise."""
    if isinstance(locators, (str, os.PathLike)):
        locators = [locators]
    out = []
    for loc in locators:
        if isinstance(loc, (str, os.PathLike)):
            loc = SiteFile(os.fspath(loc))
        if not isinstance(loc, (SiteFile, DatasetPart)):
            raise ValueError("site_files must be paths, SiteFile or DatasetPart locators, got "
                             f"{type(loc).__name__}")
        out.append(loc)
    if not out:
        raise ValueError("site_files must name at least one site's file")
    for loc in out:
        if isinstance(loc, SiteFile) and not loc.path.lower().endswith((".csv", ".npz")):
            raise ValueError(f"site_files must end in .csv or .npz, got {loc.path!r}")
    if isinstance(classes, str):
        classes = classes.split(",")
    names = tuple(str(c).strip() for c in classes)
    keys = [_key(c) for c in names]
    if len(names) < 2 or "" in names or len(set(keys)) != len(keys):
        raise ValueError("classes must list at least 2 distinct, non-empty class labels (the "
                         f"public label values, in the order of the classes), got {names!r}")
    return SiteSources(sources=tuple(out), classes=names)


def label_codes(raw, classes) -> np.ndarray:
    """``raw`` labels as ``0..K-1`` by the public ``classes``; a label outside them is a
    ValueError that names the allowed values, not the label."""
    index = {_key(c): k for k, c in enumerate(classes)}
    codes = np.fromiter((index.get(_key(v), -1) for v in np.asarray(raw).ravel()),
                        dtype=np.int64, count=np.asarray(raw).size)
    if (codes < 0).any():
        raise ValueError(f"a site's labels must be among classes={list(classes)!r}: the site's "
                         "file holds another label (not repeated here)")
    return codes


def load_site(source, index: int, S: int, classes) -> tuple[np.ndarray, np.ndarray, tuple | None]:
    """Site ``index`` of ``S``'s ``(X float64 n x d, y in 0..K-1, feature names or None)``,
    read where the site runs (see the module docstring)."""
    if isinstance(source, DatasetPart):
        from dpcda.data import load_dataset

        ds = load_dataset(source.dataset)
        order = np.random.default_rng(PART_SEED).permutation(len(ds.y_train))
        mine = np.sort(np.array_split(order, int(S))[int(index)])
        X = np.asarray(ds.X_train, dtype=np.float64).reshape(len(ds.y_train), -1)[mine]
        y = np.asarray(ds.y_train, dtype=np.int64)[mine]
        if len(ds.class_names) != len(classes):
            raise ValueError(f"classes must have one entry per class of dataset "
                             f"{source.dataset!r} ({len(ds.class_names)} classes), got "
                             f"{len(classes)}")
        return X, y, ds.feature_names
    if not isinstance(source, SiteFile):
        raise ValueError(f"source must be a SiteFile or DatasetPart, got {type(source).__name__}")
    from dpcda.data.upload import _read_bytes, parse_csv, parse_npz

    if not os.path.isfile(source.path):
        raise ValueError(f"site_files: no file {source.path!r} on site {int(index)}'s machine "
                         "(each path must name a file on its own site's machine)")
    try:
        data = _read_bytes(source.path)
        if source.path.lower().endswith(".csv"):
            X, raw, names = parse_csv(data)
        else:
            X, raw, _ = parse_npz(data)
            names = None
    except ValueError as exc:  # the upload's message may say where (a row): it stays here
        raise ValueError(f"site_files: site {int(index)}'s file {source.path!r} could not be "
                         "read (a CSV needs the label first and a finite number in every "
                         "feature cell, an NPZ arrays X and y; where it fails is not sent to "
                         "the coordinator)") from exc
    return np.asarray(X, dtype=np.float64), label_codes(raw, classes), names


def names_digest(names) -> str:
    """What a site sends of its header: a SHA-256 digest of the feature names, enough for the
    coordinator to compare the sites' headers (:func:`check_columns`), not to read them."""
    import hashlib

    return hashlib.sha256("\x1f".join(str(n) for n in names).encode()).hexdigest()


def check_columns(described) -> int:
    """The sites' common column count ``d`` from their ``(d, names digest or None)`` answers;
    ValueError on mismatched columns (no count in the message: which sites differ, not by how
    much)."""
    described = list(described)
    d = {int(a) for a, _ in described}
    named = {n for _, n in described if n is not None}
    if len(d) != 1 or len(named) > 1:
        raise ValueError("site_files must share the same feature columns (the same number, "
                         "names and order in every site's file): the sites' columns differ "
                         "(mismatched columns)")
    return d.pop()
