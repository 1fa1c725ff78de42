"""The Samples page's parts (the page script is pages/samples.py)."""
