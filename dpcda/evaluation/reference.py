"""The DP-CDA paper's reported accuracies as data (for overlays and "paper vs ours" tables).

Source: the DP-CDA paper, latest version (cited in docs/specification.md): Table 3 (MNIST, Fashion-MNIST,
CIFAR-10; Table 2 CNN; mean +- std over 10 runs), Table 4 (UCI Adult; decision tree) and
Table 5 (comparison at equal epsilon). The paper does not state T, c or delta for these
runs, nor its accountant's conversion beyond Theorem 1 (Mironov). ``tests/evaluation/test_reference.py``
re-parses the paper text and checks every number here.

No numpy, pandas or torch: plain frozen dataclasses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INF = math.inf
DATASETS = ("mnist", "fashion-mnist", "cifar10", "adult")
TABLE3_LS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
SOURCE = "DP-CDA paper (latest version)"


@dataclass(frozen=True)
class PaperResult:
    """One reported cell: test accuracy of ``method`` on ``dataset`` at ``epsilon``."""

    table: int            # 3, 4 or 5
    dataset: str          # one of DATASETS
    method: str           # "DP-CDA", "DP-Mix", "GS-WGAN", ...
    epsilon: float        # math.inf for the non-private column
    accuracy: float       # mean test accuracy
    std: float | None = None   # std over runs (Tables 3-4); None in Table 5
    l: int | None = None       # order of mixture (Tables 3-4)
    learner: str = ""          # "cnn" (Table 2 CNN), "tree", or "" (not stated)


# (dataset, l, (mean, std) at eps=inf, eps=20, eps=10)
_TABLE3 = (
    ("mnist", 1, (0.9885, 0.0006), (0.1080, 0.0055), (0.1081, 0.0055)),
    ("mnist", 2, (0.9746, 0.0011), (0.6722, 0.1153), (0.7076, 0.0480)),
    ("mnist", 4, (0.9462, 0.0031), (0.7808, 0.0149), (0.7807, 0.0188)),
    ("mnist", 8, (0.9045, 0.0064), (0.7802, 0.0011), (0.7673, 0.0156)),
    ("mnist", 16, (0.8607, 0.0052), (0.7691, 0.0183), (0.7585, 0.0165)),
    ("mnist", 32, (0.8237, 0.0106), (0.7577, 0.0156), (0.6738, 0.1929)),
    ("mnist", 64, (0.7962, 0.0091), (0.7175, 0.0254), (0.6319, 0.1777)),
    ("mnist", 128, (0.7829, 0.0176), (0.6656, 0.0472), (0.5431, 0.2180)),
    ("mnist", 256, (0.7693, 0.0189), (0.3620, 0.2573), (0.3403, 0.2010)),
    ("mnist", 512, (0.7603, 0.0181), (0.2597, 0.1351), (0.1575, 0.0877)),
    ("fashion-mnist", 1, (0.9064, 0.0017), (0.3886, 0.1910), (0.3619, 0.1451)),
    ("fashion-mnist", 2, (0.8851, 0.0026), (0.6712, 0.0122), (0.6655, 0.0105)),
    ("fashion-mnist", 4, (0.8454, 0.0033), (0.6791, 0.0061), (0.6748, 0.0052)),
    ("fashion-mnist", 8, (0.7881, 0.0031), (0.6719, 0.0059), (0.6703, 0.0095)),
    ("fashion-mnist", 16, (0.7370, 0.0091), (0.6652, 0.0058), (0.6653, 0.0093)),
    ("fashion-mnist", 32, (0.6970, 0.0118), (0.6542, 0.0159), (0.6629, 0.0049)),
    ("fashion-mnist", 64, (0.6579, 0.0162), (0.6538, 0.0116), (0.6498, 0.0071)),
    ("fashion-mnist", 128, (0.6435, 0.0209), (0.6532, 0.0107), (0.6399, 0.0184)),
    ("fashion-mnist", 256, (0.6273, 0.0209), (0.5966, 0.2124), (0.6203, 0.0146)),
    ("fashion-mnist", 512, (0.6181, 0.0221), (0.5243, 0.0149), (0.4574, 0.1811)),
    ("cifar10", 1, (0.7210, 0.0035), (0.1001, 0.0000), (0.1001, 0.0000)),
    ("cifar10", 2, (0.6816, 0.0057), (0.1994, 0.0602), (0.1922, 0.0523)),
    ("cifar10", 4, (0.6241, 0.0068), (0.2315, 0.0449), (0.2313, 0.0455)),
    ("cifar10", 8, (0.5517, 0.0070), (0.2258, 0.0435), (0.1828, 0.0681)),
    ("cifar10", 16, (0.4503, 0.0105), (0.1761, 0.0657), (0.1860, 0.0580)),
    ("cifar10", 32, (0.3758, 0.0076), (0.1938, 0.0542), (0.2026, 0.0523)),
    ("cifar10", 64, (0.3376, 0.0108), (0.2001, 0.0515), (0.1854, 0.0570)),
    ("cifar10", 128, (0.3031, 0.0077), (0.1579, 0.0498), (0.1341, 0.0457)),
    ("cifar10", 256, (0.2758, 0.0100), (0.1449, 0.0455), (0.1390, 0.0378)),
    ("cifar10", 512, (0.2574, 0.0068), (0.1146, 0.0299), (0.1061, 0.0179)),
)

# UCI Adult, decision tree: (l, (mean, std) at eps=inf, eps=20, eps=10)
_TABLE4 = (
    (1, (0.7030, 0.0169), (0.6398, 0.0164), (0.6517, 0.0198)),
    (2, (0.6084, 0.0302), (0.5750, 0.0259), (0.5589, 0.0193)),
    (4, (0.6582, 0.0403), (0.5942, 0.0307), (0.5855, 0.0251)),
    (8, (0.7115, 0.0181), (0.6497, 0.0302), (0.6344, 0.0435)),
    (16, (0.6941, 0.0264), (0.7278, 0.0367), (0.7114, 0.0263)),
    (32, (0.7433, 0.0281), (0.7595, 0.0150), (0.7776, 0.0078)),
    (64, (0.7531, 0.0185), (0.7866, 0.0103), (0.7821, 0.0143)),
    (128, (0.7167, 0.0297), (0.7666, 0.0179), (0.7634, 0.0221)),
    (256, (0.6657, 0.0403), (0.7363, 0.0255), (0.7561, 0.0154)),
    (512, (0.6950, 0.0623), (0.7129, 0.0034), (0.7135, 0.0035)),
)

# Table 5 columns: MNIST eps 20/10, Fashion-MNIST eps 20/10, CIFAR-10 eps 30/20; None = "-"
TABLE5_COLUMNS = (("mnist", 20.0), ("mnist", 10.0), ("fashion-mnist", 20.0),
                  ("fashion-mnist", 10.0), ("cifar10", 30.0), ("cifar10", 20.0))
_TABLE5 = (
    ("Random Projection", (0.104, 0.100, None, None, 0.101, None), ""),
    ("Local Perturbation", (0.098, 0.098, None, None, 0.100, None), ""),
    ("DP-Mix", (0.800, 0.782, None, None, 0.269, 0.244), "O(T l (d_x + d_y))"),
    ("G-PATE", (None, 0.510, None, 0.500, None, None), ""),
    ("DP-Merf", (None, 0.630, None, 0.620, None, None), ""),
    ("GS-WGAN", (None, 0.800, None, 0.650, None, None), ""),
    ("DP-CDA", (0.796, 0.795, 0.685, 0.680, 0.276, 0.276), "O(T l d_x)"),
)
TABLE5_COMPLEXITY = {name: cx for name, _, cx in _TABLE5 if cx}
TABLE5_NOTES = {
    "DP-Mix": "Fashion-MNIST not reported: the paper says DPMix's epsilon computation was "
              "numerically unstable there, so the noise could not be calibrated.",
}

_EPS = (INF, 20.0, 10.0)


def _build() -> tuple[PaperResult, ...]:
    out: list[PaperResult] = []
    for ds, l, *cells in _TABLE3:
        for eps, (m, s) in zip(_EPS, cells):
            out.append(PaperResult(3, ds, "DP-CDA", eps, m, s, l, "cnn"))
    for l, *cells in _TABLE4:
        for eps, (m, s) in zip(_EPS, cells):
            out.append(PaperResult(4, "adult", "DP-CDA", eps, m, s, l, "tree"))
    for name, values, _ in _TABLE5:
        for (ds, eps), v in zip(TABLE5_COLUMNS, values):
            if v is not None:
                out.append(PaperResult(5, ds, name, eps, v))
    return tuple(out)


RESULTS: tuple[PaperResult, ...] = _build()


def _check_dataset(dataset: str, allowed: tuple[str, ...]) -> None:
    if dataset not in allowed:
        raise ValueError(f"dataset must be one of {', '.join(allowed)}; got dataset={dataset!r}")


def table3(dataset: str) -> list[PaperResult]:
    """Table 3 rows for ``dataset`` (mnist, fashion-mnist, cifar10), ordered by l then epsilon."""
    _check_dataset(dataset, DATASETS[:3])
    return [r for r in RESULTS if r.table == 3 and r.dataset == dataset]


def table4() -> list[PaperResult]:
    """Table 4 (UCI Adult, decision tree), ordered by l then epsilon (inf, 20, 10)."""
    return [r for r in RESULTS if r.table == 4]


def table5(dataset: str | None = None) -> list[PaperResult]:
    """Table 5 (all methods at equal epsilon); only the reported (non-"-") cells."""
    if dataset is not None:
        _check_dataset(dataset, DATASETS[:3])
    return [r for r in RESULTS if r.table == 5 and (dataset is None or r.dataset == dataset)]


@dataclass(frozen=True)
class ThesisResult:
    """One cell of the thesis's Table 4.2 (section 4.2.2; cited in docs/specification.md): test
    accuracy of its CNN on MNIST, class-wise mixing with a *fixed* noise scale sigma_x = sigma_y (not a target
    epsilon). Its setup (section 4.2.1): features scaled to [0, 1], T = 12,000 (1,200 per digit),
    n taken as 6,000, delta = 1/n, noisy soft labels with a KL loss; its epsilon uses orders
    alpha >= 2. Its accuracy-versus-sigma (Fig. 4.3) and versus-T (Fig. 4.5) results are figures
    only, with no numbers in the text, so they cannot be overlaid."""

    dataset: str
    l: int
    sigma: float
    T: int
    accuracy: float


THESIS_SOURCE = "thesis, Table 4.2"
THESIS_TABLE_4_2: tuple[ThesisResult, ...] = tuple(
    ThesisResult("mnist", l, 0.7, 12000, acc)
    for l, acc in ((32, 0.7750), (64, 0.7760), (128, 0.7930), (256, 0.7870), (512, 0.7860)))


def thesis_cells(dataset: str, sigma: float) -> list[ThesisResult]:
    """The thesis's Table 4.2 cells at this dataset and fixed sigma (empty if it has none)."""
    return [r for r in THESIS_TABLE_4_2 if r.dataset == dataset and math.isclose(r.sigma, sigma)]


def paper_accuracy(dataset: str, l: int, epsilon: float) -> PaperResult:
    """The Table 3/4 cell for (dataset, l, epsilon); ValueError if the paper has none."""
    _check_dataset(dataset, DATASETS)
    for r in RESULTS:
        if r.table in (3, 4) and r.dataset == dataset and r.l == l and r.epsilon == float(epsilon):
            return r
    raise ValueError(
        f"the paper reports no cell for dataset={dataset!r}, l={l!r}, epsilon={epsilon!r} "
        f"(l in {TABLE3_LS}, epsilon in inf, 20, 10)"
    )


def best_l(dataset: str, epsilon: float) -> PaperResult:
    """The paper's best-l cell (the bold one) for a dataset and epsilon column."""
    rows = [r for r in RESULTS if r.table in (3, 4) and r.dataset == dataset and r.epsilon == float(epsilon)]
    if not rows:
        raise ValueError(f"no Table 3/4 column for dataset={dataset!r}, epsilon={epsilon!r}")
    return max(rows, key=lambda r: r.accuracy)
