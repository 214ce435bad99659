"""Tests of the production layout (deploy/) itself, run only inside it:

    python -m launch --deploy-check -- python -m pytest tests/deploy

The deploy check sets DEPLOY_LAYOUT (its layout.json: nginx's URL, the daphne
processes) and SITE_URL; without them these tests are skipped with that reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
LAYOUT = os.environ.get("DEPLOY_LAYOUT", "")
REASON = (
    "needs the running production layout: python -m launch --deploy-check -- python -m pytest tests/deploy"
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.deploy)
            if not LAYOUT:
                item.add_marker(pytest.mark.skip(reason=REASON))


def read_layout() -> dict:
    """layout.json as it is now (the check rewrites it when it restarts a process)."""
    return json.loads(Path(LAYOUT).read_text())


@pytest.fixture
def layout() -> dict:
    return read_layout()
