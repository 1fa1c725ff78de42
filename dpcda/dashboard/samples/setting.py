"""The Samples page's setting, read from its widgets: the noise for it, T, an image shape.

:func:`noise_for` turns the noise choice (a target epsilon, or an explicit sigma) into
``(sigma, epsilon, alpha)`` under an accountant and :func:`generate_release` generates at that
noise; :func:`parse_image_shape` reads a typed ``C,H,W``; :func:`release_stem` names the
downloaded files; :func:`report_settings` hands the setting to the report and "Reproduce this".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: Largest T the stakeholder report generates itself when given none (a page passes its own T).
T_CAP = 10_000


def default_T(n: int) -> int:
    """The page's T when none is typed: N, the paper's choice and every page's (one T for the
    same setting everywhere, so the same ε: issue 21)."""
    return int(n)


@dataclass(frozen=True)
class Noise:
    """The noise of a setting: ``sigma`` (= sigma_x), the accountant's ``epsilon`` (inf for
    sigma = 0; with ``dp-center``, the mixing and the statistics release together), its Rényi
    order ``alpha`` (None for a PLD accountant) and ``sigma_y`` (None: equal to ``sigma``);
    ``mixing_epsilon``: with ``dp-center``, the mixing's epsilon alone (the Privacy page's
    headline and ``dpcda epsilon``), else None."""

    sigma: float
    epsilon: float
    alpha: float | None = None
    sigma_y: float | None = None
    mixing_epsilon: float | None = None

    @property
    def label_sigma(self) -> float:
        """The label noise sigma_y."""
        return self.sigma if self.sigma_y is None else self.sigma_y


def card_noise(card: dict):
    """The :class:`~dpcda.dashboard.samples.setting.Noise` a release's ``card`` states (its sigma,
    epsilon and Renyi order): what the page shows for that release."""
    par, priv = card["parameters"], card["privacy"]
    sy = float(par["sigma_y"])
    return Noise(float(par["sigma_x"]), float(priv["epsilon"]), priv.get("alpha"),
                 None if sy == float(par["sigma_x"]) else sy)


def stats_mu_for(mode: str, value: float, *, normalize: str | None, delta: float) -> float | None:
    """The GDP parameter of the ``dp-center`` statistics release a release at this setting makes
    (as :func:`dpcda.mechanisms.generate_dpcda` sets it: its default share of a target epsilon,
    or of 1 for an explicit noise); None for a normalisation that learns nothing under DP."""
    if normalize != "dp-center":
        return None
    from dpcda.mechanisms.dp_cda_account import release_stats_mu

    return release_stats_mu(value if mode == "epsilon" else None, delta)


def _composing(accountant: str):
    from dpcda.mechanisms.dp_cda_account import composing

    return composing(accountant)


def noise_for(mode: str, value: float, *, l: int, T: int, c: float, delta: float, n: int,
              class_counts, d_x: int, d_y: int, accountant: str, conversion: str = "mironov",
              max_alpha: int = 256, allocation: str | None = None, normalize: str | None = None,
              sigma_y: float | None = None) -> Noise:
    """``mode="epsilon"``: the smallest noise meeting the target ``value``; ``mode="sigma"``:
    the epsilon of noise ``value`` (``sigma_y``: the label noise, None for the same; with a
    target, sigma_x = sigma_y). ``normalize="dp-center"``: the epsilon composes its statistics
    release, as the release's card does (:func:`stats_mu_for`). Raises ``ValueError`` (from the
    accountant) when the setting cannot be met."""
    from dpcda.dashboard.setting import DEFAULT_ALLOCATION
    from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon

    if mode not in ("epsilon", "sigma"):
        raise ValueError(f"mode must be 'epsilon' or 'sigma', got mode={mode!r}")
    asked = delta  # the mixing alone is stated at it (the Privacy page's headline)
    if mode == "epsilon":  # as the release does: delta less floating point's share of it
        delta = aimed_delta(delta, value, T=T, d_x=d_x, d_y=d_y)
    common = dict(l=l, T=T, c=c, delta=delta, n=n, class_counts=class_counts and tuple(class_counts), d_x=d_x,
                  d_y=d_y, allocation=allocation or DEFAULT_ALLOCATION)
    mu = stats_mu_for(mode, value, normalize=normalize, delta=delta)

    def mixing(sx: float, sy: float) -> float:
        p = PrivacyParams(sigma_x=sx, sigma_y=sy, **{**common, "delta": asked})
        return float(compute_epsilon(p, accountant=accountant, conversion=conversion,
                                     max_alpha=max_alpha).epsilon)

    if mode == "epsilon":
        from dpcda.randomness.noise import calibration_aim

        # as the release does: the target less floating point's share (T rows bound sum(T_k))
        value = calibration_aim(value, T * (d_x + d_y) + (d_x if mu is not None else 0))
        if mu is not None:
            sx, _, eps = _composing(accountant).calibrate_composed(epsilon=value, mu=mu, **common)
            return Noise(float(sx), float(eps), mixing_epsilon=mixing(sx, sx))
        cal = calibrate(epsilon=value, accountant=accountant, conversion=conversion,
                        max_alpha=max_alpha, **common)
        return Noise(float(cal.sigma_x), float(cal.epsilon), cal.alpha)
    sy = value if sigma_y is None else sigma_y
    p = PrivacyParams(sigma_x=value, sigma_y=sy, **common)
    tied = None if sigma_y is None else float(sigma_y)
    if mu is not None and p.private:
        return Noise(float(value), float(_composing(accountant).composed_epsilon(p, mu=mu)), None, tied,
                     mixing_epsilon=mixing(value, sy))
    r = compute_epsilon(p, accountant=accountant, conversion=conversion, max_alpha=max_alpha)
    return Noise(float(value), float(r.epsilon), r.alpha, tied)


def quick_epsilon(sigma: float, *, l: int, T: int, c: float, delta: float, n: int, class_counts,
                  d_x: int, d_y: int, accountant: str, conversion: str = "mironov",
                  max_alpha: int = 256, allocation: str = "equal", stats_mu: float | None = None) -> float:
    """An upper bound on the epsilon of noise ``sigma`` (``sigma_x = sigma_y``), cheaper than
    :func:`noise_for`: :func:`dpcda.privacy.epsilon_grid` (a PLD accountant on its coarse grid,
    still an upper bound). For checks such as "does this noise meet that epsilon?".
    ``stats_mu``: a ``dp-center`` statistics release composed in (then the exact composed
    epsilon, slower)."""
    from dpcda.privacy import epsilon_grid

    if stats_mu is not None and sigma > 0:
        from dpcda.privacy import PrivacyParams

        p = PrivacyParams(sigma_x=sigma, sigma_y=sigma, l=l, T=T, c=c, delta=delta, n=n,
                          class_counts=tuple(class_counts), d_x=d_x, d_y=d_y, allocation=allocation)
        return float(_composing(accountant).composed_epsilon(p, mu=stats_mu))
    return float(epsilon_grid(ls=[l], sigmas=[sigma], T=T, delta=delta, c=c, n=n,
                              class_counts=tuple(class_counts), d_x=d_x, d_y=d_y,
                              accountant=accountant, conversion=conversion, max_alpha=max_alpha,
                              allocation=allocation)[0, 0])


def setting_text(*, l: int, T: int, c: float, noise: Noise, accountant: str, delta: float,
                 normalize: str, target: float | None = None) -> str:
    """The page's one-line "Current setting" (before any release): the noise and its epsilon
    under ``accountant``, with the words of :data:`dpcda.privacy.NOT_A_BOUND` where that is not
    a valid bound for DP-CDA, and, for ``dp-center``, that the epsilon composes the mixing and
    the DP statistics (as the release's card does) and the mixing's alone (with a ``target``:
    at this sigma, which is more than the Privacy page calibrates the mixing alone to)."""
    from dpcda.report.formatting import fmt_delta, fmt_eps, fmt_int, fmt_sigma
    from dpcda.privacy import caveat

    note = caveat(accountant)
    mix = ("; the mixing and the `dp-center` statistics together"
           + ("" if noise.mixing_epsilon is None else
              f"; the mixing alone: {fmt_eps(noise.mixing_epsilon)}, the Privacy page's headline"
              if target is None else f"; the mixing alone at this σ: {fmt_eps(noise.mixing_epsilon)}")
           if normalize == "dp-center" else "")
    sig = (f"σ_x = σ_y = {fmt_sigma(noise.sigma)}" if noise.sigma_y is None else
           f"σ_x = {fmt_sigma(noise.sigma)}, σ_y = {fmt_sigma(noise.sigma_y)}")
    return (f"**Current setting:** l = {l}, T = {fmt_int(T)}, c = {c:g} → {sig}, "
            f"ε = {fmt_eps(noise.epsilon)} ({accountant}"
            f"{note and '; ' + note}{mix}), δ = {fmt_delta(delta)}.")


def parse_image_shape(text: str) -> tuple[int, ...] | None:
    """``"1,28,28"`` / ``"28x28"`` -> a shape; empty -> None (a table). Raises ``ValueError``."""
    parts = [p for p in re.split(r"[,x×\s]+", (text or "").strip()) if p]
    if not parts:
        return None
    if not all(p.isdigit() and int(p) > 0 for p in parts) or len(parts) not in (2, 3):
        raise ValueError("image shape must be H,W or C,H,W in positive whole numbers (for "
                         f"example 1,28,28), got {text!r}")
    return tuple(int(p) for p in parts)


def release_stem(dataset: str, l: int, epsilon: float | None) -> str:
    """File name stem of a release's downloads, e.g. ``dpcda_digits_l4_eps9.98``."""
    tag = "inf" if epsilon is None or math.isinf(epsilon) else f"{epsilon:.3g}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"dpcda_{dataset}_l{l}_eps{tag}")


def aimed_delta(delta: float, epsilon: float, *, T: int, d_x: int, d_y: int) -> float:
    """The delta a release calibrated to ``epsilon`` is accounted at: the one
    :func:`dpcda.mechanisms.generate_dpcda` takes (:func:`dpcda.randomness.noise.delta_aim` of
    T rows of d_x + d_y values, and d_x + d_y more)."""
    from dpcda.randomness.noise import delta_aim

    return delta_aim(delta, epsilon, T * (d_x + d_y) + d_x + d_y)


def generate_release(dataset, noise: Noise | None, *, target_epsilon: float | None = None, **settings):
    """A DP-CDA release of ``dataset`` at the noise of ``noise`` (already calibrated by
    :func:`noise_for`, so it is not calibrated twice); ``target_epsilon`` is recorded on the
    card as the target that noise was calibrated to. ``settings``: the other arguments of
    :func:`dpcda.mechanisms.generate_dpcda` (l, T, c, delta, accountant, ...).

    With a target on class sizes the data does not publish
    (:func:`dpcda.dashboard.samples.sizes.sizes_private`: an upload under ``whole-record``) the
    library calibrates instead, on lower bounds from a DP label histogram, and ``noise`` (None
    there: the page computes none from the private sizes) is not read: the card's sigma is a
    function of public inputs and that histogram. So is ``dp-center``'s (its statistics' share
    depends on the target)."""
    from dpcda.dashboard.samples.sizes import sizes_private
    from dpcda.dashboard.setting import DEFAULT_ALLOCATION
    from dpcda.mechanisms import generate_from_dataset
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    # the dashboard's allocation where the setting names none, as noise_for accounts it
    settings = {**settings, "allocation": settings.get("allocation") or DEFAULT_ALLOCATION}
    if target_epsilon is not None and (settings.get("normalize") == "dp-center" or sizes_private(
            dataset, settings.get("accountant") or DEFAULT_ACCOUNTANT)):
        rel = generate_from_dataset(dataset, "dp-cda", epsilon=target_epsilon, **settings)
    else:
        delta = settings.get("delta", 1e-5)
        if target_epsilon is not None:  # accounted at the delta noise_for calibrated it at
            settings["delta"] = aimed_delta(delta, target_epsilon, T=settings.get("T") or dataset.n_train,
                                            d_x=dataset.d_x, d_y=dataset.n_classes)
        rel = generate_from_dataset(dataset, "dp-cda", sigma_x=noise.sigma, sigma_y=noise.label_sigma,
                                    **settings)
        if settings.get("delta", delta) != delta:
            rel.card["privacy"]["calibrated_to_delta"] = float(delta)
            rel.card["parameters"]["delta"] = float(delta)  # as asked, like a calibrated release's
    if target_epsilon is not None:
        rel.card["privacy"]["calibrated_to_epsilon"] = float(target_epsilon)
    return rel


def report_settings(source: tuple, setting: dict) -> dict:
    """The page's setting in the names of :func:`dpcda.dashboard.reproduce.reproduce` and the report
    (``dataset`` only for a built-in dataset; an upload cannot be reproduced by name)."""
    mode, value = setting["noise"]
    out = {k: setting[k] for k in ("l", "T", "c", "delta", "accountant", "conversion", "max_alpha",
                                   "allocation")}
    out.update(dataset=source[1] if source[0] == "builtin" else None,
               normalization=setting["normalize"],
               **({"epsilon": value} if mode == "epsilon" else {"sigma_x": value}))
    if setting.get("sigma_y") is not None:  # the label noise apart (else tied to sigma_x)
        out["sigma_y"] = setting["sigma_y"]
    return out
