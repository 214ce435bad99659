"""Rematches after a game between people: offer, accept, decline, cancel, lapse, blocks."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.models import Preferences
from accounts.services.blocks import block
from games import services
from games.models import Game
from games.services import Attended
from tests.people import me

pytestmark = pytest.mark.django_db


def finished_game(alice, bob, *, minutes: int = 3) -> Game:
    """A finished Ataxx game, alice first (side 0), bob resigned."""
    created = services.create_human_game(
        identity=me(alice), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, minutes=minutes
    )
    services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    services.resign(game_id=created.pk, identity=me(bob))
    return Game.objects.get(pk=created.pk)


def test_an_accepted_rematch_swaps_colours_and_keeps_the_game_and_clock(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(bob))
    assert Game.objects.get(pk=game.pk).rematch_offer_side == 1
    new = services.answer_rematch(game_id=game.pk, identity=me(alice), accept=True)
    new.refresh_from_db()
    assert (new.user0, new.user1) == (bob, alice)
    assert (new.game, new.time_control, new.status) == ("ataxx", 180, Game.Status.ACTIVE)
    old = Game.objects.get(pk=game.pk)
    assert old.rematch_id == new.pk and old.rematch_offer_side is None


def test_a_rematch_of_a_casual_3_plus_2_game_is_a_casual_3_plus_2_game(alice, bob):
    game = finished_game(alice, bob)
    Game.objects.filter(pk=game.pk).update(increment=2, casual=True)
    services.offer_rematch(game_id=game.pk, identity=me(bob))
    new = services.answer_rematch(game_id=game.pk, identity=me(alice), accept=True)
    new.refresh_from_db()
    assert (new.time_control_label, new.casual) == ("3+2", True)


def test_offering_when_the_opponent_already_offered_accepts(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    new = services.offer_rematch(game_id=game.pk, identity=me(bob))
    assert new.pk != game.pk and Game.objects.get(pk=game.pk).rematch_id == new.pk


def test_only_one_offer_and_only_one_rematch(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    with pytest.raises(services.GameError) as twice:
        services.offer_rematch(game_id=game.pk, identity=me(alice))
    assert twice.value.code == "offer_pending"
    services.answer_rematch(game_id=game.pk, identity=me(bob), accept=True)
    with pytest.raises(services.GameError) as again:
        services.offer_rematch(game_id=game.pk, identity=me(alice))
    assert again.value.code == "no_rematch"
    assert Game.objects.filter(user0=bob, user1=alice).count() == 1


def test_a_declined_or_cancelled_offer_is_gone_and_cannot_be_accepted(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    services.answer_rematch(game_id=game.pk, identity=me(bob), accept=False)
    with pytest.raises(services.GameError) as declined:
        services.answer_rematch(game_id=game.pk, identity=me(bob), accept=True)
    assert declined.value.code == "no_offer"
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    with pytest.raises(services.GameError) as not_yours:
        services.cancel_rematch(game_id=game.pk, identity=me(bob))
    assert not_yours.value.code == "no_offer"
    services.cancel_rematch(game_id=game.pk, identity=me(alice))
    assert Game.objects.get(pk=game.pk).rematch_offer_side is None


def test_no_rematch_while_the_game_runs_or_against_the_computer(alice, bob):
    created = services.create_human_game(identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK)
    services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    with pytest.raises(services.GameError) as running:
        services.offer_rematch(game_id=created.pk, identity=me(alice))
    assert running.value.code == "no_rematch"
    computer = services.create_computer_game(identity=me(alice), game="reversi", level="easy")
    services.resign(game_id=computer.pk, identity=me(alice))
    with pytest.raises(services.GameError) as versus_computer:
        services.offer_rematch(game_id=computer.pk, identity=me(alice))
    assert versus_computer.value.code == "no_rematch"


def test_an_offer_lapses_after_60_seconds_through_the_sweep(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    offered = Game.objects.get(pk=game.pk)
    assert offered.attention_at == offered.rematch_offer_at + timedelta(seconds=60)
    assert services.attend(game.pk) is None  # not yet
    Game.objects.filter(pk=game.pk).update(
        rematch_offer_at=offered.rematch_offer_at - timedelta(seconds=61),
        attention_at=offered.attention_at - timedelta(seconds=61),
    )
    with pytest.raises(services.GameError) as late:
        services.answer_rematch(game_id=game.pk, identity=me(bob), accept=True)
    assert late.value.code == "no_offer"
    assert services.attend_overdue() == 1
    lapsed = Game.objects.get(pk=game.pk)
    assert lapsed.rematch_offer_side is None and lapsed.attention_at is None
    assert lapsed.version == offered.version + 1  # announced


def test_the_sweep_reports_a_lapsed_rematch(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    Game.objects.filter(pk=game.pk).update(
        rematch_offer_at=Game.objects.get(pk=game.pk).rematch_offer_at - timedelta(seconds=61)
    )
    assert services.attend(game.pk) == Attended.REMATCH_LAPSED


def test_an_offer_lapses_when_a_player_leaves_the_page(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    assert services.lapse_rematch_on_leave(game.pk) is True
    assert Game.objects.get(pk=game.pk).rematch_offer_side is None
    assert services.lapse_rematch_on_leave(game.pk) is False


def test_a_block_made_since_the_game_refuses_the_rematch_and_withdraws_the_offer(alice, bob):
    game = finished_game(alice, bob)
    services.offer_rematch(game_id=game.pk, identity=me(alice))
    block(by=bob, user=alice)
    with pytest.raises(services.GameError) as refused:
        services.answer_rematch(game_id=game.pk, identity=me(bob), accept=True)
    assert refused.value.code == "invitation_refused"
    after = Game.objects.get(pk=game.pk)
    assert after.rematch_offer_side is None and after.rematch_id is None
    with pytest.raises(services.GameError) as offer:
        services.offer_rematch(game_id=game.pk, identity=me(alice))
    assert offer.value.code == "invitation_refused"
    assert Game.objects.count() == 1


def test_a_player_who_blocks_all_invitations_is_not_offered_a_rematch_but_may_offer(alice, bob):
    game = finished_game(alice, bob)
    Preferences.objects.update_or_create(user=bob, defaults={"block_invitations": True})
    with pytest.raises(services.GameError) as refused:
        services.offer_rematch(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "invitation_refused"
    services.offer_rematch(game_id=game.pk, identity=me(bob))
    assert Game.objects.get(pk=game.pk).rematch_offer_side == 1


def test_guests_get_their_rematch_too(alice, guest_factory):
    guest, _ = guest_factory("Guest 4821")
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0
    )
    services.join_game(game_id=created.pk, identity=guest, token=created.invite_token)
    services.resign(game_id=created.pk, identity=guest)
    services.offer_rematch(game_id=created.pk, identity=guest)
    new = services.answer_rematch(game_id=created.pk, identity=me(alice), accept=True)
    assert new.side_of(guest) == 0 and new.side_of(me(alice)) == 1
    assert new.side_name(0) == "Guest 4821"
