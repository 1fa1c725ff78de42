"""DP-MERF (Harder, Adamczewski & Park, AISTATS 2021): one noisy mean embedding per class,
then a generator trained against it at no further privacy cost.

>>> from dpcda.mechanisms import generate
>>> rel = generate("dp-merf", X, y, epsilon=1.0, delta=1e-5)        # doctest: +SKIP

Steps (the random features and the generator are in :mod:`dpcda.mechanisms.rff`):

1. normalise with a public, data-independent range (``normalize="scale"``: pixels / 255,
   tabular columns by their public bounds) and clip rows to norm ``c``; nothing is learnt
   from the private data, so the release is differentially private end to end;
2. random Fourier features ``phi`` with ``||phi(x)|| = 1`` for every x; the per-class mean
   embedding ``E = (1/N) sum_i phi(x_i) onehot(y_i)^T`` (D x K);
3. **the one private release**: ``E + N(0, s_E^2)`` entrywise and, with ``labels="private"``
   (default), the class counts ``N_k + N(0, s_n^2)``. Replacing one record (features and label)
   by any other moves ``E`` by at most 2/N in Frobenius norm (two unit vectors, each /N) and
   the counts by at most sqrt(2) in L2 norm. The two Gaussian releases compose exactly into
   one with ``mu^2 = (2/(N s_E))^2 + (sqrt 2/s_n)^2`` (Gaussian DP), accounted by the exact
   analytic Gaussian mechanism (accountant ``embedding-gaussian``,
   :mod:`dpcda.privacy.gaussian`).
   ``count_share`` is the part of ``mu^2`` spent on the counts. With ``labels="uniform"`` no
   count is released and the generator assumes equal classes (as in the published code);
4. post-processing: a generator ``G(z, k)`` is trained to match the noisy embedding weighted by
   the noisy class proportions; the release is ``n_samples`` draws with labels allocated by
   those proportions. N is treated as public (it sets the sensitivity).
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.mechanisms._torch import cpu_threads, public_generator, resolve_device
from dpcda.mechanisms.card import add_randomness, data_block, make_card
from dpcda.mechanisms.prepare import fit_preprocessor
from dpcda.mechanisms.release import Release
from dpcda.mechanisms.rff import (
    allocate,
    class_embedding,
    draw_frequencies,
    fit_generator,
    matmul_dtype,
    sample,
)
from dpcda.privacy.events import Relation, ReleaseEvent
from dpcda.randomness import SecureRandom, add_gaussian, float_cost, grid_for
from dpcda.randomness.noise import aimed, calibration_aim, delta_aim
from dpcda.util.notices import notice
from dpcda.mechanisms.validation import (
    check_delta,
    check_features,
    check_float,
    check_int,
    check_labels,
    check_release_size,
)

LABEL_CHOICES = ("private", "uniform")
ACCOUNTANT = "embedding-gaussian"
#: What a DP-MERF release emits for accounting: one Gaussian release of the mean embedding and
#: the class counts, under whole-record (replace-one) neighbours.
EVENT = ReleaseEvent("embedding-release", Relation.REPLACE_ONE)


def noise_plan(*, N: int, epsilon, noise_multiplier, delta: float, labels: str,
               count_share: float) -> dict:
    """The noise of the release: overall ``mu = sensitivity / std`` (calibrated to ``epsilon``
    or ``1 / noise_multiplier``), split into the embedding's and the counts' noise std."""
    from dpcda.privacy.gaussian import gaussian_sigma

    if (epsilon is None) == (noise_multiplier is None):
        raise ValueError("give exactly one of epsilon (the noise is calibrated) or "
                         f"noise_multiplier (std / sensitivity); got epsilon={epsilon!r}, "
                         f"noise_multiplier={noise_multiplier!r}")
    if epsilon is not None:
        mu = 1.0 / gaussian_sigma(check_float("epsilon", epsilon, lo=0.0, lo_open=True), delta)
    else:
        z = check_float("noise_multiplier", noise_multiplier, lo=0.0,
                        why=" (0 = no noise: the non-private setting)")
        mu = math.inf if z == 0 else 1.0 / z
    share = count_share if labels == "private" else 0.0
    mu_e, mu_n = mu * math.sqrt(1.0 - share), mu * math.sqrt(share)
    return {"mu": mu, "embedding_noise_std": 0.0 if math.isinf(mu) else 2.0 / (N * mu_e),
            "count_noise_std": None if share == 0 else (0.0 if math.isinf(mu) else
                                                         math.sqrt(2.0) / mu_n)}


def _privacy(plan: dict, *, N: int, delta: float, epsilon) -> dict:
    """The card's privacy block (the epsilon is recomputed from mu, never copied)."""
    from dpcda.mechanisms.release import epsilon_text
    from dpcda.privacy import get_accountant
    from dpcda.privacy.gaussian import gaussian_epsilon

    acc = get_accountant(ACCOUNTANT)
    private = math.isfinite(plan["mu"])
    eps = gaussian_epsilon(1.0 / plan["mu"], delta) if private else math.inf
    block = {"private": private, "epsilon": eps if private else None,
             "epsilon_text": epsilon_text(eps), "delta": delta, "accountant": ACCOUNTANT,
             "accountant_title": acc.title, "assumptions": acc.assumptions,
             "relation": acc.relation, "valid_bound": acc.supports(EVENT),
             "conversion": None, "alpha": None, "calibrated_to_epsilon": epsilon,
             "noise_multiplier": 1.0 / plan["mu"] if private else 0.0,
             "warnings": [] if delta < 1.0 / N else
             [notice("delta_not_below_1_over_n", delta=delta, n=N)]}
    if not private:
        block["label"] = "NON-PRIVATE: no noise on the mean embedding, epsilon = infinity"
    return block


