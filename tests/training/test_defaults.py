"""model="auto": the project's default learner per setting (dpcda.training.default_model)."""

import pytest

from dpcda.training import AUTO, default_model, list_models


@pytest.mark.parametrize("dataset, image_shape, private, expected", [
    ("fashion-mnist", (1, 28, 28), True, "lda"),    # noise-aware LDA: qda (opt-in) loses at epsilon = 1
    ("fashion-mnist", (1, 28, 28), False, "cnn"),   # the CNN is best without noise
    ("mnist", (1, 28, 28), True, "lda"),
    ("mnist", (1, 28, 28), False, "cnn"),
    ("cifar10", (3, 32, 32), True, "lda"),
    ("cifar10", (3, 32, 32), False, "cnn"),
    ("digits", (1, 8, 8), True, "ncm"),             # too few records a class for LDA's covariance
    ("digits", (1, 8, 8), False, "lda"),
    ("adult", None, True, "tree"),                  # tabular: the paper's learner
    ("adult", None, False, "tree"),
    ("my-upload", None, True, "tree"),              # any dataset without an image shape
    ("my-images", (1, 16, 16), True, "lda"),        # an image upload follows the image rule
])
def test_default_model_per_setting(dataset, image_shape, private, expected):
    got = default_model(dataset=dataset, image_shape=image_shape, private=private)
    assert got == expected
    assert got in list_models() and got != AUTO  # always a concrete, registered model


def test_default_model_is_keyword_only_and_checks_the_name():
    with pytest.raises(TypeError):
        default_model("mnist", (1, 28, 28), True)  # type: ignore[misc]
    with pytest.raises(ValueError, match="dataset must be a dataset name, got dataset=None"):
        default_model(dataset=None, image_shape=None, private=True)  # type: ignore[arg-type]
