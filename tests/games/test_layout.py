"""How the games app is put together: no import circles, and the Game row stays writable by rows.py."""

from __future__ import annotations

import ast
from pathlib import Path

from django.db import models

from games.models import Game

GAMES = Path(__file__).resolve().parents[2] / "games"


def module_name(path: Path) -> str:
    parts = path.relative_to(GAMES.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The games modules ``path`` imports, anywhere in the file (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            # "from games.services import queue" imports the submodule games.services.queue.
            names = [
                f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                for alias in node.names
            ]
        else:
            continue
        found.update(name for name in names if name in modules)
    return found


def test_no_module_of_games_imports_itself_round_a_circle():
    paths = {module_name(path): path for path in GAMES.rglob("*.py") if "migrations" not in path.parts}
    modules = set(paths)
    graph = {name: imports_of(path, modules) - {name} for name, path in paths.items()}

    def is_package_of(parent: str, child: str) -> bool:
        return child.startswith(parent + ".")

    circles = []
    for start in graph:
        stack = [(start, [start])]
        while stack:
            node, trail = stack.pop()
            for target in graph[node]:
                # A package's __init__ importing its own submodules is how packages work.
                if is_package_of(node, target) or is_package_of(target, node):
                    continue
                if target == start:
                    circles.append(" -> ".join([*trail, target]))
                elif target not in trail and len(trail) < 8:
                    stack.append((target, [*trail, target]))
    assert circles == []


def test_the_game_row_keeps_no_save_override_auto_now_or_signals_that_rows_py_would_skip():
    # games/store/rows.py writes Game rows with precompiled SQL (measured +20 % moves/s).
    assert Game.save is models.Model.save, "Game.save is overridden: rows.save_game would bypass it"
    for field in Game._meta.concrete_fields:
        assert not getattr(field, "auto_now", False), f"{field.name} has auto_now: rows.save_game skips it"
    from django.db.models.signals import post_init, post_save, pre_init, pre_save

    assert not pre_save.has_listeners(Game) and not post_save.has_listeners(Game)
    # games/live/fastpath.py builds Game instances without Model.__init__ (measured: 2 % of a move).
    assert Game.__init__ is models.Model.__init__, (
        "Game.__init__ is overridden: live.Seen.game would bypass it"
    )
    assert not pre_init.has_listeners(Game) and not post_init.has_listeners(Game)


def test_the_layers_are_packages_and_no_live_play_module_grows_past_400_lines():
    # CONTRIBUTING.md's map: live/ (sockets, messages, the fast path), web/ (pages),
    # services/ (every change to a game), store/ (SQL and reads), engines/ and ai/.
    for layer in ("live", "web", "services", "store", "engines", "ai"):
        assert (GAMES / layer / "__init__.py").exists(), f"games/{layer}/ is not a package"
    long = {
        str(path.relative_to(GAMES)): length
        for path in [*(GAMES / "live").glob("*.py"), *(GAMES / "services").glob("*.py")]
        if (length := len(path.read_text().splitlines())) > 400
    }
    assert long == {}, f"live-play modules over 400 lines: {long}"


def test_games_imports_neither_the_chat_nor_the_ratings_that_build_on_it():
    # chat and ratings listen to games (signals, the consumer they extend); never the other way.
    offenders = []
    for path in GAMES.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(GAMES)}: {n}" for n in names if n.split(".")[0] in {"chat", "ratings"}
            ]
    assert offenders == []
