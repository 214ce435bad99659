"""BOT accounts (issue #41) stay out of what is made for people: the game page's socket and the pools."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games.live import presence
from games.models import Seek
from games.services import GameError, pairing
from tests.games.conftest import game_socket
from tests.people import me


@pytest.mark.django_db(transaction=True)
async def test_a_bot_is_refused_by_the_game_socket_with_a_code_and_is_not_shown_online(human_game):
    game_id, _alice, (_bob, bob_cookie) = await database_sync_to_async(human_game)()
    await User.objects.filter(username="bob").aupdate(is_bot=True)
    ws = game_socket(game_id, bob_cookie)
    connected, _ = await ws.connect()
    assert connected  # accepted only to say why
    refusal = await ws.receive_json_from(timeout=5)
    assert refusal["type"] == "error" and refusal["code"] == "bot_account"
    closed = await ws.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4403}
    online, _seq = await database_sync_to_async(presence.online)(game_id)
    assert online == [False, False]  # the bot's seat never counted as present


@pytest.mark.django_db
def test_a_bot_cannot_seek_a_quick_game_and_no_seek_is_left(user_factory):
    robot = user_factory("robot", is_bot=True)
    with pytest.raises(GameError) as refused:
        pairing.seek(identity=me(robot), game="ataxx", minutes=3, increment=2)
    assert refused.value.code == "bot_account"
    assert not Seek.objects.exists()
