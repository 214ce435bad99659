"""A workaround for kombu's Redis transport: a worker that loses its broker must reconnect, never exit.

The bug (kombu 5.7.0 with celery 5.7.0, the versions in uv.lock; issue #38, finding 4): when
Redis goes away, the worker's consumer calls ``connection.collect()`` and then
``connection.close()`` (celery/worker/consumer/consumer.py,
``on_connection_error_after_connected``). ``collect()`` closes the default channel; if that
channel still waits for a BRPOP reply (``_in_poll``, the normal state of an idle worker) and
the error was first seen on the other socket (the remote-control subscription), the channel's
``close()`` begins by reading that reply, gets ``ConnectionError`` and stops there: the
channel is left half-closed, the error is swallowed, and ``collect()`` then drops the
transport's ``client``. ``close()`` closes the same channel again; this time it gets as far as
putting back the messages the worker holds unacknowledged (a clock flag's countdown, a task in
progress, with ``acks_late``), which needs a new Redis client, built from the transport's
``client``, now ``None``: ``AttributeError: 'NoneType' object has no attribute 'hostname'``.
That is no connection error, so celery reports ``Unrecoverable error`` and the worker exits.
An idle worker holding no message never gets there, which is why a plain restart of Redis did
not show it.

Two mends, applied when config/celery.py is imported (every worker, beat and web process):

- a channel being closed treats a connection error from that pending reply as the end of the
  reply (which it is) and closes the rest, so it is closed once, while its transport still has
  its client. The messages it held are put back at once if Redis answers, or stay in Redis's
  unacked index (its visibility timeout brings them back) if it does not; either way what they
  stood for is redone from the database by the obligations sweep (docs/operations.md);
- should any other path still want a client of a closed connection, it gets redis-py's
  ``ConnectionError`` (which celery and kombu treat as a lost broker: retry, reconnect)
  instead of an ``AttributeError`` (which they treat as a bug: exit).

tests/faults/test_broker_loss.py restarts a real Redis under a real worker holding such
messages; it failed before these mends. Upstream: celery/kombu issues #582 and #970 are the
same ``_connparams`` error on other paths. Drop this module once kombu closes a channel
whose reply read failed (check with that test after upgrading kombu or celery).
"""

from __future__ import annotations

import importlib
from typing import Any

_MENDED = "_fiveboards_mended"


def mend_redis_channel_close() -> None:
    """Make kombu's Redis channel survive closing after its connection died (idempotent)."""
    # Any: kombu's type stubs know neither the module's names nor the channel's private methods.
    try:
        kombu_redis: Any = importlib.import_module("kombu.transport.redis")
    except ImportError:
        return
    if kombu_redis.redis is None:  # no redis client installed: no Redis transport to mend
        return
    channel_class: Any = kombu_redis.Channel
    if getattr(channel_class.close, _MENDED, False):
        return
    original_close = channel_class.close

    def close(self: Any) -> None:
        if getattr(self, "_in_poll", None) and not self.closed:
            try:
                self._brpop_read()  # as the original close does: a reply may still be delivered
            except kombu_redis.Empty:
                pass
            except self.connection_errors:
                # The socket is gone; _brpop_read's ``finally`` has cleared _in_poll, so the
                # original close goes on to close the pools and clients, and put back what
                # this channel held, while the transport still knows its connection.
                pass
        original_close(self)

    original_connparams = channel_class._connparams

    def _connparams(self: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if self.connection.client is None:
            raise kombu_redis.redis.exceptions.ConnectionError("the broker connection was closed")
        return original_connparams(self, *args, **kwargs)

    setattr(close, _MENDED, True)
    close.__doc__ = original_close.__doc__
    channel_class.close = close
    channel_class._connparams = _connparams
