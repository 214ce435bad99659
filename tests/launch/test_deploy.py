"""deploy/ as files: the nginx site renders and nginx accepts it, the units are
the production process list, and bad arguments change nothing."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from launch import deploy
from launch.deploy import DeployError, render_nginx_site

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def site(**overrides) -> str:
    values = {
        "server_name": "games.example.org",
        "daphne": ["127.0.0.1:8001", "127.0.0.1:8002"],
        "static_root": "/srv/fiveboards/static",
        "media_root": "/srv/fiveboards/media",
    }
    return render_nginx_site(**{**values, **overrides})


def test_the_site_balances_every_daphne_and_keeps_nginx_variables():
    text = site()
    assert "    server 127.0.0.1:8001 max_fails=1 fail_timeout=5s;\n    server 127.0.0.1:8002" in text
    assert (
        "least_conn;" in text
        and "alias /srv/fiveboards/static/;" in text
        and "alias /srv/fiveboards/media/;" in text
    )
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in text and "$http_upgrade" in text
    assert "client_max_body_size 6m;" in text
    assert "${" not in text


def test_an_idempotent_request_that_a_daphne_answers_503_is_tried_on_the_next():
    """A daphne without Redis says 503 (config/unavailable.py): nginx must move on, except for /healthz."""
    text = site()
    server_level = text[: text.index("location / {")]
    assert "proxy_next_upstream error timeout http_502 http_503;" in server_level
    healthz = text[text.index("location = /healthz {") :]
    assert "proxy_next_upstream error timeout;" in healthz[: healthz.index("}")]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("daphne", [], "at least one daphne"),
        ("daphne", ["127.0.0.1"], "HOST:PORT"),
        ("daphne", ["127.0.0.1:8001; include /etc/passwd"], "HOST:PORT"),
        ("static_root", "srv/static", "absolute path"),
        ("media_root", "/srv/media;", "absolute path"),
        ("server_name", "example.org; return 200", "host names"),
    ],
)
def test_bad_values_are_refused_by_name(field, value, message):
    with pytest.raises(DeployError, match=message):
        site(**{field: value})


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (apt-get install nginx)")
def test_nginx_accepts_the_rendered_site():
    prefix = Path(tempfile.mkdtemp(prefix="nginx-t-"))
    try:
        (prefix / "site.conf").write_text(site(listen="127.0.0.1:8080"))
        (prefix / "nginx.conf").write_text(
            deploy.nginx_main_config(prefix, prefix / "site.conf", run_as=None)
        )
        result = subprocess.run(
            [NGINX, "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf")], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


def test_the_units_are_the_production_process_list():
    units = deploy.read_units()
    assert set(units) == {
        "fiveboards-daphne@",
        "fiveboards-worker-live",
        "fiveboards-worker-computer",
        "fiveboards-worker-background",
        "fiveboards-beat",
    }
    daphne = deploy.unit_command(
        units["fiveboards-daphne@"].exec_start, instance="8001", state_dir=Path("/var/lib"), hostname="web1"
    )
    assert daphne[1:3] == ["-m", "config.daphne_server"] and "--proxy-headers" in daphne
    assert daphne[daphne.index("-p") + 1] == "8001" and daphne[daphne.index("-b") + 1] == "127.0.0.1"
    live = deploy.unit_command(
        units["fiveboards-worker-live"].exec_start, state_dir=Path("/x"), hostname="web1"
    )
    background = deploy.unit_command(
        units["fiveboards-worker-background"].exec_start, state_dir=Path("/x"), hostname="web1"
    )
    assert live[live.index("-Q") + 1] == "live" and "live@web1" in live
    assert background[background.index("-Q") + 1] == "background,analysis" and "background@web1" in background
    beat = deploy.unit_command(
        units["fiveboards-beat"].exec_start, state_dir=Path("/var/lib"), hostname="web1"
    )
    assert beat[3:6] == ["-A", "config", "beat"] and "/var/lib/fiveboards/celerybeat-schedule" in beat
    # The units' readiness check is the /healthz of their own process.
    assert units["fiveboards-daphne@"].exec_start_post == [
        f"{deploy.UNIT_PYTHON} -m launch.deploy wait-healthy http://127.0.0.1:%i/healthz --timeout 60"
    ]
    target = (deploy.UNITS_DIR / "fiveboards.target").read_text()
    wanted = " ".join(line for line in target.splitlines() if line.startswith("Wants="))
    assert wanted.count("fiveboards-beat.service") == 1, "exactly one beat"


def test_an_unknown_systemd_specifier_is_an_error_not_a_guess():
    with pytest.raises(DeployError, match="%u"):
        deploy.unit_command(f"{deploy.UNIT_PYTHON} -m celery --x %u", state_dir=Path("/x"), hostname="h")


def test_the_environment_template_sets_production_mode_and_only_known_variables():
    env = deploy.read_env_template()
    assert env["DJANGO_DEBUG"] == "0" and env["DJANGO_BEHIND_PROXY"] == "1" and env["DJANGO_HTTPS"] == "1"
    assert env["DJANGO_STATIC_MANIFEST"] == "1" and env["DJANGO_SECRET_KEY"] == "", "never a shipped secret"
    readme = (deploy.BASE_DIR / "docs" / "configuration.md").read_text()
    unknown = [name for name in env if f"`{name}`" not in readme]
    assert not unknown, f"variables docs/configuration.md does not describe: {unknown}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--database", "prod; DROP"], "--database must be a plain lower-case name"),
        (["--daphne", "0"], "--daphne must be 1 or more"),
        (["--redis", "http://127.0.0.1:6379/5"], "--redis is a redis:// URL"),
        (["--postgres", "mysql://127.0.0.1"], "--postgres is a postgres:// URL"),
    ],
)
def test_the_deploy_check_refuses_bad_arguments_before_touching_anything(argv, message, capsys, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("nothing may be dropped, emptied or created")

    monkeypatch.setattr(deploy, "recreate_database", never)
    monkeypatch.setattr(deploy, "empty_redis", never)
    monkeypatch.setattr(deploy.tempfile, "mkdtemp", never)
    from launch.local import main

    assert main(["--deploy-check", *argv]) == 2
    assert message in capsys.readouterr().err


def test_wait_healthy_names_the_url_when_nothing_answers(capsys):
    from launch.processes import free_port

    url = f"http://127.0.0.1:{free_port()}/healthz"
    assert deploy.main(["wait-healthy", url, "--timeout", "1"]) == 2
    assert f"{url} was not healthy after 1 s" in capsys.readouterr().err


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_systemd_accepts_the_units(tmp_path):
    for unit in deploy.UNITS_DIR.iterdir():
        shutil.copy(unit, tmp_path / unit.name)
    shutil.copy(tmp_path / "fiveboards-daphne@.service", tmp_path / "fiveboards-daphne@8001.service")
    names = [
        "fiveboards-daphne@8001.service",
        "fiveboards-worker-live.service",
        "fiveboards-worker-computer.service",
        "fiveboards-worker-background.service",
        "fiveboards-beat.service",
        "fiveboards.target",
    ]
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *names], cwd=tmp_path, capture_output=True, text=True
    )
    # The one complaint allowed: this machine has no /srv/fiveboards checkout.
    problems = [
        line
        for line in result.stderr.splitlines()
        if line.strip() and f"Command {deploy.UNIT_PYTHON} is not executable" not in line
    ]
    assert not problems, result.stderr


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (apt-get install nginx)")
def test_nginx_logs_no_key_of_a_reset_or_verification_link(tmp_path):
    """Issue #38, 6: the site's access log, as nginx writes it, holds no usable reset or verification key."""
    import urllib.error
    import urllib.request

    from launch.processes import free_port, wait_for_port

    port, closed = free_port(), free_port()  # nothing listens on ``closed``: every answer is a 502, logged
    log = tmp_path / "access.log"
    (tmp_path / "site.conf").write_text(
        site(listen=f"127.0.0.1:{port}", daphne=[f"127.0.0.1:{closed}"], access_log=str(log))
    )
    (tmp_path / "nginx.conf").write_text(
        deploy.nginx_main_config(tmp_path, tmp_path / "site.conf", run_as=None)
    )
    nginx = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], stderr=subprocess.PIPE
    )
    key = "cv8x1q-0f3b6e1d2a4c5b6d7e8f"
    confirm = "MQ:1uAbCd:Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1"
    try:
        wait_for_port(port, proc=nginx)
        for path, referer in [
            (f"/accounts/password/reset/key/2-{key}/", ""),
            (f"/accounts/confirm-email/{confirm}/", ""),
            ("/static/site.css", f"http://games.example.org/accounts/confirm-email/{confirm}/"),
            ("/accounts/password/reset/?next=/", ""),
        ]:
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Referer": referer})
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(request, timeout=10)
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
    text = log.read_text()
    assert '"GET /accounts/password/reset/key/[redacted]/ HTTP/1.1" 502' in text, text
    assert '"GET /accounts/confirm-email/[redacted]/ HTTP/1.1" 502' in text, text
    assert '"http://games.example.org/accounts/confirm-email/[redacted]/"' in text, text
    assert '"GET /accounts/password/reset/?next=/ HTTP/1.1" 502' in text, text  # other paths as they were
    assert key not in text and confirm not in text and "2-" not in text, text
