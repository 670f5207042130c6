"""SQLite storage for the web server: rooms, seats, games and every accepted action.

One database file (stdlib :mod:`sqlite3`, WAL journal). A game is stored as its setup (the
:class:`~nomercy.core.records.GameRecord` without actions) plus one row per accepted action,
written in the same transaction that accepts the move, so a server killed at any moment
restarts with every accepted move (the engine rebuilds the game by replaying the record).

Seat tokens are never stored: only their SHA-256 hashes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nomercy.core.records import GameRecord

__all__ = [
    "DatabaseLock",
    "GameRow",
    "LeaseLost",
    "RoomRow",
    "SeatRow",
    "Store",
    "StoreBase",
    "StoreError",
    "is_postgres_url",
    "open_store",
]

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


#: The columns each table must have (after migrations) for this version to read it.
_COLUMNS = {
    "meta": {"key", "value"},
    "rooms": {
        "code",
        "name",
        "preset",
        "options",
        "seats",
        "bot",
        "timer",
        "mode",
        "created",
        "game_id",
    },
    "seats": {"room", "seat", "name", "kind", "bot", "token_hash"},
    "games": {"id", "room", "number", "setup", "status", "started", "finished", "result"},
    "actions": {"game", "idx", "action", "at"},
}


class StoreError(RuntimeError):
    """The database cannot be opened or is not a nomercy server database."""


class LeaseLost(RuntimeError):
    """This server no longer owns the room it wrote for (PostgreSQL: another server took its
    lease over); nothing was written."""


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


@dataclass
class SeatRow:
    """A stored seat."""

    seat: int
    name: str | None
    kind: str
    bot: str | None
    token_hash: str | None


@dataclass
class RoomRow:
    """A stored room with its seats."""

    code: str
    name: str
    preset: str
    options: dict[str, Any]
    seats: int
    bot: str
    timer: int
    mode: str
    created: float
    game_id: str | None
    seat_rows: list[SeatRow] = field(default_factory=list)
    closed: float | None = None
    hints: bool = True


@dataclass
class GameRow:
    """A stored game: its record (setup plus actions), status and result."""

    id: str
    room: str
    number: int
    record: GameRecord
    status: str
    started: float
    finished: float | None
    result: dict[str, Any] | None


class StoreBase:
    """What the server needs of a database (SQLite: :class:`Store`; PostgreSQL:
    :class:`nomercy.web.postgres.PgStore`). Every method is one short transaction.

    ``notice`` arguments are a message for the other servers of the service, sent with the
    transaction's commit (PostgreSQL's ``NOTIFY``); SQLite, one server alone, drops them.
    """

    #: Errors after which the same call may succeed if tried again (a lock, a lost connection).
    retryable: tuple[type[BaseException], ...] = ()
    #: Every error the database driver raises.
    errors: tuple[type[BaseException], ...] = ()
    #: Whether several servers share this database (leases, notices).
    shared = False
    #: The database as given (a path or a URL without its password).
    path: str = ""

    def close(self) -> None:
        """Close the database."""
        raise NotImplementedError

    def run_batch(self, calls: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        """Run ``calls`` in one transaction, each in its own savepoint."""
        raise NotImplementedError

    def create_room(self, room: RoomRow) -> float | None:
        """Store a new room and its seats (``None``: done; see ``PgStore.create_room``)."""
        raise NotImplementedError

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code exists."""
        raise NotImplementedError

    def update_seat(self, code: str, seat: SeatRow, *, notice: str | None = None) -> None:
        """Store a seat's new name, kind, bot or token hash."""
        raise NotImplementedError

    def close_room(self, code: str, *, notice: str | None = None) -> None:
        """Close an expired room."""
        raise NotImplementedError

    def load_rooms(self) -> list[RoomRow]:
        """Every open room with its seats, oldest first."""
        raise NotImplementedError

    def load_room(self, code: str) -> RoomRow | None:
        """One open room with its seats, or ``None``."""
        raise NotImplementedError

    def start_game(
        self,
        code: str,
        game_id: str,
        number: int,
        record: GameRecord,
        seats: list[SeatRow],
        *,
        notice: str | None = None,
    ) -> None:
        """Store a new game, the seats as filled and the room's game."""
        raise NotImplementedError

    def append_action(
        self,
        game_id: str,
        index: int,
        action: str,
        *,
        finished: dict[str, Any] | None = None,
        room: str | None = None,
        notice: str | None = None,
    ) -> None:
        """Store action number ``index``; with ``finished``, close the game too."""
        raise NotImplementedError

    def load_game(self, game_id: str) -> GameRow | None:
        """A game with its record (actions included), or ``None``."""
        raise NotImplementedError

    def finished_games(self, code: str) -> list[str]:
        """The ids of a room's finished games, in order."""
        raise NotImplementedError

    def games_count(self, code: str) -> int:
        """How many games the room has started."""
        raise NotImplementedError

    def notify(self, notice: str) -> None:
        """Send ``notice`` to the other servers with this transaction's commit."""


