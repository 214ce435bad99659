"""Template helpers for the game pages: translated game names, the board renderers'
table for the board scripts, and small SVG diagrams for the rules pages.

The diagrams are described with a tiny text notation instead of hand-written
SVG so that the five rules pages stay readable and every diagram uses the
same look (and the same CSS variables) as the live board.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.html import escape, format_html, json_script
from django.utils.safestring import SafeString, mark_safe

from accounts.templatetags.player_tags import player_name
from games.deadline_text import deadline_text
from games.kinds import KINDS, renderer_table

register = template.Library()


@register.filter
def deadline_words(deadline: datetime) -> str:
    """ "move by 6 Dec 2026, 19:27 UTC (2 days left)" (games/deadline_text.py: every page writes it so)."""
    return deadline_text(deadline, now=timezone.now())


@register.filter
def game_name(slug: str) -> str:
    kind = KINDS.get(slug)
    return str(kind.name) if kind else slug


@register.filter
def game_blurb(slug: str) -> str:
    kind = KINDS.get(slug)
    return str(kind.blurb) if kind else ""


@register.simple_tag
def board_renderers(*slugs: str) -> SafeString:
    """``#renderers``, the table config/static/js/play/renderers.js loads boards from: each game's renderer
    module and its options (docs/renderers.md); the games named, or every game."""
    kinds = [KINDS[slug] for slug in slugs] if slugs else KINDS.values()
    return json_script(renderer_table(kinds), "renderers")


@register.filter
def first_by_default(slug: str) -> bool:
    """Whether the new-game form's "Play as" defaults to First for this game (home.js reads it)."""
    kind = KINDS.get(slug)
    return bool(kind and kind.first_by_default)


# --- rules diagrams -----------------------------------------------------------------

_diagram_ids = itertools.count(1)  # marker ids must be unique within a page
CELL = 40  # px per cell in the viewBox; the SVG itself scales with CSS
GAP = 6  # extra space between the small boards of a 9x9 diagram


