"""Correspondence games: days per move, the deadline as a clock, the mails, a rating of their own.

The clock is moved forward by patching ``django.utils.timezone.now`` (neither
time-machine nor freezegun is a dependency): the services, the sweeps and the
mail sweep all read the time through it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from allauth.account.models import EmailAddress
from django.core import mail as django_mail
from django.test import Client
from django.utils import timezone

from accounts.models import Preferences
from games import services
from games.models import Game, TurnMail
from games.services.correspondence_mail import send_due_mails
from games.services.obligations import attend_overdue
from ratings.models import Rating
from ratings.services import apply_ratings_for_game
from tests.mail import Inbox
from tests.people import me

pytestmark = pytest.mark.django_db


class Clock:
    """The site's "now", moved forward by the story."""

    def __init__(self, monkeypatch) -> None:
        self.at = timezone.now().replace(microsecond=0)
        monkeypatch.setattr(timezone, "now", lambda: self.at)

    def forward(self, **delta: float) -> datetime:
        self.at += timedelta(**delta)
        return self.at


@pytest.fixture
def clock(monkeypatch) -> Clock:
    return Clock(monkeypatch)


def opt_in(user, address: str) -> None:
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
    Preferences.objects.update_or_create(user=user, defaults={"correspondence_mail": True})


def three_day_game(alice, bob, *, game: str = "reversi") -> Game:
    created = services.create_human_game(
        identity=me(alice), game=game, kind=Game.Kind.INVITE_LINK, side=0, days_per_move=3
    )
    return services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)


def test_a_three_day_game_over_a_clock_moved_forward_mails_reminds_and_is_flagged_by_the_sweep(
    alice,
    bob,
    clock,
    inbox: Inbox,
):
    opt_in(alice, "alice@example.org")
    game = three_day_game(alice, bob)
    assert game.time_control_label == "3 days"
    assert game.deadline() == clock.at + timedelta(days=3)

    # It is Alice's turn: the sweep mails her once, however often it runs.
    assert send_due_mails() == 1
    assert send_due_mails() == 0
    first = inbox.only("alice@example.org")
    assert first["Subject"] == "Your move: Reversi against bob"
    assert f"/play/{game.pk}/" in first.get_body(preferencelist=("plain",)).get_content()

    # Two days later she plays: Bob now has three full days, and only his deadline runs.
    clock.forward(days=2)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    game.refresh_from_db()
    assert game.deadline() == clock.at + timedelta(days=3)
    assert game.remaining_ms(0) == 3 * 86_400_000, "the waiting side's deadline does not run"

    # Bob answers a day and a half later; a day has passed since her last mail: a new one.
    clock.forward(days=1, hours=12)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    assert send_due_mails() == 1
    assert inbox.only("alice@example.org")["Subject"] == "Your move: Reversi against bob"

    # 2 days 13 hours later less than 12 hours are left: one reminder, never two.
    clock.forward(days=2, hours=13)
    assert send_due_mails() == 1
    assert send_due_mails() == 0
    reminder = inbox.only("alice@example.org")
    assert reminder["Subject"] == "Less than 12 hours left for your move: Reversi against bob"

    # The deadline passes with nobody on the site: the obligations sweep flags it like a clock.
    clock.forward(hours=11, seconds=1)
    assert attend_overdue() == 1
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winner) == ("finished", "timeout", 1)
    with pytest.raises(services.GameError) as refused:
        services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    assert refused.value.code == "game_over"
    assert send_due_mails() == 0, "a finished game is owed no mail"
    assert list(TurnMail.objects.order_by("sent_at").values_list("kind", "ply")) == [
        ("turn", 0),
        ("turn", 2),
        ("reminder", 2),
    ]


def test_a_player_out_of_time_cannot_act_before_the_sweep_comes(alice, bob, clock):
    game = three_day_game(alice, bob)
    # After each side's first move: before them, a deadline passing calls the game off (test_clock_start.py).
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    clock.forward(days=3, seconds=1)
    # The envelope checks the deadline before any command: a draw offer ends the game on time first.
    with pytest.raises(services.GameError) as refused:
        services.offer_draw(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "timeout"
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winner, game.draw_offer_side) == (
        "finished",
        "timeout",
        1,
        None,
    )


def test_turn_mails_are_batched_to_one_per_game_a_day(alice, bob, clock):
    opt_in(alice, "alice@example.org")
    game = three_day_game(alice, bob)
    assert send_due_mails() == 1
    # Quick replies the same day: Alice's turn comes round again, but she already had today's mail.
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    clock.forward(hours=23)
    assert send_due_mails() == 0
    clock.forward(hours=1, seconds=1)
    assert send_due_mails() == 1
    assert len(django_mail.outbox) == 2


