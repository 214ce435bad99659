"""A move the server does not acknowledge is sent again, less and less often.

The page resends an unacknowledged move (same id: applied at most once) with a
sync, in case the move or its reply went missing. A server that is slow because
it is overloaded only gets slower for each of those it must answer, so the waits
between resends double up to a ceiling instead of repeating every 4 s.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.pages import click_move, snapshot, start_game_from_home

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_move_the_server_never_acknowledges_is_resent_at_growing_intervals(new_context):
    page = new_context().new_page()
    page.clock.install()  # the page's timers run on a clock the test moves forward
    sent: list[str] = []

    def between_page_and_server(ws) -> None:
        server = ws.connect_to_server()

        def from_page(message) -> None:
            frame = json.loads(message) if isinstance(message, str) else {}
            if frame.get("type") == "move":
                sent.append(frame["id"])
                return  # lost on the way: no ack will ever come
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws/game/\d+/"), between_page_and_server)
    start_game_from_home(page, "reversi", opponent="computer", side="0")
    click_move(page, "reversi", "d3")
    page.wait_for_timeout(300)
    assert len(sent) == 1

    # Resent after 1.5 s, then 4 s later, then 8 s and 16 s later: 13.5 s and 29.5 s in.
    page.clock.run_for(31_000)
    page.wait_for_timeout(500)
    assert len(sent) == 5, sent  # every 4 s it would have been 9
    assert len(set(sent)) == 1, "every resend is the same move, with the same id"
    assert snapshot(page)["ply"] == 0, "nothing reached the server, so nothing was played"
