"""Plain-text game records: a few ``[Key "value"]`` headers, then the move tokens.

The format borrows PGN's header syntax so it reads familiar, but the move text is
just the engine's own tokens separated by whitespace, numbered per ply pair for
people (``1. d3 c5 2. f6``). Numbers are ignored when parsing.

    [Game "reversi"]
    [Player0 "alice"]
    [Player1 "robot"]
    [Player1Title "BOT"]
    [Result "0-1"]

The site's records (games.store.selectors.record_text) name side 0 (who moves first)
``Player0`` and side 1 ``Player1``; a BOT account's side also has a ``Player0Title`` or
``Player1Title`` of ``BOT`` (as lichess's PGN ``[WhiteTitle "BOT"]``).

    1. d3 c5 2. f6 f5
"""

from __future__ import annotations

import re
from typing import Any

from games.engines.base import Engine, IllegalMove, replay

_HEADER = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_NUMBER = re.compile(r"^\d+\.$")


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def dump_record(
    engine: Engine, moves: list[str], headers: dict[str, str] | None = None, start: Any = None
) -> str:
    """The record text of a game (from ``start``, else the usual first position; a
    game from another position says so in a ``FEN`` header); raises IllegalMove if
    ``moves`` is not a legal game."""
    replay(engine, moves, start)  # refuse to write a record nobody could replay
    all_headers = {"Game": engine.slug, **(headers or {})}
    lines = [f'[{key} "{_quote(str(value))}"]' for key, value in all_headers.items()]
    body = []
    for i in range(0, len(moves), 2):
        body.append(f"{i // 2 + 1}. " + " ".join(moves[i : i + 2]))
    lines.append("")
    lines.append(" ".join(body))
    return "\n".join(lines).rstrip() + "\n"


def parse_record_headers(text: str) -> tuple[dict[str, str], list[str]]:
    """Headers and move tokens of a record (no legality check)."""
    headers: dict[str, str] = {}
    moves: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        match = _HEADER.match(line)
        if match:
            headers[match[1]] = re.sub(r"\\(.)", r"\1", match[2])
            continue
        if line.startswith("["):
            raise IllegalMove(f"malformed header line: {line[:40]!r}")
        moves.extend(tok for tok in line.split() if not _NUMBER.match(tok))
    return headers, moves


def parse_record(text: str) -> list[str]:
    """The move tokens of a record, in order."""
    return parse_record_headers(text)[1]
