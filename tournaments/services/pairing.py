"""Making a tournament's games: an arena pairs whoever is free; Swiss pairs a whole round at once.

Both run inside the tournament's row lock (``base.locked``), and each game is
created in the same transaction as its ``Pairing`` row and the players'
``playing`` mark: a run killed half-way leaves nothing behind, and a player
marked playing is never paired again until that game is scored.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from accounts.models import Block
from games.models import Game
from games.services import create_paired_game
from ratings.selectors import rating_values
from tournaments import live, presence
from tournaments.models import Pairing, Participant, Tournament
from tournaments.rules import BYE, Candidate, arena_pairs, swiss_round
from tournaments.services.base import locked, now


def blocked_among(user_ids: Iterable[int]):
    """A test ``blocked(a, b)`` for these players, from one query."""
    ids = list(user_ids)
    pairs = {
        frozenset(pair)
        for pair in Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).values_list(
            "blocker_id", "blocked_id"
        )
    }
    return lambda a, b: frozenset((a, b)) in pairs


def _busy_elsewhere(tournament: Tournament, user_ids: list[int]) -> set[int]:
    """Players in a live game of another tournament: they wait for it to end (docs/decisions.md).

    Only a game the player cannot decline keeps them out: a tournament's live
    game runs its clock whether they come or not. Their own games (a
    correspondence game, a casual game in another tab, a game against the
    computer) do not: a player present on the arena's page and not paused has
    chosen to play, as in lichess, and "Pause" is theirs to press. Their game
    of this arena is ``playing``, already left out of the free players.
    """
    rows = (
        Participant.objects.filter(
            user_id__in=user_ids, playing__status=Game.Status.ACTIVE, playing__days_per_move=0
        )
        .exclude(tournament=tournament)
        .values_list("user_id", flat=True)
    )
    return set(rows)


def pair_arena(tournament_id: int, *, skip_locked: bool = False) -> list[int]:
    """Pair every free arena player who can be paired now; returns the games made."""
    # No savepoint, as in score_game: a failure here undoes the caller's whole transaction.
    with transaction.atomic(savepoint=False):
        tournament = locked(tournament_id, skip_locked=skip_locked)
        if tournament is None:
            return []
        return pair_free_players(tournament)


def pair_free_players(tournament: Tournament) -> list[int]:
    """``pair_arena`` inside the caller's transaction, which holds the tournament's lock."""
    tournament_id = tournament.pk
    if tournament.status != Tournament.Status.RUNNING:
        return []
    if tournament.ends_at is not None and now() >= tournament.ends_at:
        return []
    free = list(
        Participant.objects.filter(tournament=tournament, withdrawn=False, paused=False, playing=None)
        .select_related("user", "last_game")
        .order_by("free_since", "pk")
    )
    # One Redis round trip for every free player's tournament page; only those
    # not on it are looked for on their last game's page.
    on_page = presence.on_tournament_page_of(tournament.pk, [e.user_id for e in free])
    here: list[Participant] = []
    for entry in free:
        if entry.last_game_id is not None and entry.user_id not in on_page and not _still_there(entry):
            # Left the page: paused after their game ended, until they come back and resume.
            entry.paused = True
            entry.save(update_fields=["paused"])
            transaction.on_commit(lambda: live.announce(tournament_id), robust=True)
        else:
            here.append(entry)
    if len(here) < 2:
        return []
    busy = _busy_elsewhere(tournament, [e.user_id for e in here])
    here = [e for e in here if e.user_id not in busy]
    ratings = rating_values([e.user_id for e in here], tournament.game)
    by_key = {e.pk: e for e in here}
    candidates = [
        Candidate(
            key=e.pk,
            user_id=e.user_id,
            score=e.score,
            rating=ratings[e.user_id],
            last_opponent=e.last_opponent_id,
        )
        for e in here
    ]
    made = []
    for a, b in arena_pairs(candidates, blocked=blocked_among(ratings)):
        white, black = _arena_colours(by_key[a.key], by_key[b.key])
        made.append(_start(tournament, white, black, round_number=0))
    return made


def _still_there(entry: Participant) -> bool:
    """On the page of the game that just ended (the tournament page was looked at already)."""
    game = entry.last_game
    if game is None:
        return False
    return presence.on_game_page(game.pk, 0 if game.user0_id == entry.user_id else 1)


def _arena_colours(a: Participant, b: Participant) -> tuple[Participant, Participant]:
    """Whoever had black last game gets white (the higher ranked of two equals)."""
    a_black = a.last_game is not None and a.last_game.user1_id == a.user_id
    b_black = b.last_game is not None and b.last_game.user1_id == b.user_id
    return (b, a) if b_black and not a_black else (a, b)


def _start(tournament: Tournament, white: Participant, black: Participant, *, round_number: int) -> int:
    game = create_paired_game(
        game=tournament.game,
        users=(white.user, black.user),
        minutes=tournament.minutes,
        increment=tournament.increment,
    )
    Pairing.objects.create(tournament=tournament, round=round_number, game=game, white=white, black=black)
    Participant.objects.filter(pk__in=[white.pk, black.pk]).update(playing=game, free_since=None)
    game_id, tournament_id, users = game.pk, tournament.pk, (white.user_id, black.user_id)

    def tell() -> None:
        live.send_paired(tournament_id, game_id, users)
        live.announce(tournament_id)

    transaction.on_commit(tell, robust=True)
    return game_id


def pair_swiss_round(tournament: Tournament) -> list[int]:
    """All games of the next round (inside the caller's lock); byes are scored at once."""
    entries = list(Participant.objects.filter(tournament=tournament, withdrawn=False).select_related("user"))
    history = list(Pairing.objects.filter(tournament=tournament).values_list("white_id", "black_id"))
    met: dict[int, set[int]] = {e.pk: set() for e in entries}
    whites: dict[int, int] = {}
    blacks: dict[int, int] = {}
    user_of = {
        pk: uid for pk, uid in Participant.objects.filter(tournament=tournament).values_list("pk", "user_id")
    }
    for white_id, black_id in history:
        whites[white_id] = whites.get(white_id, 0) + 1
        if black_id is None:
            continue
        blacks[black_id] = blacks.get(black_id, 0) + 1
        met.setdefault(white_id, set()).add(user_of[black_id])
        met.setdefault(black_id, set()).add(user_of[white_id])
    ratings = rating_values([e.user_id for e in entries], tournament.game)
    by_key = {e.pk: e for e in entries}
    candidates = [
        Candidate(
            key=e.pk,
            user_id=e.user_id,
            score=e.score,
            rating=ratings[e.user_id],
            met=frozenset(met.get(e.pk, ())),
            byes=e.byes,
            whites=whites.get(e.pk, 0),
            blacks=blacks.get(e.pk, 0),
        )
        for e in entries
    ]
    pairs, byes = swiss_round(candidates, blocked=blocked_among(ratings))
    made = [_start(tournament, by_key[w.key], by_key[b.key], round_number=tournament.round) for w, b in pairs]
    moment = now()
    for bye in byes:
        entry = by_key[bye.key]
        Pairing.objects.create(
            tournament=tournament, round=tournament.round, white=entry, points_white=BYE, scored_at=moment
        )
        entry.score += BYE
        entry.byes += 1
        entry.save(update_fields=["score", "byes"])
    return made
