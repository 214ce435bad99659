"""`make run` as a newcomer meets it: it serves, Ctrl-C stops it cleanly, a crash stops it loudly.

Each test runs the real command in a pseudo-terminal, on a fresh embedded PostgreSQL
and a private Redis in a temporary folder (never the machine's services).
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from config.embedded import data_dir
from launch.processes import BASE_DIR, free_port

pytestmark = [pytest.mark.heavy, pytest.mark.services]


class Terminal:
    """A command running in a pseudo-terminal, as a person's shell would run it."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes the terminal's session, like a login shell's job
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a shell starts a foreground job
            os.chdir(BASE_DIR)
            os.execvpe(argv[0], argv, env)
        self.output = b""
        self.status: int | None = None

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:  # the terminal's last process has gone
                    return

    def wait_for(self, text: bytes, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            assert time.monotonic() < deadline, f"no {text!r} after {timeout} s:\n{self.text}"
            assert not self.exited(), f"exited with {self.status}:\n{self.text}"
            self.read(0.5)

    def exited(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status is not None

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while not self.exited():
            assert time.monotonic() < deadline, f"still running after {timeout} s:\n{self.text}"
            self.read(0.2)
        self.read(0.2)
        assert self.status is not None
        return self.status

    def kill(self) -> None:
        if not self.exited():
            os.kill(self.pid, signal.SIGKILL)
            self.wait(10)

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")


@pytest.fixture(scope="module")
def var_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's folder (database, Redis, beat), shared by the file's stories: the first ``make run``
    starts from nothing (a new database, migrated), the next one finds it as a person's second run
    would, and does not pay again for creating and migrating a database."""
    return tmp_path_factory.mktemp("make-run") / "var"


@pytest.fixture
def site(var_dir: Path):
    """``make run`` (the README's first command) on a port of its own, with nothing else shared."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CHANNEL_PREFIX", "SITE_URL"}
    }
    env |= {"PORT": str(port), "DJANGO_VAR_DIR": str(var_dir)}
    terminal = Terminal(["make", "--no-print-directory", "run"], env)
    try:
        terminal.wait_for(b"The site is running", timeout=180)
        yield terminal, port
    finally:
        terminal.kill()
        # Whatever the test did, no process of this site may outlive it.
        subprocess.run(["pkill", "-9", "-f", "--", f"-p {port} "], check=False)
        # The worker's command line names no port, but its beat schedule lives in the site's folder
        # (a rehearsal of CI found one still running a quarter of an hour later).
        subprocess.run(["pkill", "-9", "-f", str(var_dir)], check=False)
        subprocess.run(["pkill", "-9", "-f", str(data_dir(var_dir))], check=False)


def still_running(processes: dict[int, str], *, within: float = 10) -> list[str]:
    """The command lines of ``processes`` still alive after up to ``within`` seconds."""
    deadline = time.monotonic() + within
    while (
        alive := [pid for pid in processes if Path(f"/proc/{pid}").exists()]
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    return [processes[pid] for pid in alive]


def children_of(pid: int) -> dict[int, str]:
    """Every descendant of ``pid``: its command line by pid."""
    found: dict[int, str] = {}
    parents = {pid}
    for _ in range(4):
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            ppid = int(stat.rpartition(")")[2].split()[1])
            if ppid in parents:
                found[int(entry.name)] = cmdline
        parents |= set(found)
    return found


def test_ctrl_c_stops_make_run_quietly_with_every_process_ended(site, var_dir):
    terminal, port = site
    for path in ("/", "/healthz"):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            assert response.status == 200
    processes = children_of(terminal.pid)
    assert any("config.daphne_server" in cmd for cmd in processes.values())
    assert any("celery" in cmd for cmd in processes.values())

    pgdata = str(data_dir(var_dir))
    assert subprocess.run(["pgrep", "-f", pgdata], capture_output=True).returncode == 0, (
        "no embedded PostgreSQL"
    )

    os.write(terminal.fd, b"\x03")  # what the terminal sends for Ctrl-C

    assert terminal.wait(60) == 0, terminal.text
    after_ctrl_c = terminal.text.rpartition("^C")[2]
    for alarming in ("unexpectedly", "Traceback", "Error", "Restoring"):
        assert alarming not in after_ctrl_c, terminal.text
    assert "stopping" in after_ctrl_c
    assert still_running(processes) == []
    # The embedded PostgreSQL (a daemon of its own, not a child) stops with the site too.
    assert "embedded PostgreSQL" in terminal.text
    assert subprocess.run(["pgrep", "-f", pgdata], capture_output=True).returncode == 1


def test_a_crashed_daphne_stops_the_rest_and_says_which_process_died(site):
    terminal, _ = site
    processes = children_of(terminal.pid)
    (daphne,) = [pid for pid, cmd in processes.items() if "config.daphne_server" in cmd]

    os.kill(daphne, signal.SIGKILL)

    assert terminal.wait(60) != 0
    assert f"daphne (pid {daphne}) stopped unexpectedly" in terminal.text
    assert still_running(processes) == []
