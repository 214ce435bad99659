"""A sixth game that lives only here: plain 3x3 tic-tac-toe, the proof that a game is one package.

Everything the site needs of it is in this folder: the engine (``engine.py``), a computer player
(``player.py``), its post-game analysis hooks (``analysis.py``), the rules page (``templates/``),
the board's renderer (``static/``) and the kind (``kind()`` below). ``tests/games/test_sixth_game.py``
registers it with ``games.kinds.register`` and plays and analyses it through the site's own pages,
socket and services.
"""

from __future__ import annotations

from pathlib import Path

from games.kinds import GameKind
from tests.kinds.tictactoe.engine import TicTacToeEngine

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"


def kind() -> GameKind:
    """The game as the registry holds it (not registered: a test registers it for its own run)."""
    return GameKind(
        slug=TicTacToeEngine.slug,
        engine=TicTacToeEngine(),
        player="tests.kinds.tictactoe.player",
        analysis_hooks="tests.kinds.tictactoe.analysis",
        order=6,  # after the five, in the lobby and every list of games
        name="Tic-Tac-Toe",
        blurb="Three in a row, on a board of nine.",
        sides=("X", "O"),
        rules_template="tictactoe/rules.html",
        renderer="tictactoe/tictactoe.js",
    )
