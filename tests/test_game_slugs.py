"""The site learns its games from the registry (games/kinds), not by naming them.

A game's slug, quoted, may appear only in that game's own files: the files named after it
(games/engines/<slug>.py, games/ai/<slug>.py and their parts <slug>_<part>.py, games/kinds/<slug>.py, its rules page
games/templates/games/rules/<slug>.html, its renderer config/static/js/play/<slug>.js), in
migrations, and outside the site's packages (tests, docs, locale, bench/, bots/). Anything
else asks ``games.kinds`` (``kind_of``, ``KINDS``, ``choices``), so a sixth game touches no
shared file.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ("config", "games", "accounts", "ratings", "chat", "tournaments", "api", "launch")
SLUGS = ("reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe")
QUOTED_SLUG = re.compile(r"""["'](""" + "|".join(SLUGS) + r""")["']""")

# What is left to move behind the registry, counted per file. It may only shrink: a file that
# drops a literal must drop it here too (the test wants the counts exact), and no file may join.
LEFT = {
    # The record format's example header: documentation, no special case.
    "games/engines/record.py": 1,
}


def own_file(path: Path, slug: str) -> bool:
    # <slug>_<part>.py: a game's module split by concern (CONTRIBUTING.md, "Adding a game").
    return path.stem == slug or path.stem.startswith(f"{slug}_") or "migrations" in path.parts


def slug_literals(root: Path = ROOT) -> Counter[str]:
    found: Counter[str] = Counter()
    for package in SITE:
        for path in (root / package).rglob("*"):
            if path.suffix not in {".py", ".html", ".js"} or "vendor" in path.parts:
                continue
            for match in QUOTED_SLUG.finditer(path.read_text(encoding="utf-8")):
                if not own_file(path, match.group(1)):
                    found[path.relative_to(root).as_posix()] += 1
    return found


def test_no_shared_file_names_a_game_beyond_the_shrinking_list_of_what_is_left():
    found = slug_literals()
    new = {path: count for path, count in found.items() if count > LEFT.get(path, 0)}
    assert not new, f"these files name a game: ask games.kinds instead: {new}"
    stale = {path: (LEFT[path], found.get(path, 0)) for path in LEFT if found.get(path, 0) < LEFT[path]}
    assert not stale, f"fewer literals than the list says (listed, found): shrink LEFT: {stale}"


def test_the_check_sees_a_game_named_in_a_shared_template_but_not_in_its_own_files(tmp_path):
    # A Four Tac Toe special case in a shared page is caught; the game's own engine may name it.
    shared = tmp_path / "games" / "templates" / "games" / "play.html"
    own = tmp_path / "games" / "engines" / "four_tac_toe.py"
    for path in (shared, own):
        path.parent.mkdir(parents=True)
    shared.write_text('{% if game.game == "four_tac_toe" %}lines{% endif %}', encoding="utf-8")
    own.write_text('slug = "four_tac_toe"\n', encoding="utf-8")
    assert slug_literals(tmp_path) == {"games/templates/games/play.html": 1}
