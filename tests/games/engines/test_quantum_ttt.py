"""Quantum tic-tac-toe rules (SPEC 1.4), checked the way a player would."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines.base import IllegalMove, InvalidPosition, perft, replay
from games.engines.quantum_ttt import QState, QuantumTTTEngine

ENG = QuantumTTTEngine()


def play(*moves: str) -> QState:
    return replay(ENG, list(moves))


def cls(state: QState) -> dict[int, int]:
    """Square -> move number of its classical mark, for the squares that have one."""
    return {sq: m for sq, m in enumerate(state.classical, start=1) if m}


# ---------------------------------------------------------------------------
# A deliberately naive second implementation, used to cross-check the engine.
# A position is {move number: [squares]} (two squares spooky, one classical),
# the next move number and whether a collapse waits. Collapse is plain
# constraint propagation: a two-square mark that touches a classical square
# is forced into its other square, repeated until nothing changes.


class Ref:
    def __init__(self) -> None:
        self.marks: dict[int, list[int]] = {}
        self.next = 1
        self.pending = False

    def copy(self) -> Ref:
        r = Ref()
        r.marks = {m: list(sqs) for m, sqs in self.marks.items()}
        r.next, r.pending = self.next, self.pending
        return r

    def owner(self) -> dict[int, int]:
        return {sqs[0]: m for m, sqs in self.marks.items() if len(sqs) == 1}

    def winner(self) -> int | None | str:
        """0/1 for a win, None for a draw, "running" otherwise."""
        owner = self.owner()
        best = {0: 99, 1: 99}
        lines = [(1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9), (1, 5, 9), (3, 5, 7)]
        for line in lines:
            if all(sq in owner for sq in line):
                sides = {owner[sq] % 2 for sq in line}
                if len(sides) == 1:
                    side = 0 if owner[line[0]] % 2 == 1 else 1
                    best[side] = min(best[side], max(owner[sq] for sq in line))
        if best[0] < 99 or best[1] < 99:
            return 0 if best[0] < best[1] else 1
        if len(owner) == 9:
            return None
        return "running"

    def moves(self) -> list[str]:
        if not self.pending and self.winner() != "running":
            return []
        if self.pending:
            return [f"@{sq}" for sq in sorted(self.marks[self.next - 1])]
        free = [sq for sq in range(1, 10) if sq not in self.owner()]
        if len(free) == 1:
            return [str(free[0])]
        return [f"{a}-{b}" for a, b in combinations(free, 2)]

    def linked(self, a: int, b: int) -> bool:
        seen, todo = {a}, [a]
        while todo:
            sq = todo.pop()
            for sqs in self.marks.values():
                if len(sqs) == 2 and sq in sqs:
                    other = sqs[1] if sqs[0] == sq else sqs[0]
                    if other not in seen:
                        seen.add(other)
                        todo.append(other)
        return b in seen

    def play(self, token: str) -> Ref:
        assert token in self.moves()
        r = self.copy()
        if token.startswith("@"):
            r.marks[r.next - 1] = [int(token[1])]
            r.pending = False
            changed = True
            while changed:
                changed = False
                taken = r.owner()
                for m, sqs in r.marks.items():
                    if len(sqs) == 2 and (sqs[0] in taken or sqs[1] in taken):
                        r.marks[m] = [sqs[1] if sqs[0] in taken else sqs[0]]
                        changed = True
                        break
        elif "-" in token:
            a, b = int(token[0]), int(token[2])
            r.pending = r.linked(a, b)
            r.marks[r.next] = [a, b]
            r.next += 1
        else:
            r.marks[r.next] = [int(token)]
            r.next += 1
        return r


def ref_score(r: Ref) -> tuple[int, int]:
    owner = r.owner()
    counts = [0, 0]
    for line in [(1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9), (1, 5, 9), (3, 5, 7)]:
        parities = {owner[sq] % 2 for sq in line if sq in owner}
        if all(sq in owner for sq in line) and len(parities) == 1:
            counts[1 - parities.pop()] += 1  # odd numbers (parity 1) are X's
    return counts[0], counts[1]


def ref_perft(r: Ref, depth: int) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return len(r.moves())
    return sum(ref_perft(r.play(m), depth - 1) for m in r.moves())


def same_position(state: QState, r: Ref) -> bool:
    spooky = {m: [a, b] for m, a, b in state.spooky}
    classical = {m: [sq] for sq, m in cls(state).items()}
    return {**spooky, **classical} == r.marks and state.move == r.next and bool(state.pending) == r.pending


# ---------------------------------------------------------------------------
# Normal moves


def test_the_game_starts_empty_with_x_to_make_move_one():
    s = ENG.initial()
    assert ENG.to_move(s) == 0
    assert s.move == 1 and s.classical == (0,) * 9 and s.spooky == () and s.pending == 0
    assert ENG.outcome(s) is None and ENG.score(s) == (0, 0)


def test_the_first_move_can_be_any_of_the_36_pairs_written_low_square_first():
    moves = ENG.legal_moves(ENG.initial())
    assert len(moves) == 36
    assert moves[0] == "1-2" and moves[-1] == "8-9" and "1-5" in moves
    assert all(int(m[0]) < int(m[2]) for m in moves)


def test_a_pair_puts_two_spooky_marks_labelled_with_the_move_number():
    s = play("1-5")
    assert s.spooky == ((1, 1, 5),)
    assert ENG.to_move(s) == 1 and s.move == 2
    view = ENG.view(s)
    assert view["cells"][0]["spooky"] == [{"move": 1, "side": 0}]
    assert view["cells"][4]["spooky"] == [{"move": 1, "side": 0}]
    assert view["links"] == [[1, 1, 5]]


def test_a_square_can_hold_spooky_marks_of_many_moves():
    s = play("1-5", "5-9", "3-5")
    assert [mark["move"] for mark in ENG.view(s)["cells"][4]["spooky"]] == [1, 2, 3]
    assert s.pending == 0


def test_x_makes_the_odd_moves_and_o_the_even_ones():
    s = ENG.initial()
    for number, token in enumerate(["1-2", "3-4", "5-6", "7-8"], start=1):
        assert ENG.to_move(s) == (0 if number % 2 else 1)
        s = ENG.play(s, token)
    assert [ENG.view(s)["cells"][sq - 1]["spooky"][0]["side"] for sq in (1, 3, 5, 7)] == [0, 1, 0, 1]


def test_a_chain_of_links_that_does_not_loop_back_collapses_nothing():
    s = play("1-2", "2-3", "3-6", "6-9")
    assert s.pending == 0 and s.classical == (0,) * 9 and len(ENG.legal_moves(s)) == 36


# ---------------------------------------------------------------------------
# Cycles and collapse


def test_the_same_two_squares_twice_close_a_cycle_and_the_other_player_chooses():
    s = play("1-2", "1-2")  # O closed the cycle, so X chooses
    assert s.pending == 2
    assert ENG.to_move(s) == 0
    assert ENG.legal_moves(s) == ["@1", "@2"]
    view = ENG.view(s)
    assert view["pending_cycle"] == {
        "move": 2, "side": 1, "chooser": 0, "choices": [1, 2],
        "squares": [1, 2], "marks": [1, 2], "component": [1, 2],
    }  # fmt: skip


def test_choosing_a_square_settles_the_newest_mark_there_and_pushes_the_other():
    s = play("1-2", "1-2", "@1")
    assert cls(s) == {1: 2, 2: 1}  # O's mark 2 in square 1, X's mark 1 pushed to square 2
    assert s.spooky == () and s.pending == 0
    t = play("1-2", "1-2", "@2")
    assert cls(t) == {2: 2, 1: 1}


def test_the_chooser_then_makes_their_own_move_so_moves_twice_in_a_row():
    s = play("1-2", "1-2")
    assert ENG.to_move(s) == 0
    s = ENG.play(s, "@1")
    assert ENG.to_move(s) == 0 and s.move == 3  # the choice used no move number
    assert "1-3" not in ENG.legal_moves(s)  # square 1 is classical now
    s = ENG.play(s, "3-4")
    assert s.spooky == ((3, 3, 4),) and ENG.to_move(s) == 1


def test_when_x_closes_the_cycle_o_chooses_and_then_moves():
    s = play("1-2", "2-3", "1-3")  # a three-square cycle closed by X's move 3
    assert s.pending == 3 and ENG.to_move(s) == 1
    assert ENG.legal_moves(s) == ["@1", "@3"]
    assert ENG.view(s)["pending_cycle"]["squares"] == [1, 2, 3]
    assert ENG.view(s)["pending_cycle"]["marks"] == [1, 2, 3]
    after = ENG.play(s, "@1")
    assert cls(after) == {1: 3, 2: 1, 3: 2}  # 3 in 1 pushes 1 to 2, which pushes 2 to 3
    assert ENG.to_move(after) == 1 and after.move == 4
    other = ENG.play(s, "@3")
    assert cls(other) == {3: 3, 2: 2, 1: 1}


def test_collapse_cascades_through_marks_hanging_off_the_cycle():
    # Cycle 1-2 (marks 1 and 5); marks 2, 3, 4 form a tail 2-3-6-9.
    s = play("1-2", "2-3", "3-6", "6-9", "1-2")
    assert s.pending == 5 and ENG.to_move(s) == 1
    assert ENG.view(s)["pending_cycle"]["component"] == [1, 2, 3, 6, 9]
    assert ENG.view(s)["pending_cycle"]["squares"] == [1, 2]
    s = ENG.play(s, "@2")
    assert cls(s) == {2: 5, 1: 1, 3: 2, 6: 3, 9: 4}
    assert s.spooky == () and ENG.outcome(s) is None


def test_marks_not_connected_to_the_cycle_stay_spooky():
    s = play("1-2", "2-5", "7-8", "1-2")
    assert s.pending == 4
    s = ENG.play(s, "@1")
    assert cls(s) == {1: 4, 2: 1, 5: 2}
    assert s.spooky == ((3, 7, 8),)
    assert ENG.view(s)["cells"][6]["spooky"] == [{"move": 3, "side": 0}]
    assert "7-8" in ENG.legal_moves(s) and "2-7" not in ENG.legal_moves(s)


def test_resending_a_pair_that_is_still_spooky_closes_a_cycle_for_the_sender():
    s = play("1-2", "3-4", "1-2")  # X repeats its own pair: O chooses
    assert s.pending == 3 and ENG.to_move(s) == 1
    s = ENG.play(s, "@2")
    assert cls(s) == {2: 3, 1: 1} and s.spooky == ((2, 3, 4),)


# ---------------------------------------------------------------------------
# Winning, drawing, the ninth move


def test_x_wins_when_both_players_complete_lines_and_xs_highest_number_is_lower():
    s = play("1-4", "4-5", "2-5", "5-6", "3-6", "1-6")  # O's move 6 closes 1-4-5-6
    assert s.pending == 6 and ENG.to_move(s) == 0
    s = ENG.play(s, "@6")
    assert cls(s) == {1: 1, 2: 3, 3: 5, 4: 2, 5: 4, 6: 6}
    out = ENG.outcome(s)
    assert out is not None and out.winner == 0 and out.reason == "line"
    assert out.score == (1, 1) == ENG.score(s)  # X's line 1-3-5 beats O's 2-4-6
    assert ENG.legal_moves(s) == []
    assert {(line["side"], line["high"]) for line in ENG.view(s)["lines"]} == {(0, 5), (1, 6)}


def test_o_wins_a_double_line_collapse_when_its_highest_number_is_lower():
    s = play("1-4", "4-5", "2-5", "5-6", "6-7", "3-6", "1-3")  # X's move 7 closes the cycle
    assert s.pending == 7 and ENG.to_move(s) == 1
    s = ENG.play(s, "@3")
    assert cls(s) == {1: 1, 2: 3, 3: 7, 4: 2, 5: 4, 6: 6, 7: 5}
    out = ENG.outcome(s)
    assert out is not None and out.winner == 1 and out.score == (1, 1)  # 2-4-6 beats 1-3-7


def test_the_game_ends_at_once_when_a_collapse_makes_a_line_so_the_chooser_does_not_move():
    s = play("1-2", "1-2", "@2", "4-6", "4-6", "@6", "7-9", "7-9")
    assert s.pending == 6 and ENG.to_move(s) == 0  # O closed 7-9, X chooses
    s = ENG.play(s, "@9")  # O's 6 settles in 9 and pushes X's 5 into 7
    assert cls(s) == {1: 1, 2: 2, 4: 3, 6: 4, 7: 5, 9: 6}
    out = ENG.outcome(s)
    assert out is not None and out.winner == 0 and out.reason == "line" and out.score == (1, 0)
    assert ENG.legal_moves(s) == []  # X made the choice but does not get its move 7
    with pytest.raises(IllegalMove, match="over"):
        ENG.play(s, "3-5")


def test_two_lines_for_one_player_are_still_one_win():
    # A path 7-1-5-2-6-3-8-4-9 of marks 1..8; X's ninth pair 7-9 closes it.
    s = play("1-7", "1-5", "2-5", "2-6", "3-6", "3-8", "4-8", "4-9", "7-9")
    assert s.pending == 9 and ENG.to_move(s) == 1
    s = ENG.play(s, "@7")
    assert cls(s) == {7: 9, 1: 1, 5: 2, 2: 3, 6: 4, 3: 5, 8: 6, 4: 7, 9: 8}
    out = ENG.outcome(s)
    assert out is not None and out.winner == 0 and out.reason == "line"
    assert out.score == (2, 0)  # row 1-2-3 and column 1-4-7


def test_a_full_board_without_a_line_is_a_draw():
    s = play("1-9", "1-2", "2-3", "3-5", "4-5", "4-6", "6-8", "7-8", "7-9")
    s = ENG.play(s, "@9")
    assert all(s.classical) and s.spooky == ()
    out = ENG.outcome(s)
    assert out is not None and out.winner is None and out.reason == "board_full" and out.score == (0, 0)
    assert ENG.legal_moves(s) == []


PAIRS_OF_TWO_CYCLES = ["1-2", "1-2", "@1", "3-4", "3-4", "@4", "5-6", "5-6", "@5", "7-8", "7-8"]


def test_with_one_square_left_xs_ninth_move_is_a_plain_mark_there():
    s = play(*PAIRS_OF_TWO_CYCLES, "@8")
    assert ENG.outcome(s) is None and s.move == 9 and ENG.to_move(s) == 0
    assert ENG.legal_moves(s) == ["9"]
    assert ENG.view(s)["classical_move"] == 9
    for bad in ("8-9", "1-9", "@9", "8", "09"):
        with pytest.raises(IllegalMove):
            ENG.play(s, bad)
    s = ENG.play(s, "9")
    assert s.classical[8] == 9 and s.move == 10
    out = ENG.outcome(s)
    assert out is not None and out.winner == 0 and out.score == (1, 0)  # X's 3-6-9


def test_the_ninth_plain_move_can_also_end_in_a_draw():
    s = play(*PAIRS_OF_TWO_CYCLES[:5], "@3", "5-6", "5-6", "@5", "7-8", "7-8", "@8")
    assert ENG.legal_moves(s) == ["9"]
    out = ENG.outcome(ENG.play(s, "9"))
    assert out is not None and out.winner is None and out.reason == "board_full"


def test_before_move_nine_a_pair_always_fits_and_at_move_nine_every_pair_closes_a_cycle():
    s = play("1-2", "2-3", "3-4", "4-5", "5-6", "6-7", "7-8", "8-9")
    assert s.move == 9 and ENG.view(s)["classical_move"] is None
    for token in ENG.legal_moves(s):
        assert ENG.play(s, token).pending == 9


# ---------------------------------------------------------------------------
# Illegal tokens


@pytest.mark.parametrize(
    "token",
    ["1-1", "5-1", "1-5 ", " 1-5", "1 -5", "15", "1_5", "0-5", "1-10", "a-b", "", "@", "@0", "@10", "X1-5",
     "1-2-3", "pass", "١-٥"],
)  # fmt: skip
def test_malformed_or_reversed_pairs_are_refused(token):
    with pytest.raises(IllegalMove):
        ENG.play(ENG.initial(), token)


def test_a_move_that_is_not_text_is_refused():
    with pytest.raises(IllegalMove):
        ENG.play(ENG.initial(), 15)  # type: ignore[arg-type]


def test_a_pair_touching_a_classical_square_is_refused():
    s = play("1-2", "1-2", "@1")
    with pytest.raises(IllegalMove, match="classical"):
        ENG.play(s, "1-3")
    with pytest.raises(IllegalMove, match="classical"):
        ENG.play(s, "2-9")


def test_a_choice_when_nothing_is_pending_is_refused():
    with pytest.raises(IllegalMove, match="no collapse"):
        ENG.play(play("1-2"), "@1")


def test_a_choice_outside_the_newest_marks_squares_is_refused():
    s = play("1-2", "2-3", "1-3")
    with pytest.raises(IllegalMove, match="square 1 or 3"):
        ENG.play(s, "@2")


def test_a_normal_move_while_a_collapse_is_pending_is_refused():
    s = play("1-2", "1-2")
    for token in ("3-4", "1-2", "5"):
        with pytest.raises(IllegalMove, match="pending"):
            ENG.play(s, token)


def test_a_plain_square_is_refused_while_pairs_still_fit():
    with pytest.raises(IllegalMove):
        ENG.play(ENG.initial(), "5")


# ---------------------------------------------------------------------------
# perft, cross-checked with the naive implementation


@pytest.mark.parametrize("depth,nodes", [(1, 36), (2, 1296), (3, 45432)])
def test_perft_from_the_start(depth, nodes):
    assert perft(ENG, ENG.initial(), depth) == nodes
    assert ref_perft(Ref(), depth) == nodes


def test_perft_through_pending_collapses_matches_the_naive_implementation():
    moves = ["1-2", "2-3", "3-6", "6-9", "5-8", "5-8"]  # O closes 5-8: X chooses, then moves
    r = Ref()
    for m in moves:
        r = r.play(m)
    s = play(*moves)
    assert same_position(s, r)
    assert perft(ENG, s, 3) == ref_perft(r, 3)


# ---------------------------------------------------------------------------
# Random games (hypothesis)


@st.composite
def games(draw: st.DrawFn) -> list[tuple[QState, str]]:
    """A random game as (position, move played) pairs, ending at a random point."""
    s = ENG.initial()
    out = []
    for _ in range(draw(st.integers(0, 20))):
        moves = ENG.legal_moves(s)
        if not moves:
            break
        move = draw(st.sampled_from(moves))
        out.append((s, move))
        s = ENG.play(s, move)
    out.append((s, ""))
    return out


@settings(max_examples=150, deadline=None)
@given(games())
def test_random_games_agree_with_the_naive_implementation(game):
    r = Ref()
    for s, move in game:
        assert same_position(s, r)
        assert ENG.legal_moves(s) == r.moves()
        assert ENG.score(s) == ref_score(r)
        out = ENG.outcome(s)
        assert (out is None) == (r.winner() == "running" or r.pending)
        if out is not None:
            assert out.winner == r.winner()
        if move:
            r = r.play(move)


@settings(max_examples=150, deadline=None)
@given(games())
def test_random_positions_keep_their_invariants(game):
    for s, move in game:
        assert (ENG.legal_moves(s) == []) == (ENG.outcome(s) is not None)
        assert ENG.loads(ENG.dumps(s)) == s
        assert ENG.loads(json.loads(json.dumps(ENG.dumps(s)))) == s
        assert ENG.from_fen(ENG.fen(s)) == s
        view = json.loads(json.dumps(ENG.view(s)))
        assert view["legal_moves"] == ENG.legal_moves(s) and view["to_move"] == ENG.to_move(s)
        assert view["score"] == list(ENG.score(s))
        # Each square's spooky marks are exactly the links through it.
        for cell in view["cells"]:
            assert [m["move"] for m in cell["spooky"]] == [
                m for m, a, b in s.spooky if cell["square"] in (a, b)
            ]
            assert (cell["classical"] is None) == (s.classical[cell["square"] - 1] == 0)
        if move:
            before = (s, hash(s), ENG.fen(s))
            ENG.play(s, move)
            assert (s, hash(s), ENG.fen(s)) == before


@settings(max_examples=100, deadline=None)
@given(games(), st.text(max_size=4))
def test_any_token_outside_legal_moves_is_refused(game, junk):
    for s, _ in game:
        legal = ENG.legal_moves(s)
        candidates = [junk, "1-1", "9-1", "@5", "5", *(f"{a}-{b}" for a, b in combinations(range(1, 10), 2))]
        for token in candidates:
            if token not in legal:
                with pytest.raises(IllegalMove):
                    ENG.play(s, token)


@settings(max_examples=100, deadline=None)
@given(games())
def test_resending_an_earlier_pair_when_it_is_legal_again_keeps_the_position_sound(game):
    played = [m for _, m in game if m and "-" in m]
    for s, _ in game:
        for token in set(played) & set(ENG.legal_moves(s)):
            a, b = int(token[0]), int(token[2])
            after = ENG.play(s, token)
            assert ENG.loads(ENG.dumps(after)) == after  # loads re-validates everything
            still_linked = any({a, b} == {x, y} for _, x, y in s.spooky)
            if still_linked:
                assert after.pending == s.move  # the same two squares again: a 2-cycle
            if after.pending:
                assert len(ENG.legal_moves(after)) == 2
                for choice in ENG.legal_moves(after):
                    ENG.loads(ENG.dumps(ENG.play(after, choice)))


# ---------------------------------------------------------------------------
# fen and stored states


def test_the_start_position_text():
    assert ENG.fen(ENG.initial()) == "......... - 1 -"
    assert ENG.from_fen("......... - 1 -") == ENG.initial()


def test_position_text_of_a_pending_collapse_round_trips():
    s = play("1-2", "1-2", "@1", "4-9", "4-9")
    assert ENG.fen(s) == "21....... 3:4-9,4:4-9 5 4"
    assert ENG.from_fen(ENG.fen(s)) == s


@pytest.mark.parametrize(
    "text,why",
    [
        ("", "malformed"),
        ("........ - 1 -", "malformed"),  # eight squares
        ("......... - 0 -", "malformed"),
        ("......... - 11 -", "malformed"),
        ("......... 1:1-5 1 -", "exactly the moves"),  # mark 1 without move 1 made
        ("......... - 2 -", "exactly the moves"),  # move 1 missing
        ("......... 1:5-1 2 -", "a < b"),
        ("......... 1:5-5 2 -", "a < b"),
        ("1........ - 2 -", "single classical"),
        ("12....... 3:1-5 4 -", "classical mark"),  # spooky mark in a classical square
        ("......... 1:1-2,2:1-2 3 -", "never collapsed"),  # a cycle with nothing pending
        ("......... 1:1-2,2:3-4 3 2", "does not close"),
        ("......... 1:1-2,2:1-2 3 1", "newest"),
        ("......... 2:1-2,1:1-2 3 2", "by move number"),
        ("12..3.4.5 6:3-4 7 -", "after it"),  # X's line 1-5-9, then more moves
        ("11....... - 3 -", "exactly the moves"),  # the same move twice
        ("......... - 1 -  extra", "malformed"),
    ],
)
def test_bad_position_texts_are_refused(text, why):
    with pytest.raises(InvalidPosition, match=why):
        ENG.from_fen(text)


def test_bad_stored_states_are_refused():
    good = ENG.dumps(play("1-2", "1-2"))
    assert ENG.loads(good) == play("1-2", "1-2")
    bad = [
        {**good, "game": "reversi"},
        {**good, "move": True},
        {**good, "move": "3"},
        {**good, "pending": 0},  # a cycle, yet no collapse waiting
        {**good, "classical": [0] * 8},
        {**good, "spooky": [[1, 1, 2], [2, 1]]},
        {**good, "spooky": [(1, 1, 2), (2, 1, 2)]},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "pending"},
        [],
    ]
    for data in bad:
        with pytest.raises(InvalidPosition):
            ENG.loads(data)  # type: ignore[arg-type]


def test_the_engine_describes_itself():
    assert (ENG.slug, ENG.name, ENG.pass_move) == ("quantum_ttt", "Quantum Tic-Tac-Toe", None)
