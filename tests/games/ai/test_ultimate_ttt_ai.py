"""The Ultimate Tic-Tac-Toe computer player: legal, reproducible, on time, and sharp."""

from __future__ import annotations

import random
import time

import pytest

from games.ai import choose_move
from games.ai import ultimate_ttt as ai
from games.ai.mcts import search
from games.engines.ultimate_ttt import UltimateTTTEngine

ENGINE = UltimateTTTEngine()
LEVELS = ("easy", "medium", "hard")


def position(boards: dict[int, str], side: str, last: str) -> str:
    """A FEN from per-board contents: 9 characters (x, o, .) in reading order per board."""
    grid = [["."] * 9 for _ in range(9)]
    for b, text in boards.items():
        for s, char in enumerate(text):
            grid[3 * (b // 3) + s // 3][3 * (b % 3) + s % 3] = char
    ranks = []
    for row in grid:
        out, run = "", 0
        for char in row:
            if char == ".":
                run += 1
                continue
            out += (str(run) if run else "") + char
            run = 0
        ranks.append(out + (str(run) if run else ""))
    return f"{'/'.join(ranks)} {side} 0 {last}"


# X owns the top-left and top-middle boards and is sent to the top-right one,
# where g9 h9 are X's: i9 wins the game.
X_CAN_WIN = position(
    {0: "xxxoo....", 1: "xxxoo....", 2: "xx.o.....", 6: "..o...o..", 7: ".......o."}, "X", "c3"
)
# O owns the top-left and top-middle boards and threatens i9 in the top-right
# one, where X is sent. h8 would send O to the closed centre board (a free
# choice, so O takes i9 and wins); only i9 itself saves X.
X_MUST_BLOCK = position({0: "oooxx....", 1: "oooxx....", 2: "oo.x.ooxx", 4: "...xxx..."}, "X", "c9")
# Same threat, but X is sent to the empty centre board: d6, e6, f6 send O to a
# closed board or to the threatened one; the other six cells are safe.
X_MUST_NOT_SEND_O_THERE = position(
    {
        0: "oooxx....",
        1: "oooxx....",
        2: "oo.......",
        3: "....o....",
        5: "x.......x",
        6: "x.......x",
        7: "x........",
    },
    "X",
    "b5",
)
SAFE_IN_THE_CENTRE = {"d5", "e5", "f5", "d4", "e4", "f4"}


@pytest.fixture
def core():
    """The compiled core (numba), or the test is skipped where numba is not available."""
    found = ai.compiled_core()
    if found is None:
        pytest.skip("numba is not available here")
    return found


def far() -> float:
    return time.perf_counter() + 60.0


def random_positions(count: int, seed: int) -> list:
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = ENGINE.initial()
        for _ in range(rng.randrange(0, 60)):
            moves = ENGINE.legal_moves(state)
            if not moves:
                break
            state = ENGINE.play(state, rng.choice(moves))
        if ENGINE.legal_moves(state):
            states.append(state)
    return states


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_only_plays_legal_moves(level: str) -> None:
    rng = random.Random(1)
    for state in random_positions(25, seed=LEVELS.index(level)):
        move = ai.choose(ENGINE, state, level, rng, far(), iterations=40)
        assert move in ENGINE.legal_moves(state)


def test_the_dispatcher_returns_legal_moves_at_every_level() -> None:
    for state in random_positions(4, seed=5):
        for level in ("random", *LEVELS):
            assert choose_move(ENGINE, state, level, seed=3, time_budget=0.05) in ENGINE.legal_moves(state)


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_move(level: str) -> None:
    for state in random_positions(5, seed=9):
        first = ai.choose(ENGINE, state, level, random.Random(42), far(), iterations=150)
        second = ai.choose(ENGINE, state, level, random.Random(42), far(), iterations=150)
        assert first == second


def test_the_search_itself_is_reproducible_for_a_fixed_iteration_count() -> None:
    state = ENGINE.play(ENGINE.initial(), "e5")
    runs = [search(ai.UTTTAdapter, state, random.Random(7), iterations=300) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0].iterations == 300 and sum(runs[0].visits.values()) == 300


@pytest.mark.perf
@pytest.mark.parametrize(("level", "budget"), [("hard", 0.3), ("medium", 0.2), ("easy", 0.05)])
def test_the_time_budget_is_honoured(level: str, budget: float) -> None:
    state = ENGINE.initial()  # the widest choice of moves
    started, cpu = time.perf_counter(), time.thread_time()
    choose_move(ENGINE, state, level, seed=1, time_budget=budget)
    # The search stops on the wall clock; on a busy machine the process may wait
    # for a core, so the tight bound is on the CPU time actually spent.
    assert time.thread_time() - cpu < budget + 0.1
    assert time.perf_counter() - started < budget + 1.0


@pytest.mark.perf
def test_hard_uses_most_of_its_budget_to_search() -> None:
    state = ENGINE.play(ENGINE.initial(), "e5")
    cpu = time.thread_time()
    result = search(ai.UTTTAdapter, state, random.Random(1), deadline=time.perf_counter() + 0.2)
    assert result.iterations > 20
    assert time.thread_time() - cpu < 0.3


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_the_computer_completes_the_third_board_of_a_row(level: str) -> None:
    state = ENGINE.from_fen(X_CAN_WIN)
    assert ai.choose(ENGINE, state, level, random.Random(0), far(), iterations=50) == "i9"


def test_hard_blocks_an_immediate_loss() -> None:
    state = ENGINE.from_fen(X_MUST_BLOCK)
    assert sorted(ENGINE.legal_moves(state)) == ["h8", "i9"]
    for seed in range(5):
        assert ai.choose(ENGINE, state, "hard", random.Random(seed), far(), iterations=100) == "i9"


def test_hard_never_sends_the_opponent_where_it_wins_at_once() -> None:
    state = ENGINE.from_fen(X_MUST_NOT_SEND_O_THERE)
    moves = ai.legal_indexes(state)
    safe = {ai.CELL_TOKENS[m] for m in ai.safe_moves(state, moves)}
    assert safe == SAFE_IN_THE_CENTRE
    for seed in range(5):
        assert (
            ai.choose(ENGINE, state, "hard", random.Random(seed), far(), iterations=100) in SAFE_IN_THE_CENTRE
        )


def test_a_random_playout_always_reaches_the_end() -> None:
    rng = random.Random(3)
    for state in random_positions(20, seed=4):
        assert ai.UTTTAdapter.rollout(state, rng) in (0.0, 0.5, 1.0)


def _informed_moves(core, fen: str, seeds: int = 200) -> set[str]:
    import numpy as np

    boards, won = core.state_arrays(ENGINE.from_fen(fen))
    return {
        ai.CELL_TOKENS[core.informed_move(boards, won, np.array([2 * seed + 1], np.uint64))]
        for seed in range(seeds)
    }


def test_hards_playouts_win_a_board_they_can_and_never_hand_one_over_when_they_need_not(core) -> None:
    assert _informed_moves(core, X_CAN_WIN) == {"i9"}
    # Every safe cell of the centre board turns up, and only those.
    assert _informed_moves(core, X_MUST_NOT_SEND_O_THERE) == SAFE_IN_THE_CENTRE


def test_hards_playouts_reach_the_end_of_the_game(core) -> None:
    import numpy as np

    rng = np.array([12345], np.uint64)
    for state in random_positions(30, seed=8):
        boards, won = core.state_arrays(state)
        assert core.playout(boards, won, rng, informed=True) in (0, 1, 2)
        assert core.result_code(won) != core.RUNNING


# X owns the top-left and top-middle boards and threatens i9 in the top-right one,
# but is sent to the centre board. f4 sends O to the bottom-right board, whose
# only free cell (i3) sends X back to the top-right one: i9 then wins. Every other
# move lets O defend (checked by hand and by a 3-ply enumeration).
X_WINS_IN_THREE_PLIES = position(
    {
        0: "xxxoo....",
        1: "xxxoo....",
        2: "xx.o.....",
        4: "....o....",
        6: "o...o....",
        8: "ox.xooxox",
    },
    "X",
    "e5",
)


def test_the_compiled_search_proves_a_forced_win_and_stops_there(core) -> None:
    from games.engines.ultimate_ttt import CELL_INDEX

    state = ENGINE.from_fen(X_WINS_IN_THREE_PLIES)
    moves = ai.legal_indexes(state)
    cap = 1_000_000
    move, iterations, _ = core.search(state, moves, 3, deadline=far(), iterations=cap)
    assert move == CELL_INDEX["f4"]
    # Once the win is proven the search ends: a plain UCT would run all its iterations.
    assert iterations < cap


def test_hard_plays_the_forced_win_that_is_not_immediate() -> None:
    state = ENGINE.from_fen(X_WINS_IN_THREE_PLIES)
    for seed in range(3):
        assert ai.choose(ENGINE, state, "hard", random.Random(seed), far(), iterations=20_000) == "f4"


def test_the_compiled_search_alone_does_not_play_a_move_it_has_proven_lost(core) -> None:
    """Without Hard's filter of unsafe moves: every X move but i9 lets O win at once, so each is proven lost."""
    from games.engines.ultimate_ttt import CELL_INDEX

    state = ENGINE.from_fen(X_MUST_BLOCK)
    moves = ai.legal_indexes(state)
    for seed in range(5):
        move, _, _ = core.search(state, moves, seed, deadline=far(), iterations=2_000)
        assert move == CELL_INDEX["i9"]


# ---------------------------------------------------------------------------
# Hard's tree, kept between its moves


def _tree_below(arrays, node: int) -> list[tuple]:
    """The subtree of ``node``, depth first, as what the search knows of each node."""
    first_child, n_children, n_tried, visits, value, move, mover, _, proven, heur, _ = arrays
    rows, stack = [], [node]
    while stack:
        node = stack.pop()
        children = int(n_children[node])
        rows.append(
            (int(move[node]), int(visits[node]), float(value[node]), int(proven[node]), int(n_tried[node]))
        )
        rows[-1] += (max(children, 0), int(mover[node]), float(heur[node]))
        stack.extend(range(int(first_child[node]) + max(children, 0) - 1, int(first_child[node]) - 1, -1))
    return rows


def _searched_then_two_plies_on(core, iterations: int):
    """Hard's search of a midgame position, then the position after its move and the reply it expected most."""
    state = ENGINE.initial()
    for token in ("e5", "e6", "e8", "d6", "b8"):
        state = ENGINE.play(state, token)
    moves = ai.legal_indexes(state)
    move, _, _ = core.search(state, moves, 11, deadline=far(), iterations=iterations, informed=True)
    arrays = [a.copy() for a in core.Tree.arrays()]
    first_child, _, n_tried, visits, _, moves, *_ = arrays
    ours = next(c for c in range(first_child[0], first_child[0] + n_tried[0]) if moves[c] == move)
    replies = range(first_child[ours], first_child[ours] + n_tried[ours])
    expected = max(replies, key=lambda c: visits[c])
    later = ai.play_index(ai.play_index(state, move), int(moves[expected]))
    return arrays, expected, later


def test_hards_next_search_starts_from_the_subtree_its_last_search_grew(core) -> None:
    arrays, expected, later = _searched_then_two_plies_on(core, 30_000)
    kept = _tree_below(arrays, expected)
    assert len(kept) > 100

    boards, won = core.state_arrays(later)
    in_use = core.reroot(boards, won, core.Tree.arrays(), informed=True)
    # Every node of that subtree, moved to the front of the arrays with all it knew.
    assert in_use == len(kept)
    assert _tree_below(core.Tree.arrays(), 0) == kept


def test_the_kept_playouts_count_for_the_next_move_and_another_game_starts_afresh(core) -> None:
    arrays, expected, later = _searched_then_two_plies_on(core, 30_000)
    kept = int(arrays[3][expected])
    moves = ai.legal_indexes(later)
    _, done, visits = core.search(
        later, moves, 5, deadline=far(), iterations=2_000, reuse=True, informed=True
    )
    # The root's own first visit is not a child's.
    assert done == 2_000 and sum(visits.values()) == kept - 1 + 2_000

    elsewhere = ENGINE.play(ENGINE.initial(), "a1")
    _, done, visits = core.search(
        elsewhere, ai.legal_indexes(elsewhere), 5, deadline=far(), iterations=2_000, reuse=True, informed=True
    )
    assert sum(visits.values()) == done == 2_000


def test_hard_keeps_its_tree_only_where_the_game_went_on_from_it(core) -> None:
    _, expected, later = _searched_then_two_plies_on(core, 5_000)
    boards, won = core.state_arrays(later)
    meta = core.Tree.arrays()[-1].copy()
    # The same marks with another last move (so another board to play in): nothing to keep.
    assert core.two_plies_on(meta, boards, won) != (-1, -1)
    boards[19] = (boards[19] + 1) % 81
    assert core.two_plies_on(meta, boards, won) == (-1, -1)


def test_a_tree_grown_without_hards_guesses_is_not_kept_for_hard(core) -> None:
    _, _, later = _searched_then_two_plies_on(core, 5_000)
    boards, won = core.state_arrays(later)
    assert core.reroot(boards, won, core.Tree.arrays(), informed=False) == 0


def test_every_node_of_hards_tree_holds_the_minimax_of_its_tried_moves_guesses(core) -> None:
    _searched_then_two_plies_on(core, 20_000)
    first_child, n_children, n_tried, *_, heur, meta = core.Tree.arrays()
    checked = 0
    for node in range(int(meta[core.META_USED])):
        if n_children[node] > 0 and n_tried[node] > 0:
            tried = heur[first_child[node] : first_child[node] + n_tried[node]]
            assert heur[node] == pytest.approx(1.0 - tried.max())
            checked += 1
    assert checked > 1_000


def test_hards_guess_favours_boards_won_in_the_centre_and_two_in_a_line(core) -> None:

    import numpy as np

    from games.engines.ultimate_ttt import WIN

    def guess(boards: dict[int, str], side: int) -> float:
        marks, won = np.zeros(20, np.int64), np.zeros(3, np.int64)
        for b, text in boards.items():
            x, o = (sum(1 << c for c, char in enumerate(text) if char == mark) for mark in "xo")
            marks[b], marks[9 + b] = x, o
            for owner, mine in enumerate((x, o)):
                if WIN[mine]:
                    won[owner] |= 1 << b
            if WIN[x] or WIN[o] or x | o == 511:
                won[2] |= 1 << b
        return core.heuristic(marks, won, side)

    centre = {4: "xxx......", 0: "oo.......", 8: "o.o......"}
    assert guess(centre, 0) > 0.6
    assert guess(centre, 0) + guess(centre, 1) == pytest.approx(1.0)
    corner = {0: "xxx......", 4: "oo.......", 8: "o.o......"}
    assert guess(centre, 0) > guess(corner, 0) > 0.5
    two = {0: "xxx......", 8: "xxx......", 1: "oo.o.....", 3: "o.o.o...."}
    two_blocked = {0: "xxx......", 8: "xxx......", 4: "ooo......", 1: "oo.o....."}
    assert guess(two, 0) > guess(two_blocked, 0)