def test_no_mail_without_the_opt_in_or_without_a_verified_address(alice, bob, clock):
    EmailAddress.objects.create(user=alice, email="alice@example.org", verified=True, primary=True)
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=False, primary=True)
    Preferences.objects.create(user=bob, correspondence_mail=True)
    game = three_day_game(alice, bob)
    assert send_due_mails() == 0, "Alice did not opt in"
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    assert send_due_mails() == 0, "Bob's address is not verified"
    assert not TurnMail.objects.exists()


def test_a_mail_server_that_fails_leaves_nothing_stored_and_the_next_sweep_sends_it(
    alice, bob, clock, monkeypatch
):
    opt_in(alice, "alice@example.org")
    three_day_game(alice, bob)

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("the mail server is down")

    monkeypatch.setattr("games.services.correspondence_mail.send_mail", refuse)
    assert send_due_mails() == 0
    assert not TurnMail.objects.exists(), "a mail not handed over is not recorded as sent"
    monkeypatch.undo()
    Clock(monkeypatch).at = clock.at
    assert send_due_mails() == 1
    assert len(django_mail.outbox) == 1


@pytest.mark.parametrize("days", [1, 2, 3, 5, 7, 14])
def test_every_offered_pace_is_a_deadline_of_that_many_days(alice, bob, clock, days):
    created = services.create_human_game(
        identity=me(alice), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=days
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    assert game.deadline() == clock.at + timedelta(days=days)
    assert game.flag_at == game.deadline() and game.attention_at == game.deadline()


@pytest.mark.parametrize("days", [4, 15, -1])
def test_a_pace_not_offered_is_refused_and_no_game_is_made(alice, days):
    with pytest.raises(services.GameError) as refused:
        services.create_human_game(
            identity=me(alice), game="reversi", kind=Game.Kind.LOBBY, days_per_move=days
        )
    assert refused.value.code == "bad_time"
    assert not Game.objects.exists()


def test_guests_cannot_create_or_join_a_correspondence_game(alice, guest_factory):
    guest, _cookie = guest_factory()
    with pytest.raises(services.GameError) as refused:
        services.create_human_game(
            identity=guest, game="reversi", kind=Game.Kind.INVITE_LINK, days_per_move=3
        )
    assert refused.value.code == "login_required"
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, days_per_move=3
    )
    with pytest.raises(services.GameError) as refused:
        services.join_game(game_id=created.pk, identity=guest, token=created.invite_token)
    assert refused.value.code == "login_required"
    created.refresh_from_db()
    assert created.status == "waiting"


def test_a_draw_offer_waits_for_the_opponent_s_turn_not_two_minutes(alice, bob, clock):
    game = three_day_game(alice, bob)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    clock.forward(days=2)
    assert attend_overdue() == 0, "the offer has not lapsed after two days"
    services.answer_draw(game_id=game.pk, identity=me(bob), accept=True)
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "draw_agreed")


def test_an_unanswered_draw_offer_lapses_after_the_days_of_a_move(alice, bob, clock):
    game = three_day_game(alice, bob)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    clock.forward(days=2, hours=23)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)  # Bob's move says no
    game.refresh_from_db()
    assert game.draw_offer_side is None


def test_a_takeback_gives_the_side_to_move_its_full_days_again(alice, bob, clock):
    game = three_day_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    clock.forward(days=2)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    services.answer_takeback(game_id=game.pk, identity=me(bob), accept=True)
    game.refresh_from_db()
    assert (game.ply, game.to_move) == (0, 0)
    assert game.deadline() == clock.at + timedelta(days=3)


def test_a_correspondence_win_changes_the_correspondence_rating_only(alice, bob, clock):
    game = three_day_game(alice, bob)
    services.resign(game_id=game.pk, identity=me(alice))
    apply_ratings_for_game(game_id=game.pk)
    rows = {(r.user.username, r.correspondence): r for r in Rating.objects.select_related("user")}
    assert set(rows) == {("alice", True), ("bob", True)}
    assert rows[("bob", True)].value > 1500 > rows[("alice", True)].value
    game.refresh_from_db()
    assert game.rated and game.place1_at_end is None  # nobody was ranked in correspondence yet


def test_profile_and_rankings_show_the_correspondence_rating_apart(alice, bob, clock, client):
    game = three_day_game(alice, bob)
    services.resign(game_id=game.pk, identity=me(alice))
    apply_ratings_for_game(game_id=game.pk)
    live = client.get("/rankings/reversi/").content.decode()
    assert "Nobody is ranked yet" in live
    corr = client.get("/rankings/reversi/?pool=correspondence").content.decode()
    assert 'data-pool="correspondence" aria-current="page"' in corr
    assert "/players/bob/" in corr and "/players/alice/" in corr
    profile = client.get("/players/bob/").content.decode()
    assert 'data-pool="correspondence"' in profile
    assert "Reversi, correspondence" in profile


