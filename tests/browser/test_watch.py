"""The Watch page in a browser: a visitor sees games start, move and end without reloading, the TV follows
the best Reversi game move by move and moves on to the next one when it ends, and the players see that
somebody watches."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.engines import get as engine_of
from games.models import Game
from ratings.models import Rating
from tests.browser.conftest import DESKTOP, screenshot
from tests.browser.pages import READY, in_thread
from tests.browser.test_readable_boards import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def people_game(first, second, *, game: str = "reversi", minutes: int = 5, increment: int = 0) -> Game:
    def create() -> Game:
        created = services.create_human_game(
            identity=Identity(first, None),
            game=game,
            kind=Game.Kind.INVITE_LINK,
            side=0,
            minutes=minutes,
            increment=increment,
        )
        return services.join_game(
            game_id=created.pk, identity=Identity(second, None), token=created.invite_token
        )

    return in_thread(create)


def test_the_watch_page_follows_games_and_its_tv_moves_on_when_the_featured_game_ends(
    new_context, login_session, user_factory, redis_layer
):
    alice, bob, carol, dan = (user_factory(name) for name in ("alice", "bob", "carol", "dan"))
    Rating.objects.create(user=alice, game="reversi", value=1800, rated_games=5)  # provisional
    Rating.objects.create(user=bob, game="reversi", value=1700, rated_games=20)
    visitor = new_context().new_page()  # no account, no guest: watching needs neither
    visitor.goto("/watch/?tv=reversi")
    watch = visitor.locator("[data-watch]")
    expect(visitor.locator("#watch-empty")).to_be_visible()
    expect(visitor.locator("#tv-empty")).to_be_visible()
    expect(visitor.locator('.site-header [data-nav="watch"]')).to_have_text("Watch")

    best = people_game(alice, bob, minutes=5, increment=3)
    best_row = visitor.locator(f'tr[data-game-id="{best.pk}"]')
    expect(best_row).to_contain_text("alice 1800?")
    expect(best_row).to_contain_text("bob 1700")
    expect(best_row.locator(".time-control")).to_have_text("5+3")
    expect(watch).to_have_attribute("data-tv-game", str(best.pk))  # on TV without a reload
    expect(visitor.locator("#tv-status")).to_contain_text("alice to move.")

    other = people_game(carol, dan)  # unrated players: below alice and bob's game, and not on TV yet
    expect(visitor.locator("#watch-rows tr")).to_have_count(2)
    assert visitor.locator("#watch-rows tr").first.get_attribute("data-game-id") == str(best.pk)
    expect(watch).to_have_attribute("data-tv-game", str(best.pk))

    in_thread(services.play_move, game_id=best.pk, identity=Identity(alice, None), token="d3", ply=0)
    expect(watch).to_have_attribute("data-tv-ply", "1")  # the TV's board, move by move
    expect(visitor.locator("#tv-board .disc.p0")).to_have_count(4)  # d3 turned d4: black has four
    expect(best_row.locator(".ply")).to_have_text("1")
    expect(best_row.locator(".spectators")).to_have_text("1")  # the TV's own socket watches it

    player = new_context(session_cookie=login_session(alice)).new_page()
    player.goto(f"/play/{best.pk}/")
    player.wait_for_function(READY)
    expect(player.locator("#watchers")).to_have_text("1 watching")
    screenshot(visitor, "watch-desktop")
    assert axe_violations(visitor) == []
    visitor.set_viewport_size(PHONE)
    assert visitor.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(visitor, "watch-phone")

    in_thread(services.resign, game_id=best.pk, identity=Identity(bob, None))
    expect(best_row).to_have_count(0)
    expect(visitor.locator("#tv-status")).to_contain_text("bob resigned.")
    expect(watch).to_have_attribute("data-tv-game", str(other.pk), timeout=20_000)  # the next best game
    expect(visitor.locator("#tv-status")).to_contain_text("carol to move.")
    visitor.close()
    expect(player.locator("#watchers")).to_be_hidden()  # nobody watches alice's page any more


BOARDS = ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"]
MOVES_PLAYED = 4
# The pieces on each board, and the paint that makes each one visible.
PIECES = {"reversi": ".disc.p0, .disc.p1", "ataxx": ".disc.p0, .disc.p1"}
MARKS = ".mark-x, .mark-o"

# WCAG's contrast ratio of each piece on the TV against its cell (1.4.11 asks 3:1 of graphics),
# from computed styles: an unset colour variable leaves a black fill or no stroke at all.
CONTRASTS = """async ([board, pieces]) => {
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const luminance = (paint) => {
    const [r, g, b] = paint.match(/[\\d.]+/g).slice(0, 3).map(Number).map(channel);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  };
  const host = document.querySelector(board);
  // The colours once a disc's flip or a mark's fade has finished: mid-way, a colour is neither side's.
  await Promise.all(host.getAnimations({ subtree: true }).map((animation) => animation.finished));
  const cell = getComputedStyle(host.querySelector(".cell-bg")).fill;
  return [...host.querySelectorAll(pieces)].map((piece) => {
    const style = getComputedStyle(piece);
    // Discs and Quantum's spooky marks (text) are filled; X and O are drawn as strokes.
    const paint = piece.matches(".disc, .spooky") ? style.fill : style.stroke;
    return paint.startsWith("rgb") ? Math.round(ratio(paint, cell) * 100) / 100 : 0;
  });
}"""


# Every list the Watch page's socket brings, kept for the test to wait on.
SOCKET_FEEDS = """
window.__socketFeeds = [];
document.addEventListener("site:notify", (event) => {
  if (event.detail?.type === "watch") window.__socketFeeds.push(event.detail);
});
"""


def play_moves(game: Game, players, count: int) -> None:
    """``count`` legal moves on ``game``, by the side to move each time, as the server takes them."""
    engine = engine_of(game.game)

    def play() -> None:
        for ply in range(count):
            current = Game.objects.get(pk=game.pk)
            state = current.engine_state()
            side = engine.to_move(state)
            token = engine.legal_moves(state)[0]
            services.play_move(game_id=game.pk, identity=Identity(players[side], None), token=token, ply=ply)

    in_thread(play)


def test_the_tv_shows_every_game_in_progress_with_visible_pieces_at_both_sizes(
    new_context, user_factory, redis_layer
):
    """Every channel's board, on the TV, at 1280x800 and 360x740: the position, its pieces readable on their cells,
    the players' swatches in the game's own colours (X and O, not Reversi's discs), the buttons in the site's font."""
    alice, bob = user_factory("alice"), user_factory("bob")
    games = {}
    for kind in BOARDS:
        games[kind] = people_game(alice, bob, game=kind)
        play_moves(games[kind], (alice, bob), MOVES_PLAYED)
    page = new_context().new_page()
    page.add_init_script(SOCKET_FEEDS)
    page.goto("/watch/")
    watch = page.locator("[data-watch]")
    # The site's daphne outlives each test's database: its feed may first send the last test's games (up to
    # GAMES_WATCH_SECONDS old). Channels are chosen once a list from the socket has all five of this test's.
    page.wait_for_function(
        "(ids) => window.__socketFeeds.some((feed) => Object.entries(ids).every(([kind, id]) => feed.tv[kind]?.id === id))",
        arg={kind: game.pk for kind, game in games.items()},
    )
    body_font = page.evaluate("getComputedStyle(document.body).fontFamily")
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(viewport)
        for kind in BOARDS:
            page.locator(f'.tv-channel[data-kind="{kind}"]').click()
            expect(watch).to_have_attribute("data-tv-game", str(games[kind].pk))
            page.wait_for_function(  # the position, as played, on the TV's board
                "([id, ply]) => window.__watch.tv.snapshot?.id === id && window.__watch.tv.snapshot.ply === ply",
                arg=[games[kind].pk, MOVES_PLAYED],
            )
            pieces = PIECES.get(kind, MARKS)
            expect(page.locator(f"#tv-board.board-{kind.split('_')[0]} .board-svg")).to_be_visible()
            expect(page.locator(f"#tv-board :is({pieces})").nth(MOVES_PLAYED - 1)).to_be_attached()
            contrasts = page.evaluate(CONTRASTS, ["#tv-board", pieces])
            assert contrasts and min(contrasts) >= 3, (kind, size, contrasts)

            swatches = page.evaluate("""() => [...document.querySelectorAll('.tv-player .swatch')].map((s) => {
                const style = getComputedStyle(s);
                return [style.backgroundColor, style.borderRadius];
            })""")
            first_piece = page.evaluate(
                """([pieces]) => {
                    const piece = document.querySelector(`#tv-board :is(${pieces}):is(.p0, .mark-x)`);
                    const style = getComputedStyle(piece);
                    return piece.matches(".disc, .spooky") ? style.fill : style.stroke;
                }""",
                [pieces],
            )
            assert swatches[0][0] == first_piece, (kind, swatches, first_piece)  # the first player's colour
            assert swatches[0][0] != swatches[1][0]
            assert (swatches[0][1] == "50%") == (kind in PIECES), (kind, swatches)  # a disc, or a square mark

            box = page.locator("#tv-board .board-svg").bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (kind, size)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], (kind, size)
            screenshot(page, f"watch-tv-{kind}-{size}")
        channel_fonts = page.evaluate(
            "[...document.querySelectorAll('.tv-channel')].map((b) => getComputedStyle(b).fontFamily)"
        )
        assert set(channel_fonts) == {body_font}


@pytest.mark.page_only
def test_a_correspondence_game_reads_three_days_on_the_watch_list_at_both_sizes(
    new_context, site_url, user_factory, redis_layer
):
    """Issue #37, defect 7: the list showed a correspondence game's clock as "4320+0" (its three days in minutes).
    It reads "3 days" as everywhere else, as the page first renders it and as the socket's feed redraws it, on a
    phone too, and in the viewer's language."""
    alice, bob = user_factory("alice"), user_factory("bob")
    letters = in_thread(
        services.create_paired_game, game="ataxx", users=(alice, bob), minutes=0, days_per_move=3
    )
    row = f'tr[data-game-id="{letters.pk}"]'
    for viewer, (viewport, language, label) in {
        "desktop": (DESKTOP, "en", "3 days"),
        "phone": (PHONE, "en", "3 days"),
        "phone-el": (PHONE, "el", "3 ημέρες"),
    }.items():
        context = new_context(viewport=viewport)
        context.add_cookies([{"name": "django_language", "value": language, "url": site_url}])
        page = context.new_page()
        page.add_init_script(SOCKET_FEEDS)
        page.goto("/watch/")
        cell = page.locator(f"{row} .time-control")
        expect(cell).to_have_text(label)  # as the server rendered it (or the socket, if it was quicker)
        # The socket's list redraws the rows: wait for one with this game, and read what it says.
        page.wait_for_function(
            "(id) => window.__socketFeeds.some((feed) => feed.games.some((game) => game.id === id))",
            arg=letters.pk,
        )
        sent = page.evaluate(
            "(id) => window.__socketFeeds.findLast((feed) => feed.games.some((game) => game.id === id))"
            ".games.find((game) => game.id === id).time_control",
            letters.pk,
        )
        assert sent == label, (viewer, sent)
        expect(cell).to_have_text(label)
        expect(cell).to_be_visible()
        # On one line ("3" above "days" on a phone reads as two things), inside the screen, and the page
        # never scrolls sideways. Measured in one evaluation: the socket's list rebuilds its rows, and a
        # cell found first and measured next may have left the page meanwhile (no box, zero lines).
        lines, box = page.evaluate(
            """(selector) => {
                const td = document.querySelector(selector);
                const text = document.createRange();
                text.selectNodeContents(td);
                const box = td.getBoundingClientRect();
                return [text.getClientRects().length, { x: box.x, width: box.width }];
            }""",
            f"{row} .time-control",
        )
        assert lines == 1, (viewer, lines)
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (viewer, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewer
        screenshot(page, f"watch-correspondence-{viewer}")


@pytest.mark.page_only
def test_a_list_arriving_while_the_tv_loads_its_board_does_not_leave_the_tv_blank(
    new_context, user_factory, redis_layer
):
    """The TV loads a game's board module the first time it shows that game. The Watch page's socket sends
    its list at once, and often while that module is still on its way (a busy phone, a slow network): the
    TV then used to drop its game, its board staying empty for good (a blank TV board)."""
    alice, bob = user_factory("alice"), user_factory("bob")
    game = people_game(alice, bob, game="ataxx")
    play_moves(game, (alice, bob), MOVES_PLAYED)
    page = new_context().new_page()
    page.add_init_script(SOCKET_FEEDS)
    held = []
    page.route(
        re.compile(r"/static/js/play/ataxx(\.[0-9a-f]+)?\.js$"), lambda route: held.append(route)
    )  # answered below
    page.goto("/watch/?tv=ataxx")
    page.wait_for_function(
        "(id) => window.__socketFeeds.some((feed) => feed.tv.ataxx?.id === id)", arg=game.pk
    )
    assert len(held) == 1, "the TV asked for the board module once, and it has not come yet"
    held[0].continue_()
    page.wait_for_function(
        "([id, ply]) => window.__watch.tv.snapshot?.id === id && window.__watch.tv.snapshot.ply === ply",
        arg=[game.pk, MOVES_PLAYED],
    )
    expect(page.locator("#tv-board.board-ataxx .board-svg")).to_be_visible()
