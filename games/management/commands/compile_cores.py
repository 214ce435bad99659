from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Compile the computer players' numba cores into NUMBA_CACHE_DIR, so that no worker compiles them. "
        "Run it once per release directory, as the user the workers run as (docs/deploy.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "games",
            nargs="*",
            metavar="GAME",
            help="only these games (default: every game with a compiled core)",
        )

    def handle(self, *args: Any, games: list[str], **options: Any) -> None:
        from games.ai import compiled_games
        from games.ai.precompile import CacheNotWritable, cache_dir, compile_cores

        with_core = compiled_games()
        unknown = [slug for slug in games if slug not in with_core]
        if unknown:
            raise CommandError(
                f"no compiled core for {', '.join(unknown)}; choose from {', '.join(with_core)}"
            )
        self.stdout.write(f"numba cache: {cache_dir()}")
        started = time.perf_counter()
        try:
            taken = compile_cores(
                tuple(games) or with_core,
                report=lambda slug, seconds: self.stdout.write(f"{slug:<13} {seconds:6.2f} s"),
            )
        except CacheNotWritable as error:
            raise CommandError(str(error)) from error
        if not taken:
            self.stdout.write(
                "no compiled cores here (numba is not installed or GAMES_AI_PURE_PYTHON is set)"
            )
            return
        self.stdout.write(f"{'all':<13} {time.perf_counter() - started:6.2f} s")
