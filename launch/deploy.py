"""The production layout in deploy/, rendered and tried on one machine.

``python -m launch.deploy check`` (also ``python -m launch --deploy-check``)
starts the whole layout on loopback: Debian's nginx in front of N daphne
processes, the live (clocks), computer and background workers and exactly one beat,
on the machine's PostgreSQL and Redis. The processes are the units' own
``ExecStart`` lines (deploy/systemd), the environment is deploy/fiveboards.env.example
with this machine's values, the nginx site is deploy/nginx/fiveboards.conf.template.
Like systemd's ``Restart=always``, a process that dies is started again.

With a command after ``--`` the layout runs it (with ``SITE_URL`` and the layout's
environment) and stops; its exit code is the check's. Without, it runs until Ctrl-C.

``python -m launch.deploy nginx-site ...`` renders the nginx site for a real
machine; ``python -m launch.deploy wait-healthy URL`` waits for ``/healthz``
(the daphne unit's ``ExecStartPost``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from urllib.parse import urlsplit, urlunsplit

from launch.processes import BASE_DIR, PYTHON, free_port, wait_for_port

DEPLOY_DIR = BASE_DIR / "deploy"
UNITS_DIR = DEPLOY_DIR / "systemd"
NGINX_TEMPLATE = DEPLOY_DIR / "nginx" / "fiveboards.conf.template"
ENV_TEMPLATE = DEPLOY_DIR / "fiveboards.env.example"
# The interpreter the units name; the check runs the same commands with this one.
UNIT_PYTHON = "/srv/fiveboards/app/.venv/bin/python"
NGINX_PLACEHOLDERS = ("LISTEN", "SERVER_NAME", "DAPHNE_SERVERS", "STATIC_ROOT", "MEDIA_ROOT", "ACCESS_LOG")
# The Celery worker units; each names itself <queue kind>@%H (tests/launch/test_queues.py).
WORKER_UNITS = ("fiveboards-worker-live", "fiveboards-worker-computer", "fiveboards-worker-background")
DATABASE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class DeployError(Exception):
    """A wrong argument or a missing piece, said plainly; nothing was started."""


# --- rendering ---------------------------------------------------------------


def _check_address(address: str) -> str:
    host, sep, port = address.rpartition(":")
    if (
        not sep
        or not host
        or not port.isdigit()
        or not 0 < int(port) < 65536
        or any(c in address for c in " ;{}")
    ):
        raise DeployError(f"a daphne address is HOST:PORT (e.g. 127.0.0.1:8001), not {address!r}")
    return address


def _check_path(path: str, what: str) -> str:
    if not path.startswith("/") or any(c in path for c in " ;{}\"'$"):
        raise DeployError(
            f"{what} must be an absolute path without spaces or ; {{ }} quotes or $, not {path!r}"
        )
    return path.rstrip("/") or "/"


def render_nginx_site(
    *,
    server_name: str,
    daphne: list[str],
    static_root: str,
    media_root: str,
    listen: str = "80",
    access_log: str = "/var/log/nginx/access.log",
) -> str:
    """The site file from the template, every placeholder filled; bad input raises DeployError."""
    if not daphne:
        raise DeployError("give at least one daphne address (--daphne 127.0.0.1:8001)")
    names = server_name.split()
    if not names or any(not re.fullmatch(r"[A-Za-z0-9.*_\[\]:-]+", name) for name in names):
        raise DeployError(f"--server-name takes host names separated by spaces, not {server_name!r}")
    if not re.fullmatch(r"[A-Za-z0-9.:\[\]]+( [a-z_=0-9]+)*", listen):
        raise DeployError(f"--listen is an nginx listen value such as 80 or 127.0.0.1:8080, not {listen!r}")
    servers = "\n".join(f"    server {_check_address(a)} max_fails=1 fail_timeout=5s;" for a in daphne)
    values = {
        "LISTEN": listen,
        "SERVER_NAME": " ".join(names),
        "DAPHNE_SERVERS": servers,
        "STATIC_ROOT": _check_path(static_root, "--static-root"),
        "MEDIA_ROOT": _check_path(media_root, "--media-root"),
        "ACCESS_LOG": _check_path(access_log, "--access-log"),
    }
    # safe_substitute: nginx's own $variables stay as they are.
    text = Template(NGINX_TEMPLATE.read_text()).safe_substitute(values)
    left = [name for name in NGINX_PLACEHOLDERS if "${" + name + "}" in text]
    if left:
        raise DeployError(f"the template still has placeholders: {left}")
    return text


def nginx_main_config(prefix: Path, site: Path, *, run_as: str | None) -> str:
    """A whole nginx.conf for an instance of its own under ``prefix`` (not the system's nginx)."""
    mime = "include /etc/nginx/mime.types;" if Path("/etc/nginx/mime.types").exists() else ""
    user = f"user {run_as};" if run_as else ""
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / (kind + '_temp')};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""{user}
daemon off;
worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
    {mime}
    default_type application/octet-stream;
    sendfile on;
    access_log {prefix / "access.log"};
{temp}
    include {site};
}}
"""


def read_env_template(path: Path = ENV_TEMPLATE) -> dict[str, str]:
    """NAME=value lines of the environment file (systemd's EnvironmentFile syntax, no quoting used)."""
    values: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
            raise DeployError(f"{path}:{number}: not NAME=value: {line!r}")
        values[name] = value
    return values


@dataclass
class Unit:
    name: str  # e.g. "fiveboards-daphne@" for a template unit
    exec_start: str
    exec_start_post: list[str] = field(default_factory=list)

    @property
    def template(self) -> bool:
        return self.name.endswith("@")


def read_units(directory: Path = UNITS_DIR) -> dict[str, Unit]:
    units: dict[str, Unit] = {}
    for path in sorted(directory.glob("*.service")):
        start, post = [], []
        for line in path.read_text().splitlines():
            if line.startswith("ExecStart="):
                start.append(line.removeprefix("ExecStart="))
            elif line.startswith("ExecStartPost="):
                post.append(line.removeprefix("ExecStartPost="))
        if len(start) != 1:
            raise DeployError(f"{path.name} must have exactly one ExecStart line")
        units[path.name.removesuffix(".service")] = Unit(path.name.removesuffix(".service"), start[0], post)
    return units


def unit_command(command: str, *, instance: str = "", state_dir: Path, hostname: str) -> list[str]:
    """An ExecStart line as argv for this checkout: systemd's %-specifiers filled, our Python."""
    specifiers = {"i": instance, "H": hostname, "S": str(state_dir), "%": "%"}

    def fill(match: re.Match) -> str:
        letter = match.group(1)
        if letter not in specifiers:
            raise DeployError(f"the check does not know the systemd specifier %{letter} in {command!r}")
        return specifiers[letter]

    argv = [re.sub(r"%(.)", fill, arg) for arg in shlex.split(command)]
    if argv[0] != UNIT_PYTHON:
        raise DeployError(f"unit commands start with {UNIT_PYTHON}, not {argv[0]!r}")
    return [PYTHON, *argv[1:]]


# --- health --------------------------------------------------------------------


def fetch_health(url: str, *, timeout: float = 5.0) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.load(error)
        except ValueError:
            return error.code, {}


def wait_healthy(url: str, *, timeout: float = 60.0, proc: subprocess.Popen | None = None) -> dict:
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise DeployError(f"the process behind {url} exited with code {proc.returncode}")
        try:
            status, body = fetch_health(url)
            if status == 200:
                return body
            last = f"{status} {body}"
        except (OSError, ValueError) as exc:
            last = f"{type(exc).__name__}: {exc}"
        time.sleep(0.3)
    raise DeployError(f"{url} was not healthy after {timeout:.0f} s (last: {last})")


# --- the layout ------------------------------------------------------------------


@dataclass
class Process:
    name: str
    argv: list[str]
    log: Path
    port: int | None = None
    popen: subprocess.Popen | None = None
    restarts: int = 0

    @property
    def started(self) -> subprocess.Popen:
        """The process as started (a DeployError before ``start``)."""
        if self.popen is None:
            raise DeployError(f"{self.name} was never started")
        return self.popen

    def start(self, env: dict[str, str]) -> None:
        with self.log.open("a") as out:
            self.popen = subprocess.Popen(
                self.argv, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )


def recreate_database(server_url: str, name: str) -> str:
    """Drop and create ``name`` on the PostgreSQL server; returns its DATABASE_URL."""
    import psycopg
    from psycopg import sql

    if not DATABASE_NAME.match(name):
        raise DeployError(f"--database must be a plain lower-case name, not {name!r}")
    parts = urlsplit(server_url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise DeployError(f"--postgres is a postgres:// URL of the server, not {server_url!r}")
    admin = urlunsplit(parts._replace(path="/postgres"))
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as error:
        raise DeployError(f"could not recreate database {name!r} on {server_url}: {error}".strip()) from None
    return urlunsplit(parts._replace(path="/" + name))


def empty_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    try:
        client.flushdb()
    except redis.RedisError as error:
        raise DeployError(f"could not empty Redis {url}: {error}") from None
    finally:
        client.close()


def nginx_user() -> str | None:
    """As root, nginx's workers need a user that can read the temp dir (made world-readable)."""
    if os.geteuid() != 0:
        return None
    import grp
    import pwd

    for user, group in (("www-data", "www-data"), ("nobody", "nogroup")):
        try:
            pwd.getpwnam(user)
            grp.getgrnam(group)
            return f"{user} {group}"
        except KeyError:
            continue
    return None


class Layout:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.dir = Path(tempfile.mkdtemp(prefix="fiveboards-layout-"))
        self.dir.chmod(0o755)  # nginx's workers read static and media files from here
        self.processes: list[Process] = []
        self.nginx: Process | None = None
        self.stopping = False
        self.env: dict[str, str] = {}
        self.url = ""
        self.nginx_port = 0
        # systemd's drop-ins (``systemctl edit fiveboards-daphne@8001``): NAME=value lines in
        # env.d/<process name>.env are added to that one process's environment at its next start.
        self.env_dir = self.dir / "env.d"

    def env_for(self, process: Process) -> dict[str, str]:
        drop_in = self.env_dir / f"{process.name}.env"
        return {**self.env, **read_env_template(drop_in)} if drop_in.exists() else self.env

    # layout.json: what tests through the layout need (URL, daphne pids and ports).
    def write_state(self) -> None:
        state = {
            "url": self.url,
            "daphne": [
                {"pid": p.popen.pid, "port": p.port, "restarts": p.restarts}
                for p in self.processes
                if p.port is not None and p.popen is not None
            ],
            "processes": {p.name: p.popen.pid for p in self.processes if p.popen is not None},
            "logs": str(self.dir / "logs"),
            "env_dir": str(self.env_dir),
        }
        tmp = self.dir / "layout.json.tmp"
        tmp.write_text(json.dumps(state, indent=2))
        tmp.replace(self.dir / "layout.json")

    def build_env(self, database_url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "PYTEST_ADDOPTS")}
        env.update(read_env_template())
        for name in ("static", "media", "state"):
            (self.dir / name).mkdir()
            (self.dir / name).chmod(0o755)
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            SITE_URL=f"http://127.0.0.1:{self.nginx_port}",
            # Plain HTTP on loopback; everything else as in production.
            DJANGO_HTTPS="0",
            DJANGO_STATIC_ROOT=str(self.dir / "static"),
            DJANGO_MEDIA_ROOT=str(self.dir / "media"),
            DJANGO_VAR_DIR=str(self.dir / "state"),
            # The checkout's own cache, as a release's install step leaves it (compile_cores
            # below): warm after `make setup`, so the layout's workers load and never compile.
            NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(BASE_DIR / "var" / "numba-cache")),
            DATABASE_URL=database_url,
            REDIS_URL=self.args.redis,
            PYTHONUNBUFFERED="1",
        )
        return env

    def start(self) -> None:
        args = self.args
        nginx = args.nginx or shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(nginx).exists():
            raise DeployError(
                "nginx is not installed: apt-get install nginx (the system service is not used)"
            )
        units = read_units()
        say(f"layout directory {self.dir}")
        database_url = recreate_database(args.postgres, args.database)
        empty_redis(args.redis)
        say(f"database {args.database} recreated, Redis {args.redis} emptied")
        # nginx's port first: the processes' SITE_URL (the links in mails) names it.
        self.nginx_port = args.port or free_port()
        self.env = env = self.build_env(database_url)
        manage = [PYTHON, "manage.py"]
        subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, env=env, check=True)
        subprocess.run([*manage, "collectstatic", "--noinput", "-v", "0"], cwd=BASE_DIR, env=env, check=True)
        # As the release steps do (docs/deploy.md): the computer players' machine code first.
        subprocess.run(
            [*manage, "compile_cores"], cwd=BASE_DIR, env=env, check=True, stdout=subprocess.DEVNULL
        )
        say("migrated, static files collected, computer players compiled")

        logs = self.dir / "logs"
        logs.mkdir()
        hostname = socket.gethostname()
        state = self.dir / "state"
        for _ in range(args.daphne):
            port = free_port()
            argv = unit_command(
                units["fiveboards-daphne@"].exec_start, instance=str(port), state_dir=state, hostname=hostname
            )
            self.processes.append(Process(f"daphne-{port}", argv, logs / f"daphne-{port}.log", port=port))
        for name in WORKER_UNITS + ("fiveboards-beat",):
            argv = unit_command(units[name].exec_start, state_dir=state, hostname=hostname)
            self.processes.append(Process(name.removeprefix("fiveboards-"), argv, logs / f"{name}.log"))
        (state / "fiveboards").mkdir()  # the units' StateDirectory= (beat's schedule)
        self.env_dir.mkdir()
        for process in self.processes:
            process.start(self.env_for(process))
        for process in self.processes:
            if process.port is not None:
                wait_for_port(process.port, proc=process.popen, timeout=60)
                wait_healthy(f"http://127.0.0.1:{process.port}/healthz", proc=process.popen)
        self.wait_for_workers(hostname)

        port = self.nginx_port
        prefix = self.dir / "nginx"
        prefix.mkdir()
        site = prefix / "fiveboards.conf"
        site.write_text(
            render_nginx_site(
                server_name="127.0.0.1 localhost",
                listen=f"127.0.0.1:{port}",
                daphne=[f"127.0.0.1:{p.port}" for p in self.processes if p.port is not None],
                static_root=env["DJANGO_STATIC_ROOT"],
                media_root=env["DJANGO_MEDIA_ROOT"],
                access_log=str(prefix / "access.log"),
            )
        )
        conf = prefix / "nginx.conf"
        conf.write_text(nginx_main_config(prefix, site, run_as=nginx_user()))
        test = subprocess.run(
            [nginx, "-t", "-q", "-p", str(prefix), "-c", str(conf)], capture_output=True, text=True
        )
        if test.returncode:
            raise DeployError(f"nginx -t refused the configuration:\n{test.stderr}")
        self.nginx = Process(
            "nginx", [nginx, "-p", str(prefix), "-c", str(conf)], logs / "nginx.log", port=None
        )
        self.nginx.start(env)
        wait_for_port(port, proc=self.nginx.popen)
        self.url = f"http://127.0.0.1:{port}"
        wait_healthy(f"{self.url}/healthz", proc=self.nginx.popen)
        self.write_state()

    def wait_for_workers(self, hostname: str, timeout: float = 60) -> None:
        wanted = {f"{unit.removeprefix('fiveboards-worker-')}@{hostname}" for unit in WORKER_UNITS}
        deadline = time.monotonic() + timeout
        answered: set[str] = set()
        while time.monotonic() < deadline:
            ping = subprocess.run(
                [PYTHON, "-m", "celery", "-A", "config", "inspect", "ping", "--timeout", "2"],
                cwd=BASE_DIR,
                env=self.env,
                capture_output=True,
                text=True,
            )
            answered = {name for name in wanted if name in ping.stdout}
            if answered == wanted:
                return
            for process in self.processes:
                if process.started.poll() is not None:
                    raise DeployError(
                        f"{process.name} exited with code {process.started.returncode}:\n" + tail(process.log)
                    )
        raise DeployError(f"workers {sorted(wanted - answered)} did not answer a ping in {timeout:.0f} s")

    def supervise_once(self) -> None:
        """systemd's Restart=always, RestartSec=1: start again whatever died."""
        changed = False
        for process in [*self.processes, self.nginx]:
            if process is None or process.popen is None or process.popen.poll() is None:
                continue
            code = process.popen.returncode
            say(f"{process.name} (pid {process.popen.pid}) exited with {code}; starting it again in 1 s")
            time.sleep(1)
            process.restarts += 1
            process.start(self.env_for(process))
            changed = True
        if changed:
            self.write_state()

    def stop(self) -> None:
        self.stopping = True
        everything = [
            p for p in [self.nginx, *reversed(self.processes)] if p is not None and p.popen is not None
        ]
        for process in everything:
            if process.started.poll() is None:
                process.started.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 30
        for process in everything:
            try:
                process.started.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{process.name} did not stop in time; killing it")
                os.killpg(process.started.pid, signal.SIGKILL)
                process.started.wait()
            # Worker pool children are in the worker's session: none may outlive the check.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.started.pid, signal.SIGKILL)