def logged_in(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


def test_the_new_game_form_sets_up_three_days_per_move_and_the_lobby_shows_it(alice, bob):
    page = logged_in(alice).get("/").content.decode()
    assert 'name="days"' in page and "3 days per move" in page
    response = logged_in(alice).post(
        "/play/new/",
        {"game": "ataxx", "opponent": "lobby", "minutes": "5", "increment": "0", "days": "3", "side": "0"},
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    assert (game.days_per_move, game.time_control, game.increment) == (3, 3 * 86_400, 0)
    lobby = logged_in(bob).get("/").content.decode()
    assert "Ataxx against alice (1500" in lobby and "?</abbr>), 3 days per move" in lobby
    listed = logged_in(bob).get("/lobby.json").json()["challenges"]
    assert [(c["clock"], c["days_per_move"]) for c in listed] == [("3 days", 3)]


def test_days_per_move_against_the_computer_is_refused_with_a_clear_error(alice):
    response = logged_in(alice).post(
        "/play/new/",
        {
            "game": "reversi",
            "opponent": "computer",
            "level": "easy",
            "minutes": "5",
            "days": "3",
            "side": "0",
        },
    )
    assert response.status_code == 400
    assert "Correspondence games are between people." in response.content.decode()
    assert not Game.objects.exists()


def test_the_home_page_lists_your_move_and_the_header_counts_it(alice, bob, clock):
    game = three_day_game(alice, bob)
    live = services.create_human_game(identity=me(bob), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0)
    services.join_game(game_id=live.pk, identity=me(alice), token=live.invite_token)
    home = logged_in(alice).get("/")
    waiting = [item.game.pk for item in home.context["your_move"]]
    assert waiting == [game.pk], "Bob moves first in the live game"
    page = home.content.decode()
    assert f'<li data-game-id="{game.pk}">' in page and "move by" in page
    assert home.context["your_move_count"] == 1
    assert (
        'data-nav="your-move"' in page
        and 'data-nav="your-move" data-label="games waiting for your move" hidden' not in page
    )
    bob_home = logged_in(bob).get("/")
    assert [item.game.pk for item in bob_home.context["your_move"]] == [live.pk]
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    assert logged_in(alice).get("/").context["your_move_count"] == 0
    assert logged_in(bob).get("/").context["your_move_count"] == 2


def test_the_mail_opt_in_is_a_setting_of_registered_players(alice, client):
    response = logged_in(alice).post(
        "/settings/", {"theme": "auto", "palette": "classic", "ai_level": "easy", "correspondence_mail": "on"}
    )
    assert response.status_code == 302
    assert Preferences.objects.get(user=alice).correspondence_mail
    assert "correspondence_mail" not in client.get("/settings/").content.decode(), "not offered to guests"


def test_a_player_who_chose_greek_gets_their_turn_mail_in_greek(alice, bob, clock, client):
    opt_in(alice, "alice@example.org")
    client.force_login(alice)
    client.post("/i18n/setlang/", {"language": "el", "next": "/"})
    client.post("/i18n/setlang/", {"language": "tlh", "next": "/"})  # not one of the site's: ignored
    three_day_game(alice, bob)
    assert send_due_mails() == 1
    (sent,) = django_mail.outbox
    assert sent.subject == "Σειρά σας: Ρεβέρσι εναντίον bob"
    assert "Ρεβέρσι" in sent.body and "Play it here" not in sent.body


def test_a_player_who_never_chose_gets_the_language_they_signed_in_with(alice, bob, carol, clock):
    for user in (alice, carol):
        opt_in(user, f"{user.username}@example.org")
        user.set_password("a long pass phrase")
        user.save()
    signed_in = Client(HTTP_ACCEPT_LANGUAGE="hi")
    signed_in.post("/accounts/login/", {"login": "alice", "password": "a long pass phrase"})
    assert Preferences.objects.get(user=alice).language == "hi"
    three_day_game(alice, bob)
    send_due_mails()
    assert django_mail.outbox[0].subject == "आपकी चाल: bob के विरुद्ध रिवर्सी"

    # A sign-in from another browser does not undo what the menu chose.
    chooser = Client()
    chooser.force_login(carol)
    chooser.post("/i18n/setlang/", {"language": "el", "next": "/"})
    Client(HTTP_ACCEPT_LANGUAGE="bn").post(
        "/accounts/login/", {"login": "carol", "password": "a long pass phrase"}
    )
    assert Preferences.objects.get(user=carol).language == "el"
