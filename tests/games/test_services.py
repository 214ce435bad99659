"""Live play rules that do not need a socket: clocks, computer games, invitations, guests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services, tasks
from games.models import Game, Move
from games.receivers import adopt_guest_games
from games.services import queue as game_queue
from tests.people import me

pytestmark = pytest.mark.django_db


def live_game(alice, bob, *, game="reversi", minutes=5) -> Game:
    created = services.create_human_game(
        identity=me(alice), game=game, kind=Game.Kind.INVITE_LINK, side=0, minutes=minutes
    )
    return services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)


def opened(game: Game, alice, bob) -> Game:
    """After the first move of each side (Reversi d3 c5): the clocks run from here (docs/decisions.md)."""
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    game.refresh_from_db()
    return game


def test_an_invite_link_game_starts_when_the_friend_joins(alice, bob):
    created = services.create_human_game(identity=me(alice), game="ataxx", kind=Game.Kind.INVITE_LINK, side=1)
    assert created.status == Game.Status.WAITING and created.user1 == alice
    joined = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    assert joined.status == Game.Status.ACTIVE and joined.user0 == bob
    assert joined.clock0_ms == joined.clock1_ms == 5 * 60 * 1000


def test_a_guest_can_join_by_invite_link(alice, guest_factory):
    guest, _ = guest_factory("Guest 4821")
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0
    )
    joined = services.join_game(game_id=created.pk, identity=guest, token=created.invite_token)
    assert joined.side_name(1) == "Guest 4821" and joined.side_of(guest) == 1


def test_a_third_person_cannot_join_a_full_game(alice, bob, user_factory):
    game = live_game(alice, bob)
    with pytest.raises(services.GameError) as refused:
        services.join_game(game_id=game.pk, identity=me(user_factory("carol")))
    assert refused.value.code == "not_open"


def test_a_player_who_blocked_you_cannot_be_invited(alice, bob):
    from accounts.services.blocks import block

    block(by=bob, user=alice)
    with pytest.raises(services.GameError) as refused:
        services.create_human_game(
            identity=me(alice), game="reversi", kind=Game.Kind.DIRECT, invited_user=bob
        )
    assert refused.value.code == "invitation_refused"
    assert not Game.objects.exists()


def test_a_blocked_player_cannot_take_your_open_challenge(alice, bob):
    from accounts.services.blocks import block

    block(by=alice, user=bob)
    challenge = services.create_human_game(identity=me(alice), game="reversi", kind=Game.Kind.LOBBY)
    with pytest.raises(services.GameError):
        services.join_game(game_id=challenge.pk, identity=me(bob))
    assert Game.objects.get(pk=challenge.pk).status == Game.Status.WAITING


def test_only_the_invited_player_can_accept_a_direct_invitation(alice, bob, user_factory):
    invite = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.DIRECT, invited_user=bob
    )
    with pytest.raises(services.GameError):
        services.join_game(game_id=invite.pk, identity=me(user_factory("carol")))
    assert services.join_game(game_id=invite.pk, identity=me(bob)).status == Game.Status.ACTIVE


def test_a_declined_invitation_is_over(alice, bob):
    invite = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.DIRECT, invited_user=bob
    )
    declined = services.decline_invitation(game_id=invite.pk, identity=me(bob))
    assert declined.status == Game.Status.ABORTED and declined.end_reason == "declined"


def test_a_clock_at_zero_loses_on_time_even_with_nobody_connected(alice, bob):
    game = opened(live_game(alice, bob, minutes=1), alice, bob)
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=61))
    from games import tasks

    tasks.flag.delay(game.pk, 2)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert (game.winner, game.end_reason, game.clock0_ms) == (1, "timeout", 0)


def test_a_flag_task_that_comes_early_changes_nothing(alice, bob):
    game = live_game(alice, bob)
    assert services.flag(game.pk) is False
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.version == 1


def test_a_late_move_loses_on_time_instead_of_being_played(alice, bob):
    game = opened(live_game(alice, bob, minutes=1), alice, bob)
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=90))
    with pytest.raises(services.GameError) as refused:
        services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    game.refresh_from_db()
    assert refused.value.code == "timeout"
    assert game.end_reason == "timeout" and game.winner == 1
    assert Move.objects.filter(game=game).count() == 2


def test_only_the_movers_clock_runs(alice, bob):
    game = opened(live_game(alice, bob, minutes=5), alice, bob)
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=10))
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    game.refresh_from_db()
    assert 289_000 <= game.clock0_ms <= 290_500
    assert game.clock1_ms == 300_000
    move = Move.objects.get(game=game, ply=2)
    assert move.clock_left_ms == game.clock0_ms and move.time_used_ms >= 10_000


def test_a_forced_pass_is_played_by_the_server(alice, bob):
    game = live_game(alice, bob, game="ataxx")
    # A position where o cannot move after x's move: o is walled in.
    engine = game.engine
    state = engine.from_fen("oxx4/xxx4/xxx4/7/7/7/7 x 0 1")
    Game.objects.filter(pk=game.pk).update(state=engine.dumps(state))
    services.play_move(game_id=game.pk, identity=me(alice), token="d7", ply=0)
    game.refresh_from_db()
    assert game.tokens[-1] == "0000" and game.ply == 2
    assert Move.objects.get(game=game, ply=1).client_id == "server"
    assert engine.to_move(game.engine_state()) == 0


@pytest.mark.django_db(transaction=True)
def test_the_computer_replies_at_once_and_undo_redo_take_back_both_moves(alice):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    game.refresh_from_db()
    assert game.ply == 2, "the eager computer task answered"
    reply = game.tokens[1]
    services.undo(game_id=game.pk, identity=me(alice))
    game.refresh_from_db()
    assert game.ply == 0 and game.redo_moves == ["d3", reply]
    services.redo(game_id=game.pk, identity=me(alice))
    game.refresh_from_db()
    assert game.tokens == ["d3", reply] and game.redo_moves == []
    services.undo(game_id=game.pk, identity=me(alice))
    services.play_move(game_id=game.pk, identity=me(alice), token="f5", ply=0)
    game.refresh_from_db()
    assert game.tokens[0] == "f5" and game.redo_moves == []


def test_undo_is_only_for_computer_games(alice, bob):
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    with pytest.raises(services.GameError) as refused:
        services.undo(game_id=game.pk, identity=me(alice))
    assert refused.value.code in ("no_undo", "not_your_turn")


@pytest.mark.django_db(transaction=True)
def test_when_the_computer_moves_first_it_opens_the_game(alice):
    game = services.create_computer_game(identity=me(alice), game="ultimate_ttt", level="medium", side=1)
    game.refresh_from_db()
    assert game.ply == 1 and game.user1 == alice


@pytest.mark.django_db(transaction=True)
def test_a_lost_computer_move_is_recovered_when_the_player_reconnects(alice, monkeypatch):
    from games import tasks

    monkeypatch.setattr(tasks.computer_move, "apply_async", lambda *a, **k: None)  # the broker lost it
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=1)
    assert Game.objects.get(pk=game.pk).ply == 0
    monkeypatch.undo()
    game_queue.cache.delete(game_queue._pending_key(game.pk, 0))  # lost with Redis's data, as the task was
    later(monkeypatch, seconds=6)
    assert services.attend(game.pk) == "computer_move"
    assert Game.objects.get(pk=game.pk).ply == 1


@pytest.mark.django_db(transaction=True)
def test_a_repeated_computer_task_plays_once(alice):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=1)
    services.computer_move_for(game.pk, 0)  # the first run already happened (eager); this one is late
    game.refresh_from_db()
    assert game.ply == 1


def test_a_draw_offer_lapses_after_two_minutes(alice, bob):
    game = live_game(alice, bob)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    game.refresh_from_db()
    offered_at = game.draw_offer_at.isoformat()
    assert services.lapse_draw_offer(game_id=game.pk, offered_at=offered_at) is False  # too early
    Game.objects.filter(pk=game.pk).update(draw_offer_at=game.draw_offer_at - timedelta(seconds=121))
    stale = Game.objects.get(pk=game.pk).draw_offer_at.isoformat()
    assert services.lapse_draw_offer(game_id=game.pk, offered_at=stale) is True
    assert Game.objects.get(pk=game.pk).draw_offer_side is None


def test_a_draw_offer_lapse_for_a_game_deleted_since_does_nothing(alice, bob):
    game = live_game(alice, bob)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    offered_at = Game.objects.get(pk=game.pk).draw_offer_at.isoformat()
    Game.objects.filter(pk=game.pk).delete()
    # Read the outcome, not .get(): Celery refuses .get() while any thread of this process runs a
    # task (a process-wide flag), and an earlier test's thread may still be finishing one.
    lapse = tasks.lapse_draw_offer.apply(args=(game.pk, offered_at))
    assert lapse.successful(), lapse.traceback  # no "game does not exist" error


def test_a_draw_offer_lapses_when_the_opponent_moves(alice, bob):
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    services.play_move(game_id=game.pk, identity=me(bob), token="c3", ply=1)
    assert Game.objects.get(pk=game.pk).draw_offer_side is None


def test_the_computer_takes_no_draw_offers(alice):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0)
    with pytest.raises(services.GameError) as refused:
        services.offer_draw(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "no_draws"


def test_an_accepted_draw_is_announced_to_ratings_after_commit(
    alice, bob, django_capture_on_commit_callbacks
):
    from games.signals import game_finished

    seen = []
    game_finished.connect(lambda sender, game_id, **kw: seen.append(game_id), weak=False, dispatch_uid="t1")
    try:
        game = live_game(alice, bob)
        services.offer_draw(game_id=game.pk, identity=me(alice))
        with django_capture_on_commit_callbacks(execute=True):
            services.answer_draw(game_id=game.pk, identity=me(bob), accept=True)
    finally:
        game_finished.disconnect(dispatch_uid="t1")
    game.refresh_from_db()
    assert (game.winner, game.end_reason) == (None, "draw_agreed")
    assert seen == [game.pk]


def test_a_guest_who_registers_keeps_their_games(guest_factory, user_factory):
    guest, _ = guest_factory()
    game = services.create_computer_game(identity=guest, game="quantum_ttt", level="easy", side=0)
    user = user_factory("newcomer")
    assert adopt_guest_games(guest_key=guest.guest.key, user=user) == 1
    game.refresh_from_db()
    assert game.user0 == user and game.guest0_key == ""


def test_a_guest_who_logs_in_through_the_site_keeps_their_games(client, user_factory):
    client.get("/")
    client.post(
        "/play/new/", {"game": "reversi", "opponent": "computer", "level": "easy", "minutes": 0, "side": "0"}
    )
    game = Game.objects.get()
    assert game.guest0_key
    user_factory("newcomer", password="secret-pass")
    response = client.post("/accounts/login/", {"login": "newcomer", "password": "secret-pass"})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.user0.username == "newcomer"


def test_a_finished_game_can_be_downloaded_as_a_record_and_replayed(alice, bob, client):
    from games.engines import get
    from games.engines.record import parse_record

    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.resign(game_id=game.pk, identity=me(bob))
    text = client.get(f"/play/{game.pk}/record.txt").content.decode()
    assert '[Result "1-0"]' in text and '[Termination "resign"]' in text
    assert parse_record(text) == ["d3"]
    get("reversi").play(get("reversi").initial(), parse_record(text)[0])
    assert client.get(f"/play/{game.pk}/replay/").status_code == 200


def test_an_invite_link_game_cannot_be_joined_by_guessing_its_number(alice, bob, client):
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0
    )
    with pytest.raises(services.GameError) as refused:
        services.join_game(game_id=created.pk, identity=me(bob))
    assert refused.value.code == "not_invited"
    client.force_login(bob)
    client.post(f"/play/{created.pk}/take/")
    page = client.get(f"/play/{created.pk}/").content.decode()
    assert created.invite_token not in page
    assert Game.objects.get(pk=created.pk).status == Game.Status.WAITING


def later(monkeypatch, **delta) -> None:
    """Let the services believe time has passed."""
    moment = timezone.now() + timedelta(**delta)
    monkeypatch.setattr(timezone, "now", lambda: moment)


def test_the_sweep_flags_a_clock_that_ran_out_with_nobody_connected(alice, bob, user_factory, monkeypatch):
    relaxed = opened(live_game(alice, bob, minutes=15), alice, bob)
    carol, dave = user_factory("carol"), user_factory("dave")
    hurried = opened(live_game(carol, dave, minutes=1), carol, dave)
    assert hurried.attention_at == hurried.flag_at
    later(monkeypatch, seconds=61)
    assert services.attend_overdue() == 1
    hurried.refresh_from_db()
    relaxed.refresh_from_db()
    assert hurried.end_reason == "timeout" and hurried.winner == 1 and hurried.attention_at is None
    assert relaxed.status == Game.Status.ACTIVE


def test_the_sweep_lapses_a_draw_offer_whose_task_was_lost(alice, bob, monkeypatch):
    from games import tasks

    monkeypatch.setattr(tasks.lapse_draw_offer, "apply_async", lambda *a, **k: None)  # lost with its worker
    game = opened(live_game(alice, bob), alice, bob)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    later(monkeypatch, seconds=119)
    assert services.attend_overdue() == 0
    later(monkeypatch, seconds=121)
    assert services.attend_overdue() == 1
    game.refresh_from_db()
    assert game.draw_offer_side is None and game.status == Game.Status.ACTIVE


@pytest.mark.django_db(transaction=True)
def test_the_sweep_requeues_a_computer_move_lost_with_its_worker_but_not_every_time(alice, monkeypatch):
    from games import tasks

    queued = []
    monkeypatch.setattr(
        tasks.computer_move, "apply_async", lambda args, kwargs=None, **options: queued.append(tuple(args))
    )
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=1)
    assert queued == [(game.pk, 0)]
    assert services.attend_overdue() == 0  # the computer is still thinking
    game_queue.computer_move_started(game.pk, 0)  # its task began, and its worker was killed
    later(monkeypatch, seconds=6)
    assert services.attend_overdue() == 1
    assert services.attend_overdue() == 0  # queued again once, then left alone for a while
    assert queued == [(game.pk, 0), (game.pk, 0)]
    game_queue.computer_move_started(game.pk, 0)
    later(monkeypatch, seconds=17)
    assert services.attend_overdue() == 1
    monkeypatch.undo()
    services.computer_move_for(game.pk, 0)
    game.refresh_from_db()
    assert game.ply == 1
    assert game.attention_at == game.turn_started_at + services.IDLE_COMPUTER_EXPIRY  # the human's turn


@pytest.mark.django_db(transaction=True)
def test_the_sweep_leaves_a_computer_move_still_waiting_in_its_queue_and_redoes_a_lost_one(
    alice, monkeypatch
):
    """Issue #38: a flood's moves waited more than 5 s, and the sweep sent each again every 10 s."""
    from games import tasks

    queued = []
    monkeypatch.setattr(
        tasks.computer_move, "apply_async", lambda args, kwargs=None, **options: queued.append(tuple(args))
    )
    game = services.create_computer_game(identity=me(alice), game="reversi", level="hard", side=1)
    assert queued == [(game.pk, 0)]
    for seconds in (6, 17, 28, 39, 50):  # the task waits behind others, not yet started
        later(monkeypatch, seconds=seconds)
        assert services.attend_overdue() == 0
    assert queued == [(game.pk, 0)]
    # Its mark lapsed (the task was lost, its mark left behind): the sweep sends it again.
    later(monkeypatch, seconds=game_queue.COMPUTER_PENDING_SECONDS + 2)
    game_queue.cache.delete(game_queue._pending_key(game.pk, 0))  # what the TTL does
    assert services.attend_overdue() == 1
    assert queued == [(game.pk, 0), (game.pk, 0)]


