"""``python -m dpcda generate --mechanism dp-merf`` on scikit-learn's digits."""

from __future__ import annotations

import json

import numpy as np

from dpcda.cli import main


def test_generate_dp_merf_writes_release_and_card(tmp_path, capsys, monkeypatch):
    import dpcda.mechanisms.dp_merf as dm

    real = dm.fit_generator
    monkeypatch.setattr(dm, "fit_generator", lambda *a, **k: real(*a, **{**k, "steps": 30}))
    out = tmp_path / "merf.npz"
    assert main(["generate", "--dataset", "digits", "--mechanism", "dp-merf", "--epsilon", "1",
                 "--T", "300", "--out", str(out)]) == 0
    with np.load(out) as z:
        assert z["X"].shape == (300, 64) and z["y_soft"].shape == (300, 10)
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["algorithm"] == "dp-merf" and card["privacy"]["accountant"] == "embedding-gaussian"
    assert card["privacy"]["epsilon"] <= 1 and card["privacy"]["valid_bound"] is True
    assert card["data"]["class_counts"] is None
    text = capsys.readouterr().out
    assert "DP-MERF" in text and "seed" not in text.lower()


def test_generate_dp_merf_rejects_what_does_not_apply(capsys):
    assert main(["generate", "--dataset", "digits", "--mechanism", "dp-merf", "--epsilon", "1",
                 "--l", "4", "--out", "x.npz"]) == 2
    assert "--l does not apply to --mechanism dp-merf" in capsys.readouterr().err
    assert main(["generate", "--dataset", "digits", "--mechanism", "dp-merf", "--sigma-x", "1",
                 "--out", "x.npz"]) == 2
    assert "dp-merf needs --epsilon" in capsys.readouterr().err
