"""The explorer page's checks beside scripts/check_explorer.py: the browser they share and the phone check."""
