"""daphne that drains on SIGTERM: ``python -m config.daphne_server [daphne options] config.asgi:application``.

Plain daphne stops at once on SIGTERM: its sockets are cut without a close frame
and whatever request was running is cancelled. This wrapper takes every daphne
option and, on SIGTERM (or SIGINT):

1. stops listening, so a proxy in front sends new connections to another process;
2. closes every open websocket with 1012 ("service restart"): the site's clients
   and ``games.live.bot.GameBot`` reconnect at once, through the proxy, elsewhere;
3. lets HTTP requests already running finish, and exits when no connection is
   left or after ``--drain-seconds`` (default 10, env ``DAPHNE_DRAIN_SECONDS``),
   whichever comes first; whatever is still open then is cancelled as daphne does.

A second SIGTERM during the drain stops at once.

It also spreads daphne's timeout and keep-alive checks over time (``SpreadChecks``),
and keeps the keys of password-reset and e-mail verification links out of its
access log (``RedactingAccessLog``).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import re
import signal
import sys

from autobahn.websocket import ConnectionDeny
from daphne.access import AccessLogGenerator
from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

from config.unavailable import CLOSE_UNAVAILABLE

logger = logging.getLogger("daphne.drain")

CLOSE_SERVICE_RESTART = 1012


# Young-generation sizes for the garbage collector (Python's default: 700, 10, 10).
GC_THRESHOLDS = os.getenv("DAPHNE_GC_THRESHOLDS", "50000,20,100")


def tune_garbage_collector() -> None:
    """Keep the collector's pauses off the move path (bench/ws_load.py, README).

    Every open socket is a few hundred long-lived objects, and Python's default
    thresholds run a full collection every few seconds under load: with 10,000
    sockets open one took 1.4 s of CPU, and moves waited behind it. Everything
    loaded at start-up (Django, the apps, the engines) is frozen out of the
    collector's sight, and collections are made rarer. The cost is memory:
    cyclic garbage that reaches the old generation (what a closed socket leaves)
    waits longer. It once cost database connections too, each finished request
    thread's one waiting there; they now go back to the pool at the end of the
    request (config/settings.py, tests/config/test_database_connections.py).
    """
    gc.freeze()
    gc.set_threshold(*(int(part) for part in GC_THRESHOLDS.split(",")))


class SpreadChecks:
    """Which connections to check at each tick, so that each is checked once per round.

    daphne checks every connection's timeouts every 2 s in one go, and that is
    where it sends its keep-alive pings (every 20 s a socket). Sockets that
    opened together are due together: with 10,000 open, about 1,000 pings went
    out in one burst every 2 s, and moves waited behind each burst (the round
    trip's p99 measured: docs/performance.md, bench/ws_load.py --idle-sockets).
    Here a round still takes 2 s, in ``slices`` ticks, and each tick takes every
    ``slices``-th connection of the round's list: sockets that opened together
    are next to each other in that list, so their pings go out in different ticks.
    """

    def __init__(self, slices: int) -> None:
        self.slices = slices
        self._round: list = []
        self._tick = slices  # the first call starts a round

    def next_slice(self, connections: dict) -> list:
        if self._tick >= self.slices:
            self._round = list(connections)  # joining later waits for the next round
            self._tick = 0
        chosen = self._round[self._tick :: self.slices]
        self._tick += 1
        # A connection gone since the round began is not checked (daphne's loop
        # never saw those either).
        return [protocol for protocol in chosen if protocol in connections]


# The paths that carry a one-time key (allauth's password reset and e-mail verification
# links): whoever reads a log must not be able to use them. nginx's log is redacted
# the same way (deploy/nginx/fiveboards.conf.template, the $fiveboards_logged_request map).
SECRET_PATHS = re.compile(r"(/accounts/(?:password/reset/key|confirm-email)/)[^/?\s]+")
REDACTED = "[redacted]"


def redact(path: str) -> str:
    """``path`` with the key of a reset or verification link replaced by ``[redacted]``."""
    return SECRET_PATHS.sub(rf"\g<1>{REDACTED}", path)


class RedactingAccessLog(AccessLogGenerator):
    """daphne's access log (NCSA style), without the keys in reset and verification links."""

    def write_entry(self, host, date, request, status=None, length=None, ident=None, user=None) -> None:
        super().write_entry(host, date, redact(request), status, length, ident, user)


class DrainingServer(Server):
    drain_seconds: float = 10.0
    # daphne's timeout_checker runs every 2 s over all connections; ours, over a slice.
    check_round_seconds = 2.0
    check_slices = 20

    def __init__(self, *args, **kwargs) -> None:
        # The reactor's own handlers would stop at once; ours are installed on the loop.
        kwargs["signal_handlers"] = False
        # daphne's CLI makes its access log (to stdout from verbosity 1, or --access-log): same stream, redacted.
        action_logger = kwargs.get("action_logger")
        if isinstance(action_logger, AccessLogGenerator) and not isinstance(
            action_logger, RedactingAccessLog
        ):
            kwargs["action_logger"] = RedactingAccessLog(action_logger.stream)
        super().__init__(*args, **kwargs)
        self.ports: list = []
        self.draining = False
        self.spread_checks = SpreadChecks(self.check_slices)

    def timeout_checker(self) -> None:
        """daphne's, spread over ``check_slices`` ticks (see ``SpreadChecks``)."""
        from twisted.internet import reactor

        for protocol in self.spread_checks.next_slice(self.connections):
            protocol.check_timeouts()
        reactor.callLater(self.check_round_seconds / self.check_slices, self.timeout_checker)  # type: ignore[arg-type]

    def listen_success(self, port) -> None:
        self.ports.append(port)
        super().listen_success(port)

    def run(self) -> None:
        from twisted.internet import reactor

        def install() -> None:
            loop = reactor._asyncioEventloop
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, self.drain)
            tune_garbage_collector()

        reactor.callWhenRunning(install)
        super().run()

    def drain(self) -> None:
        from twisted.internet import reactor

        if self.draining:
            logger.warning("second stop signal: stopping now")
            self.stop()
            return
        self.draining = True
        for port in self.ports:
            port.stopListening()
        sockets = 0
        for protocol in list(self.connections):
            if (
                hasattr(protocol, "sendCloseFrame")
                and getattr(protocol, "state", None) == protocol.STATE_OPEN
            ):
                try:
                    # Autobahn's sendClose() allows only 1000 and 3000-4999 from
                    # applications; 1012 is the registered "service restart" code.
                    protocol.sendCloseFrame(code=CLOSE_SERVICE_RESTART, isReply=False)
                    sockets += 1
                except Exception:  # one broken socket must not stop the drain
                    logger.exception("could not close a websocket")
        logger.warning(
            "draining: stopped listening, closed %d websockets (1012); waiting up to %.0f s",
            sockets,
            self.drain_seconds,
        )
        # Twisted's interfaces declare their methods without ``self`` (zope.interface), which
        # mypy reads as unbound functions without the mypy-zope plugin: hence the ignores.
        deadline = reactor.seconds() + self.drain_seconds  # type: ignore[misc]

        def check() -> None:
            open_connections = [p for p, details in self.connections.items() if "disconnected" not in details]
            if not open_connections or reactor.seconds() >= deadline:  # type: ignore[misc]
                if open_connections:
                    logger.warning(
                        "drain deadline: %d connections still open, stopping", len(open_connections)
                    )
                self.stop()
            else:
                reactor.callLater(0.1, check)  # type: ignore[arg-type]

        check()


