"""The layers of CONTRIBUTING.md's map hold: import-linter's contracts in pyproject.toml.

engines <- ai <- games (store <- services <- live/web) <- ratings/chat <- tournaments; the
engines and the computer players import no Django; no import circle inside games.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def test_every_import_contract_in_pyproject_is_kept() -> None:
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout
