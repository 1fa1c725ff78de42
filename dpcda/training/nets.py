"""The torch networks (this module imports torch; :mod:`dpcda.training.models` imports it lazily).

``TableCNN`` is the DP-CDA paper's Table 2 CNN, generalised to any (C, H, W) input: the
flatten size is computed (3136 for 1x28x28, 4096 for 3x32x32, 256 for 1x8x8), and max
pooling uses ``ceil_mode=True`` so odd sizes (e.g. 7x7) never shrink to nothing (for even
sizes this is identical to the paper's layer).

The normalisation layer after each convolution is selectable (``norm``):

- ``"bn"`` - BatchNorm2d exactly as published. Trained on DP-CDA releases it learns running
  statistics of noise-dominated inputs; clean test images are far from them and accuracy
  collapses (a known pitfall: Fashion-MNIST, eps = 10, l = 4 -> 0.55, 0.27, 0.10 after epochs 1-3).
- ``"bn-batch"`` - BatchNorm2d without running statistics: batch statistics are used at
  evaluation too. Works, but is transductive (a prediction depends on the other test images
  in its batch; the evaluation batch size matters).
- ``"group"`` - GroupNorm (8 groups): per-sample statistics, so train and test are normalised
  the same way with no running state. The default (see the README for the measurements).
- ``"none"`` - no normalisation layer.

Measured (Fashion-MNIST, DP-CDA l = 4, eps = 10, sigma 0.2422, 3 epochs, one run each, CPU):
group 0.6565, bn-batch 0.6555, bn 0.6487, none 0.6044, bn evaluated on test + matching noise
0.5379 (16 noise draws averaged, group: 0.6631); group + Gaussian filter (1 px) on the training
images 0.6795. Non-private (l = 1): group 0.8947, bn 0.8952 after 2 epochs; group 0.9098 after 5.
"""

from __future__ import annotations

import torch
from torch import nn


def _norm_layer(kind: str, channels: int) -> nn.Module:
    if kind == "bn":
        return nn.BatchNorm2d(channels)
    if kind == "bn-batch":
        return nn.BatchNorm2d(channels, track_running_stats=False)
    if kind == "group":
        return nn.GroupNorm(min(8, channels), channels)
    if kind == "none":
        return nn.Identity()
    raise ValueError(f"norm must be one of group, bn, bn-batch, none; got norm={kind!r}")


def _flat_size(features: nn.Module, shape: tuple[int, int, int]) -> int:
    was_training = features.training
    features.eval()
    with torch.no_grad():
        n = features(torch.zeros(1, *shape)).numel()
    features.train(was_training)
    return int(n)


class TableCNN(nn.Module):
    """DP-CDA Table 2: Conv32(5, pad 2)-ReLU-Norm-Pool-Conv64(3, pad 1)-ReLU-Norm-Pool-FC100-FC100-FC."""

    def __init__(self, input_shape: tuple[int, int, int], n_classes: int = 10, norm: str = "group",
                 dropout: float = 0.5) -> None:
        super().__init__()
        c = input_shape[0]
        self.features = nn.Sequential(
            nn.Conv2d(c, 32, 5, stride=1, padding=2), nn.ReLU(), _norm_layer(norm, 32),
            nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Conv2d(32, 64, 3, stride=1, padding=1), nn.ReLU(), _norm_layer(norm, 64),
            nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Flatten(),
        )
        self.flat = _flat_size(self.features, input_shape)
        self.classifier = nn.Sequential(
            nn.Linear(self.flat, 100), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(100, 100), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(100, n_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


class DPMixCNN(nn.Module):
    """DPMix Appendix C: Conv32(5)-Pool-Conv48(5)-Pool-FC100-FC100-FC10, ReLU, no normalisation.

    The convolutions are 'valid' (no padding) as in the thesis' Keras code (flatten 768 for
    28x28, 1200 for 32x32). For inputs smaller than 16 pixels (e.g. 8x8 digits) valid
    convolutions would leave nothing, so they use 'same' padding (2) there.
    """

    def __init__(self, input_shape: tuple[int, int, int], n_classes: int = 10) -> None:
        super().__init__()
        c, h, w = input_shape
        pad = 0 if min(h, w) >= 16 else 2
        self.features = nn.Sequential(
            nn.Conv2d(c, 32, 5, padding=pad), nn.ReLU(), nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Conv2d(32, 48, 5, padding=pad), nn.ReLU(), nn.MaxPool2d(2, 2, ceil_mode=True),
            nn.Flatten(),
        )
        self.flat = _flat_size(self.features, input_shape)
        self.classifier = nn.Sequential(
            nn.Linear(self.flat, 100), nn.ReLU(), nn.Linear(100, 100), nn.ReLU(),
            nn.Linear(100, n_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


class FCNet(nn.Module):
    """FC100-FC100-FC(n_classes) with ReLU (DPMix's network for random-projection features)."""

    def __init__(self, n_features: int, n_classes: int = 10, hidden: int = 100) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(n_features, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class LinearNet(nn.Module):
    """Linear softmax regression (logits = W x + b)."""

    def __init__(self, n_features: int, n_classes: int = 10) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(n_features, n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
