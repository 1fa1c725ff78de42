"""Public facts about the registered datasets' training splits, for privacy accounting.

These are the numbers a privacy calculation needs (N, class counts N_k, feature and label
dimensions) without loading any data: the privacy page and the CLI work offline from them.
They are declared by each dataset's module (:class:`~dpcda.data.registry.DatasetSpec`, the one
registry); this module is a read-only view of the datasets that declare them. The loaders in
:mod:`dpcda.data` produce splits with exactly these counts (tested).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dpcda.data.registry import DATASETS, DatasetSpec


@dataclass(frozen=True)
class Preset:
    """A dataset's public facts (:func:`get_preset`), taken from its :class:`DatasetSpec`."""

    name: str
    title: str
    class_counts: tuple[int, ...]
    d_x: int
    d_y: int
    note: str = ""
    #: The default L2 clip norm c (public, measured: README "Honest defaults").
    clip_norm: float = 1.0
    #: DP-CDA's default normalisation under the default accountant (public, measured).
    dp_cda_normalization: str = "scale"

    @property
    def n(self) -> int:
        return sum(self.class_counts)

    @classmethod
    def of(cls, spec: DatasetSpec) -> Preset:
        return cls(spec.name, spec.split_title or spec.title, spec.class_counts, spec.d_x,
                   spec.d_y, spec.note, spec.clip_norm, spec.dp_cda_normalization)


class _Presets:
    """The registered datasets that declare public facts, as a read-only registry."""

    kind = "dataset preset"

    def names(self) -> list[str]:
        return [n for n in DATASETS.names() if DATASETS.get(n).has_facts]

    def get(self, name: str) -> Preset:
        if name not in self:
            raise ValueError(f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}")
        return Preset.of(DATASETS.get(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in DATASETS and DATASETS.get(name).has_facts

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


PRESETS = _Presets()


def list_presets() -> list[str]:
    return PRESETS.names()


def get_preset(name: str) -> Preset:
    return PRESETS.get(name)


def default_clip_norm(name: str | None) -> float:
    """The default clip norm c for a dataset (1.0 for data without a preset, e.g. uploads)."""
    return PRESETS.get(name).clip_norm if name in PRESETS else 1.0


def clip_norm_help() -> str:
    """How CLI help states the default clip norm: ``"the dataset's: 1, adult: 3"``."""
    other = [f"{n}: {PRESETS.get(n).clip_norm:g}" for n in PRESETS.names()
             if PRESETS.get(n).clip_norm != 1.0]
    return "the dataset's: 1" + "".join(f", {o}" for o in other)


def dp_center_datasets() -> list[str]:
    """The presets whose DP-CDA default normalisation is ``dp-center`` (measured)."""
    return [n for n in PRESETS.names() if PRESETS.get(n).dp_cda_normalization == "dp-center"]
