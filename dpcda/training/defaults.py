"""The project's default learner per setting: what ``model="auto"`` resolves to.

A pure rule over public facts (the dataset's name and shape, and whether the release is
private), chosen from measured test accuracies (README "Training and accuracy"). It never
looks at the data, so resolving ``"auto"`` costs nothing and reveals nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

AUTO = "auto"



def _declared(dataset: str) -> tuple[str, str] | None:
    """The dataset's own (private, non-private) learners where it declares them (its
    :class:`~dpcda.data.registry.DatasetSpec` ``auto_learners``: datasets too small for the general
    image rule, e.g. scikit-learn digits, 1,347 records of 8 x 8 pixels)."""
    from dpcda.data.registry import DATASETS

    return DATASETS.get(dataset).auto_learners if dataset in DATASETS else None


def default_model(*, dataset: str, image_shape: Sequence[int] | None, private: bool) -> str:
    """The learner ``model="auto"`` stands for, from measured accuracies.

    - tabular data (``image_shape is None``: adult, uploads without an image shape) ->
      ``"tree"``, the paper's learner (Adult, epsilon=10, l=64: 0.806);
    - scikit-learn ``digits`` (tiny, 8x8; 1,347 training records) -> ``"ncm"`` when private
      (epsilon=10, l=4, 10 runs: ncm 0.881 +- 0.008, lda 0.838 +- 0.028: with ~34 records a
      class the LDA's covariance estimate is too noisy), ``"lda"`` when non-private
      (epsilon=inf, 2 runs, lda / cnn after 30 epochs / ncm: l=4 0.951 / 0.920 / 0.887,
      l=16 0.942 / 0.881 / 0.890; only at l=1 does the CNN win, 0.969 vs lda 0.947);
    - other private image releases (epsilon < inf) -> ``"lda"``, the noise-aware LDA (the
      release's public noise variance removed). The noise-aware QDA (``"qda"``: each class's
      covariance recovered from the release, every hyper-parameter derived from the release) is
      an opt-in, not the default: with its release-only rule it wins at epsilon = 10 (MNIST,
      l = 64, one release: 0.941 vs 0.871) but loses at epsilon = 1 (MNIST, l = 8, 3 runs:
      0.807 +- 0.043 vs 0.847) and collapses on ``scale`` releases with l >= 16 (MNIST, l = 64,
      sigma = 0.158: 0.32 vs 0.82), where the frontier's releases are (docs/training.md,
      docs/defaults.md). Where a mechanism does not mix within a class (its ``l_bound`` is not
      ``"class"``) an explicit ``"qda"`` is replaced by ``"lda"`` in the job runner
      (:func:`dpcda.experiments.run.resolve_model`);
    - other non-private image data (epsilon = inf) -> ``"cnn"``, the paper's Table 2 CNN
      (Fashion-MNIST: 0.910).
    """
    if not isinstance(dataset, str):
        raise ValueError(f"dataset must be a dataset name, got dataset={dataset!r}")
    if image_shape is None:
        return "tree"
    declared = _declared(dataset)
    if declared is not None:
        return declared[0] if private else declared[1]
    return "lda" if private else "cnn"
