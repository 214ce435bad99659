from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from games.engines import ENGINES, IllegalMove, InvalidPosition, get, perft


class Command(BaseCommand):
    help = "Count the leaves of a game's move tree (perft). The last line is the count."

    def add_arguments(self, parser):
        parser.add_argument("slug", choices=sorted(ENGINES))
        parser.add_argument("depth", type=int)
        parser.add_argument("--fen", help="start from this position text instead of the initial position")
        parser.add_argument("--moves", default="", help='moves to play first, e.g. "d3 c5"')

    def handle(self, slug, depth, fen=None, moves="", **options):
        if depth < 0:
            raise CommandError("depth must be 0 or more")
        engine = get(slug)
        try:
            state = engine.from_fen(fen) if fen else engine.initial()
            for move in moves.split():
                state = engine.play(state, move)
        except (IllegalMove, InvalidPosition) as exc:
            raise CommandError(str(exc)) from exc
        started = time.perf_counter()
        count = perft(engine, state, depth)
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"{slug} depth {depth}: {seconds:.3f} s, {count / seconds if seconds else 0:,.0f} nodes/s"
        )
        self.stdout.write(str(count))
