"""The Samples page's live preview: a few samples per class at the exact setting, in well under a
second on MNIST (:func:`dpcda.mechanisms.preview.preview_dpcda`), while the full release waits for
a click. No Streamlit here.

:func:`release_preprocessor` fits the normalisation the release would fit (for ``dp-center`` one
DP statistics release of its own, at the release's share of the budget); :func:`preview_pictures`
draws the preview and makes its picture grid; :func:`preview_text` says what it is and is not.
"""

from __future__ import annotations

from dpcda.dashboard.samples.setting import Noise


def release_preprocessor(dataset, normalize: str, c: float | None, stats_mu: float | None = None):
    """The :class:`~dpcda.mechanisms.Preprocessor` a release of ``dataset`` at ``normalize`` and
    clip norm ``c`` (None: no clip, to add one later) fits (``scale`` and ``dp-center`` with the
    dataset's public range, as :func:`dpcda.mechanisms.generate_from_dataset` passes it);
    ``stats_mu``: the GDP parameter of ``dp-center``'s statistics release
    (:func:`dpcda.dashboard.samples.setting.stats_mu_for`)."""
    from dpcda.mechanisms import fit_preprocessor
    from dpcda.randomness import SecureRandom

    bounds = getattr(dataset, "feature_bounds", None) if normalize in ("scale", "dp-center") else None
    return fit_preprocessor(dataset.X_train, normalize, c=c, bounds=bounds, stats_mu=stats_mu,
                            rng=SecureRandom())


def preview_pictures(dataset, preprocess, *, l: int, c: float, noise: Noise, per_class: int):
    """``per_class`` fresh samples of every class at order ``l`` and ``noise`` (its sigma_x and
    sigma_y), as a :class:`dpcda.report.pictures.SamplePictures` grid, one full row per class
    mixed (label noise may give a sample another released label: :func:`preview_text` says so)."""
    from dataclasses import replace

    from dpcda.mechanisms.preview import preview_dpcda
    from dpcda.report.pictures import sample_pictures

    prev = preview_dpcda(dataset.X_train, dataset.y_train, l=l, per_class=per_class,
                         sigma_x=noise.sigma, sigma_y=noise.label_sigma, preprocess=preprocess,
                         n_classes=dataset.n_classes, c=c, class_names=dataset.class_names)
    return sample_pictures(replace(prev, y=prev.source), dataset.image_shape, per_class=per_class,
                           class_names=dataset.class_names)


def preview_text(*, per_class: int, class_names, n_classes: int, T: int, seconds: float) -> str:
    """What the preview is: drawn like the release at this exact setting, not part of it."""
    from dpcda.report.formatting import fmt_int

    K = len(class_names)
    rows = ", ".join(class_names) + (f" (the first {K} of {n_classes} classes)" if K < n_classes else "")
    return (f"**Preview, drawn for this setting (a change draws new ones):** {per_class} samples "
            f"of each class, rows top to bottom: {rows}. Each is drawn exactly as a sample of the "
            f"release (l records of its class, normalised, clipped, averaged, plus the noise "
            f"above); the release would file some under another label where the label noise "
            f"σ_y moves it. They are not part of the release: the full release "
            f"(T = {fmt_int(T)}) with its class means, data card and downloads is drawn by "
            f"**Generate** (about {seconds:.0f} s).")
