"""The shapes the API answers with: pydantic models, so the OpenAPI document is the code's own."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema


class ErrorOut(Schema):
    error: str


class RatingOut(Schema):
    game: str
    pool: Literal["live", "correspondence"]
    rating: int
    provisional: bool  # fewer than 10 rated games: pages show "1500?"
    rated_games: int
    wins: int
    losses: int
    peak: int
    place: int | None  # in that game's ranking (ties share a place)
    points: int  # wins over registered players in rated-or-not, non-casual games (the ranking's "points")


class UserOut(Schema):
    username: str
    url: str
    joined: datetime
    about: str
    ratings: list[RatingOut]


class RatingChangeOut(Schema):
    before: int
    after: int
    delta: int


class SeatOut(Schema):
    side: int  # 0 moves first
    kind: Literal["user", "guest", "computer", "none"]
    name: str
    username: str | None  # a registered player's name (their /api/user/{name})
    level: str | None  # the computer's level
    rating_change: RatingChangeOut | None  # the change this game made (rated games, once counted)


class TimeControlOut(Schema):
    base_seconds: int  # 0: untimed or correspondence
    increment: int
    days_per_move: int  # > 0: a correspondence game
    label: str


class GameOut(Schema):
    id: int
    url: str
    game: str
    status: Literal["active", "finished", "aborted"]
    rated: bool  # the result counted for ratings
    casual: bool
    time_control: TimeControlOut
    players: list[SeatOut]
    winner: int | None
    end_reason: str
    ply: int
    moves: list[str]
    start_fen: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    record: str  # the site's record format (as /play/{id}/record.txt)


class WatchSeatOut(Schema):
    name: str
    kind: Literal["user", "guest", "computer"]
    level: str | None
    rating: int | None
    provisional: bool


class WatchGameOut(Schema):
    id: int
    game: str
    url: str
    players: list[WatchSeatOut]
    time_control: str
    ply: int
    computer: bool


class RankRowOut(Schema):
    place: int
    username: str
    rating: int
    provisional: bool
    rated_games: int
    points: int


class RankingOut(Schema):
    game: str
    order: Literal["rating", "points"]
    pool: Literal["live", "correspondence"]
    page: int
    pages: int
    count: int
    players: list[RankRowOut]


class TournamentOut(Schema):
    id: int
    name: str
    url: str
    kind: Literal["arena", "swiss"]
    game: str
    status: Literal["scheduled", "running", "finished"]
    minutes: int
    increment: int
    starts_at: datetime
    ends_at: datetime | None  # arenas end at a time; Swiss with its last round
    rounds: int | None
    round: int
    private: bool  # joining needs a password (the standings are public all the same)
    winner: str | None
    players: int


class TournamentListOut(Schema):
    running: list[TournamentOut]
    upcoming: list[TournamentOut]
    finished: list[TournamentOut]


class StandingOut(Schema):
    rank: int
    username: str
    score: str  # as the page shows it (Swiss halves as ½)
    points: int  # arena points; Swiss half-points (a win is 2)
    games: int
    wins: int
    draws: int
    losses: int
    buchholz: str
    paused: bool
    withdrawn: bool
    place: int | None  # the final place, once finished


class PairingOut(Schema):
    id: int
    url: str
    white: str
    black: str


class TournamentDetailOut(TournamentOut):
    standings: list[StandingOut]
    games: list[PairingOut]
