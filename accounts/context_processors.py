from __future__ import annotations


def site_user(request) -> dict:
    """Navigation data every page needs."""
    return {}
