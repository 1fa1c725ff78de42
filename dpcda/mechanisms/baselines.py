"""Baselines of the paper's Table 5 (docs/specification.md §3): DPMix, local perturbation, random projection.

* :func:`generate_dpmix` — DPMix (Lee et al.): features in [0, 1] (public scaling), ``T``
  mixtures of ``l`` distinct points drawn from the whole dataset (any class), weights 1/l;
  the one-hot labels are mixed alike (soft labels); Gaussian noise on both; hard label = argmax.
  Default accountant ``dpmix-clipped``: rows are also clipped to L2 norm ``c``, and the
  release is a subsampled Gaussian over all N records (feature sensitivity 2c/l, label
  sensitivity sqrt(2)/l, T compositions at rate l/N), a valid bound for what runs. DPMix's
  own Theorem 1 (``dpmix``) and closed form (``dpmix-low``), d_x = d, d_y = K, assume
  unclipped features in [0, 1]: with them no clipping is done (as published).
* :func:`generate_local` — local perturbation: DPMix with ``l = 1`` (each of the T samples is
  one uniformly drawn record plus noise: a subsampled Gaussian at rate 1/N).
* :func:`generate_random_projection` — DPPro (Xu et al.): Gaussian ``R`` (p x d, entries
  N(0, 1/p)), rows clipped to norm ``c``, release ``X R^T`` plus Gaussian noise. Default
  accountant ``gaussian``: the smallest std for which this one release of each record is
  (eps, delta)-DP, sensitivity ``2 c s(R)`` (``s(R)`` the spectral norm), by the exact Gaussian
  profile; ``dppro`` uses the published std ``c s(R) sqrt(log(1/(2 delta)) + eps) / eps`` (not a
  bound at large eps). ``R`` is data-independent; it is published (the test split must be
  projected with it) and its shape goes on the card, never the seed it came from.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.mechanisms._torch import public_generator, resolve_device
from dpcda.mechanisms.card import (add_randomness, bound_fields, data_block, make_card,
                                   privacy_from_result)
from dpcda.mechanisms.dp_cda import check_noise_choice
from dpcda.mechanisms.mixing import Mixed, mix_any_class
from dpcda.mechanisms.prepare import fit_preprocessor
from dpcda.mechanisms.release import Release, epsilon_text
from dpcda.randomness import SecureRandom, add_gaussian, float_cost, grid_for
from dpcda.randomness.noise import aimed, calibration_aim, delta_aim
from dpcda.util.notices import notice
from dpcda.mechanisms.validation import (check_delta, check_features, check_float, check_int,
                                         check_labels, check_release_size)

DPMIX_ACCOUNTANTS = ("dpmix-clipped", "dpmix", "dpmix-low")
#: DPMix's published accountants: they assume unclipped features in [0, 1] (no clipping then).
UNCLIPPED_ACCOUNTANTS = ("dpmix", "dpmix-low")
DPPRO_ACCOUNTANTS = ("gaussian", "dppro")


def _inputs(X, y, n_classes, class_names):
    X = check_features(X)
    y, K = check_labels(y, len(X), n_classes if n_classes is not None else
                        (len(class_names) if class_names is not None else None))
    return X, y, K


def generate_dpmix_traced(X, y, *, l: int, T: int | None = None, sigma_x=None, sigma_y=None,
                          epsilon=None, delta: float = 1e-5, accountant: str = "dpmix-clipped",
                          conversion: str = "mironov", ratio: float = 1.0, max_alpha: int = 256,
                          c: float = 1.0, normalize="scale", bounds=None, n_classes=None, class_names=None,
                          image_shape=None, dataset: str | None = None, device=None,
                          seed: int | None = None, return_indices: bool = False,
                          _algorithm: str = "dpmix") -> tuple[Release, Mixed]:
    """:func:`generate_dpmix` plus the raw mixing trace (tests only; never publish it)."""
    from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon

    X, y, K = _inputs(X, y, n_classes, class_names)
    N, d = X.shape
    l = check_int("l", l, 1, N, " (the number of records N)")
    T = N if T is None else check_int("T", T, 1)
    check_release_size(T, d)
    delta = check_delta(delta)
    ratio = check_float("ratio", ratio, lo=0.0, lo_open=True)
    sx, sy, eps = check_noise_choice(sigma_x, sigma_y, epsilon, ratio)
    if accountant not in DPMIX_ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(DPMIX_ACCOUNTANTS)} for DPMix, got "
                         f"accountant={accountant!r}")
    c = check_float("c", c, lo=0.0, lo_open=True, why=" (the clip norm)")
    clip = accountant not in UNCLIPPED_ACCOUNTANTS
    pre = fit_preprocessor(X, normalize, c=c if clip else None, bounds=bounds)
    Xp = pre(X)
    if not clip and (float(Xp.min()) < -1e-6 or float(Xp.max()) > 1 + 1e-6):
        # worded without the private min/max
        raise ValueError(f"DPMix needs features in [0, 1] (accountant {accountant!r} assumes it), "
                         f"and some are outside it after normalize={pre.method!r}; use "
                         "normalize='scale' with the data's public bounds, or accountant="
                         "'dpmix-clipped'")
    aim = calibration_aim(eps, T * (d + K))  # the target less floating point's share
    d_aim = delta_aim(delta, eps, T * (d + K))  # and delta's
    common = dict(l=l, T=T, delta=d_aim, n=N, d_x=d, d_y=K, c=c)
    if eps is not None:
        cal = calibrate(epsilon=aim, accountant=accountant, conversion=conversion, ratio=ratio,
                        max_alpha=max_alpha, **common)
        sx, sy, res = cal.sigma_x, cal.sigma_y, cal.result
    else:
        res = compute_epsilon(PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                              accountant=accountant, conversion=conversion, max_alpha=max_alpha)
    dev = resolve_device(device)
    source = SecureRandom(seed)  # every private draw of this release; never stored
    mixed = mix_any_class(Xp, y, K, l, T, sx, sy, generator=source, device=dev,
                          bound=c if clip else 1.0, return_indices=return_indices)
    local = _algorithm == "local"
    card = make_card(
        algorithm=_algorithm,
        title="Local perturbation (Gaussian noise on each point; DPMix with l = 1)" if local
        else "DPMix (random mixing of any-class points, Lee et al.)",
        parameters={"l": l, "T": T, "c": c if clip else None, "sigma_x": sx, "sigma_y": sy, "delta": delta},
        privacy=add_randomness(aimed(privacy_from_result(res, calibrated_to=eps,
                                                         mechanism=_algorithm), eps, aim,
                                     delta=delta, delta_aimed=d_aim),
                               source, mixed.float_cost),
        data=data_block(dataset=dataset, N=N, class_counts=np.bincount(y, minlength=K),
                        class_names=class_names, image_shape=image_shape, d=d),
        normalization=pre.card(),
        release={"n_samples": T, "hard_label": "argmax of the soft label (ties on the grid broken at random)",
                 "soft_label": "noisy mixture of the one-hot labels", "device": dev.type})
    return Release(X=mixed.X, y=mixed.y, y_soft=mixed.y_soft, card=card, preprocess=pre), mixed


def generate_dpmix(X, y, *, l: int, T: int | None = None, sigma_x=None, sigma_y=None,
                   epsilon=None, delta: float = 1e-5, accountant: str = "dpmix-clipped",
                   conversion: str = "mironov", ratio: float = 1.0, max_alpha: int = 256,
                   c: float = 1.0, normalize="scale", bounds=None, n_classes=None, class_names=None,
                   image_shape=None, dataset: str | None = None, device=None,
                   seed: int | None = None) -> Release:
    """A DPMix release (see the module docstring); ``T`` defaults to N."""
    return generate_dpmix_traced(
        X, y, l=l, T=T, sigma_x=sigma_x, sigma_y=sigma_y, epsilon=epsilon, delta=delta,
        accountant=accountant, conversion=conversion, ratio=ratio, max_alpha=max_alpha, c=c,
        normalize=normalize, bounds=bounds, n_classes=n_classes, class_names=class_names,
        image_shape=image_shape, dataset=dataset, device=device, seed=seed)[0]


def generate_local(X, y, *, T: int | None = None, sigma_x=None, sigma_y=None, epsilon=None,
                   delta: float = 1e-5, accountant: str = "dpmix-clipped",
                   conversion: str = "mironov", ratio: float = 1.0, max_alpha: int = 256,
                   c: float = 1.0, normalize="scale", bounds=None,
                   n_classes=None, class_names=None, image_shape=None, dataset: str | None = None,
                   device=None, seed: int | None = None, l: int = 1) -> Release:
    """Local perturbation: DPMix with ``l = 1`` (each sample one random point plus noise)."""
    if l != 1:
        raise ValueError(f"local perturbation is DPMix with l = 1, got l={l!r}")
    return generate_dpmix_traced(
        X, y, l=1, T=T, sigma_x=sigma_x, sigma_y=sigma_y, epsilon=epsilon, delta=delta,
        accountant=accountant, conversion=conversion, ratio=ratio, max_alpha=max_alpha, c=c,
        normalize=normalize, bounds=bounds, n_classes=n_classes, class_names=class_names,
        image_shape=image_shape, dataset=dataset, device=device, seed=seed,
        _algorithm="local")[0]


class ProjectedPreprocessor:
    """Real data -> ``clip(normalize(X)) @ R^T`` (no noise): for evaluating on a test split."""

    def __init__(self, pre, R: np.ndarray) -> None:
        self.pre, self.R = pre, R
        self.method, self.normalizer, self.c = pre.method, pre.normalizer, pre.c

    def __call__(self, X) -> np.ndarray:
        return (self.pre(X) @ self.R.T).astype(np.float32)


def generate_random_projection(X, y, *, epsilon: float, delta: float = 1e-5, p: int | None = None,
                               c: float = 1.0, accountant: str = "gaussian", normalize="scale", bounds=None,
                               n_classes=None,
                               class_names=None, image_shape=None, dataset: str | None = None,
                               device=None, seed: int | None = None) -> Release:
    """DPPro: every record once, ``clip(x) R^T + noise``; ``p`` defaults to ``min(100, d)``."""
    import torch

    from dpcda.privacy import NOT_A_BOUND, get_accountant
    from dpcda.privacy.gaussian import gaussian_sigma

    X, y, K = _inputs(X, y, n_classes, class_names)
    N, d = X.shape
    eps = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    delta = check_delta(delta)
    if delta >= 0.5:
        raise ValueError(f"delta must be below 0.5 for log(1/(2 delta)) > 0, got delta={delta!r}")
    c = check_float("c", c, lo=0.0, lo_open=True, why=" (the clip norm)")
    if accountant not in DPPRO_ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(DPPRO_ACCOUNTANTS)} for random "
                         f"projection, got accountant={accountant!r}")
    p = min(100, d) if p is None else check_int("p", p, 1, d, " (at most the dimension d)")
    aim = calibration_aim(eps, N * p)  # the target less floating point's share
    d_aim = delta_aim(delta, eps, N * p)  # and delta's
    pre = fit_preprocessor(X, normalize, c=c, bounds=bounds)
    dev = resolve_device(device)
    source = SecureRandom(seed)  # the noise's source; R, public, comes from a fast generator
    gen = public_generator(dev, source)
    R = (torch.randn((p, d), generator=gen, device=dev, dtype=torch.float64) / math.sqrt(p)).to(
        torch.float32).to(torch.float64)  # the published float32 R is exactly the R used
    # The sensitivity needs an upper bound on s(R): LAPACK's float64 SVD (on the CPU, backward
    # stable) is within ~1e-15 relative; 2^-30 covers it.
    s_R = float(torch.linalg.matrix_norm(R.cpu(), ord=2)) * (1.0 + 2.0 ** -30)
    if accountant == "gaussian":
        std = gaussian_sigma(aim, d_aim, sensitivity=2.0 * c * s_R)
    else:  # as published
        std = c * s_R * math.sqrt(math.log(1.0 / (2.0 * d_aim)) + aim) / aim
    acc = get_accountant(accountant)
    bound = bound_fields(accountant, "random-projection")  # relation, valid_bound, bound_note
    valid = bound["valid_bound"]
    # Rows (norm <= c) scaled by 1 - m, products in float64: a row of X R^T is off by at most
    # d sqrt(p) u c s(R) in L2, below the margin, so neighbouring centres differ by <= 2 c s(R).
    margin = max(2.0 ** -20, 4.0 * d * math.sqrt(p) * 2.0 ** -53)
    rows = torch.from_numpy(pre(X).astype(np.float64) * (1.0 - margin)).to(dev)
    centre = (rows @ R.T).cpu().numpy()
    del rows
    grid = grid_for(std, c * s_R)
    Z = add_gaussian(centre, std, source, bound=c * s_R, grid=grid).astype(np.float32)
    R_np = R.to(torch.float32).cpu().numpy()
    privacy = {"private": True, "epsilon": aim,
               "epsilon_text": epsilon_text(aim) + ("" if valid else f" ({NOT_A_BOUND})"),
               "delta": d_aim, "accountant": accountant, "accountant_title": acc.title,
               "assumptions": acc.assumptions, **bound,
               "conversion": None, "alpha": None,
               "warnings": [] if delta < 1.0 / N else
               [notice("delta_not_below_1_over_n", delta=delta, n=N)]}
    add_randomness(aimed(privacy, eps, aim, delta=delta, delta_aimed=d_aim), source,
                   float_cost((centre.size, grid)))
    card = make_card(
        algorithm="random-projection", title="Random projection (DPPro, Xu et al. 2017)",
        parameters={"p": p, "c": c, "epsilon": eps, "delta": delta, "noise_std": std,
                    "spectral_norm_R": s_R},
        privacy=privacy,
        data=data_block(dataset=dataset, N=N, class_counts=np.bincount(y, minlength=K),
                        class_names=class_names, image_shape=image_shape, d=d),
        normalization=pre.card(),
        release={"n_samples": N, "projection_shape": [p, d],
                 "projection": "R with i.i.d. N(0, 1/p) entries, published as extras['projection']",
                 "features": "X R^T + noise (p columns, not images)",
                 "labels": "the true labels, unchanged (y_soft is their one-hot code)",
                 "device": dev.type})
    y_soft = np.eye(K, dtype=np.float32)[y]
    return Release(X=Z, y=y, y_soft=y_soft, card=card,
                   extras={"projection": R_np}, preprocess=ProjectedPreprocessor(pre, R_np))


# --- the registry entries (what the CLI, the jobs and the pages offer) ----------------------------
def _register() -> None:
    from dpcda.mechanisms.prepare import NORMALIZE_CHOICES
    from dpcda.mechanisms.spec import CLIP_PARAM, Mechanism, Param, noise_params, norm_param
    from dpcda.mechanisms.spec import register_mechanism
    from dpcda.privacy.events import Relation, ReleaseEvent

    mixture = ReleaseEvent("mixture", Relation.REPLACE_ONE)
    accountants = ("dpmix-clipped", "dpmix", "dpmix-low")
    register_mechanism(Mechanism(
        "dpmix", "DPMix", generate_dpmix,
        "Mean of l random points of any class (public scaling, rows clipped to c) plus noise; "
        "soft labels.",
        (Param("l", "int", None, lo=1, required=True, doc="order of mixture (<= N)"),
         *noise_params(accountants), CLIP_PARAM, norm_param("scale", NORMALIZE_CHOICES)),
        accountants, "scale",
        label_mode="soft", learner="auto", l_bound="n", paper_name="DP-Mix", compare_ls=(16, 32),
        notes="MNIST, epsilon = 10, 2 runs: lda + soft labels 0.793 / 0.818 / 0.824 / 0.815 / 0.803 "
              "at l = 4 / 8 / 16 / 32 / 64; linear + soft 0.765 (l = 16), 0.799 (l = 64); "
              "lda + hard 0.792 (l = 16)", event=mixture, cost_model="mixing"))
    register_mechanism(Mechanism(
        "local", "Local perturbation", generate_local,
        "One random point plus Gaussian noise (DPMix with l = 1).",
        (*noise_params(accountants), CLIP_PARAM, norm_param("scale", NORMALIZE_CHOICES)),
        accountants, "scale",
        label_mode="hard", learner="auto", l_bound="n", onehot_label_noise=True,
        paper_name="Local Perturbation",
        notes="MNIST, epsilon = 10, 2 runs: lda (noise-aware, hard labels) 0.686, linear + soft 0.541",
        event=mixture, cost_model="mixing"))
    register_mechanism(Mechanism(
        "random-projection", "Random projection (DPPro)", generate_random_projection,
        "Every point clipped, projected by a Gaussian matrix R (p x d) plus Gaussian noise.",
        (Param("epsilon", "float", None, lo=0.0, lo_open=True, required=True, doc="target epsilon"),
         Param("delta", "float", 1e-5, lo=0.0, hi=0.5, lo_open=True, hi_open=True),
         Param("accountant", "str", "gaussian", choices=("gaussian", "dppro")),
         Param("p", "int", None, lo=1, doc="projection width (None: min(100, d))"), CLIP_PARAM,
         norm_param("scale", NORMALIZE_CHOICES)),
        ("gaussian", "dppro"), "scale",
        label_mode="hard", learner="auto", target_epsilon=True, noise_scale=False, l_bound="n",
        flat_output=True, paper_name="Random Projection",
        notes="MNIST, epsilon = 10, 2 runs (gaussian accountant): lda 0.600, fc (10 epochs) 0.102",
        event=ReleaseEvent("gaussian-release", Relation.FEATURES), cost_model="projection"))


_register()
