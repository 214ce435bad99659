"""The real site in real processes, driven by headless Chromium.

A session starts daphne (HTTP + websockets) and a Celery worker on the embedded
Redis (or CI's services) against pytest's test database, and one Chromium.
Tests use ``transaction=True`` so those processes see what a test writes.

Debian's /usr/bin/chromium is used, never a downloaded browser. Without it the
folder is skipped, except in CI (``CI=true``) where a missing browser fails.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from launch.processes import BASE_DIR
from tests.processes import EXTERNAL_SITE

CHROMIUM = "/usr/bin/chromium"
# Chromium's `--headless` is the whole browser without a screen, and each page Playwright opens is a
# window of its own: the window preloads its address bar's popup (two WebUI renderer processes) and
# the browser starts a spare renderer for the next page. Nobody sees them here, and they cost
# Chromium 0.12 s of CPU a page (0.27 -> 0.15 s), on some 260 pages a run.
UNSEEN_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "SpareRendererForSitePerProcess"]
# Chromium keeps only the last --disable-features it is given, so ours must repeat Playwright's own
# (its chromiumSwitches.ts, in the Playwright that uv.lock pins), or they would be switched back on;
# test_harness.py checks the running browser's command line against Playwright's.
PLAYWRIGHTS_DISABLED_FEATURES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
    "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
    "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
]  # fmt: skip
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-features=" + ",".join(PLAYWRIGHTS_DISABLED_FEATURES + UNSEEN_FEATURES),
]
HERE = Path(__file__).resolve().parent
SCREENSHOTS = BASE_DIR / "artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def pytest_collection_modifyitems(config, items):
    # A conftest hook sees every collected item, so only this folder's are touched.
    if Path(CHROMIUM).exists() or _in_ci():
        return
    skip = pytest.mark.skip(
        reason=f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium)"
    )
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Production-style static files (hashed names, a manifest) for the daphne process.

    Unit tests render pages without a manifest; the browser tests check that the
    pages' ES modules also load the way production serves them. The files are the same
    for every pytest process of a run (pytest-xdist), so the first to need them collects
    them for all, under a lock: collecting (hashing and compressing every file) took each
    process seconds of CPU (issue #39).
    """
    if EXTERNAL_SITE:  # the running site collected its own
        yield Path(os.environ.get("DJANGO_STATIC_ROOT", ""))
        return
    # The folder all of this run's processes share (pytest-xdist's own recipe); this one's without xdist.
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    root, done = shared / "static", shared / "static.collected"
    extra = {"DJANGO_STATIC_ROOT": str(root), "DJANGO_STATIC_MANIFEST": "1"}
    with (shared / "static.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)  # a collection that failed half-way
            env = {**os.environ, **extra, "DJANGO_SETTINGS_MODULE": "config.settings"}
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                cwd=BASE_DIR,
                env=env,
                check=True,
            )
            done.touch()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in extra.items():
            patch.setenv(name, value)  # inherited by the processes started next
        yield root
    # Left for the other processes; pytest removes old runs' temporary folders itself.


@pytest.fixture(scope="session")
def site_url(collected_static, worker_broker, services, database_url_for_processes) -> str:
    """The site under test: its own daphne, or SITE_URL (e.g. nginx in front of the deploy layout)."""
    if EXTERNAL_SITE:
        services.wait_for_worker()
        return EXTERNAL_SITE
    services.ensure_worker(database_url_for_processes)
    _, port = services.start_daphne(database_url_for_processes)
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _a_plain_worker_serves_the_site(site_url, services, database_url_for_processes) -> None:
    """The site's worker is running before each browser test, not only before the first.

    A test elsewhere in the same process may have stopped it or swapped in a worker of its own
    (tests/faults stop theirs at the end: "later tests get a plain worker again"); a page
    played after that against the computer waited for a reply no worker would send."""
    if not EXTERNAL_SITE:
        services.ensure_worker(database_url_for_processes)