def tail(path: Path, size: int = 3000) -> str:
    return f"--- {path.name}\n" + (path.read_text(errors="replace")[-size:] if path.exists() else "(no log)")


def say(text: str) -> None:
    print(f"[deploy-check] {text}", flush=True)


def validate_check_arguments(args: argparse.Namespace) -> None:
    """Everything checkable before anything is dropped, emptied or started."""
    if args.daphne < 1:
        raise DeployError("--daphne must be 1 or more")
    if not DATABASE_NAME.match(args.database):
        raise DeployError(f"--database must be a plain lower-case name, not {args.database!r}")
    if urlsplit(args.postgres).scheme not in ("postgres", "postgresql"):
        raise DeployError(f"--postgres is a postgres:// URL of the server, not {args.postgres!r}")
    if urlsplit(args.redis).scheme not in ("redis", "rediss", "unix"):
        raise DeployError(f"--redis is a redis:// URL, not {args.redis!r}")
    if not 0 <= args.port < 65536:
        raise DeployError(f"--port must be 0 (a free one) or a port number, not {args.port}")


def run_check(args: argparse.Namespace) -> int:
    validate_check_arguments(args)
    layout = Layout(args)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    # Ctrl-C and SIGTERM stop everything the same way (also when started in the
    # background, where a shell makes SIGINT ignored).
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    failed = True
    try:
        layout.start()
        say(f"the site is up at {layout.url} (nginx in front of {args.daphne} daphne, 2 workers, beat)")
        for process in layout.processes:
            say(f"  {process.name:20} pid {process.started.pid}  log {process.log}")
        child_env = {
            **layout.env,
            "SITE_URL": layout.url,
            "DEPLOY_LAYOUT": str(layout.dir / "layout.json"),
            # The tests may write to and empty this database (it is the check's own).
            "SITE_TEST_DATABASE": args.database,
        }
        if not command:
            say("Ctrl-C stops everything")
            while True:
                layout.supervise_once()
                time.sleep(0.5)
        say("running: " + shlex.join(command))
        child = subprocess.Popen(command, cwd=BASE_DIR, env=child_env)
        while child.poll() is None:
            layout.supervise_once()
            time.sleep(0.2)
        failed = child.returncode != 0
        say(f"the command exited with {child.returncode}")
        return child.returncode
    except KeyboardInterrupt:
        failed = False
        return 130 if command else 0  # an interrupted command did not pass
    finally:
        if failed and (layout.dir / "logs").exists():
            for log in sorted((layout.dir / "logs").glob("*.log")):
                print(tail(log), file=sys.stderr)
            error_log = layout.dir / "nginx" / "error.log"
            if error_log.exists():
                print(tail(error_log), file=sys.stderr)
        say("stopping")
        layout.stop()
        if args.keep:
            say(f"kept {layout.dir}")
        else:
            shutil.rmtree(layout.dir, ignore_errors=True)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m launch.deploy", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="action", required=True)

    check = sub.add_parser("check", help="start the whole layout on loopback behind nginx")
    add_check_arguments(check)

    site = sub.add_parser("nginx-site", help="print the nginx site file for a real machine")
    site.add_argument("--server-name", required=True, help="host names, space-separated")
    site.add_argument(
        "--daphne", action="append", default=[], metavar="HOST:PORT", help="each daphne process"
    )
    site.add_argument("--static-root", required=True)
    site.add_argument("--media-root", required=True)
    site.add_argument("--listen", default="80")
    site.add_argument(
        "--access-log", default="/var/log/nginx/access.log", help="the site's access log (keys redacted)"
    )

    wait = sub.add_parser("wait-healthy", help="wait until a /healthz URL answers 200")
    wait.add_argument("url")
    wait.add_argument("--timeout", type=float, default=60)
    return top


