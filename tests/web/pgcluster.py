"""A private PostgreSQL cluster for the tests and benchmarks/: initdb into a temporary
directory, ``pg_ctl start`` on a free 127.0.0.1 port, one fresh database per test.

``initdb`` and ``postgres`` refuse to run as root: as root the cluster runs as the
``postgres`` user (Debian's package makes it) or ``nobody``, in a directory that user owns.
``pg_ctl`` starts the server outside our process group, so :meth:`PgCluster.stop` is also
registered with ``atexit`` (an interrupted run still stops it).

Under pytest-xdist each worker is its own session, so each starts its own cluster: its own
temporary directory (``mkdtemp``), socket directory and port (retried if another worker takes
it first), so workers share nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ports import free_port

__all__ = ["PgCluster", "find_bin_dir"]


def find_bin_dir() -> Path | None:
    """The directory of ``initdb``/``pg_ctl``/``postgres`` (Debian: /usr/lib/postgresql/N/bin),
    or ``None`` when PostgreSQL's server is not installed."""
    given = os.environ.get("NOMERCY_PG_BIN")
    if given:
        return Path(given)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _version_key(path: str) -> int:
    part = path.split("/")[4]
    return int(part) if part.isdigit() else 0


#: How many ports :class:`PgCluster` tries when the one it picked is taken meanwhile.
_START_ATTEMPTS = 5


class PgCluster:
    """A running private cluster; :meth:`database` makes a fresh database and returns its URL."""

    def __init__(self, bin_dir: Path, *, durable: bool = False) -> None:
        self.bin = bin_dir
        #: Whether a commit is on disk when it returns (``synchronous_commit``): a test that
        #: crashes the server (:meth:`halt`) needs it, or acknowledged commits are lost.
        self.durable = durable
        self.root = Path(tempfile.mkdtemp(prefix="nomercy-pg-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.sockets = self.root / "sock"
        self.port = free_port()
        self.user: str | None = None
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                with contextlib.suppress(KeyError):
                    pwd.getpwnam(name)
                    self.user = name
                    break
        self._count = itertools.count()
        self.log = self.root / "postgres.log"
        self._started = False
        atexit.register(self.stop)
        self.data.mkdir()
        self.sockets.mkdir()
        if self.user is not None:
            info = pwd.getpwnam(self.user)
            for path in (self.root, self.data, self.sockets):
                os.chown(path, info.pw_uid, info.pw_gid)
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "nomercy", "--auth=trust",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        # A free port can still be taken between free_port() and the server's bind (by a process
        # outside this test run that binds a fixed port): try a new port.
        for attempt in itertools.count(1):
            try:
                self._start()
                break
            except RuntimeError:
                if attempt == _START_ATTEMPTS or "in use" not in self._log_text():
                    raise
                self.port = free_port()
        self._started = True

    def _start(self) -> None:
        options = (
            f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
            f"-c synchronous_commit={'on' if self.durable else 'off'} -c full_page_writes=off "
            "-c max_connections=300"
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.log),
            "-w", "-t", "60", "start",
        )  # fmt: skip

    def _log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user is not None else []
        result = subprocess.run(
            [*prefix, *command], capture_output=True, text=True, timeout=120, cwd=self.root
        )
        if result.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {result.stdout}{result.stderr}")

    @property
    def url(self) -> str:
        """The URL of the ``postgres`` maintenance database."""
        return f"postgresql://nomercy@127.0.0.1:{self.port}/postgres"

    def database(self, name: str | None = None) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = name or f"t{next(self._count)}_{os.getpid()}"
        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"'.encode())
        return f"postgresql://nomercy@127.0.0.1:{self.port}/{name}"

    def drop(self, url: str) -> None:
        """Drop a database :meth:`database` made (its files go now, not all at the end: a
        thousand test databases are gigabytes to remove)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with contextlib.suppress(psycopg.Error), psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())

    def halt(self) -> None:
        """Stop the server at once (``pg_ctl -m immediate``: as if it crashed), keeping its
        data; :meth:`resume` starts it again on the same port."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def resume(self) -> None:
        """Start the server again after :meth:`halt` (same port, same databases)."""
        self._start()

    def stop(self) -> None:
        """Stop the server and remove its directory (idempotent)."""
        if self._started:
            self._started = False
            with contextlib.suppress(Exception):
                # immediate: the cluster is thrown away; no shutdown checkpoint to wait for
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        if self.root.exists():
            for _ in range(3):
                shutil.rmtree(self.root, ignore_errors=True)
                if not self.root.exists():
                    break
                time.sleep(0.2)
