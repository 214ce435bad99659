"""The browser the tests drive is the one Playwright means to drive, less what nobody sees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.conftest import UNSEEN_FEATURES

pytestmark = [pytest.mark.browser, pytest.mark.page_only]


def my_chromium_processes() -> dict[int, list[str]]:
    """The command lines of this test process's Chromium (its browser and helper processes), by pid.

    Only this process's descendants (Playwright's driver, its Chromium, their children): the suite's
    other processes drive Chromiums of their own at the same time."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().decode().rstrip("\0").split("\0")
        except (OSError, ValueError):  # gone meanwhile
            continue
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
        commands[int(entry.name)] = command

    def mine(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    # Chromium's helper processes write their arguments over their own name, as one string.
    return {
        pid: command[0].split(" ") if len(command) == 1 else command
        for pid, command in commands.items()
        if "chromium" in command[0] and mine(pid)
    }


def process_type(command: list[str]) -> str:
    return next((arg.removeprefix("--type=") for arg in command if arg.startswith("--type=")), "browser")


def disabled_features(command: list[str]) -> list[set[str]]:
    """Each --disable-features switch on a command line, in order."""
    prefix = "--disable-features="
    return [set(arg.removeprefix(prefix).split(",")) for arg in command if arg.startswith(prefix)]


def test_chromium_keeps_playwrights_disabled_features_and_drops_what_nobody_sees(browser):
    """Chromium honours only the last --disable-features on its command line: ours must carry all of
    Playwright's, or an upgraded Playwright's new ones would silently be switched back on
    (tests/browser/conftest.py)."""
    (command,) = [
        command for command in my_chromium_processes().values() if process_type(command) == "browser"
    ]
    playwrights, *_, honoured = disabled_features(command)
    assert playwrights - honoured == set(), "Playwright's own, switched back on by ours"
    assert set(UNSEEN_FEATURES) <= honoured


def test_a_new_page_starts_one_renderer_process_not_three(browser):
    def renderers() -> set[int]:
        return {
            pid for pid, command in my_chromium_processes().items() if process_type(command) == "renderer"
        }

    context = browser.new_context()
    before = renderers()
    page = context.new_page()
    page.set_content("<p>one page</p>")
    started = renderers() - before
    context.close()
    assert len(started) == 1, f"{len(started)} renderer processes for one page"
