"""Give Flippy (jeffreyan11/othello_engine) a per-move time limit, for bench/versus_engine.py.

    .venv/bin/python bench/patch_flippy.py /work/ext-othello/flippy && make -C /work/ext-othello/flippy FlippyT

Flippy's protocol (``FlippyT side [taken black]``, then ``x y ms`` lines) passes
the milliseconds left on the whole game's clock, and Flippy spends a share of
it that depends on the empties left: up to a quarter of it on an exact solve,
plus a buffer of 0.5 s + 0.12 s an empty square. Its time per move can then not
be set. This edits ``player.cpp`` of a checkout (nothing from it lives in this
repository) so that the number is the time for this move: the midgame search,
an exact solve, and the midgame search after a solve that ran out, together
stay within it. The edit is idempotent: a patched file is left alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

MARKER = "// bench/patch_flippy.py: the protocol's milliseconds are this move's"

# (text in player.cpp at 645ebbe, what it becomes); each must occur exactly once.
EDITS = [
    (
        "Move *Player::doMove(Move *opponentsMove, int msLeft) {",
        "Move *Player::doMove(Move *opponentsMove, int msLeft) {\n"
        f"    {MARKER}\n"
        "    const int moveMs = std::max(1, msLeft);\n"
        "    auto moveStart = OthelloClock::now();",
    ),
    (
        "timeLimit = 6 * msLeft / (2 * movesLeft);",
        "timeLimit = moveMs;",
    ),
    (
        ": msLeft / 4;",
        ": moveMs;",
    ),
    (
        "timeLimit = 2 * timeLimit / 3;",
        "timeLimit = std::max(1, moveMs - (int) (1000 * getTimeElapsed(moveStart)));",
    ),
    (
        ": msLeft / 6;",
        ": std::max(1, moveMs - (int) (1000 * getTimeElapsed(moveStart)));",
    ),
]


def patch(checkout: Path) -> bool:
    """Edit ``checkout/player.cpp``; False when it was patched already."""
    path = checkout / "player.cpp"
    text = path.read_text()
    if MARKER in text:
        return False
    for old, new in EDITS:
        count = text.count(old)
        if count != 1:
            raise SystemExit(f"{path}: expected {old!r} once, found it {count} times (not commit 645ebbe?)")
        text = text.replace(old, new)
    path.write_text(text)
    return True


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    changed = patch(Path(sys.argv[1]))
    print("patched" if changed else "already patched")
