"""docs/protocol.md and the code say the same: codes, events, end reasons, snapshot fields, close codes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from accounts.identity import Identity
from core import websocket
from games import bus, protocol, services
from games.models import EndReason, Game

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def error_codes_in_doc() -> set[str]:
    table = DOC[DOC.index("| code | when |") :]
    rows = table[: table.index("\n\n")].splitlines()[2:]
    return {code for row in rows for code in re.findall(r"`([a-z_]+)`", row.split("|")[1])}


def test_every_error_code_is_documented_and_every_documented_code_exists():
    assert error_codes_in_doc() == set(get_args(protocol.ErrorCode))
    assert {code.value for code in services.Code} <= set(get_args(protocol.ErrorCode))


def test_every_event_is_documented():
    sentence = DOC[DOC.index("`event` is one of") :]
    sentence = sentence[: sentence.index(".\n")]
    assert set(re.findall(r"`([a-z_]+)`", sentence)) - {"event"} == set(get_args(protocol.EventName))


def test_every_end_reason_is_documented_and_is_one_the_model_knows():
    paragraph = DOC[DOC.index("Result reasons:") :]
    paragraph = paragraph[: paragraph.index("\n\n")]
    documented = set(re.findall(r"`([a-z_]+)`", paragraph))
    assert documented == set(get_args(protocol.EndReasonName)) == set(EndReason.values)


def test_snapshot_statuses_are_the_models():
    # games.live.bus.snapshot casts Game.status to GameStatusName: they must stay the same set.
    assert set(get_args(protocol.GameStatusName)) == set(Game.Status.values)


def close_codes_in_the_code() -> dict[str, int]:
    """Every ``CLOSE_*`` constant of the modules that close sockets, by name."""
    from accounts import consumers as account_consumers
    from config import daphne_server
    from games.live import consumers

    return {
        f"{module.__name__}.{name}": value
        for module in (websocket, consumers, account_consumers, daphne_server)
        for name, value in vars(module).items()
        if name.startswith("CLOSE_") and isinstance(value, int)
    }


def test_close_codes_in_the_doc_are_the_ones_the_sockets_use():
    table = DOC[DOC.index("| code | meaning | what a client does |") :]
    table = table[: table.index("\n\n")]
    documented = {int(code) for code in re.findall(r"^\| `(\d{4})`", table, flags=re.MULTILINE)}
    used = close_codes_in_the_code()
    # 1009 is autobahn's own (a frame over daphne's limit), not one of ours.
    assert set(used.values()) | {1009} == documented
    # autobahn lets an application send only 4000-4999, and 1012 from the server itself.
    assert all(4000 <= code <= 4999 for name, code in used.items() if "daphne_server" not in name)


def _top_level_keys(block: str) -> set[str]:
    """The keys of a documented JSON object, not those of the objects nested in it."""
    keys, depth = set(), 0
    for token in re.finditer(r'[{}\[\]]|"([a-z_]+)":', re.sub(r"//.*", "", block)):
        if token.group(0) in "{[":
            depth += 1
        elif token.group(0) in "}]":
            depth -= 1
        elif depth == 1:
            keys.add(token.group(1))
    return keys


@pytest.mark.django_db
def test_the_snapshot_has_exactly_the_documented_fields(user_factory):
    block = DOC[DOC.index("## The snapshot") :]
    block = block[block.index("```json") + 7 : block.index("```", block.index("```json") + 7)]
    documented = _top_level_keys(block)
    game = services.create_computer_game(
        identity=Identity(user_factory(), None), game="reversi", level="easy", side=0
    )
    snapshot = bus.snapshot(Game.objects.get(pk=game.pk))
    assert set(snapshot) == set(protocol.Snapshot.__annotations__) == documented


@pytest.mark.django_db
def test_the_move_patch_has_exactly_the_documented_fields_and_rebuilds_the_snapshot(user_factory):
    block = DOC[DOC.index("## The move patch") :]
    block = block[block.index("```json") + 7 : block.index("```", block.index("```json") + 7)]
    game = services.create_computer_game(
        identity=Identity(user_factory(), None), game="reversi", level="easy", side=0
    )
    before = bus.snapshot(Game.objects.get(pk=game.pk))
    services.play_move(game_id=game.pk, identity=Identity(game.user0, None), token="d3", ply=0)
    after_game = Game.objects.get(pk=game.pk)
    after = bus.snapshot(after_game)
    added = after_game.tokens[len(before["moves"]) :]
    patch = bus.move_patch(after_game, added)
    assert set(patch) == set(protocol.MovePatch.__annotations__) == _top_level_keys(block)
    changed = {key: value for key, value in patch.items() if key != "added"}
    rebuilt = {**before, **changed, "v": after["v"], "moves": before["moves"] + patch["added"]}
    for snapshot in (rebuilt, after):  # a running clock reads differently a moment later
        snapshot["clock"] = {**snapshot["clock"], "at": 0, "ms": None}
    assert rebuilt == after
