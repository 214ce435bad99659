"""Issue #38, finding 10: a closing socket ends quietly.

A ping flood logged tracebacks ("Attempt to send on a closed protocol"): once a
socket closes (the client's close frame, or the flood limit's 4008), daphne's
autobahn raises ``Disconnected`` on every send still on its way, and the
consumer logged each as a failed handler and then failed again answering it.
"""

from __future__ import annotations

import logging

import pytest
from autobahn.exception import Disconnected

from core.websocket import JsonConsumer, TokenBucket
from tests.config.test_websocket import communicator

pytestmark = [pytest.mark.django_db(transaction=True)]


def consumer_on_a_closed_socket() -> tuple[JsonConsumer, list[dict]]:
    """A consumer whose socket closed under it, as daphne's send reports it."""
    consumer = JsonConsumer()
    consumer.scope = {"type": "websocket"}
    consumer.channel_name = "test.closed"
    consumer.bucket = TokenBucket(100, 20)
    tried: list[dict] = []

    async def closed_socket(message: dict) -> None:
        tried.append(message)
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.base_send = closed_socket
    return consumer, tried


async def test_a_reply_racing_the_client_s_close_is_dropped_without_an_error(caplog):
    consumer, tried = consumer_on_a_closed_socket()
    with caplog.at_level(logging.DEBUG):
        await consumer.send_json({"type": "pong"})
        await consumer.send_json({"type": "event"})
    assert len(tried) == 1  # the second was not even handed to daphne
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_a_ping_handled_as_the_socket_closes_logs_no_traceback(caplog):
    consumer, _tried = consumer_on_a_closed_socket()
    with caplog.at_level(logging.INFO):
        await consumer.receive(text_data='{"type": "ping"}')  # raised, and logged a traceback, before
        await consumer.receive(text_data='{"type": "ping"}')
    assert [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info] == []


async def test_frames_after_the_flood_close_are_dropped_not_answered(settings):
    settings.WS_RATE_MESSAGES = 2
    flooder = communicator()
    await flooder.connect()
    for _ in range(2):
        await flooder.send_json_to({"type": "ping"})
        assert await flooder.receive_json_from() == {"type": "pong"}
    await flooder.send_json_to({"type": "ping"})
    assert await flooder.receive_output() == {"type": "websocket.close", "code": 4008}
    for _ in range(3):  # the rest of the flood, already on its way
        await flooder.send_json_to({"type": "ping"})
    assert await flooder.receive_nothing(timeout=0.5)