@pytest.mark.django_db(transaction=True)
def test_a_computer_move_the_broker_refused_is_not_marked_pending(alice, monkeypatch):
    from games import tasks

    refused = []

    def refuse(args, **options):
        refused.append(tuple(args))
        raise OSError("broker down")

    monkeypatch.setattr(tasks.computer_move, "apply_async", refuse)
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=1)
    assert refused == [(game.pk, 0)] and not game_queue.computer_move_pending(game.pk, 0)
    later(monkeypatch, seconds=6)
    queued = []
    monkeypatch.setattr(
        tasks.computer_move, "apply_async", lambda args, kwargs=None, **options: queued.append(tuple(args))
    )
    assert services.attend_overdue() == 1
    assert queued == [(game.pk, 0)] and game_queue.computer_move_pending(game.pk, 0)


def test_an_invitation_nobody_took_expires_after_a_day(alice, monkeypatch):
    waiting = services.create_human_game(identity=me(alice), game="ataxx", kind=Game.Kind.LOBBY)
    later(monkeypatch, hours=23)
    assert services.attend_overdue() == 0
    later(monkeypatch, hours=25)
    assert services.attend_overdue() == 1
    waiting.refresh_from_db()
    assert waiting.status == Game.Status.ABORTED and waiting.end_reason == "expired"


