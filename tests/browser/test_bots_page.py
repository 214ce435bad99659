"""A person challenges a BOT from the Bots page; a tiny scripted BOT (HTTP only: the Play API) accepts and plays;
the person sees the game start and plays it to the end (issue #41)."""

from __future__ import annotations

import json
import threading
import time

import pytest
import requests
from playwright.sync_api import expect

from api import tokens
from tests.browser.pages import READY, click_move, snapshot

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


class ScriptedBot(threading.Thread):
    """Reads its event stream, accepts the first challenge, then plays the first legal move whenever it is its turn."""

    def __init__(self, site: str, token: str) -> None:
        super().__init__(daemon=True)
        self.site, self.headers = site, {"Authorization": f"Bearer {token}"}
        self.accepted: list[int] = []
        self.moves = 0
        self.errors: list[str] = []
        self.connected = threading.Event()
        self.finished = threading.Event()

    def _lines(self, path: str):
        with requests.get(self.site + path, headers=self.headers, stream=True, timeout=60) as answer:
            assert answer.status_code == 200, answer.text
            self.connected.set()
            for raw in answer.iter_lines(chunk_size=1):
                if raw.strip():
                    yield json.loads(raw)

    def run(self) -> None:
        try:
            game_id = None
            for event in self._lines("/api/stream/event"):
                if event["type"] == "challenge" and event["challenge"]["direction"] == "in":
                    challenge = event["challenge"]["id"]
                    answer = requests.post(
                        f"{self.site}/api/challenge/{challenge}/accept", headers=self.headers, timeout=30
                    )
                    if answer.status_code != 200:
                        self.errors.append(answer.text)
                    self.accepted.append(challenge)
                if event["type"] == "gameStart":
                    game_id = event["game"]["id"]
                    break
            self._play(game_id)
        except Exception as exc:  # reported by the test, which would otherwise only see a stuck game
            self.errors.append(repr(exc))
        finally:
            self.finished.set()

    def _play(self, game_id: int) -> None:
        side = None
        for item in self._lines(f"/api/bot/game/stream/{game_id}"):
            if item["type"] == "gameFull":
                side, state = item["you"], item["state"]
            elif item["type"] == "gameState":
                state = item
            else:
                continue
            if state["status"] != "started":
                return
            if state["toMove"] == side and state["legalMoves"]:
                move = state["legalMoves"][0]
                answer = requests.post(
                    f"{self.site}/api/bot/game/{game_id}/move/{move}", headers=self.headers, timeout=30
                )
                if answer.status_code == 200:
                    self.moves += 1
                elif answer.json().get("code") not in (
                    "stale",
                    "not_your_turn",
                ):  # a state it had already seen
                    self.errors.append(answer.text)


def test_a_person_challenges_a_bot_from_the_bots_page_and_plays_it_to_the_end(
    new_context, login_session, user_factory, site_url
):
    robot = user_factory("tictacbot", is_bot=True)
    person = user_factory("pia")
    secret = tokens.create_token(user=robot, name="bot", scopes=("bot:play",)).secret
    said = requests.post(
        f"{site_url}/api/bot/account/accepts",
        json={"games": ["four_tac_toe"], "clocks": ["5+3"]},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )
    assert said.status_code == 200, said.text
    bot = ScriptedBot(site_url, secret)
    bot.start()
    assert bot.connected.wait(30)

    page = new_context(session_cookie=login_session(person)).new_page()
    page.goto("/")
    page.locator("nav").get_by_role("link", name="Bots", exact=True).click()
    card = page.locator('[data-bot="tictacbot"]')
    # Online: its event stream is open.
    expect(card).to_have_attribute("data-online", "true")
    expect(card).to_contain_text("Four Tac Toe")
    expect(card.locator(".bot-mark")).to_have_text("BOT")
    card.get_by_label("Game").select_option("four_tac_toe")
    card.get_by_label("Time control").select_option("5+3")
    card.get_by_role("button", name="Challenge").click()

    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    # The BOT accepts from its program: the person's page starts the game by itself.
    page.wait_for_function("() => window.__game.snapshot.status !== 'waiting'", timeout=30_000)
    expect(page.locator(".player .bot-mark")).to_have_text("BOT")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        page.wait_for_function(
            "() => { const g = window.__game, s = g.snapshot;"
            " return !g.busy && (s.status !== 'active' || s.position.to_move === g.you); }",
            timeout=30_000,
        )
        game = snapshot(page)
        if game["status"] != "active":
            break
        ply = game["ply"]
        click_move(page, "four_tac_toe", game["position"]["legal_moves"][0])
        page.wait_for_function(f"() => window.__game.snapshot.ply > {ply}")
    result = page.locator("#result")
    expect(result).to_be_visible()  # the game-over panel
    assert result.get_attribute("data-outcome") in ("win", "loss", "draw")
    assert bot.finished.wait(30) and not bot.errors, bot.errors
    assert bot.accepted and bot.moves >= 1
