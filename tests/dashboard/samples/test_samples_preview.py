"""The Samples page's live preview, computed (dpcda.dashboard.samples.preview)."""

from __future__ import annotations

import numpy as np

from dpcda.dashboard.samples import Noise, preview_pictures, preview_text, release_preprocessor
from dpcda.data import load_dataset


def test_every_row_is_full_even_where_label_noise_moves_released_labels():
    ds = load_dataset("digits")
    pre = release_preprocessor(ds, "scale", 1.0)
    pics = preview_pictures(ds, pre, l=4, c=1.0, noise=Noise(0.5, 1.0, sigma_y=10.0), per_class=6)
    assert pics.counts.tolist() == [6] * 10  # one full row per class mixed
    assert pics.grid.shape[0] == 10 * 8 + 11 and np.asarray(pics.grid).std() > 5


def test_the_preview_text_names_the_rows_and_what_it_is_not():
    text = preview_text(per_class=8, class_names=("0", "1", "2"), n_classes=3, T=60000, seconds=9.6)
    assert "8 samples of each class, rows top to bottom: 0, 1, 2" in text
    assert "not part of the release" in text and "T = 60,000" in text and "about 10 s" in text
    assert "the first 2 of 3 classes" in preview_text(per_class=8, class_names=("a", "b"),
                                                       n_classes=3, T=10, seconds=1)
