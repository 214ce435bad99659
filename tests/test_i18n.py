"""The site in Hindi, Bengali and Greek: every page, the board's JavaScript, and complete catalogues."""

from __future__ import annotations

import ast
import gettext
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from games.models import Game

LANGUAGES = ["hi", "bn", "el"]
LOCALE = Path(settings.BASE_DIR) / "config" / "locale"


def translated(text: str, lang: str) -> str:
    with translation.override(lang):
        result = translation.gettext(text)
    assert result != text, f"{text!r} has no {lang} translation"
    return result


def switch(client, lang: str) -> None:
    response = client.post("/i18n/setlang/", {"language": lang, "next": "/"})
    assert response.status_code == 302


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_navigation_switches_language(client, lang):
    switch(client, lang)
    page = client.get("/").content.decode()
    assert f'<html lang="{lang}"' in page
    for text in ("Play", "Rankings", "Log in", "Sign up"):
        assert translated(text, lang) in page
    assert ">Log in<" not in page


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_board_page_and_a_rules_page_are_translated(client, lang):
    switch(client, lang)
    client.post(
        "/play/new/", {"game": "reversi", "opponent": "computer", "level": "easy", "minutes": 0, "side": "0"}
    )
    game = Game.objects.get()
    board = client.get(f"/play/{game.pk}/").content.decode()
    assert translated("Resign", lang) in board
    assert translated("Resign this game?", lang) in board
    rules = client.get("/rules/reversi/").content.decode()
    assert translated("On this site", lang) in rules
    assert translated("If you have no legal move, the site passes for you automatically.", lang) in rules


def catalogue_address(page: str) -> str:
    found = re.search(r'<script src="(/jsi18n/[^"]+)"></script>', page)
    assert found, "the page loads the JavaScript catalogue"
    return found[1]


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_javascript_catalogue_carries_the_board_texts(client, lang):
    switch(client, lang)
    catalogue = client.get(catalogue_address(client.get("/").content.decode())).content.decode()
    po = (LOCALE / lang / "LC_MESSAGES" / "djangojs.po").read_text()
    entry = re.search(r'msgid "Your move\."\nmsgstr "(.+)"', po)
    assert entry, "the board's 'Your move.' has a translation"
    assert entry[1] in catalogue or json.dumps(entry[1])[1:-1] in catalogue


def po_entries(path: Path) -> list[dict]:
    """A small .po reader: each entry's msgid, msgstr(s) and flags."""
    entries, current, field = [], None, None
    for line in path.read_text().splitlines() + [""]:
        if not line.strip():
            if current is not None:
                entries.append(current)
            current, field = None, None
            continue
        if current is None:
            current = {"flags": "", "msgid": "", "msgstr": {}}
        if line.startswith("#,"):
            current["flags"] += line
        elif line.startswith("#"):
            continue
        elif line.startswith(("msgid ", "msgid_plural ", "msgstr", "msgctxt ")):
            key, _, value = line.partition(" ")
            field = key
            text = value.strip()[1:-1]
            if key.startswith("msgstr"):
                current["msgstr"][key] = text
            elif key == "msgid":
                current["msgid"] = text
            else:
                current[key] = text
        elif line.startswith('"') and field:
            text = line.strip()[1:-1]
            if field.startswith("msgstr"):
                current["msgstr"][field] += text
            elif field == "msgid":
                current["msgid"] += text
    return entries


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_every_catalogue_is_complete(lang, domain):
    """Fails when someone adds a string without translating it (run makemessages, then translate)."""
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    entries = [e for e in po_entries(path) if e["msgid"]]
    assert len(entries) > 50
    untranslated = [e["msgid"] for e in entries if not all(e["msgstr"].values()) or not e["msgstr"]]
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e["flags"]]
    assert untranslated == [], f"{len(untranslated)} untranslated, e.g. {untranslated[:3]}"
    assert fuzzy == []
    # The compiled catalogue says what the .po says (compare contents, not file
    # times: a checkout leaves an unchanged .mo older than its re-ordered .po).
    mo = path.with_suffix(".mo")
    assert mo.exists(), "compile the catalogue (compilemessages)"
    with mo.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    for entry in entries:
        if "msgstr" not in entry["msgstr"]:
            continue  # plural forms are stored per count
        key = entry["msgid"] if "msgctxt" not in entry else f"{entry['msgctxt']}\x04{entry['msgid']}"
        text = ast.literal_eval(f'"{entry["msgstr"]["msgstr"]}"')
        assert compiled.get(ast.literal_eval(f'"{key}"')) == text, "compile the catalogue (compilemessages)"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_watch_page_is_translated(client, lang):
    switch(client, lang)
    page = client.get("/watch/").content.decode()
    for text in (
        "Watch",
        "Games to watch",
        "Games in play",
        "Watching",
        "No game is being played right now.",
    ):
        assert translated(text, lang) in page
    catalogue = client.get(catalogue_address(page)).content.decode()
    assert "%(count)s watching" in catalogue, "the spectator count's words reach the page's script"


@pytest.mark.django_db
def test_a_browser_keeps_the_javascript_catalogue_and_a_language_switch_asks_for_another(client):
    """Every page loads the catalogue: it is kept for a year, under an address that names its
    language and its content, so it is fetched once, not on every page view (50-60 KB in Hindi,
    Bengali and Greek), and never read stale after a switch of language or a release."""
    english = catalogue_address(client.get("/").content.decode())
    assert english == catalogue_address(client.get("/rules/reversi/").content.decode())
    response = client.get(english)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    switch(client, "hi")
    hindi = catalogue_address(client.get("/").content.decode())
    assert hindi.startswith("/jsi18n/hi.") and english.startswith("/jsi18n/en.")
    assert client.get(hindi).content != response.content, "the Hindi catalogue, not the English one"
    # The same address answers the same in any language the request is in: the address decides.
    assert client.get(english).content == response.content


@pytest.mark.django_db
def test_a_page_from_before_a_release_is_sent_on_to_the_current_catalogue(client):
    current = catalogue_address(client.get("/").content.decode())
    old = client.get("/jsi18n/en.000000000000.js")
    assert old.status_code == 302 and old["Location"] == current
    assert "max-age=31536000" not in old.get("Cache-Control", "")
    assert client.get("/jsi18n/xx.000000000000.js").status_code == 404
