"""Every process layout consumes every queue a task is sent to, and the clocks' queue has a worker of its own.

Issue #38: with the computer's moves on the clocks' queue, 60 Hard games kept it
40-68 tasks deep and a human game flagged 6.3 s late. Flags and draw lapses now
go to ``live``, the computer's moves to ``computer``, and in every layout (the
production units, `make run`, the tests' worker) each routed queue has a
consumer, and no process that consumes ``live`` also consumes ``computer``
(except the tests' single worker, which has no clocks to keep).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from config.celery import app
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
    return routed | {settings.CELERY_TASK_DEFAULT_QUEUE, ANALYSIS_QUEUE}


def queues_of(argv: list[str]) -> set[str]:
    flag = "-Q" if "-Q" in argv else "--queues"
    return set(argv[argv.index(flag) + 1].split(","))


def production_workers() -> dict[str, set[str]]:
    units = deploy.read_units()
    return {
        name: queues_of(deploy.unit_command(units[name].exec_start, state_dir=Path("/x"), hostname="web1"))
        for name in deploy.WORKER_UNITS
    }


def test_clocks_and_pairing_never_share_the_computer_s_queue():
    computer = queue_of("games.tasks.computer_move")
    assert computer == settings.COMPUTER_QUEUE
    for name in CLOCK_TASKS + PAIRING_TASKS:
        assert queue_of(name) == settings.LIVE_QUEUE != computer, name


def test_the_production_units_consume_every_routed_queue_and_live_alone():
    workers = production_workers()
    consumed = set().union(*workers.values())
    assert routed_queues() <= consumed, routed_queues() - consumed
    assert workers["fiveboards-worker-live"] == {settings.LIVE_QUEUE}
    assert workers["fiveboards-worker-computer"] == {settings.COMPUTER_QUEUE}
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
    assert sum("--beat" in argv for _name, argv in workers) == 1
    hostnames = [argv[argv.index("--hostname") + 1] for _name, argv in workers]
    assert len(set(hostnames)) == len(hostnames)


def test_the_tests_worker_consumes_every_routed_queue():
    assert routed_queues() <= set(ALL_QUEUES) == queues_of(celery_worker_command())
