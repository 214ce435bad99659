"""The README works from a fresh clone: its links stay inside the repository, its first-run line honours PORT."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]


def test_every_relative_link_and_path_in_the_docs_exists_in_the_repository():
    for doc in DOCS:
        text = doc.read_text()
        targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text) + re.findall(r"`(\.\./[^`]+)`", text)
        for target in targets:
            if re.match(r"[a-z]+://", target):
                continue
            path = (doc.parent / target).resolve()
            assert path.is_relative_to(ROOT), f"{doc.name} points outside the repository: {target}"
            assert path.exists(), f"{doc.name} links a missing file: {target}"


def test_the_first_run_line_names_the_port_it_listens_on():
    readme = (ROOT / "README.md").read_text()
    run_line = readme[readme.index("make run     #") : readme.index("make test")]
    assert "$PORT" in run_line and "HOST" in run_line