def test_an_untimed_computer_game_left_alone_for_thirty_days_expires_unrated(alice, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0)
    game.refresh_from_db()
    assert game.attention_at == game.turn_started_at + services.IDLE_COMPUTER_EXPIRY
    later(monkeypatch, days=31)
    assert services.attend_overdue() == 1
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and game.end_reason == "expired" and not game.rated


def test_a_move_keeps_the_flag_time_of_the_next_mover(alice, bob):
    game = opened(live_game(alice, bob, minutes=5), alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    game.refresh_from_db()
    assert game.flag_at == game.turn_started_at + timedelta(milliseconds=game.clock1_ms)
    services.resign(game_id=game.pk, identity=me(bob))
    game.refresh_from_db()
    assert game.flag_at is None


@pytest.mark.django_db(transaction=True)
def test_new_game_against_the_computer_resigns_the_running_game_after_two_plies(alice):
    old = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=5)
    services.play_move(game_id=old.pk, identity=me(alice), token="d3", ply=0)  # the computer replies (eager)
    assert Game.objects.get(pk=old.pk).ply == 2
    new = services.rematch_computer(game_id=old.pk, identity=me(alice))
    old.refresh_from_db()
    assert (old.status, old.end_reason, old.winner) == (Game.Status.FINISHED, "resign", 1)
    assert new.status == Game.Status.ACTIVE and new.user1 == alice and new.time_control == 300


