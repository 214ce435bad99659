"""The websocket of one game, for its two players and any spectators.

Thin by design: parse, find out who is asking, call a service in a database
thread, answer the sender. Broadcasts come only from the services (after
commit), so a move made over HTTP or by a Celery task looks the same.
Commands and group events of other apps (the chat) are answered by the parts
they register in ``games.hooks.game_socket`` (core/socket_parts.py).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, cast, get_args

from django.utils.translation import gettext as _

from accounts.identity import Identity
from core.messages import GameEvent, MoveEvent, asend_to_group, compact_json
from core.websocket import JsonConsumer
from games import bus, hooks, services
from games.live import events, fastpath, opening, presence, spectators
from games.live.opening import in_db_thread
from games.models import EndReason, Game
from games.protocol import CommandType, Snapshot
from games.services import Code

CLOSE_NOT_FOUND = 4404
CLOSE_BOT = 4403  # a BOT account: its games are played through the Play API (docs/api.md)

# A command's handler: called with the socket it came in on and the client's message.
Command = Callable[[Any, dict[str, Any]], Awaitable[None]]

# The game's own commands, by their ``type``: the protocol's (``CommandType``, declared once
# below the socket; filled at the end of this module). An app built on games adds its own as
# a part of the socket (``games.hooks.register_game_socket_part``: the chat's). Any other type
# is refused as ``unknown_type``.
COMMANDS: dict[str, Command] = {}


class GameConsumer(JsonConsumer):
    parts = hooks.game_socket

    game_id: int
    side: int | None
    identity: Identity

    subscribed = False
    viewer: str | None = None  # a spectator's viewer (games/live/spectators.py); None for a player

    def handler_for(self, kind: str) -> Callable[[dict[str, Any]], Awaitable[None]] | None:
        """The declared commands (``COMMANDS``), then the registered parts' (``games.hooks.game_socket``);
        a method that happens to be named ``on_<type>`` is not one."""
        command = COMMANDS.get(kind)
        return self.part_command(kind) if command is None else functools.partial(command, self)

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        user = self.scope.get("user")
        if user is not None and user.is_authenticated and user.is_bot:
            # Refused before it counts as present or hears anything (issue #41): a BOT's
            # seat, clock and presence belong to its API streams. Accepted only to say why.
            await self.accept()
            await self.send_error(
                Code.BOT_ACCOUNT, _("A BOT account plays through the API, not on the website's game page.")
            )
            await self.close(code=CLOSE_BOT)
            return
        # Listen first, then read: a move made while the state is read arrives as
        # an event (older ones are ignored by version). Read first, and a move in
        # between would be in neither, and the board would wait for it forever.
        await self.channel_layer.group_add(bus.game_group(self.game_id), self.channel_name)
        self.subscribed = True
        opened = await opening.open_in_loop(self.game_id, self.scope) or await opening.open_in_thread(
            self.game_id, self.scope
        )
        payload, self.identity, self.side, online, seq = opened
        if payload is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.accept()
        if self.side is not None:
            await self._broadcast_presence(online=True, seq=seq)
            watching = await spectators.count(self.game_id)
        else:
            self.viewer = spectators.viewer_of(self.identity, self.scope, self.channel_name)
            watching = await spectators.change(self.game_id, self.viewer, +1)
            spectators.announce_soon(self.game_id)
        await self.send_json(self._state(payload, online, seq, watching))

    async def disconnect(self, code: int) -> None:
        if self.subscribed:
            await self.channel_layer.group_discard(bus.game_group(self.game_id), self.channel_name)
        if self.viewer is not None:
            await spectators.change(self.game_id, self.viewer, -1)
            spectators.announce_soon(self.game_id)
        side = getattr(self, "side", None)  # unset if the socket never opened
        if side is not None:
            online, seq = await presence.change_in_loop(self.game_id, side, -1)
            # Closing one of two tabs leaves the player online.
            await self._broadcast_presence(online=online[side], seq=seq)
            if not online[side]:
                # The player left the page: a rematch offer either way lapses with it.
                await in_db_thread(services.lapse_rematch_on_leave)(self.game_id)

    async def _broadcast_presence(self, *, online: bool, seq: int) -> None:
        await asend_to_group(
            bus.game_group(self.game_id),
            {"type": "game.presence", "side": self.side, "online": online, "seq": seq},
            layer=self.channel_layer,
        )

    def _state(
        self, payload: Snapshot, online: list[bool], seq: int, watching: tuple[int, int]
    ) -> dict[str, Any]:
        return {
            "type": "state",
            "v": payload["v"],
            "you": self.side,
            "online": online,
            "presence_seq": seq,
            "watchers": watching[0],
            "watchers_seq": watching[1],
            "game": payload,
        }

    async def send_state(self, *, reply_to: Any = None) -> None:
        payload = await opening.snapshot(self.game_id)
        online, seq = await in_db_thread(presence.online)(self.game_id)
        message = self._state(payload, online, seq, await spectators.count(self.game_id))
        if reply_to is not None:
            message["id"] = reply_to
        await self.send_json(message)

    # --- events from the group -----------------------------------------------------

    async def game_event(self, event: GameEvent | MoveEvent) -> None:
        # A move from the fast path carries a patch on the version below (and the changed columns).
        move = cast(MoveEvent, event) if "patch_json" in event else None
        fastpath.cache.saw_version(self.game_id, event["v"], move["row"] if move is not None else None)
        # {"type": "event", ..., "game": <snapshot>} around the snapshot the sender
        # serialised once, rather than parsing and serialising it again per socket.
        head: dict[str, Any] = {"type": "event", "event": event["event"], "v": event["v"], "you": self.side}
        if move is not None:
            head["base"] = move["v"] - 1
            if move["ack_to"] == self.channel_name:
                head["ack"] = move["ack"]
            await self.send(text_data=f'{compact_json(head)[:-1]},"patch":{move["patch_json"]}}}')
            return
        snapshot_json = cast(GameEvent, event)["game_json"]
        await self.send(text_data=f'{compact_json(head)[:-1]},"game":{snapshot_json}}}')

    async def layer_resubscribed(self, event: dict[str, Any]) -> None:
        """Redis was out of this process's reach: the events of that time are lost, so send the state.

        A move stored meanwhile (its announcement refused, or published to nobody
        while the subscription was down) is in the database, and so in this
        state: the board catches up as soon as the layer is back, not at its
        next ping (docs/protocol.md).
        """
        if self.closing or not hasattr(self, "identity"):  # closed, or refused before it opened
            return
        await self.send_state()

    async def game_ratings(self, event: dict[str, Any]) -> None:
        """The rating changes of the finished game (``bus.send_rating_changes``), to players and spectators."""
        await self.send_json({"type": "ratings", "changes": event["changes"]})

    async def game_presence(self, event: dict[str, Any]) -> None:
        if event["side"] != self.side:
            await self.send_json(
                {"type": "presence", "side": event["side"], "online": event["online"], "seq": event["seq"]}
            )

    async def game_watchers(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "count": event["count"], "seq": event["seq"]})

    # --- commands from the client ----------------------------------------------------

    async def _run(self, message: dict[str, Any], func, **kwargs: Any) -> Any:
        """Call a service for this player; refusals go back to this socket only."""
        if self.side is None:
            await self.send_error(
                Code.SPECTATOR, _("You are watching this game, not playing it."), ref=message
            )
            return None
        try:
            return await in_db_thread(func)(game_id=self.game_id, identity=self.identity, **kwargs)
        except services.GameError as exc:
            await self.send_error(exc.code, exc.message, ref=message)
            if exc.code in (Code.STALE, Code.NOT_YOUR_TURN, Code.GAME_OVER):
                await self.send_state()
            return None

    async def on_ping(self, message: dict[str, Any]) -> None:
        """A player's ping carries the version their board shows: a board behind gets the state.

        The channel layer delivers at most once, so a lost event would leave a
        waiting player's board stale until they act. Spectators' pings are
        answered without the check: there are many of them and their boards
        catch up with the next event.
        """
        shown = message.get("v")
        if self.side is not None and isinstance(shown, int) and not isinstance(shown, bool):
            current = await opening.version(self.game_id)
            if current is not None and current > shown:
                await self.send_state()
                return
        await super().on_ping(message)

    async def on_sync(self, message: dict[str, Any]) -> None:
        # Every message re-checks the clock: a flag is due even if its task is late.
        await in_db_thread(services.flag)(self.game_id)
        await self.send_state(reply_to=message.get("id"))

    async def on_move(self, message: dict[str, Any]) -> None:
        token, ply, client_id = message.get("move"), message.get("ply"), message.get("id", "")
        if not isinstance(token, str) or not isinstance(ply, int) or isinstance(ply, bool) or len(token) > 8:
            await self.send_error(
                Code.MALFORMED, _("A move needs a move token and the ply number."), ref=message
            )
            return
        if not isinstance(client_id, str | int):
            client_id = ""
        if self.side is not None and (
            played := await fastpath.play_move(
                game_id=self.game_id,
                identity=self.identity,
                token=token,
                ply=ply,
                client_id=str(client_id),
                reply=fastpath.Reply(self.channel_name, message.get("id")),
            )
        ):
            # Stored; the ack rides in the move's event to this socket. If the channel
            # layer refused the event (Redis out of reach), this socket delivers it to itself.
            if played.unannounced is not None:
                await self.game_event(played.unannounced)
            return
        # The locked path decides whatever the fast one cannot.
        result = await self._run(message, services.play_move, token=token, ply=ply, client_id=str(client_id))
        if result is not None:
            await self.send_json(dict(events.ack(message.get("id"), result)))

    async def on_resign(self, message: dict[str, Any]) -> None:
        await self._run(message, services.resign, reason=EndReason.RESIGN)

    async def on_exit(self, message: dict[str, Any]) -> None:
        await self._run(message, services.resign, reason=EndReason.EXIT)

    async def on_abort(self, message: dict[str, Any]) -> None:
        await self._run(message, services.abort)

    async def on_undo(self, message: dict[str, Any]) -> None:
        await self._run(message, services.undo)

    async def on_redo(self, message: dict[str, Any]) -> None:
        await self._run(message, services.redo)

    async def on_new_game(self, message: dict[str, Any]) -> None:
        game = await self._run(message, services.rematch_computer)
        if game is not None:
            await self.send_json({"type": "redirect", "url": game.get_absolute_url()})

    async def on_offer_draw(self, message: dict[str, Any]) -> None:
        await self._run(message, services.offer_draw)

    async def on_accept_draw(self, message: dict[str, Any]) -> None:
        await self._run(message, services.answer_draw, accept=True)

    async def on_decline_draw(self, message: dict[str, Any]) -> None:
        await self._run(message, services.answer_draw, accept=False)

    async def on_rematch(self, message: dict[str, Any]) -> None:
        await self._rematch_reply(await self._run(message, services.offer_rematch))

    async def on_accept_rematch(self, message: dict[str, Any]) -> None:
        await self._rematch_reply(await self._run(message, services.answer_rematch, accept=True))

    async def on_decline_rematch(self, message: dict[str, Any]) -> None:
        await self._run(message, services.answer_rematch, accept=False)

    async def on_cancel_rematch(self, message: dict[str, Any]) -> None:
        await self._run(message, services.cancel_rematch)

    async def _rematch_reply(self, game: Game | None) -> None:
        # Both pages also hear "rematch_started" (with ``rematch_url``); this one goes at once.
        if game is not None and game.pk != self.game_id:
            await self.send_json({"type": "redirect", "url": game.get_absolute_url()})

    async def on_propose_takeback(self, message: dict[str, Any]) -> None:
        await self._run(message, services.request_takeback)

    async def on_accept_takeback(self, message: dict[str, Any]) -> None:
        await self._run(message, services.answer_takeback, accept=True)

    async def on_decline_takeback(self, message: dict[str, Any]) -> None:
        await self._run(message, services.answer_takeback, accept=False)


# The protocol's commands (docs/protocol.md), each to its handler.
_PROTOCOL_COMMANDS: dict[CommandType, Command] = {
    "move": GameConsumer.on_move,
    "sync": GameConsumer.on_sync,
    "resign": GameConsumer.on_resign,
    "exit": GameConsumer.on_exit,
    "abort": GameConsumer.on_abort,
    "offer_draw": GameConsumer.on_offer_draw,
    "accept_draw": GameConsumer.on_accept_draw,
    "decline_draw": GameConsumer.on_decline_draw,
    "propose_takeback": GameConsumer.on_propose_takeback,
    "accept_takeback": GameConsumer.on_accept_takeback,
    "decline_takeback": GameConsumer.on_decline_takeback,
    "undo": GameConsumer.on_undo,
    "redo": GameConsumer.on_redo,
    "new_game": GameConsumer.on_new_game,
    "rematch": GameConsumer.on_rematch,
    "accept_rematch": GameConsumer.on_accept_rematch,
    "decline_rematch": GameConsumer.on_decline_rematch,
    "cancel_rematch": GameConsumer.on_cancel_rematch,
    "ping": GameConsumer.on_ping,
}
if set(_PROTOCOL_COMMANDS) != set(get_args(CommandType)):  # mypy checks the names; this, that none is missing
    raise RuntimeError("games.live.consumers: every protocol.CommandType needs its handler, and only those")
COMMANDS.update(_PROTOCOL_COMMANDS.items())
