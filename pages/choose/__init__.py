"""The Choose & report page's parts (the page script is pages/choose.py)."""
