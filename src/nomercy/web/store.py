"""SQLite storage for the web server: rooms, seats, games and every accepted action.

One database file (stdlib :mod:`sqlite3`, WAL journal). A game is stored as its setup (the
:class:`~nomercy.core.records.GameRecord` without actions) plus one row per accepted action,
written in the same transaction that accepts the move, so a server killed at any moment
restarts with every accepted move (the engine rebuilds the game by replaying the record).

Seat tokens are never stored: only their SHA-256 hashes.

The queries are the shared core's (:mod:`nomercy.web.sqlcore`); this module is SQLite's
dialect of it: the schema and its migrations, the file's lock, and transactions
(``BEGIN IMMEDIATE``, a savepoint per call of a batch).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nomercy.web.sqlcore import COLUMNS, StoreBase, StoreError, not_ours

__all__ = ["SCHEMA_VERSION", "DatabaseLock", "Store", "is_postgres_url"]

SCHEMA_VERSION = 3
#: Seconds one statement waits for another process's write lock before it fails (the server
#: retries; see Lobby.write).
BUSY_TIMEOUT = 1.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    options TEXT NOT NULL,
    seats INTEGER NOT NULL,
    bot TEXT NOT NULL,
    timer INTEGER NOT NULL,
    mode TEXT NOT NULL,
    created REAL NOT NULL,
    game_id TEXT,
    closed REAL,
    hints INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL REFERENCES rooms(code),
    seat INTEGER NOT NULL,
    name TEXT,
    kind TEXT NOT NULL,
    bot TEXT,
    token_hash TEXT,
    PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL REFERENCES rooms(code),
    number INTEGER NOT NULL,
    setup TEXT NOT NULL,
    status TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    result TEXT
);
CREATE INDEX IF NOT EXISTS games_room ON games(room, number);
CREATE TABLE IF NOT EXISTS actions (
    game TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game, idx)
);
"""


#: The columns each table must have for this version to read it (migrations add the rest:
#: ``closed`` in version 2, ``hints`` in version 3).
_COLUMNS = {
    "meta": {"key", "value"},
    **{table: set(columns) for table, columns in COLUMNS.items()},
}
_COLUMNS["rooms"] -= {"closed", "hints"}


def is_postgres_url(database: str | Path) -> bool:
    """Whether ``--database`` names a PostgreSQL database (a ``postgresql://`` or
    ``postgres://`` URL) rather than a SQLite file."""
    text = str(database)
    return text.startswith(("postgresql://", "postgres://"))


class DatabaseLock:
    """An exclusive lock on a database for one server process: ``PATH.lock``, locked with
    ``flock`` (released by the OS when the process ends, even on SIGKILL).

    Two servers on one file would each think they own every room (two people given one seat,
    two games for one room), so the second refuses to start.

    Raises:
        StoreError: another process holds the lock, or the lock file cannot be made.
    """

    def __init__(self, database: str | Path) -> None:
        self.path = Path(f"{database}.lock")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StoreError(
                f"cannot open the database {database}: its lock file {self.path}: {exc}"
            ) from None
        try:
            _lock(self._fd)
        except OSError:
            os.close(self._fd)
            self._fd = None
            raise StoreError(
                f"the database {database} is in use by another nomercy server "
                f"(it holds {self.path})"
            ) from None
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())

    def release(self) -> None:
        """Give the lock up (the file stays; the lock is what counts)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _lock(fd: int) -> None:
    """Lock ``fd`` exclusively without waiting (``OSError`` when it is taken)."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    else:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


class Store(StoreBase):
    """The server's database. Every method is one short transaction.

    Calls are synchronous: the server makes them from one writer thread (``Lobby.write``), never
    from its event loop, because a write waits up to ``BUSY_TIMEOUT`` for another process's
    lock (WAL, ``synchronous=NORMAL``: durable across a killed process; a power cut may lose the
    last transactions). Opening checks that the file can be written.

    >>> from nomercy.web.sqlcore import RoomRow, SeatRow
    >>> store = Store(":memory:")
    >>> store.create_room(RoomRow("ABC", "r", "no-mercy", {}, 2, "greedy", 0, "hand", 0.0, None,
    ...     [SeatRow(0, "Ann", "human", None, "h0"), SeatRow(1, None, "open", None, None)]))
    >>> [r.code for r in store.load_rooms()]
    ['ABC']
    """

    retryable = (sqlite3.OperationalError,)  # locked, busy, read-only, disk full
    errors = (sqlite3.Error,)

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._batch = False
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            # The server calls from its writer thread, not the thread that opened the
            # database, hence check_same_thread=False (one thread at a time uses it).
            self.db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT
            )
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self._check_foreign()
            self.db.executescript(_SCHEMA)
            self._check_columns()
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            #: The schema version the file had when opened (``None``: it was new).
            self.migrated_from: int | None = int(row[0]) if row and str(row[0]).isdigit() else None
            self.version = SCHEMA_VERSION
            if row is None:
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif row[0] in ("1", "2"):
                # Version 1 had no room expiry, version 2 no hints switch (rooms had hints on).
                with self._tx() as db:
                    if row[0] == "1":
                        db.execute("ALTER TABLE rooms ADD COLUMN closed REAL")
                    db.execute("ALTER TABLE rooms ADD COLUMN hints INTEGER NOT NULL DEFAULT 1")
                    db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise StoreError(
                    f"{self.path}: database schema {row[0]}, expected {SCHEMA_VERSION}"
                )
            # A read-only file opens and reads fine, then refuses every room: write now.
            with self._tx() as db:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('opened', ?)", (str(time.time()),))
        except StoreError:
            self.db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database {self.path}: {exc}") from None

    def _tables(self) -> set[str]:
        rows = self.db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        )
        return {name for (name,) in rows}

    def _check_foreign(self) -> None:
        """Refuse a database some other program made: tables, but not ours (no ``meta`` with a
        schema version). Adding our tables to it would mix two programs' data."""
        tables = self._tables()
        if not tables:
            return
        ours = "meta" in tables and {"key", "value"} <= self._columns("meta")
        if ours:
            ours = (
                self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() is not None
            )
        if not ours:
            raise not_ours(self.path, tables)

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}

    def _check_columns(self) -> None:
        """Refuse a database whose tables lack the columns this version reads (a file edited
        by hand, or made by another program with the same table names)."""
        for table, columns in _COLUMNS.items():
            missing = columns - self._columns(table)
            if missing:
                raise StoreError(
                    f"{self.path} is not a nomercy server database: its table {table!r} has no "
                    f"column {', '.join(sorted(missing))}"
                )

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def run_batch(self, calls: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        """See :meth:`StoreBase.run_batch`; the transaction fails to begin or commit when
        another process holds the file's lock too long."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            return [(False, exc)] * len(calls)
        out: list[tuple[bool, Any]] = []
        self._batch = True
        try:
            for call in calls:
                db.execute("SAVEPOINT one")
                try:
                    out.append((True, call()))
                except Exception as exc:
                    db.execute("ROLLBACK TO one")
                    out.append((False, exc))
                db.execute("RELEASE one")
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            return [(False, exc)] * len(calls)
        finally:
            self._batch = False
        return out

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        if self._batch:  # inside run_batch: its savepoint and commit cover this call
            yield db
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def _one(self) -> Iterator[sqlite3.Connection]:
        # Outside a transaction a statement is one of its own (and reads need none).
        yield self.db
