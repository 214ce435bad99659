"""Where the published test vectors live (tests/data/README.md says where each came from)."""

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
