"""Long legal Ataxx games, for the replay's size tests and bench/replay.py.

Ataxx is the only game here that can run to thousands of plies (docs/decisions.md,
"Ataxx's draws by rule"): up to 99 plies without a clone before each of its 45
clones. ``long_ataxx_tokens`` plays such a game: jumps that take nothing, a clone
every ``JUMPS_PER_CLONE`` plies, never a move that ends the game (a full board, a
wipe-out, a draw by rule), so each prefix is a legal game in play.
"""

from __future__ import annotations

from random import Random

from django.utils import timezone

from games.engines import get
from games.engines.base import replay
from games.models import EndReason, Game

JUMPS_PER_CLONE = 90  # under the 100-ply rule, with room to spare


def long_ataxx_tokens(plies: int, seed: int = 38) -> list[str]:
    """``plies`` legal Ataxx moves from the start that leave the game running (plies <= ~4,000)."""
    engine = get("ataxx")
    rng = Random(seed)
    state = engine.initial()
    tokens: list[str] = []
    while len(tokens) < plies:
        moves = engine.legal_moves(state)
        clone_due = state.halfmove >= JUMPS_PER_CLONE - 1
        wanted = [m for m in moves if (len(m) == 2) == clone_due] or moves
        rng.shuffle(wanted)
        before = engine.score(state)
        best = None
        for move in wanted:
            after = engine.play(state, move)
            if engine.outcome(after) is not None:
                continue
            # A move that takes nothing keeps both sides' pieces (no wipe-out drifts in).
            grown = len(move) == 2  # a clone adds a piece of the mover's
            taken = engine.score(after) != (
                before[0] + (grown and state.side == 0),
                before[1] + (grown and state.side == 1),
            )
            if not taken:
                best = (move, after)
                break
            best = best or (move, after)
        if best is None:
            raise RuntimeError(f"no move keeps the game going after {len(tokens)} plies")
        tokens.append(best[0])
        state = best[1]
    return tokens


def long_ataxx_game(plies: int, *, user=None, seed: int = 38) -> Game:
    """A finished (resigned) Ataxx game of ``plies`` moves against the computer, stored directly."""
    engine = get("ataxx")
    tokens = long_ataxx_tokens(plies, seed)
    state = replay(engine, tokens)
    now = timezone.now()
    return Game.objects.create(
        game="ataxx",
        kind=Game.Kind.COMPUTER,
        status=Game.Status.FINISHED,
        user0=user,
        ai1="easy",
        tokens=tokens,
        ply=len(tokens),
        state=engine.dumps(state),
        winner=1,
        end_reason=EndReason.RESIGN,
        score0=engine.score(state)[0],
        score1=engine.score(state)[1],
        started_at=now,
        finished_at=now,
    )
