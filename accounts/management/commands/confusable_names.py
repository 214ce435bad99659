from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import translation

from accounts.services.names import lookalike_groups, refused_names


class Command(BaseCommand):
    help = (
        "List players whose names look alike, and names today's rules refuse. "
        "Renames nobody: settle each case by hand (the admin's user page)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        translation.activate("en")  # an operator's report, whatever the server's locale
        groups = lookalike_groups()
        refused = refused_names()
        for members in groups:
            names = ", ".join(
                f"{user.username!r} (id {user.pk}, joined {user.date_joined:%Y-%m-%d}"
                + (")" if user.username_skeleton else ", no skeleton stored)")
                for user in members
            )
            self.stdout.write(f"look alike: {names}")
        for entry in refused:
            self.stdout.write(f"refused now: {entry.user.username!r} (id {entry.user.pk}): {entry.reason}")
        if not groups and not refused:
            self.stdout.write("No look-alike or refused names.")