def add_check_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("--daphne", type=int, default=2, help="daphne processes (default 2)")
    check.add_argument("--port", type=int, default=0, help="nginx's loopback port (default: a free one)")
    check.add_argument(
        "--postgres",
        default=os.getenv("DEPLOY_CHECK_POSTGRES", "postgres://postgres@127.0.0.1:5432"),
        help="the PostgreSQL server (default postgres://postgres@127.0.0.1:5432)",
    )
    check.add_argument(
        "--database",
        default=os.getenv("DEPLOY_CHECK_DATABASE", "deploycheck"),
        help="database to DROP and create for the layout (default deploycheck)",
    )
    check.add_argument(
        "--redis",
        default=os.getenv("DEPLOY_CHECK_REDIS", "redis://127.0.0.1:6379/5"),
        help="Redis database for the layout; it is EMPTIED (default redis://127.0.0.1:6379/5)",
    )
    check.add_argument(
        "--nginx", default="", help="the nginx binary (default: nginx on PATH or /usr/sbin/nginx)"
    )
    check.add_argument(
        "--keep", action="store_true", help="keep the layout directory (logs, config) afterwards"
    )
    check.add_argument(
        "command", nargs=argparse.REMAINDER, help="-- COMMAND: run it against the layout, then stop"
    )


def check_main(argv: list[str]) -> int:
    """``python -m launch --deploy-check [options] [-- command]``."""
    check = argparse.ArgumentParser(prog="python -m launch --deploy-check")
    add_check_arguments(check)
    try:
        return run_check(check.parse_args(argv))
    except (DeployError, RuntimeError, subprocess.CalledProcessError) as error:
        print(f"deploy check: {error}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.action == "check":
            return run_check(args)
        if args.action == "nginx-site":
            sys.stdout.write(
                render_nginx_site(
                    server_name=args.server_name,
                    daphne=args.daphne,
                    static_root=args.static_root,
                    media_root=args.media_root,
                    listen=args.listen,
                    access_log=args.access_log,
                )
            )
            return 0
        body = wait_healthy(args.url, timeout=args.timeout)
        print(json.dumps(body))
        return 0
    except (DeployError, RuntimeError, subprocess.CalledProcessError) as error:
        print(f"{parser().prog}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
