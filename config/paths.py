"""Where the site's own files and its working files live, in a checkout or installed as a wheel.

In a checkout (manage.py beside config/) the working files (the embedded servers'
data, the secret key, uploads) go to the checkout's ``var/``; installed from a
wheel, to ``var/`` in the directory the site is started from. ``DJANGO_VAR_DIR``
overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent
# The repository root in a checkout; site-packages when installed.
BASE_DIR = CONFIG_DIR.parent


def in_checkout() -> bool:
    return (BASE_DIR / "manage.py").exists()


def var_dir() -> Path:
    configured = os.getenv("DJANGO_VAR_DIR")
    if configured:
        return Path(configured)
    return BASE_DIR / "var" if in_checkout() else Path.cwd() / "var"
