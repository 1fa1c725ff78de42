"""Models and the fast training loop (train on a release, test on the real test split).

``import dpcda.training`` is cheap: torch is imported only when a torch model is built or
trained. Entry points::

    from dpcda.training import TrainConfig, train_and_evaluate, list_models, get_model
    cfg = TrainConfig(model="cnn", epochs=5)
    res = train_and_evaluate(X_syn, y_syn, X_test, y_test, image_shape=(1, 28, 28), config=cfg)
    res["accuracy"], res["per_epoch"], res["samples_per_s"], res["device"]
    default_model(dataset="fashion-mnist", image_shape=(1, 28, 28), private=True)  # "lda"
"""

from dpcda.training.config import CNN_NORMS, LABEL_MODES, SCHEDULERS, TrainConfig
from dpcda.training.defaults import AUTO, default_model
from dpcda.training.loop import pick_device, train_and_evaluate
from dpcda.training.models import MODELS, ModelSpec, get_model, list_models, model_spec

__all__ = ["AUTO", "CNN_NORMS", "LABEL_MODES", "MODELS", "ModelSpec", "SCHEDULERS", "TrainConfig",
           "default_model", "get_model", "list_models", "model_spec", "pick_device", "train_and_evaluate"]
