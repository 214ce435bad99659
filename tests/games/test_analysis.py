"""Computer analysis of finished games: requests and limits, the resumable worker
loop, the JSON endpoint and the replay page."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.identity import Identity
from games.ai import analysis as maths
from games.engines import get
from games.engines.base import replay
from games.models import Analysis, Game
from games.services import analysis
from tests.games.conftest import capture_analysis_tasks

# Black wipes white out on the ninth move.
SHORT_REVERSI = ["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"]
# A short Quantum TTT game (X makes a line).
QTTT_GAME = ["2-5", "1-6", "2-5", "@5", "1-6", "@1", "7-8", "7-9", "7-9", "@7"]


def finished_game(
    slug: str = "reversi", tokens: list[str] | None = None, *, user=None, status: str = Game.Status.FINISHED
) -> Game:
    tokens = list(SHORT_REVERSI if tokens is None else tokens)
    engine = get(slug)
    state = replay(engine, tokens)
    outcome = engine.outcome(state)
    return Game.objects.create(
        game=slug,
        kind=Game.Kind.COMPUTER,
        status=status,
        user0=user,
        ai1="easy",
        tokens=tokens,
        ply=len(tokens),
        state=engine.dumps(state),
        winner=outcome.winner if outcome else None,
        end_reason=outcome.reason if outcome and status == Game.Status.FINISHED else "",
        started_at=timezone.now(),
        finished_at=timezone.now() if status == Game.Status.FINISHED else None,
    )


@pytest.fixture
def queued(monkeypatch):
    """Tasks the service queues (after commit), instead of a broker."""
    return capture_analysis_tasks(monkeypatch, "analyse_game")


@pytest.mark.django_db
def test_a_finished_game_gets_one_analysis_queued_and_a_second_viewer_gets_the_same(
    user_factory, queued, django_capture_on_commit_callbacks
):
    ann, bob = user_factory("ann"), user_factory("bob")
    game = finished_game(user=ann)
    with django_capture_on_commit_callbacks(execute=True):
        first = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert first.status == Analysis.Status.QUEUED and first.total == len(SHORT_REVERSI) + 1
    assert first.budget == maths.BUDGET["reversi"]
    assert queued == [first.pk]
    with django_capture_on_commit_callbacks(execute=True):
        second = analysis.request_analysis(game_id=game.pk, identity=Identity(bob, None))
    assert second.pk == first.pk and queued == [first.pk]  # nothing new queued
    # bob asked for nothing new: it does not count against him
    assert not Analysis.objects.filter(requested_by=bob).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("status", [Game.Status.ACTIVE, Game.Status.ABORTED])
def test_only_finished_games_can_be_analysed(user_factory, queued, status):
    ann = user_factory()
    game = finished_game(tokens=SHORT_REVERSI[:4], user=ann, status=status)
    with pytest.raises(analysis.AnalysisRefused, match="Only finished games") as refused:
        analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert refused.value.code == "not_finished"
    assert not Analysis.objects.exists() and queued == []


@pytest.mark.django_db
def test_one_analysis_under_way_per_player(user_factory, queued):
    ann = user_factory()
    first, second = finished_game(user=ann), finished_game(user=ann)
    analysis.request_analysis(game_id=first.pk, identity=Identity(ann, None))
    with pytest.raises(
        analysis.AnalysisRefused, match=f"analysis of game {first.pk} is still running"
    ) as refused:
        analysis.request_analysis(game_id=second.pk, identity=Identity(ann, None))
    assert refused.value.code == "busy"
    assert not Analysis.objects.filter(game=second).exists()
    # A worker that vanished (no progress for STALE_AFTER) no longer blocks the player.
    Analysis.objects.filter(game=first).update(
        updated_at=timezone.now() - analysis.STALE_AFTER - timedelta(seconds=1)
    )
    assert analysis.request_analysis(game_id=second.pk, identity=Identity(ann, None)).game_id == second.pk


@pytest.mark.django_db
def test_the_daily_quota_refuses_and_says_when(user_factory, guest_factory, queued, settings):
    settings.ANALYSIS_DAILY_QUOTA = 2
    settings.ANALYSIS_GUEST_DAILY_QUOTA = 1
    ann = user_factory()
    now = timezone.now()
    oldest = now - timedelta(hours=20)
    for when in (oldest, now - timedelta(hours=2)):
        done = analysis.request_analysis(
            game_id=finished_game(user=ann).pk, identity=Identity(ann, None), now=when
        )
        Analysis.objects.filter(pk=done.pk).update(status=Analysis.Status.DONE)
    game = finished_game(user=ann)
    with pytest.raises(analysis.AnalysisRefused) as refused:
        analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None), now=now)
    assert refused.value.code == "quota"
    assert refused.value.retry_at == oldest + timedelta(hours=24)
    assert (oldest + timedelta(hours=24)).strftime("%H:%M") in refused.value.message
    assert not Analysis.objects.filter(game=game).exists()
    # A day later the oldest one has left the window.
    later = analysis.request_analysis(
        game_id=game.pk, identity=Identity(ann, None), now=now + timedelta(hours=5)
    )
    assert later.status == Analysis.Status.QUEUED
    # Guests have a smaller quota of their own.
    guest, _ = guest_factory()
    analysis.request_analysis(game_id=finished_game().pk, identity=guest)
    Analysis.objects.filter(requested_guest=guest.guest.key).update(status=Analysis.Status.DONE)
    with pytest.raises(analysis.AnalysisRefused, match="your 1 analyses"):
        analysis.request_analysis(game_id=finished_game().pk, identity=guest)


@pytest.mark.django_db
def test_guests_together_cannot_fill_the_queue_by_coming_back_with_new_cookies(
    user_factory, guest_factory, queued, settings
):
    settings.ANALYSIS_GUESTS_AT_ONCE = 2
    for _ in range(2):
        analysis.request_analysis(game_id=finished_game().pk, identity=guest_factory()[0])
    with pytest.raises(analysis.AnalysisRefused) as refused:
        analysis.request_analysis(game_id=finished_game().pk, identity=guest_factory()[0])
    assert refused.value.code == "guests_busy" and "log in" in refused.value.message
    # A registered player is not held up by guests.
    ann = user_factory()
    assert analysis.request_analysis(game_id=finished_game(user=ann).pk, identity=Identity(ann, None))
    assert Analysis.objects.count() == 3


@pytest.mark.django_db
def test_run_stores_every_position_judges_the_moves_and_is_idempotent(user_factory, queued):
    ann = user_factory()
    game = finished_game("quantum_ttt", QTTT_GAME, user=ann)
    pending = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert analysis.run_analysis(pending.pk)
    done = Analysis.objects.get(pk=pending.pk)
    assert done.status == Analysis.Status.DONE and done.done == done.total == len(QTTT_GAME) + 1
    assert [j["move"] for j in done.judgements] == QTTT_GAME
    assert done.positions[-1]["chances"] == (1.0 if game.winner == 0 else -1.0 if game.winner == 1 else 0.0)
    assert len(done.summary) == 2 and all("accuracy" in side for side in done.summary)
    # The report: every move labelled, each player's accuracy per phase, the budget the worker used.
    assert all(j["label"] in maths.LABELS and j["phase"] in maths.PHASES for j in done.judgements)
    assert all(set(side["phases"]) == set(maths.PHASES) for side in done.summary)
    assert done.budget == maths.BUDGET["quantum_ttt"]  # the core is loaded: the compiled budget
    # Errors show the better move on a board of its own.
    for judged in done.judgements:
        if judged["best"]:
            assert judged["better_position"]["legal_moves"] is not None
    # Running again changes nothing.
    before = (done.positions, done.judgements, done.finished_at)
    assert analysis.run_analysis(pending.pk)
    again = Analysis.objects.get(pk=pending.pk)
    assert (again.positions, again.judgements, again.finished_at) == before


@pytest.mark.django_db
def test_a_stopped_run_is_continued_not_restarted(user_factory, queued, monkeypatch):
    ann = user_factory()
    game = finished_game("quantum_ttt", QTTT_GAME, user=ann)
    pending = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    real = maths.evaluate
    calls: list[str] = []

    def dies_after_four(engine, state, budget=None):
        if len(calls) == 4:
            raise RuntimeError("worker lost")
        calls.append(engine.fen(state))
        return real(engine, state, budget)

    monkeypatch.setattr(maths, "evaluate", dies_after_four)
    with pytest.raises(RuntimeError):
        analysis.run_analysis(pending.pk)
    assert Analysis.objects.get(pk=pending.pk).done == 4
    calls.clear()
    monkeypatch.setattr(maths, "evaluate", lambda e, s, b=None: calls.append(e.fen(s)) or real(e, s, b))
    assert analysis.run_analysis(pending.pk)
    assert len(calls) == len(QTTT_GAME) + 1 - 4  # only the positions still missing
    assert Analysis.objects.get(pk=pending.pk).status == Analysis.Status.DONE


@pytest.mark.django_db
def test_a_failed_analysis_is_continued_at_no_cost(user_factory, queued, settings):
    settings.ANALYSIS_DAILY_QUOTA = 1
    ann = user_factory()
    game = finished_game(user=ann)
    first = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    analysis.mark_failed(first.pk, "RuntimeError: boom")
    assert Analysis.objects.get(pk=first.pk).status == Analysis.Status.FAILED
    again = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert again.pk == first.pk and again.status == Analysis.Status.QUEUED and again.error == ""


@pytest.mark.django_db
def test_json_endpoint_starts_reports_and_refuses(user_factory, queued, settings):
    settings.ANALYSIS_DAILY_QUOTA = 1
    ann = user_factory()
    client = Client()
    client.force_login(ann)
    game, other, running = (
        finished_game(user=ann),
        finished_game(user=ann),
        finished_game(tokens=SHORT_REVERSI[:3], status=Game.Status.ACTIVE),
    )
    url = f"/play/{game.pk}/analysis.json"
    assert client.get(url).json() == {"status": "none"}
    started = client.post(url)
    assert started.status_code == 200 and started.json()["status"] == "queued"
    refused = client.post(f"/play/{other.pk}/analysis.json")
    assert refused.status_code == 429 and refused.json()["code"] == "busy"
    analysis.run_analysis(Analysis.objects.get(game=game).pk)
    result = client.get(url).json()
    assert result["status"] == "done" and len(result["chances"]) == len(SHORT_REVERSI) + 1
    assert result["chances"][-1] == 1.0 and result["exact"][-1] == 64
    over = client.post(f"/play/{other.pk}/analysis.json")
    assert over.status_code == 429 and over.json()["code"] == "quota" and over["Retry-After"]
    assert client.post(f"/play/{running.pk}/analysis.json").status_code == 409
    assert client.post("/play/999999/analysis.json").status_code == 404
    assert client.put(url).status_code == 405


@pytest.mark.django_db
def test_replay_page_carries_the_stored_analysis(user_factory, queued):
    ann = user_factory()
    game = finished_game(user=ann)
    page = Client().get(f"/play/{game.pk}/replay/")
    assert b'id="analyse"' in page.content and b'"status": "none"' in page.content
    pending = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    analysis.run_analysis(pending.pk)
    page = Client().get(f"/play/{game.pk}/replay/")
    assert b'"status": "done"' in page.content and b'"judgements"' in page.content
    unfinished = finished_game(tokens=SHORT_REVERSI[:3], status=Game.Status.ACTIVE)
    page = Client().get(f"/play/{unfinished.pk}/replay/")
    assert b'id="analyse"' not in page.content and b"Only finished games can be analysed." in page.content


@pytest.mark.django_db
def test_the_history_row_shows_the_players_accuracy_and_errors(user_factory, queued):
    ann = user_factory()
    analysed, plain = finished_game(user=ann), finished_game(user=ann)
    pending = analysis.request_analysis(game_id=analysed.pk, identity=Identity(ann, None))
    analysis.run_analysis(pending.pk)
    mine = Analysis.objects.get(pk=pending.pk).summary[0]
    client = Client()
    client.force_login(ann)
    page = client.get("/history/").content.decode()
    row = page[page.index(f'data-game="{analysed.pk}"') :]
    row = row[: row.index("</tr>")]
    assert f"{mine['accuracy']:.1f} % accuracy" in row
    assert f"{mine['counts']['blunder']}??" in row
    other = page[page.index(f'data-game="{plain.pk}"') :]
    assert f'/play/{plain.pk}/replay/#analyse">Analyse</a>' in other[: other.index("</tr>")]


def _random_reversi_game(seed: int) -> list[str]:
    import random

    engine, rng = get("reversi"), random.Random(seed)
    state, moves = engine.initial(), []
    while engine.outcome(state) is None:
        moves.append(rng.choice(engine.legal_moves(state)))
        state = engine.play(state, moves[-1])
    return moves


@pytest.mark.django_db
def test_reversi_endgame_moves_are_labelled_perfect_or_with_the_discs_they_lose(user_factory, queued):
    ann = user_factory()
    moves = _random_reversi_game(5)
    game = finished_game("reversi", moves, user=ann)
    pending = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert analysis.run_analysis(pending.pk)
    done = Analysis.objects.get(pk=pending.pk)
    engine, state = get("reversi"), get("reversi").initial()
    labelled = []
    for judged, move in zip(done.judgements, moves, strict=True):
        empties = 64 - (state.black | state.white).bit_count()
        if empties <= done.budget["exact"]:  # the solver depth the worker recorded
            assert judged["exact_loss"] is not None and judged["exact_loss"] >= 0
            labelled.append(judged["exact_loss"])
            if judged["exact_loss"] > 0 and not judged["forced"]:
                assert judged["best"] and judged["best"] != move  # the perfect move is shown
        else:
            assert judged["exact_loss"] is None
        state = engine.play(state, move)
    assert 0 in labelled and any(loss > 0 for loss in labelled)  # a random player is sometimes perfect
    # The exact final score: the last position's disc difference, empties to the winner.
    black, white = engine.score(state)
    assert done.positions[-1]["exact"] == (black - white) + (64 - black - white) * (
        (black > white) - (black < white)
    )


@pytest.mark.django_db
def test_a_stalled_analysis_shows_as_stalled_and_asking_again_continues_it(
    user_factory, queued, django_capture_on_commit_callbacks
):
    ann = user_factory()
    game = finished_game("quantum_ttt", QTTT_GAME, user=ann)
    pending = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    Analysis.objects.filter(pk=pending.pk).update(
        status=Analysis.Status.RUNNING, done=0, updated_at=timezone.now() - timedelta(minutes=10)
    )
    assert analysis.as_json(Analysis.objects.get(pk=pending.pk))["status"] == "stalled"
    with django_capture_on_commit_callbacks(execute=True):
        again = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert again.pk == pending.pk and again.status == Analysis.Status.QUEUED and queued == [pending.pk]


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["reversi", "ataxx", "quantum_ttt", "ultimate_ttt", "four_tac_toe"])
def test_a_report_of_every_game_is_stored_from_the_compiled_cores_answers(user_factory, queued, slug):
    # The Monte Carlo cores once answered "only move" with numpy's bool, which JSON refuses:
    # every Ultimate TTT and Four Tac Toe analysis failed in the worker.
    engine, rng = get(slug), random.Random(5)
    tokens: list[str] = []
    state = engine.initial()
    for _ in range(6):
        move = rng.choice(engine.legal_moves(state))
        tokens.append(move)
        state = engine.play(state, move)
    ann = user_factory()
    game = finished_game(slug, tokens, user=ann)
    pending = analysis.request_analysis(game_id=game.pk, identity=Identity(ann, None))
    assert analysis.run_analysis(pending.pk)
    done = Analysis.objects.get(pk=pending.pk)
    assert done.status == Analysis.Status.DONE and done.budget == maths.BUDGET[slug]
    assert [j["move"] for j in done.judgements] == tokens
    assert all(isinstance(p["only"], bool) for p in done.positions)
