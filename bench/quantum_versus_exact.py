"""Quantum TTT: bench/ai_versus.py's match, with every decision checked by the exact solver.

    .venv/bin/python bench/quantum_versus_exact.py [--games 40]

Plays the same games as ``bench/ai_versus.py quantum_ttt`` (the compiled Hard at
its default budget against the pure-Python Hard at 1 s, random 2-4-ply
openings, each played with both colours) and, before and after every move that
had a choice, solves the position to the end of the game on the compiled core
(the game is solved from its third move in well under a second). A decision
"lost half a point or more" when it turned a win into a draw or a loss, or a
draw into a loss. If neither side ever does, each opening's result is fixed by
the opening and 50 % is all either side can score.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import choose_move  # noqa: E402
from games.ai import quantum_ttt as ai  # noqa: E402
from games.ai._cores import pure_python  # noqa: E402
from games.ai.quantum_ttt_search import order_keys  # noqa: E402
from games.engines import ENGINES  # noqa: E402

ENGINE = ENGINES["quantum_ttt"]


def exact_result(state: object, side: int, core: object) -> int:
    """1, 0 or -1: what ``side`` gets from ``state`` with best play on both sides."""
    outcome = ENGINE.outcome(state)
    if outcome is not None:
        return 0 if outcome.winner is None else 1 if outcome.winner == side else -1
    _, value, _, _ = core.search(state, order_keys(random.Random(0)), 40, time.perf_counter() + 60)
    if ENGINE.to_move(state) != side:
        value = -value
    return (value > 100) - (value < -100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    core = ai.compiled_core()
    if core is None:
        sys.exit("quantum_ttt has no compiled core here (numba missing or GAMES_AI_PURE_PYTHON set)")
    score = 0.0
    lost = [0, 0]  # decisions that lost half a point or more: compiled, pure-Python
    decisions = [0, 0]
    for i in range(args.games):
        a_side, seed = i % 2, args.seed + i
        rng = random.Random(args.seed + i // 2)
        state = ENGINE.initial()
        for _ in range(rng.randint(2, 4)):
            if ENGINE.outcome(state) is not None:
                break
            state = ENGINE.play(state, rng.choice(ENGINE.legal_moves(state)))
        ply = 0
        while (outcome := ENGINE.outcome(state)) is None:
            side = ENGINE.to_move(state)
            who = 0 if side == a_side else 1
            if who == 0:
                move = choose_move(ENGINE, state, "hard", seed=seed * 1000 + ply)
            else:
                with pure_python():
                    move = choose_move(ENGINE, state, "hard", seed=seed * 1000 + ply, time_budget=1.0)
            after = ENGINE.play(state, move)
            if len(ENGINE.legal_moves(state)) > 1:
                decisions[who] += 1
                lost[who] += exact_result(after, side, core) < exact_result(state, side, core)
            state = after
            ply += 1
        score += 0.5 if outcome.winner is None else 1.0 if outcome.winner == a_side else 0.0
    print(
        f"compiled Hard {score:g}/{args.games} ({100 * score / args.games:.0f} %); decisions that lost half a point"
        f" or more: compiled {lost[0]}/{decisions[0]}, pure-Python {lost[1]}/{decisions[1]}"
    )


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()  # choose_move searches compiled only once a game's core is loaded (compiles it if need be)
    main()
