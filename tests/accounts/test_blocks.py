"""The blacklist and the checks other apps ask before invitations and challenges."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import Block, Preferences
from accounts.services import blocks
from accounts.services.invitations import may_invite, may_join_challenge

pytestmark = pytest.mark.django_db


def test_a_player_blocks_and_unblocks_another_from_the_profile(alice, bob, client_for):
    client = client_for(alice)
    page = client.get("/players/bob/").content.decode()
    assert "/players/bob/block/" in page
    response = client.post("/players/bob/block/")
    assert response.status_code == HTTPStatus.FOUND and response["location"] == "/players/bob/"
    assert blocks.is_blocked(by=alice, user=bob)
    assert not blocks.is_blocked(by=bob, user=alice)
    assert blocks.either_blocked(alice, bob) and blocks.either_blocked(bob, alice)
    assert "/players/bob/unblock/" in client.get("/players/bob/").content.decode()
    client.post("/players/bob/block/")  # twice is harmless
    assert Block.objects.count() == 1
    client.post("/players/bob/unblock/")
    assert not blocks.either_blocked(alice, bob)


def test_the_blacklist_is_listed_in_settings_with_unblock_buttons(alice, bob, client_for):
    blocks.block(by=alice, user=bob)
    html = client_for(alice).get("/settings/").content.decode()
    assert "Blocked players" in html and "/players/bob/unblock/" in html


def test_you_cannot_block_yourself_and_guests_cannot_block(alice, client_for, client):
    assert client_for(alice).post("/players/alice/block/").status_code == HTTPStatus.FOUND
    assert not Block.objects.exists()
    response = client.post("/players/alice/block/")
    assert response["location"].startswith("/accounts/login/")


def test_the_block_redirect_never_leaves_the_site(alice, bob, client_for):
    response = client_for(alice).post("/players/bob/block/", {"next": "https://evil.example/"})
    assert response["location"] == "/players/bob/"


def test_may_invite_is_false_when_either_player_blocked_the_other(alice, bob):
    assert may_invite(sender=alice, recipient=bob)
    blocks.block(by=bob, user=alice)
    assert not may_invite(sender=alice, recipient=bob)
    assert not may_invite(sender=bob, recipient=alice)


def test_may_invite_is_false_when_the_recipient_blocks_all_invitations(alice, bob):
    Preferences.objects.create(user=bob, block_invitations=True)
    assert not may_invite(sender=alice, recipient=bob)
    assert may_invite(sender=bob, recipient=alice)


def test_nobody_invites_themselves_guests_or_inactive_players(alice, bob):
    assert not may_invite(sender=alice, recipient=alice)
    assert not may_invite(sender=AnonymousUser(), recipient=bob)
    assert not may_invite(sender=alice, recipient=AnonymousUser())
    bob.is_active = False
    bob.save()
    assert not may_invite(sender=alice, recipient=bob)


def test_a_blocked_player_cannot_join_an_open_challenge(alice, bob):
    assert may_join_challenge(joiner=bob, owner=alice)
    blocks.block(by=alice, user=bob)
    assert not may_join_challenge(joiner=bob, owner=alice)
    assert may_join_challenge(joiner=AnonymousUser(), owner=alice)  # guests cannot be blocked by name
