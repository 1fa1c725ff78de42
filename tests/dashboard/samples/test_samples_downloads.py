"""The Samples page's CSV download of an upload: the upload's own header comes back, never as a
spreadsheet formula (CSV formula injection), and its numbers stay numbers."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd

from dpcda.dashboard.samples.downloads import csv_zip
from dpcda.data.upload import load_upload
from dpcda.mechanisms import generate_dpcda


def test_an_uploaded_header_round_trips_without_a_formula():
    rng = np.random.default_rng(0)
    head = '"=HYPERLINK(""http://evil.example"",""x"")",@SUM(A1),-cmd,-2\n'
    cells = lambda i: ",".join(f"{v:.4f}" for v in rng.normal(size=3))  # noqa: E731
    rows = "".join(f"{'=a' if i % 2 else '+b'},{cells(i)},{-1 - i % 3}\n" for i in range(40))
    ds = load_upload(("label," + head).encode() + rows.encode(), "crafted.csv")
    assert ds.feature_names[0].startswith("=HYPERLINK")  # the page shows the names as typed
    rel = generate_dpcda(ds.X_train, ds.y_train, l=2, T=20, epsilon=10.0, normalize="none",
                         dataset=ds.name)
    with zipfile.ZipFile(io.BytesIO(csv_zip(rel, "crafted", ds.feature_names))) as z:
        text = z.read("crafted.csv").decode()
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns[1:5]) == ['\'=HYPERLINK("http://evil.example","x")', "'@SUM(A1)", "'-cmd", "-2"]
    assert not any(line.startswith(("=", "+", "@", "\t", "\r")) for line in text.split("\n"))
    X = back.iloc[:, 1:5].to_numpy()
    assert X.dtype == np.float64 and (X < 0).any()  # negative numbers are numbers
    np.testing.assert_allclose(X, rel.X, rtol=1e-5, atol=1e-6)
