"""The new-game form's time control (issue #37, item 14): ten presets, "untimed" and a compact custom pair
instead of two 61-entry selects, as a person uses it at 1280x800 and 360x740, with and without scripts."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import READY, snapshot
from tests.browser.test_readable_boards import axe_violations

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]

SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture
def alice_cookie(user_factory, login_session) -> str:
    return login_session(user_factory("alice"))


def home(new_context, cookie: str, size: str = "desktop", **options):
    page = new_context(viewport=SIZES[size], session_cookie=cookie, **options).new_page()
    page.goto("/")
    page.select_option("#id_opponent", "computer")
    page.select_option("#id_side", "0")
    return page


def start(page) -> dict:
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    return snapshot(page)["clock"]


@pytest.mark.parametrize("size", SIZES)
def test_a_dozen_choices_at_most_that_fit_the_card_and_the_arrows_move_between(
    new_context, alice_cookie, size
):
    page = home(new_context, alice_cookie, size)
    group = page.get_by_role("group", name="Time control")
    choices = group.get_by_role("radio")
    visible = [i for i in range(choices.count()) if choices.nth(i).is_visible()]
    assert 10 <= len(visible) <= 12
    expect(
        page.locator("#new-game-form select[name=minutes], #new-game-form select[name=increment]")
    ).to_have_count(0)
    # Inside the card, nothing cut, and no page that scrolls sideways.
    card, field = page.locator(".card:has(#new-game-form)").bounding_box(), group.bounding_box()
    assert card["x"] <= field["x"] and field["x"] + field["width"] <= card["x"] + card["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    cut = group.locator("label, input").evaluate_all(
        "els => els.filter(e => e.getBoundingClientRect().width && e.scrollWidth > e.clientWidth + 1).map(e => e.outerHTML)"
    )
    assert cut == []
    # The keyboard: the arrows go from preset to preset, and the numbers and the readout follow.
    group.get_by_role("radio", name="5+0").focus()
    page.keyboard.press("ArrowRight")
    expect(group.get_by_role("radio", name="5+3")).to_be_checked()
    expect(page.locator(".clock-readout")).to_have_text("5+3")
    assert (page.input_value("#id_minutes"), page.input_value("#id_increment")) == ("5", "3")
    # axe-core finds nothing serious in the group (names, roles, contrast of the chosen button).
    found = [v for v in axe_violations(page) if any(w in v for w in ("clock", "minutes", "increment"))]
    assert found == []
    screenshot(page, f"time-control-{size}")


def test_one_click_on_5_plus_3_starts_a_5_plus_3_game(new_context, alice_cookie):
    page = home(new_context, alice_cookie, "phone")
    # One click on the button (the radio button covers its face, so a click anywhere on it picks it).
    page.get_by_role("group", name="Time control").get_by_role("radio", name="5+3").click()
    clock = start(page)
    assert (clock["initial_ms"], clock["increment_ms"]) == (300_000, 3_000)
    expect(page.locator(".play-title .time-control")).to_have_text("5+3")


def test_a_custom_7_plus_2_with_and_without_scripts(new_context, alice_cookie):
    page = home(new_context, alice_cookie)
    page.fill("#id_minutes", "7")
    page.fill("#id_increment", "2")
    expect(page.get_by_role("radio", name="Custom")).to_be_checked()  # typing a number chooses "Custom"
    expect(page.locator(".clock-readout")).to_have_text("7+2")
    clock = start(page)
    assert (clock["initial_ms"], clock["increment_ms"]) == (420_000, 2_000)

    # Without scripts: the radio buttons and the two numbers are a plain form.
    bare = new_context(viewport=PHONE, session_cookie=alice_cookie, java_script_enabled=False).new_page()
    bare.goto("/")
    bare.select_option("#id_opponent", "link")
    bare.get_by_role("radio", name="Custom").check()
    bare.fill("#id_minutes", "7")
    bare.fill("#id_increment", "2")
    bare.click("#new-game-form button[type=submit]")
    bare.wait_for_url("**/play/*/")
    game = Game.objects.get(pk=int(bare.url.rstrip("/").rsplit("/", 1)[1]))
    assert (game.time_control, game.increment) == (420, 2)


@pytest.mark.parametrize("size", SIZES)
def test_an_out_of_range_custom_value_is_said_at_the_field(new_context, alice_cookie, size):
    page = home(new_context, alice_cookie, size)
    minutes = page.locator("#id_minutes")
    minutes.fill("61")
    message = "Choose from 1 to 60 minutes per player."
    live = page.locator(".clock-live-error")
    expect(live).to_have_text(message)  # at once, before the form is sent
    expect(minutes).to_have_attribute("aria-invalid", "true")
    # Sent anyway: the server refuses it, starts nothing, and says the same under the numbers.
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/new/")
    error = page.locator("#clock-errors .errorlist", has_text=message)
    expect(error).to_have_count(1)  # said once: the server's message, not the live one as well
    expect(error).to_be_visible()
    expect(page.locator("#id_minutes")).to_have_value("61")
    expect(page.locator("#id_minutes")).to_have_attribute("aria-invalid", "true")
    field, said = page.locator("#id_minutes").bounding_box(), error.bounding_box()
    assert 0 <= said["y"] - (field["y"] + field["height"]) < 40
    assert not Game.objects.exists()
    screenshot(page, f"time-control-error-{size}")
    # Put right, the error goes.
    page.locator("#id_minutes").fill("7")
    expect(error).to_be_hidden()
    expect(page.locator("#id_minutes")).not_to_have_attribute("aria-invalid", "true")
