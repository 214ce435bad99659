"""How the games app is put together: the Game row stays writable by rows.py, the layers are packages.

The import rules (no circle, no upward import) are import-linter contracts: tests/test_layers.py.
"""

from __future__ import annotations

from pathlib import Path

from django.db import models

from games.models import Game

GAMES = Path(__file__).resolve().parents[2] / "games"


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


def test_the_layers_are_packages_and_no_module_of_games_grows_past_400_lines():
    # CONTRIBUTING.md's map: live/ (sockets, messages, the fast path), web/ (pages),
    # services/ (every change to a game), store/ (SQL and reads), engines/ and ai/.
    # Issue #40: no module of games/ over 400 lines but models.py (one model a table, read whole).
    for layer in ("live", "web", "services", "store", "engines", "ai"):
        assert (GAMES / layer / "__init__.py").exists(), f"games/{layer}/ is not a package"
    long = {
        str(path.relative_to(GAMES)): length
        for path in GAMES.rglob("*.py")
        if "migrations" not in path.parts and path != GAMES / "models.py"
        if (length := len(path.read_text().splitlines())) > 400
    }
    assert long == {}, f"modules of games/ over 400 lines: {long}"
