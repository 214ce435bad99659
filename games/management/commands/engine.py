from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from games.ai import LEVELS
from games.ai.ugi import EngineSession, serve
from games.engines import ENGINES


class Command(BaseCommand):
    help = (
        "Run the computer player of a game as a UGI engine on stdin/stdout (UAI too for ataxx); "
        "docs/engine-protocol.md. Needs no database: `python -m games.ai.ugi SLUG` is the same engine."
    )
    # A tool starts this once per game: skip the system checks, and so any database access.
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("slug", choices=sorted(ENGINES))
        parser.add_argument(
            "--level", choices=LEVELS, default="hard", help="the starting Level (default hard)"
        )

    def handle(self, slug, level, **options):
        # The real streams, not self.stdout: the protocol is line by line, flushed after each answer.
        serve(EngineSession(slug, level=level), sys.stdin, sys.stdout)
