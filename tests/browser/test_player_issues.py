"""What a player trips over (issue #13): each test drives the page the way a person does."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Game
from tests.browser.pages import READY, play_move, snapshot, start_game_from_home, wait_my_turn_or_over

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_new_game_against_the_computer_asks_and_resigns_the_running_game(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "reversi", opponent="computer", minutes="5", side="0")
    play_move(page, "reversi", "d3")
    state = wait_my_turn_or_over(page)
    assert state["ply"] == 2
    old_id, old_url = state["id"], page.url

    page.click('[data-action="new_game"]')
    dialog = page.locator("#confirm-new_game")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("starting a new one resigns it")
    dialog.locator("button", has_text="Keep playing").click()
    expect(dialog).to_be_hidden()
    assert Game.objects.get(pk=old_id).status == Game.Status.ACTIVE  # "keep playing" changes nothing

    page.click('[data-action="new_game"]')
    dialog.locator('button[value="confirm"]').click()
    page.wait_for_url(lambda url: url != old_url and "/play/" in url)
    page.wait_for_function(READY)
    old = Game.objects.get(pk=old_id)
    assert (old.status, old.end_reason, old.winner) == (Game.Status.FINISHED, "resign", 1)
    page.goto("/")
    expect(page.locator("#my-games")).not_to_contain_text(f"/play/{old_id}/")
    assert page.locator(f'#my-games a[href="/play/{old_id}/"]').count() == 0


def test_new_game_before_both_sides_moved_aborts_the_old_game(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "ataxx", opponent="computer", minutes="5", side="0")
    old_id, old_url = snapshot(page)["id"], page.url
    page.click('[data-action="new_game"]')
    dialog = page.locator("#confirm-new_game")
    expect(dialog).to_contain_text("calls it off, with no result")
    dialog.locator('button[value="confirm"]').click()
    page.wait_for_url(lambda url: url != old_url and "/play/" in url)
    old = Game.objects.get(pk=old_id)
    assert (old.status, old.end_reason, old.winner) == (Game.Status.ABORTED, "aborted", None)
