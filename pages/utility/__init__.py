"""The Utility page's parts (the page script is pages/utility.py)."""
