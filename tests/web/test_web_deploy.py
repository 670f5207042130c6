"""The deployment files: the plain-process recipe (deploy/run-local.sh) runs two servers on one
PostgreSQL that serve a room together and stop cleanly; compose.yaml and the Dockerfile are
checked as far as this machine allows without a container engine (their YAML, their
services, and their ``nomercy`` command lines against the real argument parser)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
from pathlib import Path

import pytest
from pgcluster import find_bin_dir
from realserver import START_LIMIT, request

from nomercy.cli.main import build_parser
from ports import free_port

ROOT = Path(__file__).resolve().parents[2]


def wait_ready(
    port: int, proc: subprocess.Popen[bytes], log: Path, limit: float = START_LIMIT
) -> None:
    deadline = time.monotonic() + limit
    while True:
        try:
            if request(port, "/readyz", timeout=2).status == 200:
                return
        except (OSError, urllib.error.URLError):
            pass
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)


@pytest.mark.postgres
def test_the_plain_process_recipe_serves_one_room_from_two_servers(tmp_path: Path) -> None:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL's server is not installed")
        pytest.skip("PostgreSQL's server (initdb, pg_ctl) is not installed")
    data_root = Path(tempfile.mkdtemp(prefix="nomercy-recipe-"))
    data_root.chmod(0o755)  # the postgres user (as root) must reach its data directory
    first = free_port(span=2)  # run-local.sh counts up from NOMERCY_PORT
    ports = [first, first + 1]
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "NOMERCY_SERVERS": "2",
        "NOMERCY_PORT": str(first),
        "NOMERCY_PG_PORT": str(free_port()),
        "NOMERCY_PG_DATA": str(data_root / "pg"),
        "NOMERCY_PG_BIN": str(bin_dir),
    }
    log = tmp_path / "recipe.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(ROOT / "deploy" / "run-local.sh"), "--log-level", "warning"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        for port in ports:
            wait_ready(port, proc, log)
        created = request(ports[0], "/api/rooms", {"host_name": "Ann", "seats": 2})
        assert created.status == 201, created.body
        code = created.body["code"]
        joined = request(ports[1], f"/api/rooms/{code}/join", {"name": "Bob"})
        assert joined.status == 200 and joined.body["seat"] == 1, joined.body
        summary = request(ports[0], f"/api/rooms/{code}")
        assert [s["name"] for s in summary.body["seats"]] == ["Ann", "Bob"]
        assert request(ports[1], "/healthz").status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, log.read_text()
        for port in ports:
            with pytest.raises((OSError, urllib.error.URLError)):
                request(port, "/healthz", timeout=2)
        assert not (data_root / "pg" / "postmaster.pid").exists(), "PostgreSQL still runs"
        assert "Traceback" not in log.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        pid_file = data_root / "pg" / "postmaster.pid"
        if pid_file.exists():
            subprocess.run(
                ["runuser", "-u", "postgres", "--"] * (os.geteuid() == 0)
                + [str(bin_dir / "pg_ctl"), "-D", str(data_root / "pg"), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(data_root, ignore_errors=True)


@pytest.mark.no_store
def test_compose_file_runs_servers_a_proxy_and_postgres_with_a_volume() -> None:
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"db", "web", "proxy", "migrate"} <= set(services)
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert "pgdata" in compose["volumes"]
    assert services["web"]["deploy"]["replicas"] >= 2
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["proxy"]["volumes"]
    parser = build_parser()
    for name in ("web", "migrate"):
        command = [str(c) for c in services[name]["command"]]
        command = [c.replace("${NOMERCY_DB_PASSWORD:-nomercy}", "pw") for c in command]
        args = parser.parse_args(command)  # exits (SystemExit) on a flag serve does not know
        assert args.handler.__name__ in ("serve", "db_command")
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "dynamic a" in caddy and "name web" in caddy and "health_uri /readyz" in caddy
    # Caddy limits no client: the servers keep a per-address cap (issue 43).
    web = [str(c) for c in services["web"]["command"]]
    assert int(web[web.index("--sockets-per-address") + 1]) > 0
    if shutil.which("caddy"):
        result = subprocess.run(
            ["caddy", "validate", "--config", str(ROOT / "deploy" / "Caddyfile"),
             "--adapter", "caddyfile"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.no_store
def test_dockerfile_runs_the_server_as_a_user_with_a_health_check() -> None:
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0].startswith("FROM python:3.11")
    assert any(line.startswith("USER ") for line in lines)
    assert "/readyz" in text and "web-pg" in text
    import json

    entry = json.loads(next(line for line in lines if line.startswith("ENTRYPOINT"))[11:])
    cmd = json.loads(next(line for line in lines if line.startswith("CMD"))[4:])
    assert entry == ["nomercy"]
    args = build_parser().parse_args(cmd)
    assert args.handler.__name__ == "serve" and args.host == "0.0.0.0"


@pytest.mark.no_store
def test_the_nginx_recipe_forwards_websocket_upgrades() -> None:
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    for needed in ("proxy_set_header Upgrade $http_upgrade", "proxy_http_version 1.1",
                   "proxy_set_header Host $host", "X-Forwarded-For",
                   "limit_conn nomercy_conn", "limit_req zone=nomercy_req",
                   "limit_req zone=nomercy_ws"):  # fmt: skip
        assert needed in text
    # tests/web/test_web_proxy.py runs it for real (and fails under CI without nginx).
    if shutil.which("nginx"):
        result = subprocess.run(
            ["nginx", "-t", "-c", str(ROOT / "deploy" / "nginx.conf"), "-p", tempfile.gettempdir()],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 0, result.stderr