@dataclass
class Grid:
    rows: int
    cols: int
    notation: str  # "rows-down" (rows 1.. top to bottom, as Reversi numbers them), "rank" (ranks bottom to top), "square" (1..9)
    boards: bool = False  # a 9x9 grid drawn as nine 3x3 boards
    parts: list[str] = field(default_factory=list)

    def cell(self, name: str) -> tuple[int, int]:
        name = name.strip()
        if self.notation == "square":
            index = int(name) - 1
            return index // self.cols, index % self.cols
        col = ord(name[0]) - ord("a")
        number = int(name[1:])
        row = number - 1 if self.notation == "rows-down" else self.rows - number
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise template.TemplateSyntaxError(f"diagram cell {name!r} is off the board")
        return row, col

    def origin(self, row: int, col: int) -> tuple[float, float]:
        x, y = col * CELL, row * CELL
        if self.boards:
            x += (col // 3) * GAP
            y += (row // 3) * GAP
        return x, y

    def centre(self, name: str) -> tuple[float, float]:
        x, y = self.origin(*self.cell(name))
        return x + CELL / 2, y + CELL / 2

    @property
    def size(self) -> tuple[float, float]:
        extra_x = (self.cols // 3 - 1) * GAP if self.boards else 0
        extra_y = (self.rows // 3 - 1) * GAP if self.boards else 0
        return self.cols * CELL + extra_x, self.rows * CELL + extra_y


# Coloured lines of Four Tac Toe diagrams: each its own colour and symbol, as on the
# live board. Line k has class "line-k", whose colour is in board.css (the page's CSP
# allows no style attributes): the first four are the seed's example, a red circle, a
# blue square, a yellow star and a green triangle; the rest golden-angle hues.
PATH_SYMBOLS = ["●", "■", "★", "▲", "◆", "✚", "▼", "✖", "♥", "♣", "♠", "⬢", "☀", "✿", "☾"]
CROSSING = "line-cross"  # a cell where several lines meet: the text colour


def _step(grid: Grid, start: str, end: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """A line's step on the display, split into (board rows, board cols) and (cell rows, cell cols)."""
    (r1, c1), (r2, c2) = grid.cell(start), grid.cell(end)
    if (r2 - r1) % 2 or (c2 - c1) % 2:
        raise template.TemplateSyntaxError(f"diagram line {start}-{end} has no middle cell")
    dr, dc = (r2 - r1) // 2, (c2 - c1) // 2
    if not grid.boards:
        return (0, 0), (dr, dc)
    board_r, board_c = round(dr / 3), round(dc / 3)
    return (board_r, board_c), (dr - 3 * board_r, dc - 3 * board_c)


def line_motion(grid: Grid, start: str, end: str) -> str:
    """How a line moves at each step, in words: "one cell up, one board right"."""
    from django.utils.translation import gettext as _

    (board_r, board_c), (cell_r, cell_c) = _step(grid, start, end)
    parts = []
    if cell_r:
        parts.append(_("one cell down") if cell_r > 0 else _("one cell up"))
    if cell_c:
        parts.append(_("one cell right") if cell_c > 0 else _("one cell left"))
    if board_r:
        parts.append(_("one board down") if board_r > 0 else _("one board up"))
    if board_c:
        parts.append(_("one board right") if board_c > 0 else _("one board left"))
    return ", ".join(parts)


def _paths(grid: Grid, spec: str) -> tuple[list[str], list[tuple[str, str, list[str], str]]]:
    """SVG for coloured lines "a9-c9 d9-d1": a dashed stroke and a symbol in each of its cells."""
    out: list[str] = []
    key: list[tuple[str, str, list[str], str]] = []
    symbols_in: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for k, item in enumerate(_items(spec)):
        start, _sep, end = item.partition("-")
        (board_r, board_c), (cell_r, cell_c) = _step(grid, start, end)
        dr, dc = 3 * board_r + cell_r, 3 * board_c + cell_c
        r0, c0 = grid.cell(start)
        cells = [(r0 + i * dr, c0 + i * dc) for i in range(3)]
        line_class, symbol = f"line-{k % len(PATH_SYMBOLS)}", PATH_SYMBOLS[k % len(PATH_SYMBOLS)]
        (x1, y1), (x2, y2) = grid.centre(start), grid.centre(end)
        out.append(f'<line class="path-stroke {line_class}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
        for cell in cells:
            symbols_in.setdefault(cell, []).append((line_class, symbol))
        names = [_cell_name(grid, r, c) for r, c in cells]
        key.append((line_class, symbol, names, line_motion(grid, start, end)))
    for (row, col), symbols in symbols_in.items():
        x, y = grid.origin(row, col)
        # A dot on each cell of a line (in its colour, or the text colour where lines cross).
        line_class = symbols[0][0] if len(symbols) == 1 else CROSSING
        out.append(
            f'<circle class="path-cell {line_class}" cx="{x + CELL / 2}" cy="{y + CELL / 2}" '
            f'r="{CELL * (0.13 if len(symbols) == 1 else 0.17)}"/>'
        )
        per_row = 4 if len(symbols) > 3 else 3
        for j, (line_class, symbol) in enumerate(symbols):
            sx = x + 6 + (j % per_row) * 9.5
            sy = y + 11 + (j // per_row) * 9.5
            out.append(
                f'<text class="path-symbol {line_class}" x="{sx}" y="{sy}" '
                f'text-anchor="middle">{symbol}</text>'
            )
    return out, key


def _cell_name(grid: Grid, row: int, col: int) -> str:
    if grid.notation == "square":
        return str(row * grid.cols + col + 1)
    number = row + 1 if grid.notation == "rows-down" else grid.rows - row
    return f"{chr(ord('a') + col)}{number}"


def _items(spec: str) -> list[str]:
    return [item for item in spec.split() if item]


def _piece(grid: Grid, name: str, kind: str) -> str:
    cx, cy = grid.centre(name)
    r = CELL * 0.38
    if kind in ("b", "w"):
        side = 0 if kind == "b" else 1
        return f'<circle class="disc p{side}" cx="{cx}" cy="{cy}" r="{r}"/>'
    if kind in ("x", "o", "X", "O"):
        big = kind.isupper()
        size = CELL * (1.35 if big else 0.28)
        cls = "mark big" if big else "mark"
        if kind.lower() == "x":
            return (
                f'<path class="{cls} mark-x" d="M{cx - size} {cy - size}L{cx + size} {cy + size}'
                f'M{cx + size} {cy - size}L{cx - size} {cy + size}"/>'
            )
        return f'<circle class="{cls} mark-o" cx="{cx}" cy="{cy}" r="{size}"/>'
    raise template.TemplateSyntaxError(f"unknown diagram piece {kind!r}")


def _label(grid: Grid, name: str, text: str, dy: float = 0) -> str:
    cx, cy = grid.centre(name)
    cy += dy
    # Subscript digits: a spooky mark "x3" is written x with a small 3, as on the board.
    if len(text) > 1 and text[0] in "xo" and text[1:].isdigit():
        return (
            f'<text class="spooky mark-{text[0]}" x="{cx}" y="{cy + 5}" text-anchor="middle">'
            f'{escape(text[0])}<tspan class="sub" dy="4">{escape(text[1:])}</tspan></text>'
        )
    return f'<text class="diagram-text" x="{cx}" y="{cy + 5}" text-anchor="middle">{escape(text)}</text>'


@register.simple_tag
def board_diagram(
    size: str,
    notation: str = "rank",
    title: str = "",
    pieces: str = "",
    hl: str = "",
    hl2: str = "",
    dots: str = "",
    rings: str = "",
    arrows: str = "",
    lines: str = "",
    labels: str = "",
    closed: str = "",
    *,
    boards: bool = False,
    paths: str = "",
    key: str = "",
) -> SafeString:
    """A small board picture for the rules pages.

    ``size`` "8x8"; cells in the game's own notation (``notation``: "rows-down",
    "rank" or "square"); ``pieces`` "d4:w e5:b a1:x e5:X" (b/w discs, x/o marks,
    upper case = a large mark filling a 3x3 board centred on the cell);
    ``hl``/``hl2`` highlighted cells ("all" for every cell); ``dots`` small dots (legal moves); ``rings``
    an outline; ``arrows`` "a7>c5"; ``lines`` "a1-c3" (a stroke through centres);
    ``labels`` "5=x1,o2" (small text, comma separated, "x1" drawn as x with
    subscript 1); ``closed`` cells nobody may use; ``paths`` "a9-c9 d9-d1": lines
    of three cells, each in its own colour with a symbol in its cells (``key``
    lists them below the picture with how each one moves: "list", or "details" to
    keep the answers folded).
    """
    rows, cols = (int(n) for n in size.split("x"))
    grid = Grid(rows, cols, notation, boards=bool(boards))
    width, height = grid.size
    out: list[str] = []
    for row in range(rows):
        for col in range(cols):
            x, y = grid.origin(row, col)
            out.append(f'<rect class="cell" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>')
    for cls, spec in (("hl", hl), ("hl2", hl2)):
        cells = (
            [(r, c) for r in range(rows) for c in range(cols)]
            if spec == "all"
            else [grid.cell(n) for n in _items(spec)]
        )
        for row, col in cells:
            x, y = grid.origin(row, col)
            out.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>')
    for name in _items(closed):
        x, y = grid.origin(*grid.cell(name))
        # As on the live board: a "no entry" sign, never the X player X plays.
        cx, cy, r = x + CELL / 2, y + CELL / 2, CELL * 0.26
        d = round(r * 0.7071, 2)
        out.append(
            f'<rect class="closed" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>'
            f'<circle class="closed-sign" cx="{cx}" cy="{cy}" r="{r}"/>'
            f'<path class="closed-sign" d="M{cx - d} {cy + d}L{cx + d} {cy - d}"/>'
        )
    path_svg, path_key = _paths(grid, paths)
    out.extend(path_svg)
    # Strokes go under the pieces and labels so they never hide a mark.
    for item in _items(lines):
        start, _sep, end = item.partition("-")
        (x1, y1), (x2, y2) = grid.centre(start), grid.centre(end)
        out.append(f'<line class="stroke" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    for item in _items(pieces):
        name, _sep, kind = item.partition(":")
        out.append(_piece(grid, name, kind))
    for item in _items(labels):
        name, _sep, text = item.partition("=")
        parts = text.split(",")
        for k, part in enumerate(parts):
            # Several labels in one cell are stacked so they stay legible.
            out.append(_label(grid, name, part, dy=(k - (len(parts) - 1) / 2) * 13))
    for name in _items(dots):
        cx, cy = grid.centre(name)
        out.append(f'<circle class="dot" cx="{cx}" cy="{cy}" r="{CELL * 0.12}"/>')
    for name in _items(rings):
        cx, cy = grid.centre(name)
        out.append(f'<circle class="ring" cx="{cx}" cy="{cy}" r="{CELL * 0.42}"/>')
    marker = f"arrowhead-{next(_diagram_ids)}"
    for item in _items(arrows):
        start, _sep, end = item.partition(">")
        (x1, y1), (x2, y2) = grid.centre(start), grid.centre(end)
        out.append(
            f'<line class="arrow" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" marker-end="url(#{marker})"/>'
        )
    defs = (
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
        'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrowhead"/></marker></defs>'
    )
    legend: SafeString | str = ""
    if key and path_key:
        legend = format_html(
            '<ul class="line-key">{}</ul>',
            mark_safe(
                "".join(
                    format_html(
                        '<li class="{}"><span class="line-key-symbol" aria-hidden="true">{}</span> '
                        '<span class="line-key-cells">{}</span>: {}</li>',
                        line_class,
                        symbol,
                        "–".join(names),
                        motion,
                    )
                    for line_class, symbol, names, motion in path_key
                )
            ),
        )
        if key == "details":
            from django.utils.translation import gettext as _

            legend = format_html(
                "<details><summary>{}</summary>{}</details>", _("Show how each line moves"), legend
            )
    return format_html(
        '<figure class="diagram" data-cols="{}"><svg class="diagram-svg" viewBox="-2 -2 {} {}" '
        'role="img" aria-label="{}">{}{}</svg><figcaption>{}</figcaption>{}</figure>',
        cols,
        width + 4,
        height + 4,
        title,
        mark_safe(defs),
        mark_safe("".join(out)),
        title,
        legend,
    )


@register.filter
def seat_names(game) -> SafeString:
    """ "alice – Computer (Easy)": both sides of a stored game, for lists of games, as HTML.

    A BOT account's name carries its mark ({% player_name %}, issue #41).
    """

    def seat(side: int) -> str:
        if not game.side_is_taken(side):
            return "…"
        user = None if game.ai_of(side) else game.user_of(side)
        # A guest or the computer: the plain name, escaped by format_html.
        return player_name(user) if user is not None else game.side_name(side)

    return format_html("{} – {}", seat(0), seat(1))


@register.simple_tag
def recent_games_of(player) -> list:
    """The profile's "Recent games": the player's last finished games, newest first."""
    from games.store.selectors import recent_games

    return recent_games(player)
