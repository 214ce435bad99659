"""Every process layout consumes every queue a task is sent to, and the clocks' queue has a worker of its own.

Issue #38: with the computer's moves on the clocks' queue, 60 Hard games kept it
40-68 tasks deep and a human game flagged 6.3 s late. Flags and draw lapses now
go to ``live``, the computer's moves to ``computer``, and in every layout (the
production units, `make run`, the tests' worker) each routed queue has a
consumer, and no process that consumes ``live`` also consumes ``computer``
(except the tests' single worker, which has no clocks to keep).

Then the flood's Hard searches held another player's Easy reply 7.8 s (median) on
the one FIFO ``computer`` queue: Easy and Medium moves go to ``computer-quick``,
which every process consuming ``computer`` consumes too, named first.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from config.celery import app
from games.services import queue as game_queue
from games.services.analysis import ANALYSIS_QUEUE
from launch import deploy
from launch.processes import ALL_QUEUES, celery_worker_command, local_worker_commands

CLOCK_TASKS = ("games.tasks.flag", "games.tasks.lapse_draw_offer", "games.attend_overdue")
PAIRING_TASKS = ("tournaments.tasks.after_game", "tournaments.tasks.pair_arena", "tournaments.sweep")


def queue_of(task_name: str) -> str:
    """The queue Celery's own router sends ``task_name`` to (routes, else the default queue)."""
    return app.amqp.router.route({}, task_name)["queue"].name


def routed_queues() -> set[str]:
    """Every queue a task can be sent to: the routes, the default, and the explicit analysis queue."""
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    return routed | {settings.CELERY_TASK_DEFAULT_QUEUE, ANALYSIS_QUEUE, settings.COMPUTER_QUICK_QUEUE}


def queue_list(argv: list[str]) -> list[str]:
    flag = "-Q" if "-Q" in argv else "--queues"
    return argv[argv.index(flag) + 1].split(",")


def quick_before_hard(argv: list[str]) -> bool:
    """A worker consuming the Hard queue consumes the quick one too, named first (polled first at start)."""
    queues = queue_list(argv)
    if settings.COMPUTER_QUEUE not in queues:
        return settings.COMPUTER_QUICK_QUEUE not in queues
    quick = settings.COMPUTER_QUICK_QUEUE
    return quick in queues and queues.index(quick) < queues.index(settings.COMPUTER_QUEUE)


def queues_of(argv: list[str]) -> set[str]:
    return set(queue_list(argv))


def production_argv() -> dict[str, list[str]]:
    units = deploy.read_units()
    return {
        name: deploy.unit_command(units[name].exec_start, state_dir=Path("/x"), hostname="web1")
        for name in deploy.WORKER_UNITS
    }


def production_workers() -> dict[str, set[str]]:
    return {name: queues_of(argv) for name, argv in production_argv().items()}


def test_clocks_and_pairing_never_share_the_computer_s_queue():
    computer = queue_of("games.tasks.computer_move")
    assert computer == settings.COMPUTER_QUEUE
    for name in CLOCK_TASKS + PAIRING_TASKS:
        assert queue_of(name) == settings.LIVE_QUEUE != computer, name
        assert queue_of(name) != settings.COMPUTER_QUICK_QUEUE


def test_easy_and_medium_moves_go_to_the_quick_queue_and_hard_ones_to_the_computer_s(monkeypatch):
    sent: list[tuple[tuple, str]] = []

    def apply_async(args, **options):
        # What Celery does with these options: an explicit queue, else the routes.
        sent.append((tuple(args), options.get("queue") or queue_of("games.tasks.computer_move")))

    monkeypatch.setattr(app.tasks["games.tasks.computer_move"], "apply_async", apply_async)
    for ply, level in enumerate(("easy", "medium", "hard")):
        game_queue.send_computer_move(7, ply, level)
    quick, hard = settings.COMPUTER_QUICK_QUEUE, settings.COMPUTER_QUEUE
    assert sent == [((7, 0), quick), ((7, 1), quick), ((7, 2), hard)]
    assert quick not in (hard, settings.LIVE_QUEUE)


def test_the_production_units_consume_every_routed_queue_and_live_alone():
    workers = production_workers()
    consumed = set().union(*workers.values())
    assert routed_queues() <= consumed, routed_queues() - consumed
    assert workers["fiveboards-worker-live"] == {settings.LIVE_QUEUE}
    assert workers["fiveboards-worker-computer"] == {settings.COMPUTER_QUICK_QUEUE, settings.COMPUTER_QUEUE}
    computer = production_argv()["fiveboards-worker-computer"]
    assert quick_before_hard(computer)
    # Fair scheduling, one task at a time per pool process: no process hoards Hard tasks.
    assert computer[computer.index("-O") + 1] == "fair"
    assert computer[computer.index("--prefetch-multiplier") + 1] == "1"
    assert all(quick_before_hard(argv) for argv in production_argv().values())
    # Each unit names itself after its queue kind, as the deploy check's ping expects.
    units = deploy.read_units()
    for name in deploy.WORKER_UNITS:
        assert f"{name.removeprefix('fiveboards-worker-')}@%H" in units[name].exec_start
    target = (deploy.UNITS_DIR / "fiveboards.target").read_text()
    assert all(f"{name}.service" in target for name in deploy.WORKER_UNITS)


def test_make_run_consumes_every_routed_queue_with_live_in_a_worker_of_its_own(tmp_path):
    workers = local_worker_commands(tmp_path / "schedule")
    queues = [queues_of(argv) for _name, argv in workers]
    assert routed_queues() <= set().union(*queues)
    with_live = [q for q in queues if settings.LIVE_QUEUE in q]
    assert with_live == [{settings.LIVE_QUEUE}]
    assert all(quick_before_hard(argv) for _name, argv in workers)
    assert sum("--beat" in argv for _name, argv in workers) == 1
    hostnames = [argv[argv.index("--hostname") + 1] for _name, argv in workers]
    assert len(set(hostnames)) == len(hostnames)


def test_the_tests_worker_consumes_every_routed_queue():
    assert routed_queues() <= set(ALL_QUEUES) == queues_of(celery_worker_command())
    assert quick_before_hard(celery_worker_command())
