from __future__ import annotations

from django.core.management.base import BaseCommand

from games.ai.arena import play_match
from games.engines import ENGINES, get

LEVEL_NAMES = ["random", "easy", "medium", "hard"]


class Command(BaseCommand):
    help = "Play computer levels against each other, colours alternating, and print the score."

    def add_arguments(self, parser):
        parser.add_argument("slug", choices=sorted(ENGINES))
        parser.add_argument("level_a", choices=LEVEL_NAMES)
        parser.add_argument("level_b", choices=LEVEL_NAMES)
        parser.add_argument("--games", type=int, default=10)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, slug, level_a, level_b, games, seed, **options):
        from games.ai import warm_up

        warm_up()  # choose_move searches compiled only once a game's core is loaded (compiles it if need be)
        result = play_match(get(slug), level_a, level_b, games=games, seed=seed)
        self.stdout.write(
            f"{slug}: {level_a} v {level_b}, {result.games} games: "
            f"{result.wins} wins, {result.draws} draws, {result.losses} losses for {level_a} "
            f"({100 * result.score:.0f}%)"
        )
        for level in dict.fromkeys((level_a, level_b)):
            average, worst = result.timing(level)
            self.stdout.write(
                f"  {level}: {average * 1000:.0f} ms per move on average, {worst * 1000:.0f} ms at most"
            )
