"""The framework internals our overrides lean on are still where we left them.

Five modules reach past a library's public surface, each for a measured reason
(docs/performance.md): ``config/channel_layer.py`` (channels_redis),
``core/websocket.py`` (channels' consumer loop), ``config/daphne_server.py``
(daphne's server and Twisted's reactor),
``config/body_limit.py`` (daphne's request) and ``games/store/rows.py`` (Django's SQL
compiler). pyproject.toml pins those libraries to the minor versions tested; this
test is what fails first, and says what moved, when an upgrade changes them.
"""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version

import pytest


def members(cls: type) -> set[str]:
    return {name for klass in cls.__mro__ for name in vars(klass)}


def assigned(cls: type, method: str = "__init__") -> set[str]:
    """The ``self.X = ...`` attributes that ``method`` of ``cls`` or of a parent sets."""
    names: set[str] = set()
    for klass in cls.__mro__:
        function = vars(klass).get(method)
        if function is not None and hasattr(function, "__code__"):
            names |= set(re.findall(r"self\.(\w+)\s*(?::[^=]+)?=[^=]", inspect.getsource(function)))
    return names


def test_channels_redis_still_has_what_the_process_channel_layer_uses():
    from channels_redis import pubsub, utils

    assert callable(utils._wrap_close) and callable(utils.decode_hosts)
    shard = pubsub.RedisSingleShardConnection
    assert {
        "publish",
        "subscribe",
        "_ensure_redis",
        "_ensure_receiver",
        "_receive_message",
        "flush",
    } <= members(shard)
    assert {"_lock", "_subscribed_to"} <= assigned(shard)
    assert {"_redis", "_pubsub"} <= assigned(shard, "_ensure_redis")
    loop_layer = pubsub.RedisPubSubLoopLayer
    assert {"send", "receive", "new_channel", "flush"} <= members(loop_layer)
    assert {"_shards", "channels", "channel_layer", "prefix"} <= assigned(loop_layer)
    layer = pubsub.RedisPubSubChannelLayer
    assert "_get_layer" in members(layer)
    assert {"_layers", "_args", "_kwargs"} <= assigned(layer)


def test_channels_consumer_loop_is_still_the_one_our_consumer_replaces():
    from channels.consumer import AsyncConsumer, get_handler_name

    source = inspect.getsource(AsyncConsumer.__call__)
    # Ours (core/websocket.py JsonConsumer.__call__) does what this does, with its own loop.
    for step in ("self.scope = scope", "get_channel_layer", "new_channel", "channel_receive", "base_send"):
        assert step in source, f"channels' AsyncConsumer.__call__ no longer does {step!r}"
    assert "await_many_dispatch" in source
    assert callable(get_handler_name)
    assert "aclose_old_connections" in inspect.getsource(AsyncConsumer.dispatch)


def test_daphne_still_has_what_the_draining_server_overrides():
    from daphne.cli import CommandLineInterface
    from daphne.http_protocol import WebRequest
    from daphne.server import Server

    assert {"timeout_checker", "listen_success", "run", "stop", "application_checker"} <= members(Server)
    assert "connections" in assigned(Server, "run")
    assert "self.timeout_checker" in inspect.getsource(Server.run), (
        "daphne no longer starts its checker in run()"
    )
    assert "server_class" in members(CommandLineInterface)
    assert {"gotLength", "handleContentChunk"} <= members(WebRequest)


def test_daphne_s_websocket_factory_still_builds_the_protocol_we_replace():
    from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

    # config/daphne_server.py sets WebSocketFactory.protocol to our subclass, which
    # answers a refusal for a lost Redis with 503 instead of daphne's 403.
    assert "protocol" in vars(WebSocketFactory) and issubclass(WebSocketFactory.protocol, WebSocketProtocol)
    assert {"onConnect", "serverReject", "handle_reply"} <= members(WebSocketProtocol)
    reject = inspect.getsource(WebSocketProtocol.serverReject)
    assert "handshake_deferred.errback" in reject and "protocol_disconnected" in reject


def test_twisted_s_asyncio_reactor_still_exposes_its_event_loop():
    from twisted.internet import asyncioreactor

    assert "_asyncioEventloop" in assigned(asyncioreactor.AsyncioSelectorReactor)


def test_django_s_sql_compiler_still_has_what_the_precompiled_statements_use():
    from django.db.models.sql.compiler import SQLCompiler

    assert {"as_sql", "get_converters", "apply_converters", "setup_query"} <= members(SQLCompiler)
    assert "select" in assigned(SQLCompiler)


@pytest.mark.parametrize(
    ("package", "tested"),
    [("channels", "4.3"), ("channels-redis", "4.3"), ("daphne", "4.2"), ("Django", "5.2")],
)
def test_the_installed_versions_are_the_minor_versions_these_fences_were_checked_on(package, tested):
    assert version(package).startswith(tested + "."), (
        f"{package} {version(package)}: re-run these fence tests and the channel-layer, websocket and "
        "daphne tests before raising the pin in pyproject.toml"
    )
