"""Training parameters: one frozen, validated dataclass (no torch import here).

The job store and the CLI build a :class:`TrainConfig` from user input, so every bad value
raises ``ValueError`` naming the field, the allowed values and the value given.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from dpcda.util.checks import check_choice, check_float, check_int

LABEL_MODES = ("hard", "soft")
SCHEDULERS = ("cosine", "step", "none")
DEVICES = ("auto", "cpu", "cuda", "mps")
CNN_NORMS = ("group", "bn", "bn-batch", "none")
SCALE_MODES = ("sqrt-d", "none")


def _model_names() -> list[str]:
    from dpcda.training.models import list_models

    return list_models()


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    check_choice(name, value, allowed)


@dataclass(frozen=True)
class TrainConfig:
    """How a model is trained on (synthetic) data and evaluated on the real test split.

    Defaults (and why):

    - ``model="cnn"``: the paper's Table 2 CNN; ``list_models()`` lists the others.
    - ``epochs=5``, ``batch_size=256``: enough for the CNN to converge on 60,000 noisy
      samples (measured: most of the gain is in epochs 1-3), small enough for a CPU.
    - ``lr=1e-3`` with Adam (paper Table 2 setting); ``scheduler="cosine"`` anneals the
      learning rate per step to 0 over all epochs. ``"step"`` halves it every
      ``step_epochs`` epochs (DPMix Appendix C); ``"none"`` keeps it constant.
    - ``label_mode="hard"``: cross-entropy on the integer labels. ``"soft"``: cross-entropy
      against the noisy soft labels ``y_soft`` with negatives clipped to 0 and each row
      renormalised to sum to 1 (a row with no positive entry falls back to one-hot of its
      hard label). Soft cross-entropy has the same gradient as KL divergence (thesis §4.1).
    - ``cnn_norm="group"``: see :mod:`dpcda.training.nets` - BatchNorm's running statistics
      learnt on noise-dominated synthetic inputs break on clean test images. ``"bn"`` is the
      paper's layer as published, ``"bn-batch"`` normalises with batch statistics at
      evaluation too (transductive: uses the statistics of each test batch), ``"none"``
      drops normalisation.
    - ``input_scale="sqrt-d"``: multiply train and test inputs by ``sqrt(d) / clip_norm`` so
      that rows clipped to norm ``clip_norm`` have per-feature scale about 1; a number gives
      the factor explicitly, ``"none"`` means 1.
    - ``denoise_sigma=0``: standard deviation (pixels) of a Gaussian filter applied to the
      synthetic training images (post-processing, free under DP); 0 = off.
      ``denoise_test=True`` filters the test images too (the filter becomes part of the
      model: ``f(blur(x))``); the default filters the training images only (DPMix).
    - ``eval_noise_std=0``: add N(0, eval_noise_std^2) to test inputs (before scaling), i.e.
      evaluate on test images with noise matching the training data; predictions are
      averaged over ``eval_noise_draws`` draws.
    - ``class_prior=None``: public class proportions of the test population. If given, the
      logits are shifted by ``log(prior) - log(train label frequency)`` at evaluation (a
      balanced DP-CDA release vs an unbalanced population, e.g. Adult). Exact for calibrated
      probabilistic models (``linear``, ``fc``, the CNNs); approximate for ``ncm``/``lda``,
      whose scores are likelihoods on the release's scale (measured on Adult: it helps
      ``linear``, 0.78 -> 0.82, and hurts ``lda``).
    - ``device="auto"``: cuda > mps > cpu; ``amp=True`` uses bf16 autocast on CUDA only.
    - ``noise_std=0``: the release's public feature-noise scale ``sigma_x`` (in the units of
      ``X_train``, before input scaling). Used by ``model="lda"`` to remove the noise
      covariance; ``lda_shrinkage=0.01`` sets its ridge (relative, see ``NoiseAwareLDA``).
    - ``label_noise_std=0``: the release's public label-noise scale ``sigma_y`` (DP-CDA's soft
      labels are ``onehot + N(0, sigma_y^2)``). With ``y_soft`` given, ``model="lda"`` undoes
      the label noise of the hard labels (class means and scatter; see ``NoiseAwareLDA``).
    - ``mix_factors=None``: the release's public mixing factors ``f_k = (n_k - l) / (l (n_k -
      1))`` per class (``dpcda.training.qda.mixing_factors``), used by ``model="qda"`` to undo
      the mixing's shrinkage of the class covariances (and by the opt-in ``"lda-tangent"``, the
      ``lda`` with qda's tangent prior, for its tangent variances); ``None`` = 1 (no mixing). Left out of
      :meth:`to_dict` when ``None`` (stored configs keep their keys).
    - ``tree_max_depth=8``, ``tree_min_samples_leaf=20``: the decision tree for tabular
      data (the paper leaves them unstated); ``tree_max_depth=0`` grows the tree fully.
    """

    model: str = "cnn"
    epochs: int = 5
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 0.0
    scheduler: str = "cosine"
    step_epochs: int = 10
    label_mode: str = "hard"
    cnn_norm: str = "group"
    input_scale: float | str = "sqrt-d"
    clip_norm: float = 1.0
    denoise_sigma: float = 0.0
    denoise_test: bool = False
    eval_noise_std: float = 0.0
    eval_noise_draws: int = 1
    eval_batch_size: int = 1000
    eval_every_epoch: bool = True
    class_prior: tuple[float, ...] | None = None
    n_classes: int | None = None
    device: str = "auto"
    amp: bool = True
    noise_std: float = 0.0
    lda_shrinkage: float = 0.01
    label_noise_std: float = 0.0
    tree_max_depth: int = 8
    tree_min_samples_leaf: int = 20
    mix_factors: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        # The shared checks (dpcda.util.checks): an integral float such as 5.0 is stored as 5.
        def _check_int(name: str, value: Any, lo: int) -> None:
            object.__setattr__(self, name, check_int(name, value, lo))

        def _check_float(name: str, value: Any, *, positive: bool) -> None:
            object.__setattr__(self, name, check_float(name, value, lo=0.0, lo_open=positive))

        models = _model_names()
        if self.model not in models:
            raise ValueError(f"model must be one of {', '.join(models)}; got model={self.model!r}")
        _check_int("epochs", self.epochs, 1)
        _check_int("batch_size", self.batch_size, 1)
        _check_float("lr", self.lr, positive=True)
        _check_float("weight_decay", self.weight_decay, positive=False)
        _check_choice("scheduler", self.scheduler, SCHEDULERS)
        _check_int("step_epochs", self.step_epochs, 1)
        _check_choice("label_mode", self.label_mode, LABEL_MODES)
        _check_choice("cnn_norm", self.cnn_norm, CNN_NORMS)
        if isinstance(self.input_scale, str):
            _check_choice("input_scale", self.input_scale, SCALE_MODES)
        else:
            _check_float("input_scale", self.input_scale, positive=True)
        _check_float("clip_norm", self.clip_norm, positive=True)
        _check_float("denoise_sigma", self.denoise_sigma, positive=False)
        if not isinstance(self.denoise_test, bool):
            raise ValueError(f"denoise_test must be a bool, got denoise_test={self.denoise_test!r}")
        _check_float("eval_noise_std", self.eval_noise_std, positive=False)
        _check_int("eval_noise_draws", self.eval_noise_draws, 1)
        _check_int("eval_batch_size", self.eval_batch_size, 1)
        if not isinstance(self.eval_every_epoch, bool):
            raise ValueError(f"eval_every_epoch must be a bool, "
                             f"got eval_every_epoch={self.eval_every_epoch!r}")
        if self.class_prior is not None:
            prior = tuple(self.class_prior)
            if len(prior) < 2 or not all(
                isinstance(p, (int, float)) and math.isfinite(p) and p > 0 for p in prior
            ):
                raise ValueError(
                    "class_prior must be None or a sequence of >= 2 positive numbers, "
                    f"got class_prior={self.class_prior!r}"
                )
            object.__setattr__(self, "class_prior", tuple(float(p) for p in prior))
        if self.n_classes is not None:
            _check_int("n_classes", self.n_classes, 2)
        _check_choice("device", self.device, DEVICES)
        if not isinstance(self.amp, bool):
            raise ValueError(f"amp must be a bool, got amp={self.amp!r}")
        _check_float("noise_std", self.noise_std, positive=False)
        _check_float("lda_shrinkage", self.lda_shrinkage, positive=True)
        _check_float("label_noise_std", self.label_noise_std, positive=False)
        _check_int("tree_max_depth", self.tree_max_depth, 0)
        _check_int("tree_min_samples_leaf", self.tree_min_samples_leaf, 1)
        if self.mix_factors is not None:
            f = tuple(self.mix_factors)
            if not f or not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0
                                for v in f):
                raise ValueError("mix_factors must be None or a sequence of positive numbers, "
                                 f"got mix_factors={self.mix_factors!r}")
            object.__setattr__(self, "mix_factors", tuple(float(v) for v in f))
        if self.label_mode == "soft" and self.model == "tree":
            raise ValueError(
                "label_mode must be 'hard' for model='tree' (a decision tree takes no soft "
                f"labels); got label_mode={self.label_mode!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the job store keeps it)."""
        d = asdict(self)
        if d["class_prior"] is not None:
            d["class_prior"] = list(d["class_prior"])
        if d["mix_factors"] is None:
            del d["mix_factors"]
        else:
            d["mix_factors"] = list(d["mix_factors"])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError`` naming them."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown TrainConfig field(s): {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(known))}")
        d = dict(d)
        if d.get("class_prior") is not None:
            d["class_prior"] = tuple(d["class_prior"])
        if d.get("mix_factors") is not None:
            d["mix_factors"] = tuple(d["mix_factors"])
        return cls(**d)
