"""The games' names and one-line descriptions for people, translated.

The engines are pure Python without Django, so their names are translated here;
forms, templates, the lobby and the ratings pages all take them from this table.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

GAME_NAMES = {
    "reversi": _("Reversi"),
    "ataxx": _("Ataxx"),
    "ultimate_ttt": _("Ultimate Tic-Tac-Toe"),
    "quantum_ttt": _("Quantum Tic-Tac-Toe"),
    "four_tac_toe": _("Four Tac Toe"),
}
GAME_BLURBS = {
    "reversi": _("Trap your opponent's discs between yours and turn them over."),
    "ataxx": _("Clone or jump, and convert every enemy piece you land next to."),
    "ultimate_ttt": _("Nine small games in one: where you play decides where your opponent must play."),
    "quantum_ttt": _("Every move is in two places at once, until a cycle forces a choice."),
    "four_tac_toe": _("Tic-tac-toe in four dimensions: score every line of three you complete."),
}


def game_name(slug: str) -> str:
    """The game's name in the active language (the slug itself for an unknown game)."""
    return str(GAME_NAMES.get(slug, slug))


# Who plays which colour, as the boards and rules say: the first player (side 0) is Black
# or X and moves first. The X/O marks are the same in every language.
SIDE_COLOURS = {
    "reversi": (_("Black"), _("White")),
    "ataxx": (_("Black"), _("White")),
    "ultimate_ttt": ("X", "O"),
    "quantum_ttt": ("X", "O"),
    "four_tac_toe": ("X", "O"),
}


def side_colour(slug: str, side: int) -> str:
    """The colour (or mark) of ``side`` in the game ``slug``, in the active language."""
    colours = SIDE_COLOURS.get(slug)
    if colours is None:
        return ""
    return str(colours[side])
