"""Reversi Hard's learned pattern evaluation: one weights file, read the same by both searches, and sound."""

from __future__ import annotations

import importlib.util
import random
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games.ai import _reversi_tables as tables
from games.ai import reversi as reversi_ai
from games.ai import reversi_eval
from games.ai.reversi_search import Search
from games.engines.reversi import ReversiEngine, flips, legal_mask

ENGINE = ReversiEngine()
REPO = Path(__file__).resolve().parents[3]
core = reversi_ai.compiled_core()
needs_core = pytest.mark.skipif(core is None, reason="numba is not installed")


def random_positions(
    count: int, seed: int, min_empties: int = 1, max_empties: int = 60
) -> list[tuple[int, int]]:
    """(side to move's discs, the other side's) from random games, where the side to move has a move."""
    rng = random.Random(seed)
    found: list[tuple[int, int]] = []
    while len(found) < count:
        own, opp = 0x0000000810000000, 0x0000001008000000
        while True:
            moves = legal_mask(own, opp)
            if not moves:
                if not legal_mask(opp, own):
                    break
                own, opp = opp, own
                continue
            n_empty = 64 - (own | opp).bit_count()
            if min_empties <= n_empty <= max_empties and rng.random() < 0.3:
                found.append((own, opp))
            squares = [sq for sq in range(64) if moves >> sq & 1]
            sq = rng.choice(squares)
            f = flips(own, opp, sq)
            own, opp = opp ^ f, own | f | (1 << sq)
    return found[:count]


def transform(mask: int, symmetry: int) -> int:
    """The board ``mask`` under one of the 8 symmetries (reflections and rotations)."""
    result = 0
    for sq in range(64):
        if mask >> sq & 1:
            c, r = sq % 8, sq // 8
            if symmetry & 1:
                c = 7 - c
            if symmetry & 2:
                r = 7 - r
            if symmetry & 4:
                c, r = r, c
            result |= 1 << (r * 8 + c)
    return result


def test_the_committed_weights_file_is_small_versioned_and_fits_the_patterns():
    data = tables.WEIGHTS_PATH.read_bytes()
    assert data[:4] == b"RVEV"
    assert struct.unpack_from("<H", data, 4)[0] == tables.WEIGHTS_VERSION == 1
    assert len(data) < 400 * 1024
    weights = tables.read_weights()
    assert weights.n_phases >= 4
    assert all(len(table) == tables.TABLE_SIZE for table in weights.tables)
    # Fitted, not empty: most phases have thousands of non-zero weights.
    assert all(sum(1 for w in table if w) > 1000 for table in weights.tables)


def test_every_pattern_is_placed_once_per_symmetric_image_and_reads_its_squares_in_order():
    sizes = {f.name: (f.size, len(f.instances)) for f in tables.PATTERN_FAMILIES}
    assert sizes == {
        "corner3x3": (9, 4),
        "corner2x5": (10, 8),
        "edge2x": (10, 4),
        "row2": (8, 4),
        "row3": (8, 4),
        "row4": (8, 4),
        "diag8": (8, 2),
        "diag7": (7, 4),
        "diag6": (6, 4),
        "diag5": (5, 4),
        "diag4": (4, 4),
    }
    assert len(tables.PATTERN_INSTANCES) == 46
    # The a1 corner's 3x3 square, first digit a1; the h8 one mirrors it, first digit h8.
    corner = tables.PATTERN_FAMILIES[0]
    assert corner.instances[0] == (0, 1, 2, 8, 9, 10, 16, 17, 18)
    assert (63, 62, 61, 55, 54, 53, 47, 46, 45) in corner.instances


def test_mirror_equal_configurations_share_one_stored_weight():
    slot_of, stored = tables.compact_layout()
    row = tables.PATTERN_FAMILIES[3]  # a row reads the same weight left to right and right to left
    offset = tables.FAMILY_OFFSETS[3]
    own_then_empty = int("1" + "0" * 7, 3)  # own disc on the first square, the rest empty
    empty_then_own = int("0" * 7 + "1", 3)
    assert row.size == 8
    assert slot_of[offset + own_then_empty] == slot_of[offset + empty_then_own]
    assert slot_of[offset + own_then_empty] != slot_of[offset + int("2" + "0" * 7, 3)]
    assert stored < tables.TABLE_SIZE * 0.7


def test_the_evaluation_is_the_same_for_every_symmetric_image_of_a_position():
    for own, opp in random_positions(60, seed=3):
        value = reversi_eval.evaluate_learned(own, opp)
        for symmetry in range(1, 8):
            assert reversi_eval.evaluate_learned(transform(own, symmetry), transform(opp, symmetry)) == value


@needs_core
def test_the_compiled_evaluation_reads_the_same_weights_and_agrees_with_the_pure_python_one():
    for own, opp in random_positions(400, seed=5):
        assert core.evaluate_learned(own, opp) == reversi_eval.evaluate_learned(own, opp)
    assert (core.pattern_array() == tables.read_weights().tables).all()


def test_a_damaged_or_foreign_weights_file_is_refused_with_a_clear_error(tmp_path):
    good = tables.WEIGHTS_PATH.read_bytes()
    cases = {
        "not-weights.bin": b"PK\x03\x04" + good[4:],
        "version-2.bin": good[:4] + struct.pack("<H", 2) + good[6:],
        "other-layout.bin": good[:12] + struct.pack("<I", 12345) + good[16:],
        "truncated.bin": good[:10],
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ValueError, match=str(path)):
            tables.read_weights(path)


