"""What a tournament's page hears (/ws/tournament/<id>/, docs/protocol.md) and what its players are told.

Standings are sent to the tournament's group at most once a second: in a busy
arena games end several times a second, and each message goes to every open
page. A change inside the quiet second is sent by a task when it is over.
"""

from __future__ import annotations

import logging
import time

from asgiref.sync import async_to_sync
from django.core.cache import cache

from core.messages import TournamentGame, asend_to_group, compact_json, notify, send_to_group, user_group
from tournaments import selectors

logger = logging.getLogger(__name__)

QUIET_SECONDS = 1
# The last standings sent stay readable this long; a tournament quiet for longer is read again.
STANDINGS_KEPT_SECONDS = 300


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def announce(tournament_id: int) -> None:
    """The standings changed: the pages are told now, or once the quiet second is over.

    Always by a task (queue ``background``), never by the caller: the caller is
    mostly a result being counted on the ``live`` worker, and a busy arena's
    standings (every player, every game in play) take longer to read than the
    result itself, while the next results queue behind it.
    """
    from tournaments.tasks import announce_later

    if cache.add(f"tournaments:{tournament_id}:sent", 1, timeout=QUIET_SECONDS):
        announce_later.delay(tournament_id)
    elif cache.add(f"tournaments:{tournament_id}:later", 1, timeout=QUIET_SECONDS * 2):
        announce_later.apply_async((tournament_id,), countdown=QUIET_SECONDS)


def _standings_key(tournament_id: int) -> str:
    return f"tournaments:{tournament_id}:standings"


def _kept(tournament_id: int) -> tuple[list[int], str] | None:
    """The (version, text) kept, or None; a bare text kept by a release before versions counts as none."""
    kept = cache.get(_standings_key(tournament_id))
    if not (isinstance(kept, tuple | list) and len(kept) == 2):
        return None
    version, text = kept
    return list(version), text


def _keep(tournament_id: int, version: list[int], text: str) -> bool:
    """Keep ``text`` for the pages that open next unless a newer copy is kept already; False: it was older.

    Two sends of one tournament may read the database in one order and reach
    here in the other (a late announcement's task beside the end's own send):
    the older copy must not replace the newer, or every page opened in the
    next ``STANDINGS_KEPT_SECONDS`` shows it (issue #37: a finished Swiss shown
    as "Round 2 / 2" with the tie-breaks of before its last round). A short
    lock in the cache makes the compare and the write one step.
    """
    key = _standings_key(tournament_id)
    lock = f"{key}:writing"
    for _ in range(50):
        if cache.add(lock, 1, timeout=5):
            break
        time.sleep(0.02)
    else:
        # A holder that died keeps the lock 5 s at most; meanwhile write, as before versions.
        logger.warning("tournament %s: standings written without the cache lock", tournament_id)
    try:
        kept = _kept(tournament_id)
        if kept is not None and list(kept[0]) > version:
            return False
        cache.set(key, (version, text), timeout=STANDINGS_KEPT_SECONDS)
        return True
    finally:
        cache.delete(lock)


def send_standings(tournament_id: int) -> None:
    """The standings, encoded once for every page, kept for the pages that open next, then sent.

    Kept before sent: a page that joins the group after this send finds this
    text or a later one in the cache (``standings_text``). A copy older than
    the one kept is not sent either (the pages have the newer one).
    """
    cache.delete(f"tournaments:{tournament_id}:later")
    payload = selectors.snapshot(tournament_id)
    if payload is None:
        return
    text = compact_json(payload)
    if not _keep(tournament_id, payload["version"], text):
        return
    send_to_group(group(tournament_id), {"type": "tournament.update", "text": text})


def standings_text(tournament_id: int) -> str | None:
    """What a page opening now is sent: the last standings sent, else read now (None: no such tournament).

    At an arena's start its players open the page together: reading a big
    arena's standings for each of them was what made their handshakes time out
    (docs/performance.md, issue #29, session 11). Every change of the standings
    announces them, so the last text sent is never older than the quiet second;
    and no copy replaces a newer one (``_keep``).
    """
    kept = _kept(tournament_id)
    if kept is not None:
        return kept[1]
    payload = selectors.snapshot(tournament_id)
    return None if payload is None else compact_json(payload)


def game_message(tournament_id: int, game_id: int) -> TournamentGame:
    """Where a paired player's game is: sent on their notification sockets and the tournament page."""
    return {
        "type": "tournament_game",
        "tournament": tournament_id,
        "game_id": game_id,
        "url": f"/play/{game_id}/",
    }


def send_paired(tournament_id: int, game_id: int, user_ids: tuple[int, ...]) -> None:
    """Each player's open pages (the notification socket, the tournament page) learn where their game is."""
    message = notify(game_message(tournament_id, game_id))

    async def send_all() -> None:
        # One trip into an event loop for both players, not one each.
        for user_id in user_ids:
            await asend_to_group(user_group(user_id), message)

    async_to_sync(send_all)()
