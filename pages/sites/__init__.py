"""The Sites page's parts (the page script is pages/sites.py)."""
