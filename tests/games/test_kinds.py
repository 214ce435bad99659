"""The registry of games: every game the site serves is one GameKind, and the site asks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import get_template
from django.utils import translation

from games.engines import ENGINES
from games.kinds import KINDS, GameKind, choices, kind_of, register, side_colour

pytestmark = [pytest.mark.django_db]


def test_every_game_the_engines_know_is_a_kind_with_a_rules_page_and_a_board_renderer():
    assert set(KINDS) == set(ENGINES)
    for slug, kind in KINDS.items():
        assert kind.engine is ENGINES[slug]
        get_template(kind.rules_template)  # raises when the rules page is missing
        assert finders.find(kind.renderer), f"{slug}'s renderer {kind.renderer} is not a static file"
        assert hasattr(kind.player_module(), "choose"), f"{kind.player} is no computer player"


def test_a_game_is_named_and_described_in_the_reader_s_language():
    with translation.override("el"):
        assert dict(choices())["reversi"] != "Reversi"
        assert side_colour("reversi", 0) != "Black"
    with translation.override("en"):
        assert str(kind_of("reversi").name) == "Reversi"
        assert side_colour("ultimate_ttt", 0) == "X"


def test_a_second_game_under_a_taken_slug_is_refused():
    taken = kind_of("ataxx")
    impostor = GameKind(**{**taken.__dict__, "rules_template": "games/rules/reversi.html"})
    with pytest.raises(ValueError, match="already registered"):
        register(impostor)
    assert kind_of("ataxx") is taken


def test_the_home_page_lists_the_games_from_the_registry_with_their_blurbs(client):
    html = client.get("/").content.decode()
    for kind in KINDS.values():
        assert f'data-game="{kind.slug}"' in html and str(kind.blurb).replace("'", "&#x27;") in html


def test_the_rules_page_is_the_kind_s_template(client):
    kind = kind_of("quantum_ttt")
    html = client.get(f"/rules/{kind.slug}/").content.decode()
    assert "How to play Quantum Tic-Tac-Toe" in html
    assert Path(kind.rules_template).name == "quantum_ttt.html"


@pytest.fixture
def a_sixth_game():
    """A game the site did not ship with, registered for one test (its engine is Reversi's rules, renamed)."""
    from dataclasses import replace

    from games.engines.reversi import ReversiEngine
    from games.kinds import unregister

    class Othello(ReversiEngine):
        slug = "othello_test"
        name = "Othello"

    kind = register(replace(kind_of("reversi"), slug="othello_test", engine=Othello(), name="Othello"))
    yield kind
    unregister(kind.slug)


def test_a_new_game_needs_no_migration_and_the_forms_offer_it(a_sixth_game):
    from io import StringIO

    from django.core.management import call_command

    from games.models import Game
    from games.web.forms import NewGameForm
    from ratings.forms import HistoryFilterForm
    from tournaments.forms import TournamentForm

    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # SystemExit(1) on any change
    assert "No changes detected" in out.getvalue()
    assert ("othello_test", "Othello") in Game._meta.get_field("game").choices
    for form in (NewGameForm(), HistoryFilterForm(), TournamentForm()):
        assert "othello_test" in dict(form.fields["game"].choices), type(form).__name__
