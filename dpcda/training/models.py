"""The model registry: ``list_models()``, ``get_model(name, input_shape=..., n_classes=...)``.

Importing this module does not import torch; building a torch model does.

===============  ======  =================================================================
name             kind    what
===============  ======  =================================================================
``cnn``          torch   DP-CDA paper Table 2 CNN (any C x H x W; selectable norm layer)
``dpmix-cnn``    torch   DPMix Appendix C CNN (Conv32-Conv48-FC100-FC100-FC10, no norm)
``fc``           torch   FC100-FC100-FC10 (random-projection features)
``linear``       torch   linear softmax regression
``ncm``          closed  nearest class mean (numpy)
``lda``          closed  noise-aware linear discriminant analysis (numpy; uses the public sigma_x)
``qda``          closed  noise-aware QDA (numpy; uses sigma_x, l and the class bounds n_k)
``lda-tangent``  closed  noise-aware LDA + the release-fitted tangent prior (opt-in; images)
``tree``         closed  scikit-learn decision tree (tabular data)
===============  ======  =================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from dpcda.util.registry import Registry


@dataclass(frozen=True)
class ModelSpec:
    name: str
    title: str
    kind: str            # "torch" (trained by the loop) or "closed" (fit in closed form)
    needs_image: bool    # True: input must be (C, H, W)
    build: Callable[..., Any]


MODELS: Registry[ModelSpec] = Registry("model")


def _spec(name: str, title: str, kind: str, needs_image: bool):
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        MODELS.add(name, ModelSpec(name, title, kind, needs_image, fn))
        return fn

    return deco


def _n_features(shape: tuple[int, ...]) -> int:
    return int(math.prod(shape))


@_spec("cnn", "CNN (DP-CDA Table 2)", "torch", True)
def _cnn(input_shape, n_classes, norm: str = "group", **_):
    from dpcda.training.nets import TableCNN

    return TableCNN(input_shape, n_classes, norm=norm)


@_spec("dpmix-cnn", "CNN (DPMix Appendix C)", "torch", True)
def _dpmix_cnn(input_shape, n_classes, **_):
    from dpcda.training.nets import DPMixCNN

    return DPMixCNN(input_shape, n_classes)


@_spec("fc", "FC100-FC100-FC10", "torch", False)
def _fc(input_shape, n_classes, **_):
    from dpcda.training.nets import FCNet

    return FCNet(_n_features(input_shape), n_classes)


@_spec("linear", "Linear softmax", "torch", False)
def _linear(input_shape, n_classes, **_):
    from dpcda.training.nets import LinearNet

    return LinearNet(_n_features(input_shape), n_classes)


@_spec("ncm", "Nearest class mean", "closed", False)
def _ncm(input_shape, n_classes, **_):
    from dpcda.training.learners import NearestClassMean

    return NearestClassMean(n_classes)


@_spec("lda", "Noise-aware LDA", "closed", False)
def _lda(input_shape, n_classes, noise_var: float = 0.0, shrinkage: float = 0.01,
         label_noise_std: float = 0.0, **_):
    from dpcda.training.learners import NoiseAwareLDA

    return NoiseAwareLDA(n_classes, noise_var=noise_var, shrinkage=shrinkage,
                         label_noise_std=label_noise_std)


@_spec("qda", "Noise-aware QDA", "closed", False)
def _qda(input_shape, n_classes, noise_var: float = 0.0, mix_factors=None, image_shape=None, **_):
    from dpcda.training.qda import NoiseAwareQDA

    return NoiseAwareQDA(n_classes, noise_var=noise_var, mix_factors=mix_factors,
                         image_shape=image_shape)


@_spec("lda-tangent", "Noise-aware LDA with the tangent prior", "closed", False)
def _lda_tangent(input_shape, n_classes, noise_var: float = 0.0, shrinkage: float = 0.01,
                 label_noise_std: float = 0.0, mix_factors=None, image_shape=None, **_):
    from dpcda.training.lda_tangent import TangentLDA

    return TangentLDA(n_classes, noise_var=noise_var, shrinkage=shrinkage,
                      label_noise_std=label_noise_std, mix_factors=mix_factors,
                      image_shape=image_shape)


@_spec("tree", "Decision tree (scikit-learn)", "closed", False)
def _tree(input_shape, n_classes, max_depth: int = 8, min_samples_leaf: int = 20,
          random_state: int | None = None, **_):
    from dpcda.training.learners import DecisionTree

    return DecisionTree(n_classes, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                        random_state=random_state)


def list_models() -> list[str]:
    return MODELS.names()


def model_spec(name: str) -> ModelSpec:
    return MODELS.get(name)


def normalize_shape(input_shape: Any) -> tuple[int, ...]:
    """(d,), (H, W) -> (1, H, W), (C, H, W); raises ValueError naming input_shape."""
    try:
        shape = tuple(int(s) for s in input_shape)
    except TypeError:
        shape = (int(input_shape),)
    if len(shape) == 2:
        shape = (1, *shape)
    if len(shape) not in (1, 3) or any(s < 1 for s in shape):
        raise ValueError(
            "input_shape must be (d,), (H, W) or (C, H, W) with positive sizes, "
            f"got input_shape={input_shape!r}"
        )
    return shape


def get_model(name: str, *, input_shape: Any, n_classes: int = 10, **options: Any) -> Any:
    """Build model ``name`` for inputs of ``input_shape`` and ``n_classes`` classes.

    Torch models come back as ``torch.nn.Module`` (logits out); closed-form ones as learners
    with ``fit``/``scores``/``predict``. ``options``: ``norm`` for ``cnn``, ``max_depth``,
    ``min_samples_leaf``, ``random_state`` for ``tree``; ``noise_var``, ``shrinkage`` for ``lda``.
    """
    spec = MODELS.get(name)
    shape = normalize_shape(input_shape)
    if spec.needs_image and len(shape) != 3:
        raise ValueError(
            f"model {name!r} needs image input (C, H, W) or (H, W); got input_shape={input_shape!r}"
        )
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got n_classes={n_classes!r}")
    return spec.build(shape, n_classes, **options)
