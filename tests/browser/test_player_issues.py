"""What a player trips over (issue #13): each test drives the page the way a person does."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import (
    READY,
    in_thread,
    open_game,
    play_move,
    snapshot,
    start_game_from_home,
    wait_my_turn_or_over,
)

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.page_only
def test_new_game_against_the_computer_asks_and_resigns_the_running_game(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="5+0", side="0")
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


@pytest.mark.page_only
def test_new_game_before_both_sides_moved_aborts_the_old_game(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "ataxx", opponent="computer", clock="5+0", side="0")
    old_id, old_url = snapshot(page)["id"], page.url
    page.click('[data-action="new_game"]')
    dialog = page.locator("#confirm-new_game")
    expect(dialog).to_contain_text("calls it off, with no result")
    dialog.locator('button[value="confirm"]').click()
    page.wait_for_url(lambda url: url != old_url and "/play/" in url)
    old = Game.objects.get(pk=old_id)
    assert (old.status, old.end_reason, old.winner) == (Game.Status.ABORTED, "aborted", None)


def _human_game(alice, bob, game: str, *, minutes: int = 5) -> Game:
    return in_thread(_create_human_game, alice=alice, bob=bob, game=game, minutes=minutes)


def _create_human_game(alice, bob, game: str, minutes: int) -> Game:
    created = services.create_human_game(
        identity=Identity(user=alice, guest=None),
        game=game,
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=minutes,
    )
    return services.join_game(
        game_id=created.pk, identity=Identity(user=bob, guest=None), token=created.invite_token
    )


@pytest.mark.page_only
def test_a_quantum_collapse_is_chosen_below_the_board_or_by_tapping_the_square(
    new_context, user_factory, login_session
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = _human_game(alice, bob, "quantum_ttt")
    in_thread(
        services.play_move, game_id=game.pk, identity=Identity(user=alice, guest=None), token="7-9", ply=0
    )
    in_thread(
        services.play_move, game_id=game.pk, identity=Identity(user=bob, guest=None), token="7-9", ply=1
    )

    page = new_context(viewport=PHONE, session_cookie=login_session(alice)).new_page()
    open_game(page, f"/play/{game.pk}/")
    choice = page.locator(".collapse-choice")
    expect(choice).to_be_visible()
    expect(choice).to_contain_text("Tap square 7 or 9")
    board = page.locator(".board-svg").bounding_box()
    for button in page.locator(".choice-button").all():
        box = button.bounding_box()
        assert box["y"] >= board["y"] + board["height"], "the buttons must not cover the board"
    # The two halves of each spooky pair are linked by a line (the pending cycle's stand out).
    expect(page.locator(".spooky-link")).to_have_count(2)
    expect(page.locator(".spooky-link.in-cycle")).to_have_count(2)
    # On a phone the spooky marks are big enough to read.
    mark = page.locator(".spooky").first.bounding_box()
    assert mark["height"] >= 16, mark
    screenshot(page, "quantum_ttt-collapse-phone")

    page.click('[data-cell="9"]')  # the square itself settles the mark there
    page.wait_for_function("() => window.__game.snapshot.ply === 3")
    assert snapshot(page)["last_move"] == "@9"
    expect(choice).to_be_hidden()


@pytest.mark.page_only
def test_the_profile_lists_the_players_recent_games(new_context, user_factory, login_session):
    alice, bob = user_factory("alice"), user_factory("bob")
    won = _human_game(alice, bob, "ataxx")
    in_thread(services.resign, game_id=won.pk, identity=Identity(user=bob, guest=None))
    lost = in_thread(
        services.create_computer_game,
        identity=Identity(user=alice, guest=None),
        game="reversi",
        level="easy",
        side=0,
        minutes=0,
    )
    in_thread(services.resign, game_id=lost.pk, identity=Identity(user=alice, guest=None))

    page = new_context(session_cookie=login_session(bob)).new_page()
    page.goto("/players/alice/")
    games = page.locator(".profile-games .recent-game")
    expect(games).to_have_count(2)
    expect(page.locator(".profile-games")).not_to_contain_text("No games yet.")
    expect(games.nth(0)).to_contain_text("Loss")
    expect(games.nth(0)).to_contain_text("Reversi – Computer (Easy)")
    expect(games.nth(1)).to_contain_text("Win")
    expect(games.nth(1)).to_contain_text("Ataxx – bob")
    screenshot(page, "profile-recent-games-desktop")
    games.nth(1).locator("a", has_text="bob").click()
    page.wait_for_url("**/players/bob/")
    expect(page.locator(".profile-games .recent-game.result-loss")).to_contain_text("Ataxx – alice")
    page.locator(".profile-games .recent-date").first.click()
    page.wait_for_url(f"**/play/{won.pk}/replay/")


def _invite(alice, bob, game: str) -> Game:
    return in_thread(
        services.create_human_game,
        identity=Identity(user=alice, guest=None),
        game=game,
        kind=Game.Kind.DIRECT,
        invited_user=bob,
    )


def test_an_invitation_pops_up_inside_another_game_and_can_be_accepted(
    new_context, user_factory, login_session, redis_layer
):
    alice, bob = user_factory("alice"), user_factory("bob")
    page = new_context(viewport=PHONE, session_cookie=login_session(bob)).new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    with page.expect_websocket(lambda ws: ws.url.endswith("/ws/notify/")):
        page.reload()
    page.wait_for_function(READY)
    page.wait_for_timeout(500)  # the notification socket's handshake
    invitation = _invite(alice, bob, "four_tac_toe")
    toast = page.locator(f'.toast[data-invitation="{invitation.pk}"]')
    expect(toast).to_contain_text("alice invites you to play Four Tac Toe")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "invitation-toast-phone")
    toast.locator("button", has_text="Accept").click()
    page.wait_for_url(f"**/play/{invitation.pk}/")
    page.wait_for_function(READY)
    assert snapshot(page)["status"] == "active" and snapshot(page)["game"] == "four_tac_toe"


@pytest.mark.page_only
def test_a_waiting_invitation_shows_on_the_history_page_and_can_be_declined_there(
    new_context, user_factory, login_session
):
    alice, bob = user_factory("alice"), user_factory("bob")
    invitation = _invite(alice, bob, "ataxx")  # sent while bob had no page open
    page = new_context(session_cookie=login_session(bob)).new_page()
    page.goto("/history/")
    toast = page.locator(f'.toast[data-invitation="{invitation.pk}"]')
    expect(toast).to_contain_text("alice invites you to play Ataxx")
    screenshot(page, "invitation-toast-desktop")
    toast.locator("button", has_text="Decline").click()
    expect(toast).to_have_count(0)
    assert page.url.endswith("/history/")  # declining keeps the player where they were
    assert Game.objects.get(pk=invitation.pk).end_reason == "declined"
    page.goto("/players/bob/")
    page.wait_for_timeout(500)
    expect(page.locator(".toast")).to_have_count(0)


def test_when_the_opponent_joins_the_player_to_move_is_told_the_game_started(new_context):
    alice, bob = new_context().new_page(), new_context().new_page()
    start_game_from_home(alice, "reversi", opponent="link", clock="5+0", side="0")
    expect(alice.locator("#status")).to_have_text("Waiting for an opponent to join.")
    bob.goto(alice.input_value("#invite-url"))
    bob.click(".join button[type=submit]")
    bob.wait_for_url("**/play/*/")
    bob.wait_for_function(READY)
    # Bob's socket is open: his presence notice has reached Alice's page.
    alice.wait_for_function(
        "() => window.__game.online[1] === true && window.__game.snapshot.status === 'active'"
    )
    alice.wait_for_timeout(300)
    expect(alice.locator("#status")).to_have_text("The game has started. Your move.")
    expect(bob.locator("#status")).to_contain_text("to move.")


@pytest.mark.page_only
@pytest.mark.parametrize(
    ("lang", "legend", "untimed", "unit", "guest"),
    [
        ("el", "Χρόνος παιχνιδιού", "Χωρίς χρόνο", "λεπ.", "Επισκέπτης"),
        ("hi", "समय नियंत्रण", "बिना घड़ी", "मिनट", "मेहमान"),
        ("bn", "সময়-নিয়ন্ত্রণ", "সময়হীন", "মিনিট", "অতিথি"),
    ],
)
def test_the_time_control_and_guest_names_are_translated(new_context, lang, legend, untimed, unit, guest):
    page = new_context().new_page()
    page.goto("/")
    with page.expect_navigation():
        page.select_option("#lang-select", lang)
    group = page.locator(".clock-field")
    expect(group.locator("legend")).to_contain_text(legend)
    expect(group.locator('[data-clock="untimed"]')).to_have_text(untimed)
    expect(group.locator(".clock-unit").first).to_have_text(unit)
    expect(group).not_to_contain_text("minutes")
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    # The guest's own name, in the header and on the board (drawn by the page's script).
    expect(page.locator(".guest-name")).to_have_text(f"{guest} {snapshot(page)['players'][0]['name'][-4:]}")
    expect(page.locator('.player[data-side="0"] .name')).to_have_text(
        page.locator(".guest-name").inner_text()
    )


def test_after_a_declined_draw_the_offer_button_waits_and_says_how_long(
    new_context, user_factory, login_session
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = _human_game(alice, bob, "reversi")
    pages = []
    for user in (alice, bob):
        page = new_context(session_cookie=login_session(user)).new_page()
        open_game(page, f"/play/{game.pk}/")
        pages.append(page)
    alice_page, bob_page = pages
    alice_page.click('[data-action="offer_draw"]')
    bob_page.click('[data-action="decline_draw"]')
    offer = alice_page.locator('[data-action="offer_draw"]')
    expect(offer).to_be_disabled()
    expect(alice_page.locator("#draw-wait")).to_have_text(
        "Your draw offer was declined: you can offer again after 10 more moves."
    )
    expect(bob_page.locator('[data-action="offer_draw"]')).to_be_enabled()  # Bob's own offers are unaffected
    assert snapshot(alice_page)["draw_wait"] == [10, 0]
    play_move(alice_page, "reversi", "d3")
    expect(alice_page.locator("#draw-wait")).to_contain_text("after 9 more moves")
    screenshot(alice_page, "reversi-draw-wait-desktop")


@pytest.mark.page_only
def test_a_refused_invitation_shows_the_real_home_page_with_the_reason(
    new_context, user_factory, login_session
):
    from accounts.services.blocks import block

    alice, bob = user_factory("alice"), user_factory("bob")
    block(by=bob, user=alice)
    page = new_context(viewport=PHONE, session_cookie=login_session(alice)).new_page()
    page.goto("/")
    page.click('.game-card[data-game="ataxx"]')
    page.select_option("#id_opponent", "direct")
    page.fill("#id_invitee", "bob")
    page.click("#new-game-form button[type=submit]")
    expect(page.locator(".errorlist")).to_contain_text("This player is not accepting your invitations.")
    # The home page itself, as styled as ever, with the player's choices kept.
    expect(page.locator(".home #new-game-form")).to_be_visible()
    expect(page.locator("#my-games-title")).to_be_visible()
    expect(page.locator('.game-card[data-game="ataxx"] input')).to_be_checked()
    expect(page.locator("#id_invitee")).to_have_value("bob")
    expect(page.locator('[data-field="level"]')).to_be_hidden()
    start = page.locator("#new-game-form button[type=submit]")
    assert start.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(47, 111, 79)"
    for select in page.locator("#new-game-form select").all():
        assert select.evaluate("s => s.getBoundingClientRect().right") <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "home-refused-invitation-phone")
    assert not Game.objects.exists()


@pytest.mark.page_only
def test_a_finished_ultimate_board_highlights_nothing_and_a_click_hides_the_keyboard_cursor(new_context):
    missing = []
    context = new_context()
    context.on("response", lambda response: missing.append(response.url) if response.status == 404 else None)
    page = context.new_page()
    start_game_from_home(page, "ultimate_ttt", opponent="computer", clock="untimed", side="0")
    cursor = page.locator(".board-svg .cursor")
    page.focus(".board-svg")
    page.keyboard.press("ArrowUp")
    expect(cursor).to_be_visible()  # the keyboard's cursor
    page.click('[data-cell="e5"]')
    expect(cursor).to_be_hidden()  # ...is not the mouse's
    # The computer's reply, however long a loaded machine makes it take.
    page.wait_for_function("() => window.__game.snapshot.ply >= 2", timeout=30_000)
    state = wait_my_turn_or_over(page)
    assert page.locator(".small-board.open").count() >= 1
    page.click('[data-action="resign"]')
    page.click('#confirm-resign button[value="confirm"]')
    expect(page.locator("#result")).to_be_visible()
    assert snapshot(page)["position"]["open_boards"], "the engine still has an open board"
    expect(page.locator(".small-board.open")).to_have_count(0)
    assert state["ply"] >= 2
    # Every page has an icon: no request of the site ends in a 404.
    page.goto("/history/")
    assert page.request.get("/favicon.ico").ok
    assert page.evaluate("document.querySelector('link[rel=icon]').href").endswith(".svg")
    assert missing == []


@pytest.mark.page_only
def test_untimed_computer_games_are_listed_apart_and_can_be_abandoned(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "ataxx", opponent="computer", clock="untimed", side="0")
    untimed_id = snapshot(page)["id"]
    start_game_from_home(page, "reversi", opponent="computer", clock="5+0", side="0")
    timed_id = snapshot(page)["id"]
    page.goto("/")
    untimed = page.locator(f'#untimed-games li[data-game-id="{untimed_id}"]')
    expect(untimed).to_contain_text("Ataxx")
    expect(page.locator(f'#my-games a[href="/play/{timed_id}/"]')).to_be_visible()
    expect(page.locator(f'#my-games a[href="/play/{untimed_id}/"]')).to_have_count(0)
    assert page.locator(f'#untimed-games li[data-game-id="{timed_id}"]').count() == 0
    screenshot(page, "home-untimed-games-desktop")

    page.once("dialog", lambda dialog: dialog.dismiss())  # "Abandon this game?" — no
    untimed.locator("button", has_text="Abandon").click()
    page.wait_for_timeout(300)
    assert Game.objects.get(pk=untimed_id).status == Game.Status.ACTIVE
    page.once("dialog", lambda dialog: dialog.accept())
    untimed.locator("button", has_text="Abandon").click()
    expect(page.locator(".flash")).to_contain_text("The game was abandoned.")
    expect(page.locator("#untimed-games-title")).to_have_count(0)
    game = Game.objects.get(pk=untimed_id)
    assert (game.status, game.end_reason, game.rated) == (Game.Status.ABORTED, "abandoned", False)
    page.goto(f"/play/{untimed_id}/")
    expect(page.locator("#result")).to_have_text("No result. The game was abandoned.")


@pytest.mark.page_only
@pytest.mark.parametrize("opponent", ["link", "lobby"])
def test_ultimate_ttt_defaults_to_playing_first_as_x(new_context, user_factory, login_session, opponent):
    page = new_context(session_cookie=login_session(user_factory("alice"))).new_page()
    page.goto("/")
    expect(page.locator("#id_side")).to_have_value("random")
    page.click('.game-card[data-game="ultimate_ttt"]')
    expect(page.locator("#id_side")).to_have_value(
        "0"
    )  # the seed: whoever starts the game is X and moves first
    page.click('.game-card[data-game="reversi"]')
    expect(page.locator("#id_side")).to_have_value("random")
    page.click('.game-card[data-game="ultimate_ttt"]')
    page.select_option("#id_opponent", opponent)
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    assert page.evaluate("window.__game.you") == 0
    assert Game.objects.get().user0.username == "alice"


@pytest.mark.page_only
def test_a_side_the_player_chose_is_kept_when_switching_games(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.click('.game-card[data-game="ultimate_ttt"]')
    page.select_option("#id_side", "1")
    page.click('.game-card[data-game="ataxx"]')
    page.click('.game-card[data-game="ultimate_ttt"]')
    expect(page.locator("#id_side")).to_have_value("1")


@pytest.mark.page_only
@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "or when neither player can move"),
        ("hi", "या जब कोई भी खिलाड़ी चाल नहीं चल सकता"),
        ("bn", "কোনো খেলোয়াড়ই চাল দিতে না পারলে"),
        ("el", "ή όταν κανένας παίκτης δεν μπορεί να κινηθεί"),
    ],
)
def test_the_ataxx_rules_say_the_game_ends_when_neither_side_can_move(new_context, lang, words):
    page = new_context(viewport=PHONE).new_page()
    page.goto("/rules/ataxx/")
    if lang != "en":
        with page.expect_navigation():
            page.select_option("#lang-select", lang)
    expect(page.locator("#ataxx-end")).to_contain_text(words)
    expect(page.locator(".rules")).not_to_contain_text("equal numbers are a draw")


@pytest.mark.page_only
def test_rankings_and_profiles_show_points_beside_the_elo_rating(new_context, user_factory):
    from django.utils import timezone

    from ratings.models import Rating

    users = {name: user_factory(name) for name in ("alice", "bob", "carol")}
    for name, value in (("alice", 1600), ("bob", 1550), ("carol", 1500)):
        Rating.objects.create(user=users[name], game="reversi", value=value, peak=value, rated_games=2)
    for winner, loser in (("carol", "bob"), ("carol", "alice"), ("bob", "alice")):
        Game.objects.create(
            game="reversi",
            kind=Game.Kind.DIRECT,
            status=Game.Status.FINISHED,
            winner=0,
            user0=users[winner],
            user1=users[loser],
            end_reason="resign",
            ply=20,
            started_at=timezone.now(),
            finished_at=timezone.now(),
        )
    Game.objects.create(
        game="reversi",
        kind=Game.Kind.COMPUTER,
        status=Game.Status.FINISHED,
        winner=0,
        user0=users["alice"],
        ai1="hard",
        end_reason="count",
        ply=60,
        finished_at=timezone.now(),
    )

    page = new_context(viewport=PHONE).new_page()
    page.goto("/rankings/reversi/")
    names = page.locator("table.ranking .player a")
    expect(names).to_have_text(["alice", "bob", "carol"])  # by Elo rating
    expect(page.locator("table.ranking td.points")).to_have_text(
        ["0", "1", "2"]
    )  # a win over the computer: no point
    page.click('[data-sort="points"]')
    page.wait_for_url("**/rankings/reversi/?sort=points")
    expect(names).to_have_text(["carol", "bob", "alice"])
    expect(page.locator('[data-sort="points"]')).to_have_attribute("aria-current", "true")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "rankings-points-phone")
    page.goto("/players/carol/")
    expect(page.locator('.profile-rating[data-game="reversi"] .points')).to_have_text("2 points")
    expect(page.locator('.profile-rating[data-game="reversi"] .rating')).to_contain_text("1500")


@pytest.mark.page_only
@pytest.mark.parametrize(
    ("lang", "motion"),
    [
        ("en", "one cell up, one board right"),
        ("hi", None),
        ("bn", None),
        ("el", None),
    ],
)
def test_the_four_tac_toe_rules_teach_the_geometry_step_by_step(new_context, lang, motion):
    from django.utils import translation

    if motion is None:
        with translation.override(lang):
            motion = f"{translation.gettext('one cell up')}, {translation.gettext('one board right')}"
        assert "one" not in motion, f"the motions are translated into {lang}"
    page = new_context(viewport=DESKTOP).new_page()
    page.goto("/rules/four_tac_toe/")
    if lang != "en":
        with page.expect_navigation():
            page.select_option("#lang-select", lang)
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        if viewport != DESKTOP:
            page.set_viewport_size(viewport)
            page.reload()  # laid out from the start at this size, the answers folded again
        # A line, a square, a cube, a hypercube: each step with its picture and its lines.
        for step, count in (
            ("step-line", 1),
            ("step-square", 8),
            ("step-cube", 4),
            ("step-hypercube", 3),
            ("example-1", 4),
            ("example-2", 14),
        ):
            section = page.locator(f"#{step}")
            expect(section.locator("svg.diagram-svg")).to_be_visible()
            expect(section.locator(".path-stroke")).to_have_count(count)
        expect(page.locator("#example-1 .line-key li").nth(3)).to_contain_text(motion)
        expect(page.locator("#example-2 .line-key")).to_be_hidden()  # the answers stay folded...
        page.locator("#example-2 summary").click()
        expect(page.locator("#example-2 .line-key li")).to_have_count(14)  # ...until asked for
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        screenshot(page, f"rules-four_tac_toe-{lang}-{size}")


BOARDS = ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"]


@pytest.mark.page_only
def test_every_board_in_every_language_fits_both_sizes(new_context, user_factory, login_session):
    """Screenshots of each board after a few moves, 1280x800 and 360x740, in each language.

    The five games are played once, by a registered player (a guest may have only two under
    way), and each page is then loaded in each language at a phone's size and widened to a
    laptop's, as a window is (the pages follow a change of width themselves, which the axe sweep
    relies on too): the same pages as a game per language and size, in a twentieth of the games
    and half the page loads (issue #39)."""
    page = new_context(viewport=DESKTOP, session_cookie=login_session(user_factory("lena"))).new_page()
    boards = {}
    for game in BOARDS:
        # 30 minutes: the player's clock runs while the four languages are looked at.
        start_game_from_home(page, game, opponent="computer", clock="30+0", side="0")
        for _ in range(2):
            state = wait_my_turn_or_over(page)
            if state["status"] != "active":
                break
            play_move(page, game, state["position"]["legal_moves"][0])
        wait_my_turn_or_over(page)
        boards[game] = page.url
    for lang in ("en", "hi", "bn", "el"):
        page.set_viewport_size(DESKTOP)
        if lang != "en":
            with page.expect_navigation():
                page.select_option("#lang-select", lang)
        for game, url in boards.items():
            for viewport, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
                page.set_viewport_size(viewport)
                if size == "phone":
                    open_game(page, url)  # laid out from the start at a phone's size, as a phone loads it
                    wait_my_turn_or_over(page)
                expect(page.locator("html")).to_have_attribute("lang", lang)
                assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], (
                    game,
                    lang,
                    size,
                )
                board = page.locator(".board-svg").bounding_box()
                assert board["x"] >= 0 and board["x"] + board["width"] <= viewport["width"], (
                    game,
                    lang,
                    size,
                )
                screenshot(page, f"board-{game}-{lang}-{size}")


def test_open_challenges_are_counted_on_the_play_link_of_every_page(
    new_context, user_factory, login_session, redis_layer
):
    alice, bob = user_factory("alice"), user_factory("bob")
    page = new_context(session_cookie=login_session(bob)).new_page()
    with page.expect_websocket(lambda ws: ws.url.endswith("/ws/notify/")):
        page.goto("/players/bob/")
    page.wait_for_timeout(500)
    badge = page.locator('[data-nav="play"] .badge')
    expect(badge).to_have_count(0)
    challenge = in_thread(
        services.create_human_game,
        identity=Identity(user=alice, guest=None),
        game="ataxx",
        kind=Game.Kind.LOBBY,
        minutes=3,
    )
    expect(badge).to_have_text("1")
    expect(badge).to_have_attribute("aria-label", "open challenges")
    in_thread(services.cancel_waiting_game, game_id=challenge.pk, identity=Identity(user=alice, guest=None))
    expect(badge).to_have_count(0)
