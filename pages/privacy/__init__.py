"""The Privacy page's parts (the page script is pages/privacy.py)."""
