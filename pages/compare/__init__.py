"""The Compare page's parts (the page script is pages/compare.py)."""
