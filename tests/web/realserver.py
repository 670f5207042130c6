"""A real ``nomercy serve`` process on 127.0.0.1 for the resilience tests and benchmarks/.

Started with ``python -m nomercy serve`` on a free port and a given database; every wait is
bounded. The server's log goes to a file the test can read.
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ports import free_port

#: Seconds a server process (or the proxy) may take to start answering: a bound that only
#: catches a hang (a second or two alone; many times that beside other work).
START_LIMIT = 120.0


@contextmanager
def proxy_process(
    command: list[str], port: int, log: Path, workdir: Path, env: dict[str, str] | None = None
) -> Iterator[int]:
    """Run a proxy (nginx, Caddy) writing to ``log``; yield ``port`` once ``/healthz``
    answers through it (``START_LIMIT`` bounds a hang); then stop it and remove ``workdir``."""
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + START_LIMIT
        while True:
            try:
                if request(port, "/healthz", timeout=2).status == 200:
                    break
            except (OSError, urllib.error.URLError):
                pass
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield port
    finally:
        stop_process(proc)
        shutil.rmtree(workdir, ignore_errors=True)


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """Stop ``proc`` if it still runs: SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Response:
    """An HTTP answer: status, headers and the body (JSON decoded when it is JSON)."""

    status: int
    headers: dict[str, str]
    body: Any


def request(
    port: int,
    path: str,
    body: Any = None,
    *,
    method: str | None = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
    source: str | None = None,
) -> Response:
    """One HTTP request (from the loopback address ``source``, if given); 4xx/5xx answers are
    returned, not raised. ``timeout`` (real time) only catches a hang by default: the suite
    runs beside other work."""
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    if source is not None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout, (source, 0))
        try:
            conn.request(
                method or ("GET" if data is None else "POST"),
                path,
                body=data,
                headers={"content-type": "application/json", **(headers or {})},
            )
            reply = conn.getresponse()
            status, head, text = reply.status, dict(reply.headers), reply.read()
        finally:
            conn.close()
        return _response(status, head, text)
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        headers={"content-type": "application/json", **(headers or {})},
        method=method or ("GET" if data is None else "POST"),
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, head, text = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        status, head, text = exc.code, dict(exc.headers), exc.read()
    return _response(status, head, text)


def _response(status: int, head: dict[str, str], text: bytes) -> Response:
    try:
        decoded: Any = json.loads(text)
    except ValueError:
        decoded = text.decode("utf-8", "replace")
    return Response(status, {k.lower(): v for k, v in head.items()}, decoded)


@dataclass
class RealServer:
    """A running server: its process, port, database and log file."""

    proc: subprocess.Popen[bytes]
    port: int
    database: Path | str
    log: Path

    def log_text(self) -> str:
        """What the server logged so far."""
        return self.log.read_text(errors="replace")

    def create(self, **body: Any) -> dict[str, Any]:
        """Create a room; returns the 201 body."""
        body.setdefault("host_name", "Ann")
        r = request(self.port, "/api/rooms", body)
        assert r.status == 201, r.body
        data: dict[str, Any] = r.body
        return data

    def ws_url(self, code: str) -> str:
        """The WebSocket URL of a room."""
        return f"ws://127.0.0.1:{self.port}/ws/{code}"


def database_for(database: Path | str) -> str:
    """The ``--database`` a test's path stands for (the suite's PostgreSQL runs map each path
    to a fresh PostgreSQL database: tests/web/conftest.py)."""
    return str(database)


def serve_command(port: int, database: Path | str, *flags: str) -> list[str]:
    """The command line of a server (no bot delay, warnings only, unless ``flags`` say)."""
    return [
        sys.executable,
        "-m",
        "nomercy",
        "serve",
        "--port",
        str(port),
        "--database",
        database_for(database),
        "--bot-delay",
        "0",
        "--log-level",
        "warning",
        *flags,
    ]


@contextmanager
def real_server(database: Path | str, *flags: str, log: Path | None = None) -> Iterator[RealServer]:
    """A server process on 127.0.0.1; yields once it answers HTTP, stops it after."""
    port = free_port()
    if log is None:
        assert isinstance(database, Path), "give a log file with a database URL"
        log = database.with_suffix(".log")
    with log.open("ab") as err:
        proc = subprocess.Popen(
            serve_command(port, database, *flags), stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        deadline = time.monotonic() + START_LIMIT
        while True:
            try:
                request(port, "/api/meta", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield RealServer(proc, port, database, log)
    finally:
        stop_process(proc)
