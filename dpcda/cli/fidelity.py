"""``python -m dpcda fidelity``: how far a saved release's marginals are from the real test split.

    python -m dpcda fidelity --dataset adult --release synth.npz --json

Tables: one entry per column, total-variation distance for categorical columns (one-hot
segments and the label), Wasserstein-1 over the real column's range for numeric ones. Images:
per-class relative L2 distance between mean images. The real test rows are brought into the
release's space from its data card (:func:`dpcda.evaluation.fidelity.real_in_release_space`).
"""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "fidelity", help="compare a release's marginals with the real test split",
        description="Per-column distance between a saved release (.npz + .json card) and the "
                    "real test split of its dataset: TV for categorical columns, normalised "
                    "Wasserstein-1 for numeric ones; per-class mean images for image data.")
    from dpcda.data import list_datasets

    p.add_argument("--dataset", required=True, help=f"dataset name ({', '.join(list_datasets())})")
    p.add_argument("--data-dir", default=None, help="folder holding the dataset files")
    p.add_argument("--release", required=True, help="release .npz written by generate")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_cmd_fidelity)


def _cmd_fidelity(args) -> int:
    import json

    from dpcda.data import load_dataset
    from dpcda.evaluation.fidelity import TabularFidelity, release_fidelity
    from dpcda.mechanisms import load_npz

    _check_files(args.release)
    rel = load_npz(args.release)
    ds = load_dataset(args.dataset, data_dir=args.data_dir)
    card_ds = rel.card.get("dataset") or (rel.card.get("data") or {}).get("dataset")
    if card_ds not in (None, ds.name):
        raise ValueError(f"--release was generated from {card_ds!r}, not --dataset {ds.name!r}")
    rep = release_fidelity(rel, ds)
    out = rep.to_dict()
    if args.json:
        print(json.dumps(out, allow_nan=False))
        return 0
    print(f"Fidelity of {args.release} against the real test split of {ds.name} "
          f"({out['space']}).")
    rows = out["columns"] if isinstance(rep, TabularFidelity) else out["classes"]
    for r in rows:
        dist = "n/a" if r["distance"] is None else f"{r['distance']:.3f}"
        kind = r.get("kind", "class mean image")
        print(f"  {r['name']:<24} {kind:<16} {dist:>7}")
    for w in rep.warnings:
        print(f"warning [{w.code}]: {w.text}")
    return 0


MAX_CARD_BYTES = 16 << 20  # a data card is a few KB of JSON


def _check_files(release: str) -> None:
    """Before anything is read: the release's arrays within the limits of
    :mod:`dpcda.data.array_limits` (by their headers), its card a plausible size."""
    from pathlib import Path

    from dpcda.data.array_limits import check_arrays

    npz = Path(release)
    npz = npz if npz.suffix == ".npz" else npz.with_name(npz.name + ".npz")  # as load_npz
    if not npz.is_file():
        return  # load_npz says "no release file"
    check_arrays(npz, what=f"--release {str(npz)!r}")
    card = npz.with_suffix(".json")
    if card.is_file() and card.stat().st_size > MAX_CARD_BYTES:
        raise ValueError(f"--release's data card {str(card)!r} is {card.stat().st_size:,} bytes; "
                         f"a data card is at most {MAX_CARD_BYTES:,} bytes")
