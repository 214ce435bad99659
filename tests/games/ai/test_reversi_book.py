"""Reversi Hard's opening book: the named Othello openings, legal here, varied, and Hard's only."""

from __future__ import annotations

import random
import time

import pytest

from games.ai import choose_move, reversi_book
from games.ai import reversi as reversi_ai
from games.ai.reversi_book import (
    SYMMETRIES,
    book_moves,
    book_text,
    build,
    openings,
    parse,
    transform_mask,
    transform_move,
)
from games.engines.base import replay
from games.engines.reversi import ReversiEngine

ENGINE = ReversiEngine()


def canonical(moves: list[str]) -> tuple[str, ...]:
    """``moves`` turned so that the first is f5, the orientation the book's lines are written in."""
    for symmetry in SYMMETRIES:
        if transform_move(moves[0], symmetry) == "f5":
            return tuple(transform_move(move, symmetry) for move in moves)
    raise AssertionError(f"{moves[0]} is not one of black's four first moves")


def named_positions() -> set[tuple[int, int, int]]:
    """Every position on the way of a named opening, in all four orientations."""
    positions = set()
    for opening in openings():
        state = ENGINE.initial()
        for move in opening.moves:
            state = ENGINE.play(state, move)
            for symmetry in SYMMETRIES:
                black, white = transform_mask(state.black, symmetry), transform_mask(state.white, symmetry)
                positions.add((black, white, state.side))
    return positions


def follows_named_openings(moves: list[str]) -> bool:
    """Every position of ``moves`` is one a named opening passes through (in some orientation, by
    some move order: the book is looked up by position)."""
    named, state = named_positions(), ENGINE.initial()
    for move in moves:
        state = ENGINE.play(state, move)
        if (state.black, state.white, state.side) not in named:
            return False
    return True


def hard_against_hard_in_book(seed: int) -> list[str]:
    """The moves Hard plays against itself from the start while the position is in its book."""
    state, moves = ENGINE.initial(), []
    while book_moves(state):
        move = choose_move(ENGINE, state, "hard", seed=seed * 100 + len(moves))
        moves.append(move)
        state = ENGINE.play(state, move)
    return moves


def test_every_named_opening_is_legal_from_the_sites_start():
    assert len(openings()) >= 80
    for opening in openings():
        replay(ENGINE, list(opening.moves))  # IllegalMove names the opening's bad move
    for moves in book_text().avoided:
        replay(ENGINE, list(moves))


def test_the_book_holds_the_openings_the_issue_names():
    names = {name.strip() for opening in openings() for name in opening.name.split(",")}
    for wanted in (
        "Tiger", "Rose", "Buffalo", "Heath", "Cow", "Chimney", "Snake", "Cat", "Aubrey", "Bat",
        "Leader's Tiger", "Stephenson", "No-Kung", "Mimura", "Ralle", "Brightwell", "Tamenori",
        "Parallel", "Perpendicular", "Diagonal",
    ):  # fmt: skip
        assert wanted in names


def test_the_four_symmetries_keep_the_start_and_map_f5_onto_blacks_four_first_moves():
    start = ENGINE.initial()
    for symmetry in SYMMETRIES:
        assert transform_mask(start.black, symmetry) == start.black
        assert transform_mask(start.white, symmetry) == start.white
    assert {transform_move("f5", symmetry) for symmetry in SYMMETRIES} == set(ENGINE.legal_moves(start))


def test_hards_first_moves_are_varied_and_each_follows_a_named_opening():
    starts = {choose_move(ENGINE, ENGINE.initial(), "hard", seed=seed) for seed in range(20)}
    assert len(starts) >= 3  # all four open the same position, turned
    # After f5 d6 black has the Tiger's c3 and the Cat's c4 (the Rose's c5 reads below them here).
    replies = {choose_move(ENGINE, replay(ENGINE, ["f5", "d6"]), "hard", seed=seed) for seed in range(20)}
    assert replies == {"c3", "c4"}
    games = [hard_against_hard_in_book(seed) for seed in range(12)]
    for moves in games:
        assert len(moves) >= 4
        assert follows_named_openings(moves), moves
    assert len({canonical(moves)[:4] for moves in games}) >= 3


def test_the_same_seed_gives_the_same_book_moves():
    for seed in range(6):
        assert hard_against_hard_in_book(seed) == hard_against_hard_in_book(seed)


