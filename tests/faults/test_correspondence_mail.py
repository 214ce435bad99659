"""Faults, for real: kill -9 the worker while it hands a correspondence mail to the SMTP server.

The mail server (aiosmtpd, in this process) holds the first delivery until the
worker is dead and then refuses it; the restarted worker's sweep must send the
mail again, and only once, however many sweeps follow.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from aiosmtpd.controller import Controller
from allauth.account.models import EmailAddress

from accounts.models import Preferences
from games import services as play
from games.models import Game, TurnMail
from launch.processes import free_port
from tests.faults.test_kill import BACK_WITHIN, runs_finished, within
from tests.mail import Inbox
from tests.people import me
from tests.processes import QUEUES_WITHOUT_SEARCH

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


class HoldingFirst(Inbox):
    """Holds the first mail until released, then refuses it (the client is gone by then); takes the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.first_arrived = threading.Event()
        self.release = threading.Event()
        self.held = False

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd's name)
        if not self.held:
            self.held = True
            self.first_arrived.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            return "451 the sender went away"
        return await super().handle_DATA(server, session, envelope)


def test_a_mail_whose_worker_was_killed_mid_delivery_is_sent_once_by_the_next_worker(
    services, worker_broker, database_url_for_processes, user_factory
):
    handler = HoldingFirst()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    mail_env = {
        "EMAIL_URL": f"smtp://127.0.0.1:{port}",
        "DEFAULT_FROM_EMAIL": "Five Boards <noreply@fiveboards.example>",
        "GAMES_MAIL_SWEEP_SECONDS": "1",
    }
    try:
        alice, bob = user_factory("alice"), user_factory("bob")
        EmailAddress.objects.create(user=alice, email="alice@example.org", verified=True, primary=True)
        Preferences.objects.create(user=alice, correspondence_mail=True)
        created = play.create_human_game(
            identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=3
        )
        play.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)

        services.start_worker(database_url_for_processes, beat=True, queues=QUEUES_WITHOUT_SEARCH, **mail_env)
        assert handler.first_arrived.wait(30), (
            "the worker's sweep never reached the mail server\n" + services.tail()
        )
        services.kill_worker()  # mid-delivery: the SMTP server has not said "250 OK" yet
        handler.release.set()
        assert not TurnMail.objects.exists(), "a mail never handed over is not recorded as sent"

        services.start_worker(database_url_for_processes, beat=True, queues=QUEUES_WITHOUT_SEARCH, **mail_env)
        services.wait_for_worker()
        within(BACK_WITHIN, lambda: not handler.mails.empty(), "the mail", services)
        # Three more sweeps (one a second), none of which may send it again.
        swept = len(runs_finished(services, "games.correspondence_mails"))
        within(
            30,  # generous: on a busy machine a sweep may expire unrun (its expiry is its period)
            lambda: len(runs_finished(services, "games.correspondence_mails")) >= swept + 3,
            "three more sweeps",
            services,
        )
        mails = handler.take()
        assert [m["To"] for m in mails] == ["alice@example.org"]
        assert mails[0]["Subject"] == "Your move: Reversi against bob"
        assert TurnMail.objects.count() == 1
    finally:
        services.stop_worker()  # later tests get a plain worker again
        controller.stop()
