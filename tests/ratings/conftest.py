from __future__ import annotations

import itertools

import pytest
from django.utils import timezone

from games.models import Game
from ratings.models import Rating


@pytest.fixture
def player(db, django_user_model):
    """A registered player without a password hash (fast); tests log in with force_login."""
    counter = itertools.count(1)

    def make(username: str | None = None):
        return django_user_model.objects.create(username=username or f"p{next(counter)}")

    return make


@pytest.fixture
def finished_game(db):
    """An ended game built straight with the ORM: user0 beats user1 at reversi by count unless told otherwise."""

    def make(user0=None, user1=None, *, winner: int | None = 0, **fields) -> Game:
        values = {
            "game": "reversi",
            "kind": Game.Kind.DIRECT,
            "status": Game.Status.FINISHED,
            "user0": user0,
            "user1": user1,
            "winner": winner,
            "end_reason": "count" if winner is not None else "draw",
            "finished_at": timezone.now(),
            "started_at": timezone.now(),
            "ply": 60,
        }
        values.update(fields)
        return Game.objects.create(**values)

    return make


@pytest.fixture
def rating_of(db):
    def get(user, game: str = "reversi") -> Rating | None:
        return Rating.objects.filter(user=user, game=game).first()

    return get