def test_new_game_against_the_computer_aborts_a_game_barely_begun(alice):
    old = services.create_computer_game(identity=me(alice), game="ataxx", level="easy", side=0, minutes=0)
    services.rematch_computer(game_id=old.pk, identity=me(alice))
    old.refresh_from_db()
    assert (old.status, old.end_reason, old.winner) == (Game.Status.ABORTED, "aborted", None)


def test_new_game_after_a_finished_game_leaves_its_result_alone(alice):
    old = services.create_computer_game(identity=me(alice), game="ataxx", level="easy", side=0, minutes=0)
    services.resign(game_id=old.pk, identity=me(alice))
    services.rematch_computer(game_id=old.pk, identity=me(alice))
    old.refresh_from_db()
    assert (old.status, old.end_reason) == (Game.Status.FINISHED, "resign")


def test_an_untimed_computer_game_can_be_abandoned_with_no_result(alice):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=1, minutes=0)
    services.abandon_computer_game(game_id=game.pk, identity=me(alice))
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winner) == (Game.Status.ABORTED, "abandoned", None)


def test_only_untimed_computer_games_can_be_abandoned(alice, bob, user_factory):
    timed = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=5)
    human = live_game(alice, bob)
    for game in (timed, human):
        with pytest.raises(services.GameError) as refused:
            services.abandon_computer_game(game_id=game.pk, identity=me(alice))
        assert refused.value.code == "no_abandon"
        assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    untimed = services.create_computer_game(identity=me(alice), game="ataxx", level="easy", side=0, minutes=0)
    with pytest.raises(services.GameError) as refused:
        services.abandon_computer_game(game_id=untimed.pk, identity=me(user_factory("carol")))
    assert refused.value.code == "spectator"


