"""Private messages: writing, reading, deleting, spam limits, and who may do what."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.test import Client

from accounts.models import Message
from accounts.services import blocks
from accounts.services.messages import Verdict, message_send, unread_count

pytestmark = pytest.mark.django_db


def write(client: Client, to: str, body: str = "Hello!"):
    return client.post("/messages/new/", {"to": to, "body": body})


def test_a_player_writes_to_another_who_sees_it_in_the_inbox_with_an_unread_badge(alice, bob, client_for):
    response = write(client_for(alice), "BOB", "Fancy a game of Ataxx?")
    assert response.status_code == HTTPStatus.FOUND
    assert response["location"] == "/messages/with/bob/"
    message = Message.objects.get()
    assert (message.sender, message.recipient, message.read_at) == (alice, bob, None)

    bob_client = client_for(bob)
    inbox = bob_client.get("/messages/")
    assert "Fancy a game of Ataxx?" in inbox.content.decode()
    assert inbox.context["unread_messages"] == 1
    assert b'class="badge"' in inbox.content
    assert "Fancy a game of Ataxx?" in client_for(alice).get("/messages/sent/").content.decode()


def test_opening_the_conversation_marks_it_read_and_shows_both_directions(alice, bob, client_for):
    message_send(sender=alice, recipient=bob, body="ping")
    message_send(sender=bob, recipient=alice, body="pong")
    message_send(sender=alice, recipient=bob, body="again")
    bob_client = client_for(bob)
    response = bob_client.get("/messages/with/alice/")
    assert [m.body for m in response.context["thread"]] == ["ping", "pong", "again"]
    assert unread_count(bob.pk) == 0
    assert unread_count(alice.pk) == 1  # alice has not read bob's reply yet


def test_replying_from_the_conversation_sends_a_message(alice, bob, client_for):
    response = client_for(bob).post("/messages/with/alice/", {"body": "Sure!"})
    assert response.status_code == HTTPStatus.FOUND
    assert Message.objects.get().body == "Sure!"


def test_mark_read_and_unread(alice, bob, client_for):
    message = message_send(sender=alice, recipient=bob, body="hi").message
    client = client_for(bob)
    client.post(f"/messages/{message.pk}/read/")
    assert unread_count(bob.pk) == 0
    client.post(f"/messages/{message.pk}/read/", {"unread": "1"})
    assert unread_count(bob.pk) == 1
    client.post("/messages/read-all/")
    assert unread_count(bob.pk) == 0


def test_a_guest_cannot_open_the_message_form_or_send():
    client = Client()
    response = client.get("/messages/new/?to=bob")
    assert response.status_code == HTTPStatus.FOUND and response["location"].startswith("/accounts/login/")
    assert write(client, "bob").status_code == HTTPStatus.FOUND
    assert client.get("/messages/").status_code == HTTPStatus.FOUND
    assert not Message.objects.exists()


def test_the_service_refuses_guests_too(bob):
    from django.contrib.auth.models import AnonymousUser

    assert message_send(sender=AnonymousUser(), recipient=bob, body="hi").verdict is Verdict.NOT_REGISTERED


def test_messages_to_yourself_or_to_a_missing_player_are_refused(alice, client_for):
    client = client_for(alice)
    response = write(client, "alice")
    assert response.context["form"].errors["to"] == ["You cannot send a message to yourself."]
    response = write(client, "nobody")
    assert response.context["form"].errors["to"] == ["There is no player with that name."]
    assert not Message.objects.exists()


def test_an_empty_or_too_long_message_is_refused(alice, bob, client_for):
    client = client_for(alice)
    assert write(client, "bob", "   ").context["form"].errors["body"]
    assert write(client, "bob", "x" * 2001).context["form"].errors["body"]
    assert message_send(sender=alice, recipient=bob, body="x" * 2001).verdict is Verdict.INVALID
    assert not Message.objects.exists()


def test_a_message_with_html_is_shown_as_text_with_safe_links(alice, bob, client_for):
    body = '<script>alert("x")</script> see https://example.com/?a=1&b=2 and javascript:alert(1)'
    message_send(sender=alice, recipient=bob, body=body)
    html = client_for(bob).get("/messages/with/alice/").content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert '<a href="https://example.com/?a=1&amp;b=2" rel="nofollow">' in html
    assert 'href="javascript' not in html


def test_a_blocked_player_cannot_message_and_gets_a_neutral_refusal(alice, bob, client_for):
    blocks.block(by=bob, user=alice)
    response = write(client_for(alice), "bob")
    assert response.context["form"].errors["to"] == ["You cannot send messages to this player."]
    # The blocker cannot write to the player they blocked either (no one-way conversations).
    assert message_send(sender=bob, recipient=alice, body="hi").verdict is Verdict.BLOCKED
    assert not Message.objects.exists()
    blocks.unblock(by=bob, user=alice)
    assert message_send(sender=alice, recipient=bob, body="sorry").ok


def test_one_player_cannot_read_or_delete_another_players_messages(alice, bob, user_factory, client_for):
    message = message_send(sender=alice, recipient=bob, body="private").message
    eve = client_for(user_factory("eve"))
    assert eve.get(f"/messages/{message.pk}/").status_code == HTTPStatus.NOT_FOUND
    assert eve.post(f"/messages/{message.pk}/delete/").status_code == HTTPStatus.NOT_FOUND
    assert eve.post(f"/messages/{message.pk}/read/").status_code == HTTPStatus.NOT_FOUND
    assert "private" not in eve.get("/messages/with/alice/").content.decode()
    message.refresh_from_db()
    assert not message.sender_deleted and not message.recipient_deleted and message.read_at is None
    assert client_for(bob).get(f"/messages/{message.pk}/").status_code == HTTPStatus.OK


def test_deleting_removes_only_your_own_copy(alice, bob, client_for):
    message = message_send(sender=alice, recipient=bob, body="hello").message
    bob_client = client_for(bob)
    assert bob_client.post(f"/messages/{message.pk}/delete/").status_code == HTTPStatus.FOUND
    assert bob_client.get(f"/messages/{message.pk}/").status_code == HTTPStatus.NOT_FOUND
    assert bob_client.post(f"/messages/{message.pk}/delete/").status_code == HTTPStatus.NOT_FOUND
    alice_client = client_for(alice)
    assert "hello" in alice_client.get("/messages/sent/").content.decode()
    alice_client.post(f"/messages/{message.pk}/delete/")
    assert not Message.objects.exists()  # gone once neither side wants it


def test_the_21st_message_in_a_minute_is_refused(alice, bob, client_for):
    client = client_for(alice)
    for i in range(20):
        assert write(client, "bob", f"spam {i}").status_code == HTTPStatus.FOUND
    response = write(client, "bob", "one too many")
    assert response.status_code == HTTPStatus.TOO_MANY_REQUESTS
    assert "too quickly" in response.content.decode()
    assert Message.objects.count() == 20
    assert message_send(sender=bob, recipient=alice, body="bob is not limited").ok


def test_refused_messages_do_not_use_up_the_rate_limit(alice, bob):
    for _ in range(25):
        assert message_send(sender=alice, recipient=alice, body="me").verdict is Verdict.SELF
    assert message_send(sender=alice, recipient=bob, body="hi").ok


def test_forged_message_posts_without_csrf_token_are_refused(alice, bob, client_for):
    message = message_send(sender=bob, recipient=alice, body="hi").message
    client = client_for(alice, enforce_csrf_checks=True)
    assert write(client, "bob").status_code == HTTPStatus.FORBIDDEN
    assert client.post(f"/messages/{message.pk}/delete/").status_code == HTTPStatus.FORBIDDEN
    assert client.post("/players/bob/block/").status_code == HTTPStatus.FORBIDDEN
    assert Message.objects.count() == 1 and not blocks.is_blocked(by=alice, user=bob)
