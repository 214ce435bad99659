"""Reads for pages and sockets: standings, the games being played, a player's results."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from games.hooks import TournamentLink
from games.models import Game
from tournaments.models import Pairing, Participant, Tournament
from tournaments.rules import on_fire

STANDINGS_SHOWN = 100  # rows a page and its socket carry; the rest are counted
GAMES_SHOWN = 20


def standings(tournament: Tournament) -> QuerySet[Participant]:
    """Best first: score, then (Swiss) Buchholz, then wins, then who joined first."""
    order = ["-score", "-buchholz", "-wins", "joined_at", "pk"]
    return tournament.participants.select_related("user").order_by(*order)


def score_text(tournament: Tournament, points: int) -> str:
    """Arena points as they are; Swiss points halved (1, ½, 0)."""
    if tournament.is_arena:
        return str(points)
    whole, half = divmod(points, 2)
    return f"{whole}½" if half and whole else ("½" if half else str(whole))


def current_games(tournament: Tournament) -> list[Pairing]:
    return list(
        Pairing.objects.filter(tournament=tournament, game__status=Game.Status.ACTIVE)
        .select_related("white__user", "black__user")
        .order_by("-white__score", "pk")[:GAMES_SHOWN]
    )


def rows(tournament: Tournament) -> list[dict[str, Any]]:
    return [
        {
            "rank": rank,
            "name": entry.user.username,
            "bot": entry.user.is_bot,  # the BOT mark after the name ({% bot_mark %}, botMark in the script)
            "score": score_text(tournament, entry.score),
            "points": entry.score,
            "games": entry.games,
            "fire": tournament.is_arena and on_fire(entry.streak),
            "buchholz": score_text(tournament, entry.buchholz),
            "paused": entry.paused,
            "withdrawn": entry.withdrawn,
            "playing": entry.playing_id,
        }
        for rank, entry in enumerate(standings(tournament)[:STANDINGS_SHOWN], start=1)
    ]


# Keyed by str: tournament.status reads back as the plain value (Status members are str and equal to it).
STATUS_ORDER: dict[str, int] = {
    Tournament.Status.SCHEDULED: 0,
    Tournament.Status.RUNNING: 1,
    Tournament.Status.FINISHED: 2,
}


def version(tournament: Tournament) -> list[int]:
    """How far the tournament has come, compared in order: status, round, games paired, results counted.

    Each part only grows, and every change of the standings' points, tie-breaks,
    round or status grows one of them, so of two copies of the standings the
    one with the greater version is never the older (``live.send_standings``
    keeps it, a page drops a message older than what it shows). A join, pause
    or leave changes none of them: between equal versions the last sent wins.
    Read before the rows it describes: the rows are then at least this new.
    """
    counts = Pairing.objects.filter(tournament=tournament).aggregate(
        paired=Count("pk"), scored=Count("pk", filter=Q(scored_at__isnull=False))
    )
    return [STATUS_ORDER[tournament.status], tournament.round, counts["paired"], counts["scored"]]


def snapshot(tournament_id: int) -> dict[str, Any] | None:
    """Everything a tournament page shows that changes: the payload of ``standings`` (docs/protocol.md)."""
    tournament = Tournament.objects.select_related("winner").filter(pk=tournament_id).first()
    if tournament is None:
        return None
    ends_at = tournament.ends_at
    return {
        "type": "standings",
        "version": version(tournament),
        "tournament": tournament.pk,
        "status": tournament.status,
        "round": tournament.round,
        "rounds": tournament.rounds if not tournament.is_arena else None,
        "starts_at": tournament.starts_at.isoformat(),
        "ends_at": ends_at.isoformat() if ends_at else None,
        "players": rows(tournament),
        "count": tournament.participants.count(),
        "games": [
            {
                "id": pairing.game_id,
                "url": f"/play/{pairing.game_id}/",
                "white": pairing.white.user.username,
                "black": pairing.black.user.username if pairing.black else "",
                "white_bot": pairing.white.user.is_bot,
                "black_bot": bool(pairing.black and pairing.black.user.is_bot),
            }
            for pairing in current_games(tournament)
        ],
        "winner": tournament.winner.username if tournament.winner else None,
        "winner_bot": bool(tournament.winner and tournament.winner.is_bot),
    }


def game_in_play(tournament_id: int, user_id: int) -> int | None:
    """The player's game of this tournament still being played: their page goes there on (re)connect."""
    return (
        Participant.objects.filter(
            tournament_id=tournament_id, user_id=user_id, playing__status=Game.Status.ACTIVE
        )
        .values_list("playing_id", flat=True)
        .first()
    )


def tournament_of_game(game_id: int) -> TournamentLink | None:
    """The tournament ``game_id`` was paired in, for its page's link back."""
    pairing = Pairing.objects.filter(game_id=game_id).select_related("tournament").first()
    if pairing is None:
        return None
    tournament = pairing.tournament
    return TournamentLink(tournament.name, tournament.get_absolute_url(), pairing.round)


def results_of(user) -> list[Participant]:
    """A player's finished tournaments, newest first (their profile)."""
    entries = list(
        Participant.objects.filter(user=user, tournament__status=Tournament.Status.FINISHED)
        .select_related("tournament")
        .order_by("-tournament__finished_at")[:20]
    )
    for entry in entries:
        entry.shown_score = score_text(entry.tournament, entry.score)  # type: ignore[attr-defined]  # for the template
    return entries
