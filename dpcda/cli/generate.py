"""``python -m dpcda generate``: write a synthetic release (``.npz``) and its data card (``.json``).

    python -m dpcda generate --dataset mnist --l 4 --epsilon 10 --T 60000 --out synth.npz

torch and the data loaders are imported inside the handler, never when the parser is built.
The summary printed names epsilon, its accountant and the shapes; never a seed.
"""

from __future__ import annotations

import argparse

_MECHANISMS = ("dp-cda", "dpmix", "local", "random-projection")
_DEFAULT_ACCOUNTANT = {"dp-cda": "paper", "dpmix": "dpmix", "local": "dpmix"}
_ACCOUNTANTS = ("paper", "class-aware", "dpmix", "dpmix-low")


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
    p.add_argument("--dataset", required=True,
                   help="dataset name (mnist, fashion-mnist, cifar10, adult, digits)")
    p.add_argument("--data-dir", default=None,
                   help="folder holding the dataset files "
                        "(default: $DPCDA_DATA_DIR, then the cache)")
    p.add_argument("--mechanism", default="dp-cda", choices=_MECHANISMS,
                   help="generator (default: dp-cda)")
    p.add_argument("--l", type=int, default=None,
                   help="order of mixture (required for dp-cda and dpmix; local uses 1)")
    noise = p.add_mutually_exclusive_group(required=True)
    noise.add_argument("--epsilon", type=_number, default=None,
                       help="target epsilon: the noise is calibrated under --accountant")
    noise.add_argument("--sigma-x", type=_number, default=None, help="feature noise std")
    p.add_argument("--sigma-y", type=_number, default=None,
                   help="label noise std (with --sigma-x; default: equal to --sigma-x)")
    p.add_argument("--ratio", type=_number, default=1.0,
                   help="sigma_y / sigma_x when calibrating to --epsilon (default 1)")
    p.add_argument("--T", type=int, default=None,
                   help="number of synthetic samples (default: N, the training-set size)")
    p.add_argument("--c", type=_number, default=1.0, help="L2 clip norm (default 1)")
    p.add_argument("--delta", type=_number, default=1e-5, help="delta (default 1e-5)")
    p.add_argument("--accountant", default=None, choices=_ACCOUNTANTS,
                   help="privacy accountant (default: paper for dp-cda, dpmix for dpmix/local)")
    p.add_argument("--conversion", default="mironov", choices=("mironov", "improved"),
                   help="RDP -> (epsilon, delta) conversion (default: mironov, as published)")
    p.add_argument("--max-alpha", type=int, default=256, help="largest RDP order (default 256)")
    p.add_argument("--normalize", default=None, choices=("zscore", "scale"),
                   help="zscore (statistics from the private data, not covered by the guarantee) "
                        "or scale (public fixed range); default zscore for dp-cda, else scale")
    p.add_argument("--p", type=int, default=None,
                   help="random-projection output dimension (default min(100, d))")
    p.add_argument("--denoise", type=_number, default=None, metavar="SIGMA",
                   help="Gaussian-filter the synthetic images with this std in pixels "
                        "(post-processing, no privacy cost)")
    p.add_argument("--device", default=None,
                   help="torch device (default: cuda, then mps, then cpu)")
    p.add_argument("--out", required=True, help="output .npz path (the card goes to <stem>.json)")
    p.set_defaults(handler=_cmd_generate)


def _params(args) -> dict:
    mech = args.mechanism
    if args.sigma_y is not None and args.sigma_x is None:
        raise ValueError("--sigma-y needs --sigma-x (or give --epsilon)")
    if mech == "random-projection":
        if args.epsilon is None:
            raise ValueError("random-projection needs --epsilon (its noise is set from epsilon)")
        if args.l is not None or args.T is not None or args.accountant is not None:
            raise ValueError("random-projection releases every record once: --l, --T and "
                             "--accountant do not apply")
        kw = {"epsilon": args.epsilon, "p": args.p, "c": args.c}
    else:
        if args.p is not None:
            raise ValueError("--p applies to --mechanism random-projection only")
        if mech == "local":
            if args.l not in (None, 1):
                raise ValueError(f"local perturbation is DPMix with l = 1, got --l {args.l}")
        elif args.l is None:
            raise ValueError(f"--mechanism {mech} needs --l (the order of mixture)")
        else:
            if args.l < 1:
                raise ValueError(f"--l must be an integer >= 1, got --l {args.l}")
        kw = {"T": args.T, "accountant": args.accountant or _DEFAULT_ACCOUNTANT[mech],
              "conversion": args.conversion, "max_alpha": args.max_alpha}
        if mech != "local":
            kw["l"] = args.l
        if args.epsilon is not None:
            kw.update(epsilon=args.epsilon, ratio=args.ratio)
        else:
            kw.update(sigma_x=args.sigma_x, sigma_y=args.sigma_y)
        if mech == "dp-cda":
            kw["c"] = args.c
        elif args.c != 1.0:
            raise ValueError(f"--c does not apply to {mech} (its features are scaled to [0, 1])")
    kw["delta"] = args.delta
    if args.normalize is not None:
        kw["normalize"] = args.normalize
    kw["device"] = args.device
    return kw


def _cmd_generate(args) -> int:
    from pathlib import Path

    kw = _params(args)
    out = Path(args.out)
    if out.suffix != ".npz":
        raise ValueError(f"--out must end in .npz, got {args.out!r}")
    if not out.parent.is_dir():
        raise ValueError(f"--out: the folder {str(out.parent)!r} does not exist")
    from dpcda.data import load_dataset
    from dpcda.mechanisms import denoise, generate_from_dataset, save_npz

    ds = load_dataset(args.dataset, data_dir=args.data_dir)
    if args.mechanism == "dp-cda" and kw.get("T") is None:
        kw["T"] = ds.n_train
    rel = generate_from_dataset(ds, args.mechanism, **kw)
    if args.denoise is not None:
        rel = denoise(rel, sigma=args.denoise)
    npz, card = save_npz(rel, out)
    print(rel.summary())
    print(f"Wrote {npz} (arrays X {list(rel.X.shape)}, y {list(rel.y.shape)}, y_soft "
          f"{list(rel.y_soft.shape)}{', ' + ', '.join(rel.extras) if rel.extras else ''}) and "
          f"{card} (data card).")
    return 0
