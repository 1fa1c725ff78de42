"""Public facts about the bundled datasets' training splits, for privacy accounting.

These are the numbers a privacy calculation needs (N, class counts N_k, feature and label
dimensions) without loading any data: the privacy page and the CLI work offline from them.
The loaders in :mod:`dpcda.data` produce splits with exactly these counts (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.util.registry import Registry


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    class_counts: tuple[int, ...]
    d_x: int
    d_y: int
    note: str = ""
    #: The default L2 clip norm c for this dataset (public, chosen by measurement: README,
    #: "Honest defaults"). Under the public [0, 1] scaling an Adult row has norm 2.8-3.7 (8
    #: one-hot segments + 6 numeric columns); at c = 1 every row is shrunk 3-fold while the
    #: released one-hot segments are re-encoded as 0/1 codes, and a tree trained on the release
    #: then predicts one class on the real test split.
    clip_norm: float = 1.0
    #: DP-CDA's default normalisation for this dataset under the default accountant (public,
    #: chosen by measurement: README "Honest defaults"): ``dp-center`` where it won (MNIST,
    #: Fashion-MNIST), else the public ``scale`` (Adult: the tree loses 5 points under dp-center).
    dp_cda_normalization: str = "scale"

    @property
    def n(self) -> int:
        return sum(self.class_counts)


PRESETS: Registry[Preset] = Registry("dataset preset")


def _add(p: Preset) -> None:
    PRESETS.add(p.name, p)


_add(Preset("mnist", "MNIST (train)",
            (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949), 784, 10,
            dp_cda_normalization="dp-center"))
_add(Preset("fashion-mnist", "Fashion-MNIST (train)", (6000,) * 10, 784, 10,
            dp_cda_normalization="dp-center"))
_add(Preset("cifar10", "CIFAR-10 (train)", (5000,) * 10, 3072, 10))
_add(Preset("adult", "UCI Adult (adult.data)", (24720, 7841), 108, 2,
            note="d_x counts the one-hot encoded columns", clip_norm=3.0))
_add(Preset("digits", "scikit-learn digits (75% stratified train split)",
            (133, 136, 133, 137, 136, 136, 136, 134, 131, 135), 64, 10))


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
