"""The game pages render what their scripts need (no browser: see tests/browser for that)."""

from __future__ import annotations

import json
import re

import pytest
from django import template
from django.test import Client

from accounts.models import Preferences
from games import services
from games.engines import ENGINES, get
from games.kinds import kind_of
from games.models import Game
from games.templatetags.board_tags import board_diagram
from tests.people import me

pytestmark = [pytest.mark.django_db]


def json_script(html: str, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S)
    assert match, f"no #{element_id} on the page"
    return json.loads(match.group(1))


@pytest.fixture
def client_for():
    def make(user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return make


def test_home_offers_the_five_games_with_their_rules_and_the_form(client):
    html = client.get("/").content.decode()
    for slug in ENGINES:
        assert f'data-game="{slug}"' in html and f'href="/rules/{slug}/"' in html
    for name in ("opponent", "level", "minutes", "side", "invitee"):
        assert f'name="{name}"' in html
    assert 'action="/play/new/"' in html


def test_home_lists_challenges_with_take_or_cancel_and_invitations(client_for, user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    challenge = services.create_human_game(identity=me(alice), game="ataxx", kind="lobby", minutes=3)
    invitation = services.create_human_game(
        identity=me(alice), game="reversi", kind="direct", invited_user=bob
    )
    as_bob = client_for(bob).get("/").content.decode()
    assert f'action="/play/{challenge.pk}/take/"' in as_bob
    assert (
        f'action="/play/{invitation.pk}/take/"' in as_bob
        and f'action="/play/{invitation.pk}/decline/"' in as_bob
    )
    as_alice = client_for(alice).get("/").content.decode()
    assert f'action="/play/{challenge.pk}/cancel/"' in as_alice
    assert f'href="/play/{challenge.pk}/"' in as_alice  # her own games


def test_a_refused_new_game_shows_the_form_with_the_reason(client):
    response = client.post(
        "/play/new/", {"game": "reversi", "opponent": "lobby", "minutes": 5, "side": "random"}
    )
    assert response.status_code == 400
    assert "Log in to post an open challenge." in response.content.decode()
    assert 'id="new-game-form"' in response.content.decode()


@pytest.mark.parametrize("slug", list(ENGINES))
def test_the_board_page_embeds_the_snapshot_and_the_settings(client_for, user_factory, slug):
    alice = user_factory("alice")
    Preferences.objects.create(user=alice, hints=False, sound=True, palette="wood")
    game = services.create_computer_game(identity=me(alice), game=slug, level="easy", side=0)
    html = client_for(alice).get(f"/play/{game.pk}/").content.decode()
    snapshot = json_script(html, "game-snapshot")
    assert snapshot["you"] == 0 and snapshot["game"] == slug and snapshot["position"]["legal_moves"]
    assert 'data-hints="false"' in html and 'data-sound="true"' in html and 'data-palette="wood"' in html
    assert re.search(r'data-sound-move="[^"]+\.wav"', html)
    assert 'id="confirm-resign"' in html and 'id="confirm-exit"' in html
    # The board's renderer module and its own options (Four Tac Toe's line table), this game's only.
    renderers = json_script(html, "renderers")
    kind = kind_of(slug)
    assert list(renderers) == [slug] and renderers[slug]["module"].endswith(kind.renderer)
    assert renderers[slug]["options"] == (kind.board_data() if kind.board_data else {})


def test_a_waiting_link_game_shows_its_invite_link_and_the_join_page_joins(client, client_for, user_factory):
    alice = user_factory("alice")
    game = services.create_human_game(identity=me(alice), game="reversi", kind="link")
    html = client_for(alice).get(f"/play/{game.pk}/").content.decode()
    assert f"/join/{game.invite_token}/" in html and 'id="copy-invite"' in html
    join = client.get(f"/join/{game.invite_token}/")
    assert join.status_code == 200 and "Join the game" in join.content.decode()
    assert client.post(f"/join/{game.invite_token}/").url == f"/play/{game.pk}/"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_the_replay_page_carries_a_position_per_ply(client_for, user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(identity=me(alice), game="reversi", kind="link", side=0)
    services.join_game(game_id=game.pk, identity=me(bob), token=game.invite_token)
    for ply, (who, token) in enumerate([(alice, "d3"), (bob, "c5")]):
        services.play_move(game_id=game.pk, identity=me(who), token=token, ply=ply)
    html = client_for(alice).get(f"/play/{game.pk}/replay/").content.decode()
    replay = json_script(html, "replay-data")
    engine = get("reversi")
    (page,) = replay["pages"]  # a short game: every position is on the page
    assert replay["moves"] == ["d3", "c5"] and page["from"] == 0 and len(page["positions"]) == 3
    assert page["positions"][1] == engine.view(engine.play(engine.initial(), "d3"))
    assert page["fens"] is None and replay["over"] is False  # a game in play
    assert f'href="/play/{game.pk}/record.txt"' in html


@pytest.mark.parametrize("slug", list(ENGINES))
def test_every_game_has_a_rules_page_with_diagrams(client, slug):
    html = client.get(f"/rules/{slug}/").content.decode()
    assert html.count('<svg class="diagram-svg"') >= 2
    assert client.get("/rules/chess/").status_code == 404


def test_diagrams_refuse_cells_off_the_board():
    with pytest.raises(template.TemplateSyntaxError):
        board_diagram("3x3", pieces="j9:x")


@pytest.mark.parametrize(
    ("lang", "text"), [("en", "Clock: 1 minute per player."), ("el", "Ρολόι: 1 λεπτό ανά παίκτη.")]
)
def test_the_join_page_words_a_one_minute_clock_in_the_singular(client, user_factory, lang, text):
    game = services.create_human_game(
        identity=me(user_factory("alice")), game="reversi", kind="link", minutes=1
    )
    client.post("/i18n/setlang/", {"language": lang, "next": "/"})
    assert text in client.get(f"/join/{game.invite_token}/").content.decode()
