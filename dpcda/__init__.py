"""dpcda: differentially private synthetic data by class-centric data aggregation (DP-CDA).

Importing ``dpcda`` is cheap: it never imports torch, streamlit or plotly. The privacy
accountants live in :mod:`dpcda.privacy`, datasets in :mod:`dpcda.data`, the generators in
:mod:`dpcda.mechanisms`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