def _proportions(counts: np.ndarray, std, source) -> np.ndarray:
    """Class proportions from the counts plus ``N(0, std^2)`` on the public grid (uniform for
    ``std`` None: labels='uniform')."""
    from dpcda.randomness import add_gaussian

    K = len(counts)
    if std is None:
        return np.full(K, 1.0 / K)
    noisy = add_gaussian(np.asarray(counts, dtype=np.float64), std, source,
                         bound=float(np.sum(counts)))
    v = np.clip(noisy, 0.0, None)
    return v / v.sum() if v.sum() > 0 else np.full(K, 1.0 / K)


def generate_dp_merf(X, y, *, epsilon=None, delta: float = 1e-5, noise_multiplier=None,
                     c: float | None = 1.0, n_features: int = 4000, length_scale=None,
                     labels: str = "private", count_share: float = 0.05,
                     T: int | None = None, steps: int = 600, batch_size: int = 500,
                     lr: float = 1e-2, hidden=(200, 500), code_dim: int = 10,
                     normalize="scale", bounds=None, n_classes=None, class_names=None,
                     image_shape=None, dataset: str | None = None, device=None,
                     precision: str = "auto", seed: int | None = None) -> Release:
    """A DP-MERF release of raw features ``X`` (N x d) with labels ``y`` in 0..K-1.

    Noise: a target ``epsilon`` at ``delta`` (exact analytic Gaussian calibration) or the
    overall ``noise_multiplier`` ``1/mu`` (0: non-private). ``c``: clip norm of the normalised
    rows (None: no clipping; the sensitivity does not depend on it). ``n_features``: D, the
    number of random features (even). ``length_scale``: the Gaussian kernel's length, in the
    units of the normalised rows; default ``c`` (clipped rows), else ``sqrt(0.15 d)``
    (about the published 105 = length^2 for MNIST in [0, 1]). ``labels``/``count_share``:
    see the module docstring. ``T``: synthetic samples released (default N). ``steps``,
    ``batch_size``, ``lr``, ``hidden``, ``code_dim``: the generator's training (Adam).
    ``device``: torch device (default cuda, then mps, then cpu). ``precision``: the random
    features' two big products in ``"float32"`` or ``"bfloat16"``; ``"auto"`` picks bfloat16
    for d >= 256 on a CPU with native support (:func:`~dpcda.mechanisms.rff.matmul_dtype`; the card records
    the choice). ``seed``: for tests and teaching only (the card then says
    ``privacy.seeded: true``: reproducible, not private).
    """
    import torch

    X = check_features(X)
    y, K = check_labels(y, len(X), n_classes if n_classes is not None else
                        (len(class_names) if class_names is not None else None))
    if class_names is not None and len(class_names) != K:
        raise ValueError(f"class_names must name the K={K} classes, got {len(class_names)} names")
    N, d = X.shape
    delta = check_delta(delta)
    c = None if c is None else check_float("c", c, lo=0.0, lo_open=True, why=" (the clip norm)")
    n_features = check_int("n_features", n_features, 2, 1 << 17, " (the number of random "
                           "features D)")
    if n_features % 2:
        raise ValueError(f"n_features must be even (cos and sin of D/2 frequencies), got "
                         f"n_features={n_features}")
    if length_scale is None:
        length_scale = c if c is not None else math.sqrt(0.15 * d)
    length_scale = check_float("length_scale", length_scale, lo=0.0, lo_open=True)
    if labels not in LABEL_CHOICES:
        raise ValueError(f"labels must be one of {', '.join(LABEL_CHOICES)}, got labels={labels!r}")
    count_share = check_float("count_share", count_share, lo=0.0, lo_open=True, hi=1.0,
                              hi_open=True, why=" (the share of mu^2 spent on the class counts)")
    n_samples = N if T is None else check_int("T", T, K, why=f" (synthetic samples, at least "
                                                              f"K={K})")
    check_release_size(n_samples, d)
    steps = check_int("steps", steps, 1)
    batch_size = check_int("batch_size", batch_size, 2 * K, why=f" (at least 2 per class, K={K})")
    lr = check_float("lr", lr, lo=0.0, lo_open=True)
    code_dim = check_int("code_dim", code_dim, 1)
    try:
        hidden = tuple(check_int("hidden", h, 1) for h in hidden)
    except TypeError:
        raise ValueError(f"hidden must be a sequence of layer widths, got hidden={hidden!r}") from None
    aim = None if epsilon is None else calibration_aim(  # the target less floating point's share
        check_float("epsilon", epsilon, lo=0.0, lo_open=True), n_features * K + K)
    d_aim = delta_aim(delta, epsilon, n_features * K + K)  # and delta's (a target epsilon only)
    plan = noise_plan(N=N, epsilon=aim, noise_multiplier=noise_multiplier, delta=d_aim,
                      labels=labels, count_share=count_share)
    privacy = aimed(_privacy(plan, N=N, delta=d_aim, epsilon=epsilon), epsilon, aim, delta=delta,
                    delta_aimed=d_aim)

    pre = fit_preprocessor(X, normalize, c=c, bounds=bounds)
    bounded = pre.method == "scale"
    dev = resolve_device(device)
    mm_dtype = matmul_dtype(precision, dev, d)
    source = SecureRandom(seed)  # the private draws (embedding and count noise); never stored
    gen = public_generator(dev, source)  # public draws: frequencies, init, codes, order
    W = draw_frequencies(d, n_features, length_scale, generator=gen, device=dev).to(mm_dtype)
    counts = np.bincount(y, minlength=K)
    E = class_embedding(pre(X), y, K, W, device=dev)
    costs = []
    if plan["embedding_noise_std"] > 0:
        g = grid_for(plan["embedding_noise_std"], 1.0)
        E = torch.from_numpy(add_gaussian(E.cpu().numpy(), plan["embedding_noise_std"], source,
                                          bound=1.0, grid=g)).to(dev)
        costs.append((E.numel(), g))
    p = _proportions(counts, plan["count_noise_std"], source)
    if plan["count_noise_std"]:
        costs.append((K, grid_for(plan["count_noise_std"], float(N))))
    add_randomness(privacy, source, float_cost(*costs))
    del X
    # Many small steps: one CPU thread (see cpu_threads); the init is seeded from `gen`, locally.
    with torch.random.fork_rng(devices=[]), cpu_threads(1, dev):
        torch.manual_seed(int(torch.randint(1 << 62, (1,), generator=gen, device=dev)))
        net = fit_generator(E, p, d, W, c=c, bounded=bounded, hidden=hidden, code_dim=code_dim,
                            steps=steps, batch_size=batch_size, lr=lr, generator=gen, device=dev)
    per_class = allocate(n_samples, p)
    y_out = np.repeat(np.arange(K, dtype=np.int64), per_class)
    y_out = y_out[torch.randperm(n_samples, generator=gen, device=dev).cpu().numpy()]
    with cpu_threads(1, dev):
        X_out = sample(net, y_out, K, c=c, code_dim=code_dim, generator=gen, device=dev)
    card = make_card(
        algorithm="dp-merf",
        title="DP-MERF (random-feature mean embeddings, Harder et al. 2021)",
        parameters={"n_features": n_features, "length_scale": length_scale, "c": c,
                    "delta": delta, "noise_multiplier": privacy["noise_multiplier"],
                    "embedding_noise_std": plan["embedding_noise_std"],
                    "count_noise_std": plan["count_noise_std"], "labels": labels,
                    "count_share": count_share if labels == "private" else None,
                    "steps": steps, "batch_size": batch_size, "lr": lr,
                    "hidden": list(hidden), "code_dim": code_dim,
                    "precision": str(mm_dtype).removeprefix("torch.")},
        privacy=privacy,
        data=data_block(dataset=dataset, N=N, class_counts=counts, class_names=class_names,
                        image_shape=image_shape, d=d)
        | {"class_counts": None,
           "class_counts_note": "the exact class counts are private here (not on this card): "
           "the release uses noisy counts (labels='private') or none (labels='uniform'); only "
           "N is treated as public"},
        normalization=pre.card(),
        release={"n_samples": n_samples, "samples_per_class": [int(k) for k in per_class],
                 "hard_label": "the class the generator was asked for",
                 "soft_label": "one-hot of the hard label", "row_order": "uniformly shuffled",
                 "device": dev.type},
        postprocessing=[{"step": "generator trained against the noisy embedding and class "
                                 "proportions, then sampled", "costs_privacy": False}])
    y_soft = np.eye(K, dtype=np.float32)[y_out]
    return Release(X=X_out, y=y_out, y_soft=y_soft, card=card, preprocess=pre)