def test_weights_written_by_the_trainer_are_read_back_unchanged(tmp_path):
    _, stored = tables.compact_layout()
    rng = random.Random(1)
    phases = [[rng.randint(-500, 500) if rng.random() < 0.1 else 0 for _ in range(stored)] for _ in range(3)]
    path = tmp_path / "w.bin"
    tables.write_weights(path, phases)
    slot_of, _ = tables.compact_layout()
    read = tables.read_weights(path)
    assert read.n_phases == 3
    for phase, table in zip(phases, read.tables, strict=True):
        assert table.tolist() == [phase[slot] for slot in slot_of]
    # Each number of empty squares picks the weights of its phase, the first at the start.
    assert read.by_empties[60] is read.tables[0] and read.by_empties[1] is read.tables[2]


def correlation(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    vx = sum((x - mx) ** 2 for x in xs)
    vy = sum((y - my) ** 2 for y in ys)
    return cov / (vx * vy) ** 0.5


def played_positions(count: int, seed: int, min_empties: int, max_empties: int) -> list[tuple[int, int]]:
    """Positions of games as people play them: a few random opening moves, then both sides play
    Medium's search two plies deep (random games are full of blunders no evaluation explains)."""
    rng = random.Random(seed)
    found: list[tuple[int, int]] = []
    while len(found) < count:
        own, opp = 0x0000000810000000, 0x0000001008000000
        opening = rng.randint(2, 10)
        for ply in range(80):
            moves = legal_mask(own, opp)
            if not moves:
                if not legal_mask(opp, own):
                    break
                own, opp = opp, own
                continue
            n_empty = 64 - (own | opp).bit_count()
            if n_empty < min_empties:
                break
            if n_empty <= max_empties and rng.random() < 0.2:
                found.append((own, opp))
                break
            if ply < opening:
                sq = rng.choice([sq for sq in range(64) if moves >> sq & 1])
            else:
                search = Search(reversi_eval.evaluate_medium, float("inf"))
                sq = search.root(own, opp, 2, search.ordered(own, opp, moves, -1, 3), None)[0][1]
            f = flips(own, opp, sq)
            own, opp = opp ^ f, own | f | (1 << sq)
    return found


@needs_core
def test_the_learned_evaluation_foresees_the_exact_endgame_result_better_than_the_hand_written_one():
    positions = played_positions(120, seed=8, min_empties=12, max_empties=14)
    exact = [float(core.solve(own, opp, -64, 64, float("inf"))[0]) for own, opp in positions]
    learned = [reversi_eval.evaluate_learned(own, opp) / tables.EVAL_SCALE for own, opp in positions]
    classic = [float(reversi_eval.evaluate_hard(own, opp)) for own, opp in positions]
    assert correlation(learned, exact) > 0.88
    assert correlation(learned, exact) > correlation(classic, exact) + 0.03
    # In discs, as its scale says: half the positions or more within 10 discs of the truth.
    assert sum(abs(a - b) <= 10 for a, b in zip(learned, exact, strict=True)) >= 0.5 * len(positions)


def test_the_pure_python_search_plays_hard_on_the_learned_evaluation_without_numba():
    script = (
        "import random, time\n"
        "from games.ai import reversi\n"
        "from games.engines.reversi import ReversiEngine\n"
        "assert reversi.compiled_core() is None\n"
        "assert reversi._LEVELS['hard'].evaluate is reversi.evaluate_learned\n"
        "e = ReversiEngine()\n"
        "s = e.from_fen('-XOOOOO---XOXO----XXOX----OXOX-----XOO----XXXXXX---X------XXX--- O')\n"
        "print(reversi.choose(e, s, 'hard', random.Random(0), time.perf_counter() + 0.5))\n"
    )
    env = {"GAMES_AI_PURE_PYTHON": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "a1"  # the corner the opponent left open


def load_trainer():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "train_reversi_eval", REPO / "bench" / "train_reversi_eval.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_core
def test_the_trainer_s_self_play_is_reproducible_and_labels_positions_with_the_exact_result():
    trainer = load_trainer()
    job = (1, 0, 2, 0.0, 0.1, 10, "classic")  # seed, game, depth, epsilons, exact from 10 empties, player
    rows = trainer.play_game(job)
    assert np.array_equal(rows, trainer.play_game(job))
    assert not np.array_equal(rows, trainer.play_game((2, 0, 2, 0.0, 0.1, 10, "classic")))
    labels = [int(label) - 64 for label in rows[:, 2]]
    for (own, opp, _, own_moves, opp_moves), label in zip(rows.tolist(), labels, strict=True):
        assert own_moves == legal_mask(own, opp).bit_count() > 0
        assert opp_moves == legal_mask(opp, own).bit_count()
        if 64 - (own | opp).bit_count() <= 10:
            assert label == core.solve(own, opp, -64, 64, float("inf"))[0]
    # Before the solver's horizon every position carries the exact result of the game from its
    # side's point of view: the same size throughout, the sign flipping with the side to move.
    early = [
        label
        for (own, opp, *_), label in zip(rows.tolist(), labels, strict=True)
        if (own | opp).bit_count() < 54
    ]
    assert len({abs(label) for label in early}) == 1
