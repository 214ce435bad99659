"""The wheel built from the repository is a whole site, and an install of it serves a game.

Deploys install the locked environment or this wheel (docs/deploy.md), never an
editable checkout: so everything Django reads beside the code must travel in it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request
import zipfile
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from launch.processes import BASE_DIR, free_port

UV = Path(sys.executable).with_name("uv")
# A wheel built and installed into a fresh virtualenv: started with the suite's first files.
pytestmark = pytest.mark.heavy

APPS = ("config", "games", "accounts", "ratings", "chat", "tournaments", "api", "launch")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [str(UV), "build", "--wheel", "--quiet", "--out-dir", str(out), str(BASE_DIR)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("*.whl")
    return built


def tracked(*patterns: str) -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--", *patterns], cwd=BASE_DIR, capture_output=True, text=True, check=True
    ).stdout
    return set(listed.split())


def test_the_wheel_holds_every_app_template_static_file_catalogue_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for app in APPS:
        assert f"{app}/__init__.py" in names, f"{app} is not in the wheel"
    needed = tracked(
        "*/templates/*", "config/static/*", "config/locale/*.mo", "games/ai/data/*", "*/migrations/*.py"
    )
    needed = {name for name in needed if not name.startswith(("tests/", "bench/"))}
    assert len(needed) > 100  # the patterns found the site's files
    missing = sorted(needed - names)
    assert missing == [], f"not in the wheel: {missing[:20]}"
    assert not any(name.startswith(("tests/", "bench/", "deploy/", "bots/")) for name in names)


def test_a_fresh_install_of_the_wheel_serves_a_game_with_python_m_launch(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(
        [str(UV), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    # The locked versions of everything, then the site itself from the wheel (the release steps).
    locked = tmp_path / "requirements.txt"
    exported = subprocess.run(
        [
            str(UV),
            "export",
            "--locked",
            "--quiet",
            "--no-dev",
            "--extra",
            "embedded",
            "--no-emit-project",
            "--no-hashes",
        ],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    locked.write_text(exported.stdout)
    install = [str(UV), "pip", "install", "--quiet", "--python", str(python)]
    subprocess.run([*install, "-r", str(locked)], check=True, timeout=600)
    subprocess.run([*install, "--no-deps", str(wheel)], check=True, timeout=120)

    site = tmp_path / "site"  # started from an empty folder: nothing of the checkout beside it
    site.mkdir()
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_", "SITE_URL", "PYTHON"))
    }
    # Plain HTTP cookies (as the suite runs): Python's cookie jar, unlike a browser on 127.0.0.1,
    # never sends a Secure cookie over http.
    env |= {"DJANGO_HTTPS": "0", "PORT": str(port), "NUMBA_CACHE_DIR": str(BASE_DIR / "var" / "numba-cache")}
    proc = subprocess.Popen(
        [str(python), "-m", "launch"],
        cwd=site,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        seen = wait_for_line(proc, b"The site is running", timeout=240)
        assert b"embedded PostgreSQL" in seen
        base = f"http://127.0.0.1:{port}"
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        home = opener.open(f"{base}/", timeout=30).read().decode()
        assert "/static/" in home  # the site's own assets are served from the install
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home)[1]
        form = {
            "csrfmiddlewaretoken": token,
            "game": "reversi",
            "opponent": "computer",
            "level": "easy",
            "clock": "untimed",
            "side": "0",
        }
        started = opener.open(
            urllib.request.Request(
                f"{base}/play/new/", data=urllib.parse.urlencode(form).encode(), headers={"Referer": base}
            ),
            timeout=30,
        )
        page = started.read().decode()
        assert re.search(r"/play/\d+/$", started.url), started.url
        assert "Reversi" in page
        with opener.open(f"{base}/static/js/play/play.js", timeout=30) as script:
            assert script.status == 200
        assert (site / "var" / "pg").is_dir()  # its working files went where it was started
    finally:
        os.killpg(proc.pid, 2)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
        subprocess.run(["pkill", "-9", "-f", str(site)], check=False)


def wait_for_line(proc: subprocess.Popen, text: bytes, timeout: float) -> bytes:
    import select
    import time

    seen = b""
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while text not in seen:
        assert proc.poll() is None, seen.decode(errors="replace")[-3000:]
        assert time.monotonic() < deadline, seen.decode(errors="replace")[-3000:]
        ready, _, _ = select.select([proc.stdout], [], [], 1)
        if ready:
            seen += os.read(proc.stdout.fileno(), 65536)
    return seen