def test_a_line_played_in_another_orientation_is_still_in_the_book():
    # d3 c5 is f5 d6 reflected in the h1-a8 diagonal; the Tiger's replies there are its replies turned.
    turned = {transform_move(move, SYMMETRIES[3]) for move in book_moves(replay(ENGINE, ["f5", "d6", "c3"]))}
    assert book_moves(replay(ENGINE, ["d3", "c5", "f6"])) == tuple(sorted(turned))


def test_in_book_hard_plays_without_searching(monkeypatch):
    def no_search(*args, **kwargs):
        raise AssertionError("Hard searched a book position")

    monkeypatch.setattr(reversi_ai, "search_move", no_search)
    state = replay(ENGINE, ["f5", "f6", "e6"])
    move = reversi_ai.choose(ENGINE, state, "hard", random.Random(1), time.perf_counter() + 1.0)
    assert book_moves(state) == ("d6", "f4")  # d6 of the Buffalo, Cow, Heath ..., f4 of the Classic Heath
    assert move in book_moves(state)


def test_after_an_out_of_book_move_hard_searches_as_before(monkeypatch):
    searched = []

    def search(own, opp, level, rng, deadline):
        searched.append(level)
        return real_search(own, opp, level, rng, deadline)

    real_search = reversi_ai.search_move
    monkeypatch.setattr(reversi_ai, "search_move", search)
    state = replay(ENGINE, ["f5", "d6", "c3", "d3", "c4", "f4", "g4"])  # g4: no named line goes there
    assert book_moves(state) == ()
    move = choose_move(ENGINE, state, "hard", seed=3, time_budget=0.1)
    assert searched == ["hard"] and move in ENGINE.legal_moves(state)
    # After the parallel (which the book names but Hard never plays) black is out of book too.
    searched.clear()
    state = replay(ENGINE, ["f5", "f4"])
    assert book_moves(state) == ()
    choose_move(ENGINE, state, "hard", seed=3, time_budget=0.1)
    assert searched == ["hard"]


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_easy_and_medium_never_consult_the_book(monkeypatch, level):
    def no_book(state):
        raise AssertionError(f"{level} looked in the opening book")

    monkeypatch.setattr(reversi_book, "book_moves", no_book)
    state = ENGINE.initial()
    for ply in range(6):
        move = choose_move(ENGINE, state, level, seed=ply, time_budget=0.05)
        state = ENGINE.play(state, move)


def test_an_avoided_move_is_never_hards_but_the_book_goes_on_after_it():
    text = parse("f5 f4  Parallel\nf5 f4 e3 f6  A line after it\nf5 d6  Perpendicular\navoid: f5 f4  bad\n")
    assert [opening.name for opening in text.openings] == ["Parallel", "A line after it", "Perpendicular"]
    table = build(text)

    def moves_after(moves: list[str]) -> tuple[str, ...]:
        state = replay(ENGINE, moves)
        return table.get((state.black, state.white, state.side), ())

    assert moves_after(["f5"]) == ("d6",)  # white's f4 is avoided ...
    assert moves_after(["f5", "f4"]) == ("e3",)  # ... but black answers it from the book
    # The same lines reflected in the a1-h8 diagonal, from black's first move e6:
    assert moves_after(["e6"]) == ("f4",)  # f5 d6 reflected
    assert moves_after(["e6", "d6"]) == ("c5",)  # f5 f4 e3 reflected
    with pytest.raises(ValueError, match="line 1"):
        parse("f5 d6\n")  # moves without a name


def test_hard_never_plays_a_named_move_the_book_avoids_but_answers_it_from_the_book():
    # The Parallel f4 (long held bad) and the X-square g7 are named openings Hard never chooses.
    assert ("f5", "f4") in book_text().avoided and ("f5", "f6", "e6", "d6", "g7") in book_text().avoided
    assert "f4" not in book_moves(replay(ENGINE, ["f5"]))
    assert "g7" not in book_moves(replay(ENGINE, ["f5", "f6", "e6", "d6"]))
    # When the opponent opens with the diagonal f6, Hard (black) goes on with the book's e6.
    assert {choose_move(ENGINE, replay(ENGINE, ["f5", "f6"]), "hard", seed=seed) for seed in range(5)} == {
        "e6"
    }
