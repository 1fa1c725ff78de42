"""``python -m dpcda generate``: write a synthetic release (``.npz``) and its data card (``.json``).

    python -m dpcda generate --dataset mnist --l 4 --epsilon 10 --T 60000 --out synth.npz

torch and the data loaders are imported inside the handler, never when the parser is built.
The summary printed names epsilon, its accountant and the shapes; never a seed. ``--seed``
(tests, teaching) makes a reproducible release that is not private: a warning says so. The mechanism
and accountant choices, and every default, come from the mechanism registry
(:mod:`dpcda.mechanisms.spec`): a registered mechanism appears here without any edit.
"""

from __future__ import annotations

import argparse

# Command-line options that map onto a generator parameter of the same name (when declared).
_OPTIONS = {"l": "--l", "T": "--T", "c": "--c", "p": "--p", "ratio": "--ratio",
            "conversion": "--conversion", "max_alpha": "--max-alpha", "allocation": "--allocation",
            "decode": "--decode", "label_share": "--label-share"}


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def register(sub) -> None:
    p = sub.add_parser(
        "generate", help="generate a synthetic release (.npz + .json data card)",
        description="Generate a differentially private synthetic version of a dataset's training "
                    "split and write OUT (.npz: X, y, y_soft) and OUT's .json data card.")
    from dpcda.data import list_datasets

    p.add_argument("--dataset", required=True,
                   help=f"dataset name ({', '.join(list_datasets())})")
    p.add_argument("--data-dir", default=None,
                   help="folder holding the dataset files "
                        "(default: $DPCDA_DATA_DIR, then the cache)")
    from dpcda.mechanisms import ALL_NORMALIZE_CHOICES, MECHANISMS, all_accountants
    from dpcda.data.presets import clip_norm_help, dp_center_datasets

    defaults = "; ".join(f"{m}: {MECHANISMS.get(m).default_accountant}" for m in MECHANISMS)
    p.add_argument("--mechanism", default="dp-cda", choices=MECHANISMS.names(),
                   help="generator (default: dp-cda)")
    p.add_argument("--l", type=int, default=None,
                   help="order of mixture (required by the mixing mechanisms)")
    noise = p.add_mutually_exclusive_group(required=True)
    noise.add_argument("--epsilon", type=_number, default=None,
                       help="target epsilon: the noise is calibrated under --accountant")
    noise.add_argument("--sigma-x", type=_number, default=None, help="feature noise std")
    p.add_argument("--sigma-y", type=_number, default=None,
                   help="label noise std (with --sigma-x; default: equal to --sigma-x)")
    p.add_argument("--ratio", type=_number, default=None,
                   help="sigma_y / sigma_x when calibrating to --epsilon (default 1)")
    p.add_argument("--T", type=int, default=None,
                   help="number of synthetic samples (default: N, the training-set size)")
    p.add_argument("--c", type=_number, default=None,
                   help=f"L2 clip norm (default: {clip_norm_help()})")
    p.add_argument("--delta", type=_number, default=1e-5, help="delta (default 1e-5)")
    p.add_argument("--accountant", default=None, choices=all_accountants(),
                   help=f"privacy accountant (default, a valid bound for each: {defaults}); "
                        "paper: as published (for reproducing the paper's tables), not a bound "
                        "for this implementation")
    p.add_argument("--allocation", default=None, choices=("equal", "proportional"),
                   help="dp-cda: samples per class, proportional to the public class bounds "
                        "(floor(T n_k / sum n)) or equal (floor(T/K)); default: "
                        + MECHANISMS.get("dp-cda").param("allocation").default)
    p.add_argument("--label-share", type=_number, default=None,
                   help="dp-cda, whole-record, data without published class counts: the share "
                        "of epsilon spent on a DP label histogram (in (0, 1); default "
                        f"{MECHANISMS.get('dp-cda').param('label_share').default})")
    decoders = [m for m in MECHANISMS if "decode" in MECHANISMS.get(m).param_names]
    p.add_argument("--decode", default=None,
                   choices=sorted({c for m in decoders for c in MECHANISMS.get(m).param("decode").choices}),
                   help=f"{', '.join(decoders)}: how a one-hot segment (tabular data) picks its category "
                        "after mixing (post-processing, no privacy cost); default: "
                        + "; ".join(f"{m}: {MECHANISMS.get(m).param('decode').default}" for m in decoders))
    p.add_argument("--conversion", default=None, choices=("mironov", "improved"),
                   help="RDP -> (epsilon, delta) conversion (default: mironov, as published)")
    p.add_argument("--max-alpha", type=int, default=None, help="largest RDP order (default 256)")
    norms = "; ".join(f"{m}: {MECHANISMS.get(m).default_normalize}" for m in MECHANISMS)
    p.add_argument("--normalize", default=None, choices=ALL_NORMALIZE_CHOICES,
                   help="scale (public fixed range, covered by the guarantee), zscore (statistics "
                        "from the private data, not covered by the guarantee), none, or dp-center "
                        "(dp-cda only: mean estimated under DP, composed into epsilon); default per "
                        f"mechanism ({norms}), except dp-cda on {' and '.join(dp_center_datasets())} "
                        "under class-aware-pld: dp-center (measured)")
    p.add_argument("--p", type=int, default=None,
                   help="random-projection output dimension (default min(100, d))")
    p.add_argument("--denoise", type=_number, default=None, metavar="SIGMA",
                   help="Gaussian-filter the synthetic images with this std in pixels "
                        "(post-processing, no privacy cost)")
    p.add_argument("--device", default=None,
                   help="torch device (default: cuda, then mps, then cpu)")
    p.add_argument("--out", required=True, help="output .npz path (the card goes to <stem>.json)")
    p.add_argument("--seed", type=int, default=None,
                   help="tests and teaching only: a reproducible release that is NOT private "
                        "(anyone who knows the seed replays every draw; the card says seeded: "
                        "true). Default: fresh randomness from the operating system")
    p.set_defaults(handler=_cmd_generate)


