"""docs/protocol.md's chat section and the code say the same."""

from __future__ import annotations

import re
from pathlib import Path

from chat.consumers import ChatPart
from chat.presets import PRESETS
from chat.services import Verdict

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
CHAT = DOC[DOC.index("## Chat") :]
CHAT = CHAT[: CHAT.index("\n## ")]


def test_every_chat_refusal_is_documented_and_every_documented_one_exists():
    table = CHAT[CHAT.index("| chat code | when |") :] + "\n\n"
    rows = table[: table.index("\n\n")].splitlines()[2:]
    documented = {code for row in rows for code in re.findall(r"`([a-z_]+)`", row.split("|")[1])}
    assert documented == {verdict.value for verdict in Verdict if verdict is not Verdict.OK}


def test_every_chat_command_the_socket_understands_is_documented():
    handlers = set(ChatPart.command_names())
    documented = set(re.findall(r'^\| `\{"type": "([a-z_]+)"', CHAT, flags=re.MULTILINE))
    assert handlers == documented == {"chat", "chat_history", "chat_report", "chat_settings"}


def test_the_documented_presets_are_the_ones_there_are():
    sentence = CHAT[CHAT.index("Post a preset phrase:") :]
    sentence = sentence[: sentence.index(".")]
    assert set(re.findall(r"`([a-z_]+)`", sentence)) == set(PRESETS)