# Left to itself, Playwright checks a wait_for_function predicate on every animation frame, and
# so keeps headless Chromium drawing 60 frames a second for as long as a test waits: a third of
# a core per waiting page (measured: 1.08 s of Chromium's CPU in a 3 s wait, 0.01 s polling every
# 100 ms). The tests wait for seconds at a time in four processes on two cores; checked every
# 50 ms instead, a wait ends at most 50 ms later.
POLL_MS = 50


def _polling_every(milliseconds: int, wait_for_function):
    def polled(page, expression, *, arg=None, timeout=None, polling=milliseconds):
        return wait_for_function(page, expression, arg=arg, timeout=timeout, polling=polling)

    return polled


# Package scope: Playwright's sync API runs an event loop in this thread until it
# stops, which would break every asyncio test collected after this folder.
@pytest.fixture(scope="package")
def browser(site_url):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"CI=true but there is no Chromium at {CHROMIUM}")
    from playwright.sync_api import Page, expect, sync_playwright

    # The assertions wait as long as the actions do (20 s, `new_context`), not Playwright's 5 s:
    # on a busy machine (the suite's parallel workers) a page may take longer than 5 s to get
    # there, and a defect still fails, only later.
    expect.set_options(timeout=20_000)

    # Playwright's sync API keeps an event loop marked as running in this thread,
    # which makes Django refuse ORM calls made by the tests. The site's own
    # processes are already running and do not inherit this.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        patch.setattr(Page, "wait_for_function", _polling_every(POLL_MS, Page.wait_for_function))
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield chromium
            chromium.close()


# Every page of every context reports what the Content-Security-Policy refused, to
# `__cspViolation` (a Playwright binding, which the page's CSP does not govern).
WATCH_CSP = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolation(
    `${event.effectiveDirective} refused ${event.blockedURI || "inline code"}`
      + ` (${event.sourceFile || document.URL}:${event.lineNumber})`);
});
"""


@pytest.fixture
def csp_violations() -> list[str]:
    """What the site's CSP refused during the test, from events and the console; must stay empty."""
    return []


def _watch_csp(context, violations: list[str]) -> None:
    context.expose_binding("__cspViolation", lambda source, text: violations.append(text))
    context.add_init_script(WATCH_CSP)

    def console(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"console: {message.text}")

    context.on("console", console)


@pytest.fixture
def new_context(browser, site_url, csp_violations):
    """Browser contexts (one per player: separate cookies), closed after the test.

    The test fails at teardown if the CSP refused anything on any page: the site
    must work under its own policy, with no inline script or style.
    """
    contexts = []

    def make(*, viewport: dict | None = None, session_cookie: str | None = None, **options):
        # options: more of Playwright's context options, e.g. has_touch for a phone's finger.
        context = browser.new_context(viewport=viewport or DESKTOP, base_url=site_url, **options)
        context.set_default_timeout(20_000)
        _watch_csp(context, csp_violations)
        if session_cookie:
            context.add_cookies([{"name": "sessionid", "value": session_cookie, "url": site_url}])
        contexts.append(context)
        return context

    yield make
    from playwright.sync_api import Error as PlaywrightError

    for context in contexts:
        for page in context.pages:
            with contextlib.suppress(PlaywrightError):  # a page that crashed or is navigating away
                page.evaluate("0")  # delivers the reports still on their way
        context.close()
    if csp_violations:
        pytest.fail("The Content-Security-Policy refused:\n" + "\n".join(csp_violations))


@pytest.fixture
def login_session(db):
    """A session cookie value for ``user`` (the database is shared with daphne)."""

    def make(user) -> str:
        client = Client()
        client.force_login(user)
        return client.cookies["sessionid"].value

    return make


def screenshot(page, name: str) -> Path | None:
    """A full-page photograph in artifacts/screenshots/, for people to look at; taken only when
    SCREENSHOTS=1 (CI's stage through nginx sets it): each costs Chromium 0.3 s of CPU, and the
    suite would take about 250 of them that no assertion reads."""
    if os.environ.get("SCREENSHOTS") != "1":
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
