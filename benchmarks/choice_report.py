"""The report for a chosen setting (issue 21, item 5): time to measure three candidates, to
build the report of the chosen one (HTML) and to print it (PDF), and the PDF's page count.

    python benchmarks/choice_report.py            # digits; MNIST too if DPCDA_DATA_DIR has it

Reads the results store of $DPCDA_HOME when it exists (accuracy of the candidates); prints one
line per dataset. The candidates: l = 4 and 16 at a target ε of 1 and 10 (whole-record, T = N,
equal split); the chosen one is B (l = 16, ε = 1).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.dashboard import candidates as cand  # noqa: E402
from dpcda.dashboard.setting import Setting  # noqa: E402
from dpcda.data import list_datasets, load_dataset  # noqa: E402
from dpcda.report.pdf import html_to_pdf, pdf_available  # noqa: E402


def main() -> None:
    from dpcda.report.measured import _open_store

    store = _open_store(None)
    for ds in ("digits", "mnist"):
        try:
            load_dataset(ds)
        except ValueError:
            print(f"{ds}: files not here, skipped")
            continue
        if ds not in list_datasets():
            continue
        settings = [Setting(dataset=ds, l=4, epsilon=10.0), Setting(dataset=ds, l=16, epsilon=1.0),
                    Setting(dataset=ds, l=16, epsilon=10.0)]
        t0 = time.perf_counter()
        cands: tuple = ()
        for s in settings:
            cands = cand.add(cands, cand.measure(s, "A", store=store))
        t1 = time.perf_counter()
        name, html = cand.choice_report(cands, "B", store=store)
        t2 = time.perf_counter()
        line = (f"{ds}: 3 candidates measured in {t1 - t0:.1f} s; report {name} built in "
                f"{t2 - t1:.1f} s ({len(html) / 1024:.0f} KiB)")
        if pdf_available():
            pdf = html_to_pdf(html)
            t3 = time.perf_counter()
            pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))
            line += f"; PDF printed in {t3 - t2:.1f} s, {pages} pages"
        print(line, flush=True)


if __name__ == "__main__":
    main()
