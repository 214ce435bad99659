"""Issue #38, finding 10: offers and seeks are rate-limited.

45 rematch offer/cancel pairs sent 91 events to the opponent, and 200 quick-seek
POSTs in 4.4 s all ran the pairing. Each kind of offer (draw, rematch, takeback)
is allowed ``GAMES_OFFERS_PER_MINUTE`` times per player per game, seeks
``GAMES_SEEKS_PER_MINUTE`` times per player; past that the player is told to wait
and nothing reaches the opponent.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.models import Game
from tests.games.test_rematch import finished_game
from tests.games.test_takeback_requests import live_game
from tests.people import me

pytestmark = pytest.mark.django_db

WAIT = "You are making offers too quickly. Please wait a minute."


def version(game: Game) -> int:
    return Game.objects.get(pk=game.pk).version  # bumped by every event the players hear


def test_rematch_offer_and_cancel_cannot_spam_the_opponent(alice, bob, settings):
    settings.GAMES_OFFERS_PER_MINUTE = 3
    game = finished_game(alice, bob)
    for _ in range(3):
        services.offer_rematch(game_id=game.pk, identity=me(alice))
        services.cancel_rematch(game_id=game.pk, identity=me(alice))
    before = version(game)
    with pytest.raises(services.GameError) as refused:
        services.offer_rematch(game_id=game.pk, identity=me(alice))
    assert (refused.value.code, refused.value.message) == ("rate_limited", WAIT)
    assert version(game) == before and Game.objects.get(pk=game.pk).rematch_offer_side is None
    # The opponent's own offer is theirs to make.
    services.offer_rematch(game_id=game.pk, identity=me(bob))
    assert Game.objects.get(pk=game.pk).rematch_offer_side == 1


def test_draw_offers_are_limited_per_player_per_game(alice, bob, settings):
    settings.GAMES_OFFERS_PER_MINUTE = 2
    game = live_game(alice, bob)
    for _ in range(2):
        services.offer_draw(game_id=game.pk, identity=me(alice))
        # The offer lapsed (its two minutes passed): a new one may be made, as far as the draw rules go.
        Game.objects.filter(pk=game.pk).update(draw_offer_at=timezone.now() - timedelta(minutes=3))
    before = version(game)
    with pytest.raises(services.GameError) as refused:
        services.offer_draw(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "rate_limited" and version(game) == before


def test_takeback_requests_are_limited_per_player_per_game(alice, bob, settings):
    settings.GAMES_OFFERS_PER_MINUTE = 1
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    # Withdrawn and its cool-down forgotten: only the rate limit is left to refuse the next.
    Game.objects.filter(pk=game.pk).update(takeback_side=None, takeback_asked_ply0=None)
    before = version(game)
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "rate_limited" and version(game) == before
    assert Game.objects.get(pk=game.pk).takeback_side is None


def test_quick_seeks_are_limited_per_player_with_a_clear_answer(alice, bob, settings):
    settings.GAMES_SEEKS_PER_MINUTE = 10
    client = Client()
    client.force_login(alice)
    seek = {"game": "reversi", "minutes": 5, "increment": 3}
    answers = [client.post("/quick/seek/", seek) for _ in range(11)]
    assert [a.status_code for a in answers[:10]] == [200] * 10
    assert answers[10].status_code == 429
    assert answers[10].json() == {
        "error": "rate_limited",
        "message": "You are looking for games too quickly. Please wait a minute.",
    }
    # Another player is not held up by alice's clicks.
    other = Client()
    other.force_login(bob)
    assert other.post("/quick/seek/", seek).status_code == 200


INVITE = {
    "game": "ataxx",
    "opponent": "direct",
    "minutes": 5,
    "increment": 0,
    "side": "random",
    "rated": "rated",
}


def test_invitations_from_the_home_page_are_limited_per_player_and_a_flood_creates_nothing(
    alice, bob, carol, settings
):
    from api.tokens import create_token

    # Issue #41: the API's challenges were limited, the site's own invitations not at all.
    settings.GAMES_INVITATIONS_PER_MINUTE = 3
    page = Client()
    page.force_login(alice)
    answers = [page.post("/play/new/", {**INVITE, "invitee": "bob"}) for _ in range(4)]
    assert [a.status_code for a in answers[:3]] == [302] * 3  # each one opens its game
    refused = answers[3]
    assert refused.status_code == 429
    assert "You are sending invitations too quickly. Please wait a minute." in refused.content.decode()
    invitations = Game.objects.filter(kind=Game.Kind.DIRECT, created_by=alice, invited_user=bob)
    assert invitations.count() == 3

    # The API's challenges count in the same window: one rule, whichever way alice sends them.
    through_api = Client().post(
        "/api/challenge/bob",
        {"game": "ataxx", "clock.limit": 300},
        headers={
            "Authorization": f"Bearer {create_token(user=alice, name='t', scopes=('challenge',)).secret}"
        },
    )
    assert through_api.status_code == 429 and through_api.headers["Retry-After"] == "60"
    assert through_api.json()["code"] == "rate_limited"
    assert invitations.count() == 3

    # Carol is not held up by alice's flood.
    other = Client()
    other.force_login(carol)
    assert other.post("/play/new/", {**INVITE, "invitee": "bob"}).status_code == 302
    assert Game.objects.filter(kind=Game.Kind.DIRECT, created_by=carol).count() == 1