def _params(args) -> dict:
    """The generator's keyword arguments, checked against the mechanism's declared parameters."""
    from dpcda.mechanisms import MECHANISMS

    mech = MECHANISMS.get(args.mechanism)
    names = set(mech.param_names)
    if args.sigma_y is not None and args.sigma_x is None:
        raise ValueError("--sigma-y needs --sigma-x (or give --epsilon)")
    if args.sigma_x is not None and not mech.noise_scale:
        raise ValueError(f"{mech.name} needs --epsilon (its noise is set from epsilon)")
    if args.epsilon is not None and not mech.target_epsilon:
        raise ValueError(f"{mech.name} takes a fixed noise scale (--sigma-x), not --epsilon")
    kw: dict = {}
    for name, opt in _OPTIONS.items():
        value = getattr(args, name.replace("-", "_"))
        if value is None:
            continue
        if name not in names:
            if name == "l" and value == 1:
                continue  # l = 1: "no mixing", what a non-mixing mechanism does anyway
            raise ValueError(f"{opt} does not apply to --mechanism {mech.name} (its parameters: "
                             f"{', '.join(mech.param_names)})")
        kw[name] = mech.param(name).check(value)
    for p in mech.params:
        if p.required and p.name not in kw and p.name not in ("epsilon",):
            opt = _OPTIONS.get(p.name, "--" + p.name)
            raise ValueError(f"--mechanism {mech.name} needs {opt} ({p.doc or p.name})")
    kw["accountant"] = mech.check_accountant(args.accountant)
    if "accountant" not in names:
        del kw["accountant"]
    if args.epsilon is not None:
        kw["epsilon"] = args.epsilon
    else:
        kw.update(sigma_x=args.sigma_x, sigma_y=args.sigma_y)
    kw["delta"] = args.delta
    if args.normalize is not None:
        kw["normalize"] = args.normalize
    kw["device"] = args.device
    if args.seed is not None:
        if args.seed < 0:
            raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
        kw["seed"] = args.seed
    return kw


def _cmd_generate(args) -> int:
    from dpcda.cli.outpath import check_out
    from dpcda.experiments.preflight import check_numbers

    kw = _params(args)
    check_numbers(epsilon=args.epsilon, sigma_x=args.sigma_x, sigma_y=args.sigma_y, c=args.c,
                  T=args.T)
    out = check_out(args.out, suffix=".npz")  # before any work: a folder, a read-only place
    check_out(out.with_suffix(".json"), option="--out's data card")
    from dpcda.data import load_dataset
    from dpcda.mechanisms import denoise, generate_from_dataset, save_npz

    if args.seed is not None:
        import sys

        print("warning: --seed makes a reproducible release that is NOT private: anyone who "
              "knows the seed can replay its noise and recover the records; its card says "
              "seeded: true", file=sys.stderr)
    ds = load_dataset(args.dataset, data_dir=args.data_dir)
    if "T" in _mech_params(args) and kw.get("T") is None:
        kw["T"] = ds.n_train
    rel = generate_from_dataset(ds, args.mechanism, **kw)
    if args.denoise is not None:
        rel = denoise(rel, sigma=args.denoise)
    npz, card = _save(save_npz, rel, out)
    print(rel.summary())
    print(f"Wrote {npz} (arrays X {list(rel.X.shape)}, y {list(rel.y.shape)}, y_soft "
          f"{list(rel.y_soft.shape)}{', ' + ', '.join(rel.extras) if rel.extras else ''}) and "
          f"{card} (data card).")
    return 0


def _mech_params(args) -> tuple[str, ...]:
    from dpcda.mechanisms import MECHANISMS

    return MECHANISMS.get(args.mechanism).param_names


def _save(save_npz, rel, out):
    """Write the release and its card into a fresh folder beside ``out``, then rename both
    into place: a failure (a full disk) leaves neither half-written. OSError: one line."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from dpcda.cli.outpath import translated

    with translated(out):
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.stem}.", dir=out.parent))
        try:
            npz, card = (Path(p) for p in save_npz(rel, tmp / out.name))
            os.replace(card, out.with_name(card.name))
            os.replace(npz, out.with_name(npz.name))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out.with_name(npz.name), out.with_name(card.name)
