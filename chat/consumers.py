"""The chat's part of the game socket: its commands and group events, registered with games.

chat/apps.py registers ``ChatPart`` in ``games.hooks.game_socket``; games routes
``/ws/game/<id>/`` to its own consumer, which hands the chat's messages to this
part (core/socket_parts.py). So the games app never imports the chat:
dependencies point from chat to games.

A socket receives chat lines only once its page asks: ``chat_history`` answers
with the recent lines the reader may see and turns the delivery on (a socket
that never asks, such as a bot's or a benchmark's, costs nothing more than
before). The part parses ``chat``, ``chat_report`` and ``chat_settings`` frames
for ``chat.services`` and filters the game group's chat events for its own
reader (room, chat switch, blocks, mutes) before sending them.
docs/protocol.md describes the messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from django.utils.translation import gettext as _

from accounts.guests import display_name
from accounts.identity import Identity
from chat import selectors, services
from chat.models import MAX_LENGTH, ChatLine
from chat.presets import preset_text
from core.socket_parts import SocketPart
from games.live.consumers import GameConsumer


@dataclass(frozen=True)
class History:
    settings: selectors.ChatSettings
    presets_only: bool
    lines: list[tuple[ChatLine, bool]]  # each line, and whether the reader wrote it


def rooms_for(side: int | None, settings: selectors.ChatSettings) -> tuple[str, ...]:
    """What a reader sees: the players' room always; the spectators' room if a spectator, or a player who asked."""
    if side is None or settings.spectators:
        return (ChatLine.Room.PLAYERS, ChatLine.Room.SPECTATORS)
    return (ChatLine.Room.PLAYERS,)


def _history(game_id: int, identity: Identity, side: int | None, session: Any) -> History:
    settings = selectors.chat_settings(identity, session)
    if not settings.enabled:
        return History(settings, presets_only=True, lines=[])
    lines = selectors.recent_lines(game_id, identity, rooms=rooms_for(side, settings))
    return History(
        settings,
        presets_only=selectors.presets_only(identity),
        lines=[(line, selectors.is_author(line, identity)) for line in lines],
    )


def _in_db_thread(func):
    # As games.live.opening.in_db_thread: any thread of the pool, not Channels' single shared one.
    return database_sync_to_async(func, thread_sensitive=False)


class ChatPart(SocketPart[GameConsumer]):
    """One game socket's chat: what its reader asked to see, and the chat's commands."""

    events = ("chat_line", "chat_hidden")

    # Until the page asks for the history the socket receives no lines.
    chat_settings = selectors.ChatSettings(enabled=False, spectators=False)

    @property
    def game_id(self) -> int:
        return self.socket.game_id

    @property
    def side(self) -> int | None:
        return self.socket.side

    @property
    def identity(self) -> Identity:
        return self.socket.identity

    @property
    def scope(self) -> dict[str, Any]:
        return self.socket.scope

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.socket.send_json(content)

    async def send_error(self, code: str, text: str, *, ref: Any = None) -> None:
        await self.socket.send_error(code, text, ref=ref)

    async def on_chat_history(self, message: dict[str, Any]) -> None:
        """The recent lines, then every new one: events queue behind this handler, and one
        committed before the read is in it (the page drops a line it already shows)."""
        await self.send_chat_history()

    async def send_chat_history(self) -> None:
        history = await _in_db_thread(_history)(
            self.game_id, self.identity, self.side, self.scope.get("session")
        )
        self.chat_settings = history.settings
        # Preset words and guests' names are translated here, in the socket's language.
        lines = [selectors.line_payload(line, mine=mine) for line, mine in history.lines]
        await self.send_json(
            {
                "type": "chat_history",
                "enabled": history.settings.enabled,
                "show_spectators": history.settings.spectators,
                "room": ChatLine.Room.PLAYERS if self.side is not None else ChatLine.Room.SPECTATORS,
                "presets_only": history.presets_only,
                "can_report": self.identity.user is not None,
                # A visitor who has not acted yet has no guest identity (and no session): they read only.
                "can_write": self.identity.user is not None or self.identity.guest is not None,
                "max_length": MAX_LENGTH,
                "lines": lines,
            }
        )

    def _is_me(self, user_id: int | None, guest_key: str) -> bool:
        if self.identity.user is not None:
            return user_id == self.identity.user.pk
        return self.identity.guest is not None and user_id is None and guest_key == self.identity.guest.key

    # --- events from the group -----------------------------------------------------

    async def chat_line(self, event: dict[str, Any]) -> None:
        settings = self.chat_settings
        if not settings.enabled:
            return
        mine = self._is_me(event["user"], event["guest"])
        if event["muted"] and not mine:
            return  # a muted author's lines reach nobody but the author
        if self.identity.user is not None and self.identity.user.pk in event["hide_from"]:
            return  # the reader blocked the author
        if event["room"] not in rooms_for(self.side, settings):
            return
        await self.send_json(
            {
                "type": "chat",
                "line": {
                    "id": event["line"],
                    "room": event["room"],
                    "side": event["side"],
                    "name": display_name(event["name"]) if event["user"] is None else event["name"],
                    "guest": event["user"] is None,
                    # .get: a line announced by a process of the previous release has no flag.
                    "bot": event.get("bot", False),
                    "text": preset_text(event["preset"]) if event["preset"] else event["text"],
                    "preset": event["preset"] or None,
                    "at": int(event["at"] * 1000),
                    "mine": mine,
                },
            }
        )

    async def chat_hidden(self, event: dict[str, Any]) -> None:
        if self.chat_settings.enabled:
            await self.send_json({"type": "chat_hidden", "id": event["line"]})

    # --- commands from the client ----------------------------------------------------

    async def on_chat(self, message: dict[str, Any]) -> None:
        text, preset = message.get("text"), message.get("preset")
        if (text is None) == (preset is None) or not isinstance(text or preset, str):
            await self.send_error(
                services.Verdict.INVALID.value, _("A chat line needs a text or a preset."), ref=message
            )
            return
        if isinstance(text, str) and len(text) > 4 * MAX_LENGTH:  # no point cleaning a page of text
            await self.send_error(services.Verdict.INVALID.value, services.Verdict.INVALID.text, ref=message)
            return
        game_id, identity, session = self.game_id, self.identity, self.scope.get("session")
        if services.posts_on_loop():
            result = await services.post_line_on_loop(
                game_id=game_id, identity=identity, session=session, text=text, preset=preset
            )
        else:
            result = await _in_db_thread(services.post_line)(
                game_id=game_id, identity=identity, session=session, text=text, preset=preset, announce=False
            )
        if not result.ok:
            await self.send_error(result.verdict.value, result.verdict.text, ref=message)
            return
        # Stored and committed (autocommit), on this loop or in a thread; announced from here,
        # without a second hop from a thread back into this loop (docs/performance.md, "Chat").
        await services.announce_line(result, layer=getattr(self.socket, "channel_layer", None))

    async def on_chat_report(self, message: dict[str, Any]) -> None:
        line, reason = message.get("line"), message.get("reason", "")
        if not isinstance(line, int) or isinstance(line, bool) or not isinstance(reason, str):
            await self.send_error(
                services.Verdict.INVALID.value, _("A report needs the line's number."), ref=message
            )
            return
        result = await _in_db_thread(services.report_line)(
            game_id=self.game_id, identity=self.identity, line_id=line, reason=reason[:1000]
        )
        if not result.ok:
            await self.send_error(result.verdict.value, result.verdict.text, ref=message)
            return
        await self.send_json({"type": "chat_reported", "line": line, "id": message.get("id")})

    async def on_chat_settings(self, message: dict[str, Any]) -> None:
        show = message.get("show_spectators")
        if not isinstance(show, bool):
            await self.send_error(
                services.Verdict.INVALID.value, _("Say whether to show the spectators' chat."), ref=message
            )
            return
        if not await _in_db_thread(services.set_show_spectators)(
            identity=self.identity, session=self.scope.get("session"), show=show
        ):
            verdict = services.Verdict.NO_IDENTITY
            await self.send_error(verdict.value, verdict.text, ref=message)
            return
        await self.send_chat_history()  # the lines of the room just shown, or without it