def open_store(database: str | Path, *, server_id: str | None = None) -> StoreBase:
    """The store for ``--database``: PostgreSQL for a ``postgresql://`` URL (``server_id``: this
    server's, for its leases), else a SQLite file.

    Raises:
        StoreError: it cannot be opened, or is not a nomercy server database.
    """
    if is_postgres_url(database):
        from nomercy.web.postgres import PgStore

        return PgStore(str(database), server_id=server_id)
    return Store(database)


class Store(StoreBase):
    """The server's database. Every method is one short transaction.

    Calls are synchronous: the server makes them from one writer thread (``Lobby.write``), never
    from its event loop, because a write waits up to ``BUSY_TIMEOUT`` for another process's
    lock (WAL, ``synchronous=NORMAL``: durable across a killed process; a power cut may lose the
    last transactions). Opening checks that the file can be written.

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
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(
                f"{self.path} is not a nomercy server database (it holds the tables {shown}); "
                "give another --database"
            )

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
        """Run ``calls`` (Store method calls) in one transaction, each in its own savepoint:
        one commit for many writes (the server's writer thread batches what queued up while
        the previous batch ran). Returns ``(True, result)`` or ``(False, exception)`` per call;
        a call that fails leaves no trace, and if the transaction cannot begin or commit (a
        lock held too long by another process) every call fails with that error.
        """
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

    # ------------------------------------------------------------------ rooms
    def create_room(self, room: RoomRow) -> float | None:
        """Store a new room and its seats."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO rooms (code, name, preset, options, seats, bot, timer, mode, created, "
                "game_id, closed, hints) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    room.code,
                    room.name,
                    room.preset,
                    json.dumps(room.options),
                    room.seats,
                    room.bot,
                    room.timer,
                    room.mode,
                    room.created,
                    room.game_id,
                    room.closed,
                    int(room.hints),
                ),
            )
            for s in room.seat_rows:
                db.execute(
                    "INSERT INTO seats VALUES (?,?,?,?,?,?)",
                    (room.code, s.seat, s.name, s.kind, s.bot, s.token_hash),
                )
        return None

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code exists."""
        return self.db.execute("SELECT 1 FROM rooms WHERE code=?", (code,)).fetchone() is not None

    def update_seat(self, code: str, seat: SeatRow, *, notice: str | None = None) -> None:
        """Store a seat's new name, kind, bot or token hash."""
        with self._tx() as db:
            db.execute(
                "UPDATE seats SET name=?, kind=?, bot=?, token_hash=? WHERE room=? AND seat=?",
                (seat.name, seat.kind, seat.bot, seat.token_hash, code, seat.seat),
            )

    def close_room(self, code: str, *, notice: str | None = None) -> None:
        """Close an expired room: it is no longer loaded; its unfinished game is abandoned
        (its finished games stay, as replays)."""
        with self._tx() as db:
            db.execute("UPDATE rooms SET closed=?, game_id=NULL WHERE code=?", (time.time(), code))
            db.execute(
                "UPDATE games SET status='abandoned' WHERE room=? AND status='playing'", (code,)
            )

    def load_room(self, code: str) -> RoomRow | None:
        """One open room with its seats, or ``None``."""
        rooms = self._load("AND code=?", (code,))
        return rooms[0] if rooms else None

    def load_rooms(self) -> list[RoomRow]:
        """Every open room with its seats, oldest first."""
        return self._load("", ())

    def _load(self, where: str, args: tuple[Any, ...]) -> list[RoomRow]:
        rooms: list[RoomRow] = []
        query = (
            "SELECT code, name, preset, options, seats, bot, timer, mode, created, game_id, hints "
            f"FROM rooms WHERE closed IS NULL {where} ORDER BY created, code"
        )
        for row in self.db.execute(query, args).fetchall():
            room = RoomRow(
                code=row[0],
                name=row[1],
                preset=row[2],
                options=json.loads(row[3]),
                seats=row[4],
                bot=row[5],
                timer=row[6],
                mode=row[7],
                created=row[8],
                game_id=row[9],
                hints=bool(row[10]),
            )
            room.seat_rows = [
                SeatRow(*r)
                for r in self.db.execute(
                    "SELECT seat, name, kind, bot, token_hash FROM seats WHERE room=? "
                    "ORDER BY seat",
                    (room.code,),
                )
            ]
            rooms.append(room)
        return rooms

    # ------------------------------------------------------------------ games
    def start_game(
        self,
        code: str,
        game_id: str,
        number: int,
        record: GameRecord,
        seats: list[SeatRow],
        *,
        notice: str | None = None,
    ) -> None:
        """Store a new game (its record, no actions yet), the seats as filled, the room's game."""
        now = time.time()
        with self._tx() as db:
            db.execute(
                "INSERT INTO games VALUES (?,?,?,?,?,?,?,?)",
                (game_id, code, number, record.dumps(), "playing", now, None, None),
            )
            db.execute("UPDATE rooms SET game_id=? WHERE code=?", (game_id, code))
            for s in seats:
                db.execute(
                    "UPDATE seats SET name=?, kind=?, bot=?, token_hash=? WHERE room=? AND seat=?",
                    (s.name, s.kind, s.bot, s.token_hash, code, s.seat),
                )

    def append_action(
        self,
        game_id: str,
        index: int,
        action: str,
        *,
        finished: dict[str, Any] | None = None,
        room: str | None = None,
        notice: str | None = None,
    ) -> None:
        """Store action number ``index`` (0-based); with ``finished``, close the game too.

        One transaction: the move and, for the last move, the result and the room's release.

        Raises:
            sqlite3.Error: the write failed (the caller reloads the game from the database).
        """
        now = time.time()
        with self._tx() as db:
            db.execute("INSERT INTO actions VALUES (?,?,?,?)", (game_id, index, action, now))
            if finished is not None:
                db.execute(
                    "UPDATE games SET status='finished', finished=?, result=? WHERE id=?",
                    (now, json.dumps(finished), game_id),
                )
                db.execute("UPDATE rooms SET game_id=NULL WHERE code=?", (room,))

    def load_game(self, game_id: str) -> GameRow | None:
        """A game with its record (actions included), or ``None``."""
        row = self.db.execute(
            "SELECT id, room, number, setup, status, started, finished, result FROM games "
            "WHERE id=?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        record = GameRecord.loads(row[3])
        record.actions = [
            a
            for (a,) in self.db.execute(
                "SELECT action FROM actions WHERE game=? ORDER BY idx", (game_id,)
            )
        ]
        result = json.loads(row[7]) if row[7] is not None else None
        if result is not None:
            record.result = dict(result)
        return GameRow(row[0], row[1], row[2], record, row[4], row[5], row[6], result)

    def finished_games(self, code: str) -> list[str]:
        """The ids of a room's finished games, in order."""
        return [
            gid
            for (gid,) in self.db.execute(
                "SELECT id FROM games WHERE room=? AND status='finished' ORDER BY number", (code,)
            )
        ]

    def games_count(self, code: str) -> int:
        """How many games the room has started."""
        row = self.db.execute("SELECT COUNT(*) FROM games WHERE room=?", (code,)).fetchone()
        return int(row[0])