# --- the registry entry (what the CLI, the jobs and the pages offer) ------------------------------
def _register() -> None:
    from dpcda.mechanisms.prepare import NORMALIZE_CHOICES
    from dpcda.mechanisms.spec import CLIP_PARAM, Mechanism, Param, norm_param, register_mechanism

    register_mechanism(Mechanism(
        "dp-merf", "DP-MERF", generate_dp_merf,
        "Per-class mean embedding of random Fourier features released once with Gaussian noise; "
        "a generator trained against it (post-processing).",
        (Param("T", "int", None, lo=1, doc="synthetic samples (None: N)"),
         Param("epsilon", "float", None, lo=0.0, lo_open=True, doc="target epsilon"),
         Param("delta", "float", 1e-5, lo=0.0, hi=1.0, lo_open=True, hi_open=True),
         Param("noise_multiplier", "float", None, lo=0.0,
               doc="1/mu of the whole release instead of epsilon (0: non-private)"), CLIP_PARAM,
         Param("n_features", "int", 4000, lo=2, doc="random features D (even)"),
         Param("length_scale", "float", None, lo=0.0, lo_open=True,
               doc="Gaussian kernel length (None: c)"),
         Param("labels", "str", "private", choices=LABEL_CHOICES,
               doc="private: noisy class counts in the same release; uniform: none (as published)"),
         Param("count_share", "float", 0.05, lo=0.0, hi=1.0, lo_open=True, hi_open=True,
               doc="share of mu^2 spent on the class counts"),
         Param("steps", "int", 600, lo=1, doc="generator training steps"),
         norm_param("scale", NORMALIZE_CHOICES)),
        (ACCOUNTANT,), "scale",
        label_mode="hard", learner="auto", target_epsilon=True, noise_scale=False, l_bound="n",
        paper_name="DP-Merf", event=EVENT, cost_model="generator"))


_register()
