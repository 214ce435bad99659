"""A correspondence deadline is written one way, in the reader's language, with a 24-hour time.

Before, the home page's "Your move" list wrote "2 days, 4 hours" in English in every
language, Hindi's time lost its am/pm ("7:26 बजे"), and the date format differed from
the game page's and from one language to another.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import translation

from accounts.identity import Identity
from games import services
from games.deadline_text import deadline_text, format_when
from games.models import Game

DEADLINE = datetime(2026, 12, 6, 19, 27, tzinfo=UTC)
NOW = DEADLINE - timedelta(days=2, hours=5)
EXPECTED = {
    "en": "move by 6 Dec 2026, 19:27 UTC (2 days left)",
    "hi": "6 दिस॰ 2026, 19:27 UTC तक चाल चलनी है (2 दिन बचे)",
    "bn": "6 ডিসে 2026, 19:27 UTC-এর মধ্যে চাল দিতে হবে (2 দিন বাকি)",
    "el": "κίνηση έως 6 Δεκ 2026, 19:27 UTC (απομένουν 2 ημέρες)",
}


@pytest.mark.parametrize("lang", ["en", "hi", "bn", "el"])
def test_the_deadline_is_worded_in_four_languages(lang):
    with translation.override(lang):
        assert deadline_text(DEADLINE, now=NOW) == EXPECTED[lang]


def test_the_last_day_counts_hours_and_an_afternoon_keeps_its_24_hour_time():
    with translation.override("hi"):
        assert deadline_text(DEADLINE, now=DEADLINE - timedelta(hours=5, minutes=59)) == (
            "6 दिस॰ 2026, 19:27 UTC तक चाल चलनी है (5 घंटे बचे)"
        )
        assert format_when(DEADLINE - timedelta(hours=12)) == "6 दिस॰ 2026, 07:27 UTC", (
            "morning and evening differ"
        )


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["hi", "bn", "el"])
def test_the_home_page_s_your_move_list_writes_the_deadline_in_the_player_s_language(lang, user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=3
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    client = Client()
    client.force_login(alice)
    client.cookies["django_language"] = lang
    page = client.get("/").content.decode()
    game.refresh_from_db()
    with translation.override(lang):
        expected = deadline_text(game.deadline(), now=datetime.now(UTC))
        left = translation.ngettext("%(count)s day left", "%(count)s days left", 2) % {"count": 2}
    assert expected in page
    assert left in page, "the time left, translated"
    assert "days" not in page.split('id="your-move"')[1].split("</ul>")[0], "no English left in the list"
