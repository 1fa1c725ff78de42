"""Write the Sites page's shipped files (dpcda/dashboard/sites_data.py says what they hold):

    python benchmarks/sites_page_data.py --noise      # sites_noise.csv: digits, MNIST, Fashion-MNIST
    python benchmarks/sites_page_data.py --noise --normalize dp-center   # only those rows
    python benchmarks/sites_page_data.py --previews   # sites_previews.json: digits, S = 2, 5 and 10

The noise rows are calibrated from the presets' public facts (no dataset files needed): about
half a minute each on this project's shared machine (``dp-center``: 4 s on digits, 20 s on
MNIST). Rows of the datasets and normalisations not asked for are kept as they are. The
previews release the bundled digits three times per S, calibrated under the fast
``class-aware`` RDP accountant: a minute or two.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.dashboard.sites_data import (NOISE_FIELDS, NOISE_PATH, PAGE_DATASETS,  # noqa: E402
                                        PAGE_EPSILONS, PAGE_NORMALIZE, PREVIEW_ACCOUNTANT,
                                        PREVIEWS_PATH, make_previews, measure_noise)
from sites_table import _commit  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", action="store_true")
    ap.add_argument("--previews", action="store_true")
    ap.add_argument("--datasets", default=",".join(PAGE_DATASETS))
    ap.add_argument("--normalize", default=",".join(PAGE_NORMALIZE))
    ap.add_argument("--preview-sites", default="2,5,10")
    ap.add_argument("--preview-epsilon", type=float, default=10.0)
    args = ap.parse_args()
    commit = _commit()
    if args.noise:
        rows = {}  # the rows not measured again are kept as written, commit and all
        if NOISE_PATH.exists():
            with NOISE_PATH.open() as f:
                for r in csv.DictReader(f):
                    r = {**r, "normalize": r.get("normalize") or "scale",
                         "stats_mu": r.get("stats_mu") or ""}
                    rows[(r["dataset"], float(r["epsilon"]), r["normalize"])] = r
        for norm in args.normalize.split(","):
            for ds in args.datasets.split(","):
                for eps in PAGE_EPSILONS:
                    t0 = time.perf_counter()
                    n = measure_noise(ds, eps, normalize=norm)
                    rows[(ds, eps, norm)] = {**asdict(n), "commit": commit}
                    print(f"{ds} eps={eps:g} {norm}: sigma {n.sigma_x:.4f} ({n.accountant}) "
                          f"{time.perf_counter() - t0:.0f} s", flush=True)
        order = {k: i for i, k in enumerate(PAGE_NORMALIZE + PAGE_DATASETS)}
        with NOISE_PATH.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=NOISE_FIELDS)
            w.writeheader()
            w.writerows(rows[k] for k in sorted(rows, key=lambda k: (order.get(k[2], 99),
                                                                    order.get(k[0], 99), k[1])))
    if args.previews:
        out = {"setting": {"dataset": "digits", "epsilon": args.preview_epsilon, "split": "iid",
                           "l": 4, "accountant": PREVIEW_ACCOUNTANT, "commit": commit}, "sites": {}}
        for S in (int(s) for s in args.preview_sites.split(",")):
            t0 = time.perf_counter()
            out["sites"][str(S)] = make_previews(sites=S, epsilon=args.preview_epsilon)
            print(f"previews S={S}: {time.perf_counter() - t0:.0f} s", flush=True)
        PREVIEWS_PATH.write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
