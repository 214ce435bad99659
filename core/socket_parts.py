"""Parts another app adds to a socket it does not own, declared where the socket is.

An app that owns a socket declares a ``SocketParts`` for it (games: the game socket,
``games.hooks.game_socket``; accounts: the notification socket,
``accounts.hooks.notify_socket``) and names it as the consumer's ``parts``. Another app
registers a ``SocketPart`` subclass there from its ``AppConfig.ready()``: its
``on_<type>`` methods answer client commands the socket itself has no handler for, and
the methods it lists in ``events`` take those channel-layer events. So chat adds its
lines to the game socket, and the Watch page its feed to the notification socket,
without subclassing the consumer or routing a second one on the same path.

A part is made for a socket the first time one of its commands or events reaches that
socket, and holds whatever that socket's share of the feature needs (the chat switch,
the Watch page's last list); ``closed`` runs when the socket closes. A name is handled
once: the socket's own handler, else the one part that registered it; registering a
name that is taken is refused at start-up (``ImproperlyConfigured``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured

Handler = Callable[[dict[str, Any]], Awaitable[None]]
S = TypeVar("S")


class SocketPart(Generic[S]):
    """One app's share of another app's socket, made once per socket that uses it."""

    # The channel-layer events this part takes, by the handler name channels gives them
    # ("chat.line" -> "chat_line"); each is an async method of the part.
    events: ClassVar[tuple[str, ...]] = ()

    def __init__(self, socket: S) -> None:
        self.socket = socket

    async def closed(self) -> None:
        """The socket closed: let go of whatever the part holds (runs before the socket's own clean-up)."""

    @classmethod
    def command_names(cls) -> list[str]:
        """The client message types this part answers: its ``on_<type>`` methods."""
        return [name.removeprefix("on_") for name, _ in inspect.getmembers(cls) if name.startswith("on_")]


class SocketParts:
    """The parts registered for one kind of socket, and which part answers which name."""

    def __init__(self, socket: str) -> None:
        self.socket = socket  # in words, for the errors
        self.commands: dict[str, type[SocketPart[Any]]] = {}
        self.events: dict[str, type[SocketPart[Any]]] = {}
        self.owner: type | None = None

    def __iter__(self) -> Iterator[type[SocketPart[Any]]]:
        return iter(dict.fromkeys([*self.commands.values(), *self.events.values()]))

    def register(self, part: type[SocketPart[Any]]) -> None:
        """Add ``part`` to every socket of this kind; idempotent for the same class."""
        if part in self:
            return
        for name in part.events:
            if not inspect.iscoroutinefunction(getattr(part, name, None)):
                raise ImproperlyConfigured(
                    f"{part.__qualname__} lists the event {name!r} but has no async {name}()"
                )
        commands = {f"on_{name}" for name in part.command_names()}
        self._refuse_taken(part, commands, set(part.events))
        self.commands.update(dict.fromkeys(part.command_names(), part))
        self.events.update(dict.fromkeys(part.events, part))

    def bind(self, owner: type) -> None:
        """Called for the consumer class that declares these parts: its own handlers are taken names."""
        self.owner = owner
        for part in self:
            self._refuse_taken(part, {f"on_{name}" for name in part.command_names()}, set(part.events))

    def _refuse_taken(self, part: type[SocketPart[Any]], commands: set[str], events: set[str]) -> None:
        taken = {f"on_{name}" for name, other in self.commands.items() if other is not part}
        taken |= {name for name, other in self.events.items() if other is not part}
        if self.owner is not None:
            taken |= {name for name in commands | events if hasattr(self.owner, name)}
        if clash := sorted((commands | events) & taken):
            raise ImproperlyConfigured(
                f"{part.__qualname__} would answer {clash} on {self.socket}: taken already"
            )


class HasParts:
    """The part of ``JsonConsumer`` that finds a part's handler and closes the parts (core/websocket.py)."""

    parts: ClassVar[SocketParts | None] = None
    _made: dict[type[SocketPart[Any]], SocketPart[Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        parts = cls.__dict__.get("parts")
        if parts is not None:
            parts.bind(cls)

    def part(self, kind: type[SocketPart[Any]]) -> SocketPart[Any]:
        """This socket's instance of ``kind``, made on first use."""
        made = self.__dict__.setdefault("_made", {})
        if kind not in made:
            made[kind] = kind(self)
        return made[kind]

    def part_command(self, kind: str) -> Handler | None:
        part = self.parts.commands.get(kind) if self.parts is not None else None
        return None if part is None else getattr(self.part(part), f"on_{kind}")

    def part_event(self, name: str) -> Handler | None:
        part = self.parts.events.get(name) if self.parts is not None else None
        return None if part is None else getattr(self.part(part), name)

    async def close_parts(self) -> None:
        for part in list(self.__dict__.get("_made", {}).values()):
            await part.closed()
