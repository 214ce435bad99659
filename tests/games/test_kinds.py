"""The registry of games: every game the site serves is one GameKind, and the site asks it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import get_template
from django.utils import translation

from games.ai import analysis
from games.engines import ENGINES
from games.kinds import KINDS, GameKind, choices, kind_of, register, side_colour

pytestmark = [pytest.mark.django_db]

# The analysis of ``a_sixth_game`` below (Reversi's rules, renamed): Reversi's hooks under its slug,
# with Reversi's fitted constants, as a game outside the site's calibration file carries its own.
# The kind names this module as its ``analysis_hooks``.
HOOKS = dataclasses.replace(
    analysis.hooks_of("reversi"), slug="othello_test", calibration=analysis.calibrated("reversi")
)


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


def test_the_games_are_listed_in_their_kinds_order_not_their_modules_or_registration_s(a_sixth_game):
    # games/kinds/ holds the modules alphabetically (ataxx first), the lobby starts with Reversi,
    # and a game registered later with a smaller ``order`` goes before the five.
    assert [slug for slug, _ in choices()] == [
        "othello_test",
        "reversi",
        "ataxx",
        "ultimate_ttt",
        "quantum_ttt",
        "four_tac_toe",
    ]
    assert list(KINDS) == [slug for slug, _ in choices()]


def test_each_kind_registers_its_analysis_with_the_analysis_package(a_sixth_game):
    for slug, kind in KINDS.items():
        assert analysis.HOOKS[slug] is kind.analysis and kind.analysis.slug == slug
    from games.kinds import unregister

    unregister(a_sixth_game.slug)
    assert "othello_test" not in analysis.HOOKS
    register(a_sixth_game)  # the fixture takes it off again
    assert analysis.HOOKS["othello_test"] is HOOKS


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

    kind = register(
        replace(
            kind_of("reversi"),
            slug="othello_test",
            engine=Othello(),
            name="Othello",
            analysis_hooks=__name__,
            order=0,  # ahead of the five, although registered after them
        )
    )
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
