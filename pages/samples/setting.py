"""The Samples page and the shared setting (not a page itself): its widgets filled from the
setting on arrival, and what they say written back (:mod:`pages.setting_ui`)."""

from __future__ import annotations

from dpcda.dashboard.setting import T_RANGE, Setting
from dpcda.data.presets import default_clip_norm
from pages.setting_ui import update

__all__ = ["T_RANGE", "publish_samples", "widget_values"]


def widget_values(s: Setting) -> dict:
    """The shared setting as the Samples page's widget values, by key (exact: a value off a
    slider's grid is added to it; the page keeps l under the smallest class and the
    normalisations it offers)."""
    values = {
        "samples_dataset": s.dataset, "samples_l": s.l,  # exact: the sliders add it to their grid
        "samples_mode": "target ε" if s.epsilon is not None else "explicit σ",
        "samples_sigma": float(s.sigma_x),
        "samples_c": min(max(round(s.clip_norm(), 1), 0.1), 10.0), "samples_c_for": s.dataset,
        "samples_T": "" if s.T is None else str(s.T), "samples_delta": s.delta,
        "samples_accountant": s.accountant, "samples_allocation": s.allocation,
        "samples_conversion": s.conversion, "samples_max_alpha": str(s.max_alpha),
        "samples_tie": s.sigma_y is None,
        "samples_sigma_y": float(s.sigma_y_value or 0.25)}
    if s.epsilon is not None:
        values["samples_eps"] = f"{s.epsilon:g}"
    if s.normalize in ("scale", "none", "zscore", "dp-center"):
        values.update(samples_norm=s.normalize, samples_norm_for=s.dataset)
    else:  # the dataset's default (the page picks it)
        values["samples_norm_for"] = None
    return values


def publish_samples(name: str, ds, *, eps, sigma, c, T, normalize, sigma_y=None, **rest) -> None:
    """Write the page's widgets into the shared setting (an upload keeps the setting's dataset;
    c and the normalisation at the dataset's default are written as "default")."""
    from dpcda.mechanisms import default_normalization

    named = _named(name)
    changes = dict(rest, epsilon=eps, T=T or None, sigma_y=sigma_y,
                   c=None if c == round(default_clip_norm(ds.name), 1) else c,
                   normalize=None if normalize == default_normalization(ds) else normalize)
    if sigma is not None:
        changes["sigma_x"] = sigma
    if named:
        changes["dataset"] = name
    update(**changes)


def _named(name: str) -> bool:
    from dpcda.data.presets import list_presets

    return name in list_presets()
