"""A real SMTP server for the tests that read the site's mail (aiosmtpd in a thread).

The ``inbox`` fixture (tests/conftest.py) starts one and points the site's
e-mail settings at it, so a mail goes through Django's SMTP backend as in
production and arrives parsed.
"""

from __future__ import annotations

import email
import logging
import queue
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

from aiosmtpd.controller import Controller

from config.settings import email_settings
from launch.processes import free_port


class Inbox:
    """aiosmtpd's handler: every mail the site hands over, parsed."""

    def __init__(self) -> None:
        self.mails: queue.Queue[EmailMessage] = queue.Queue()

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd's name)
        message = email.message_from_bytes(envelope.original_content, policy=default_policy)
        self.mails.put(message)  # type: ignore[arg-type]
        return "250 OK"

    def take(self) -> list[EmailMessage]:
        taken = []
        while not self.mails.empty():
            taken.append(self.mails.get_nowait())
        return taken

    def only(self, to: str) -> EmailMessage:
        mails = self.take()
        assert len(mails) == 1, [m["Subject"] for m in mails]
        assert mails[0]["To"] == to
        return mails[0]


@contextmanager
def smtp_server(handler: Any, settings: Any) -> Iterator[int]:
    """Serve ``handler`` on a free port and send the site's mail there; yields the port."""
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every SMTP line
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    for name, value in email_settings(f"smtp://127.0.0.1:{port}", debug=False).items():
        setattr(settings, name, value)
    settings.DEFAULT_FROM_EMAIL = "Five Boards <noreply@fiveboards.example>"
    try:
        yield port
    finally:
        controller.stop()