class UnavailableRefusingWebSocketProtocol(WebSocketProtocol):
    """daphne's websocket protocol, but a refusal with ``CLOSE_UNAVAILABLE`` is an HTTP 503.

    daphne answers every handshake the application refuses with 403, which nginx
    passes on; a 503 it retries on another daphne (``proxy_next_upstream http_503``)
    and counts against this one. ``config.unavailable`` refuses with that code when
    Redis is out of reach. Mirrors daphne 4's ``serverReject`` (pinned in pyproject).
    """

    def handle_reply(self, message: dict) -> None:
        if (
            message.get("type") == "websocket.close"
            and message.get("code") == CLOSE_UNAVAILABLE
            and self.state == self.STATE_CONNECTING
        ):
            self.handshake_deferred.errback(ConnectionDeny(code=503, reason="Service Unavailable"))
            del self.handshake_deferred
            self.server.protocol_disconnected(self)
            return
        super().handle_reply(message)


class DrainingCommandLineInterface(CommandLineInterface):
    server_class = DrainingServer


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--drain-seconds", type=float, default=float(os.getenv("DAPHNE_DRAIN_SECONDS", "10")))
    ours, rest = own.parse_known_args(argv)
    if ours.drain_seconds < 0:
        raise SystemExit("--drain-seconds must be 0 or more")
    DrainingServer.drain_seconds = ours.drain_seconds
    WebSocketFactory.protocol = UnavailableRefusingWebSocketProtocol
    DrainingCommandLineInterface().run(rest)


if __name__ == "__main__":
    main()