def test_a_one_minute_game_keeps_one_flag_task_queued_however_many_moves_are_played(
    alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    queued: list[tuple] = []
    queue_for_real = tasks.flag.apply_async

    def queue_and_note(args, **options):
        queued.append(tuple(args))
        return queue_for_real(args, **options)

    monkeypatch.setattr(tasks.flag, "apply_async", queue_and_note)
    with django_capture_on_commit_callbacks(execute=True):
        game = live_game(alice, bob, minutes=1)
    for ply in range(6):
        game.refresh_from_db()
        token = game.engine.legal_moves(game.engine_state())[0]
        with django_capture_on_commit_callbacks(execute=True):
            services.play_move(game_id=game.pk, identity=me((alice, bob)[ply % 2]), token=token, ply=ply)
    # Every clock was under the flag horizon, but the first task comes before any later clock
    # can run out: it stands for them all, instead of one task per move.
    assert queued == [(game.pk, 0)]


def test_a_flag_task_that_finds_the_game_moved_on_flags_the_clock_running_then(alice, bob):
    game = opened(live_game(alice, bob, minutes=1), alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    long_ago = timezone.now() - timedelta(seconds=61)
    Game.objects.filter(pk=game.pk).update(turn_started_at=long_ago, flag_at=long_ago + timedelta(seconds=60))

    tasks.flag.delay(game.pk, 2)  # queued at ply 2, for Alice's clock; Bob has not moved since
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert (game.winner, game.end_reason, game.clock1_ms) == (0, "timeout", 0)


def test_a_flag_task_that_comes_before_its_clock_runs_out_queues_itself_for_the_clock_s_end(
    alice, bob, monkeypatch
):
    game = live_game(alice, bob, minutes=1)
    queued: list[tuple] = []
    queue_for_real = tasks.flag.apply_async

    def queue_and_note(args, kwargs=None, **options):
        if "countdown" in options:
            queued.append((tuple(args), round(options["countdown"])))
        return queue_for_real(args, kwargs, **options)

    monkeypatch.setattr(tasks.flag, "apply_async", queue_and_note)
    # Alice's clock now ends in 30 s (as after a takeback and the same move again): the task of ply 0 is early.
    Game.objects.filter(pk=game.pk).update(flag_at=timezone.now() + timedelta(seconds=30))
    tasks.flag.delay(game.pk, 0)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert queued == [((game.pk, 0), 30)]


def test_an_ataxx_game_of_jumps_back_and_forth_ends_in_a_draw_by_repetition(alice, bob, client):
    """Issue #38: two players could shuffle jumps for ever (a 3,000-ply game)."""
    game = live_game(alice, bob, game="ataxx")
    shuffle = ["a7c5", "g7e5", "c5a7", "e5g7"] * 2
    for ply, token in enumerate(shuffle):
        assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
        services.play_move(game_id=game.pk, identity=me(alice if ply % 2 == 0 else bob), token=token, ply=ply)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.ply == 8
    assert (game.winner, game.end_reason) == (None, "repetition")
    assert game.get_end_reason_display() == "A position came back three times"
    text = client.get(f"/play/{game.pk}/record.txt").content.decode()
    assert '[Result "1/2-1/2"]' in text and '[Termination "repetition"]' in text


def test_an_ataxx_game_is_drawn_on_its_hundredth_ply_without_a_clone(alice, bob):
    game = live_game(alice, bob, game="ataxx")
    engine = game.engine
    Game.objects.filter(pk=game.pk).update(state=engine.dumps(engine.from_fen("x5o/7/7/7/7/7/o5x x 99 60")))
    services.play_move(game_id=game.pk, identity=me(alice), token="a7c5", ply=0)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert (game.winner, game.end_reason) == (None, "no_clones")
