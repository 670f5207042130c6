"""PostgreSQL storage for the web server: the SQLite store's tables and semantics, plus what
several servers on one database need (issue 25).

- The same tables (``meta``, ``rooms``, ``seats``, ``games``, ``actions``) with the same
  columns and meanings as :mod:`nomercy.web.store`, so :func:`copy_sqlite` moves a LAN
  server's rooms and replays over row for row.
- **Leases per server.** ``rooms.owner`` names the server that plays the room's game, and
  ``servers.alive_until`` when that server's lease ends (the database's clock, so the servers'
  clocks do not matter). A heartbeat renews its server's one row, however many rooms it owns;
  a room's lease is valid while its owner's row is current. The owner column changes only
  under the room's row lock: a claim takes a room whose owner is missing or dead, and every
  write for a room checks, holding the same row (shared), that this server still owns it
  (:class:`~nomercy.web.store.LeaseLost` otherwise). So a server that was paused past its
  lease cannot write after another took the room over.
- **Room budgets across servers** (``creations``): rooms made per address in the last hour,
  and the number of open rooms, checked in the transaction that creates the room.
- **Notices**: ``NOTIFY nomercy, '...'`` sent in the transaction of the change it announces,
  so a notice goes out exactly when its change is committed (:mod:`nomercy.web.cluster`).

The server calls every method from its one writer thread (``Lobby.write``) with psycopg 3's
synchronous connection: one commit for all the moves queued meanwhile, as with SQLite; the
notices are read in the event loop by an asynchronous connection (``cluster.py``).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.errors

from nomercy.web.sqlcore import (
    COLUMNS,
    LeaseLost,
    NoticeChannel,
    RoomRow,
    SharedStore,
    StoreError,
    not_ours,
)
from nomercy.web.store import Store

__all__ = [
    "CHANNEL",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "PgChannel",
    "PgStore",
    "copy_sqlite",
    "migrate_postgres",
    "redact",
]

#: The ``LISTEN``/``NOTIFY`` channel of the servers of one database.
CHANNEL = "nomercy"
#: Seconds a connection attempt waits before it fails.
CONNECT_TIMEOUT = 5
#: The database's clock, in seconds since the epoch (leases and heartbeats use it).
_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"
#: Whether the server of row ``s`` of ``servers`` is alive: its lease runs. A row without
#: ``alive_until`` is a server of schema 3 (still running during a rolling upgrade), whose
#: heartbeat renews only ``beat``: alive while that is within its 3 s default lease.
_ALIVE = f"(s.alive_until > {_NOW} OR (s.alive_until IS NULL AND s.beat > {_NOW} - 3.0))"
#: ``rooms.lease`` of a room owned under schema 4: a server of schema 3 (during a rolling
#: upgrade) then sees its owner's lease as running, forwards to it and never claims it.
_FOREVER = "'Infinity'::double precision"

#: This version's PostgreSQL schema (the SQLite store has its own,
#: :data:`nomercy.web.store.SCHEMA_VERSION`: the same tables, without the cluster's).
SCHEMA_VERSION = 4

#: Schema versions and the statements that bring a database from the previous one. Version 3
#: is the SQLite store's version 3 (the same tables and columns) with the cluster's tables.
#: Version 4 moves leases from rooms to servers: a heartbeat renewed every owned room's
#: ``rooms.lease`` (some 270 row updates a second at 200 rooms on two servers), now it renews
#: ``servers.alive_until`` alone. ``rooms.lease`` stays, for servers of version 3 still
#: running during the upgrade (see ``_FOREVER``); this version never reads it.
MIGRATIONS: dict[int, str] = {
    3: """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rooms (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    options TEXT NOT NULL,
    seats INTEGER NOT NULL,
    bot TEXT NOT NULL,
    timer INTEGER NOT NULL,
    mode TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    game_id TEXT,
    closed DOUBLE PRECISION,
    hints INTEGER NOT NULL DEFAULT 1,
    owner TEXT,
    lease DOUBLE PRECISION
);
CREATE INDEX rooms_open ON rooms (lease) WHERE closed IS NULL;
CREATE TABLE seats (
    room TEXT NOT NULL REFERENCES rooms(code),
    seat INTEGER NOT NULL,
    name TEXT,
    kind TEXT NOT NULL,
    bot TEXT,
    token_hash TEXT,
    PRIMARY KEY (room, seat)
);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL REFERENCES rooms(code),
    number INTEGER NOT NULL,
    setup TEXT NOT NULL,
    status TEXT NOT NULL,
    started DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION,
    result TEXT
);
CREATE INDEX games_room ON games (room, number);
CREATE TABLE actions (
    game TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    action TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, idx)
);
CREATE TABLE servers (
    id TEXT PRIMARY KEY,
    started DOUBLE PRECISION NOT NULL,
    beat DOUBLE PRECISION NOT NULL
);
CREATE TABLE creations (address TEXT NOT NULL, at DOUBLE PRECISION NOT NULL);
CREATE INDEX creations_address ON creations (address, at);
""",
    4: """
ALTER TABLE servers ADD COLUMN alive_until DOUBLE PRECISION;
DROP INDEX rooms_open;
CREATE INDEX rooms_owner ON rooms (owner) WHERE closed IS NULL;
""",
}
assert max(MIGRATIONS) == SCHEMA_VERSION

#: A lock number for migrations and room creation (``pg_advisory_xact_lock``): one server
#: migrates at a time, and room budgets are counted and spent in one step.
_MIGRATE_LOCK = 0x6E6D0001
_CREATE_LOCK = 0x6E6D0002


@functools.cache
def _marks(query: str) -> str:
    """``query``, written with the core's ``?`` marks, with psycopg's ``%s``."""
    return query.replace("?", "%s")


def redact(url: str) -> str:
    """``url`` without its password (for messages and logs).

    >>> redact("postgresql://ann:secret@db:5432/cards")
    'postgresql://ann:***@db:5432/cards'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://..."
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def connect(url: str, *, autocommit: bool = True) -> psycopg.Connection[Any]:
    """A synchronous connection to ``url``.

    Raises:
        StoreError: a malformed URL or an unreachable (or refusing) server, in one line.
    """
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.ProgrammingError as exc:  # a malformed conninfo
        raise StoreError(f"bad PostgreSQL URL {redact(url)}: {_first_line(exc)}") from None
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {redact(url)}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _tables(db: psycopg.Connection[Any]) -> set[str]:
    rows = db.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    )
    return {name for (name,) in rows}


def _version(db: psycopg.Connection[Any]) -> int | None:
    """The schema version of the database (``None``: empty).

    Raises:
        StoreError: tables, but not a nomercy server's.
    """
    tables = _tables(db)
    if not tables:
        return None
    row = None
    if "meta" in tables:
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if row is None or not str(row[0]).isdigit():
        raise not_ours("the database", tables)
    return int(row[0])


def migrate_postgres(url: str) -> tuple[int | None, int]:
    """Bring the database at ``url`` to this version's schema (one server at a time: an
    advisory lock). Returns the version before (``None``: it was empty) and after.

    Raises:
        StoreError: unreachable, not a nomercy database, or a newer schema than this version's.
    """
    db = connect(url)
    try:
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            before = _version(db)
            if before is not None and before > SCHEMA_VERSION:
                raise StoreError(
                    f"{redact(url)}: database schema {before}, newer than this server's "
                    f"{SCHEMA_VERSION}: upgrade nomercy"
                )
            start = before or 0
            for version in sorted(v for v in MIGRATIONS if v > start):
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        db.execute(statement.encode())
                db.execute(
                    "INSERT INTO meta VALUES ('schema', %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (str(version),),
                )
        return before, SCHEMA_VERSION
    except psycopg.Error as exc:
        raise StoreError(f"cannot migrate {redact(url)}: {_first_line(exc)}") from None
    finally:
        db.close()


class PgStore(SharedStore):
    """The server's PostgreSQL database (see the module's docstring).

    ``server_id``: this server's id; with it, every write for a room checks that this server
    owns the room (its lease), and rooms it creates are its own.
    """

    retryable = (psycopg.OperationalError, psycopg.errors.LockNotAvailable)
    errors = (psycopg.Error,)
    duplicate = (psycopg.errors.UniqueViolation,)
    connect_timeout = CONNECT_TIMEOUT
    _close_clears = ", owner=NULL, lease=NULL"  # a closed room's lease ends

    def __init__(self, url: str, *, server_id: str | None = None) -> None:
        self.url = url
        self.path = redact(url)
        self.server_id = server_id
        self._batch = False
        self._lone = False  # running a batch of one call: a lone statement needs no BEGIN
        # The writer thread runs every call, but a caller in another thread (tests, startup)
        # waits for the batch in progress rather than mixing into its transaction.
        self._lock = threading.RLock()
        migrate_postgres(url)
        self.db = connect(url)
        try:
            self.db.execute("SET application_name = 'nomercy serve'")
            with self._tx() as db:
                db.execute(
                    "INSERT INTO meta VALUES ('opened', %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (str(time.time()),),
                )
        except psycopg.Error as exc:
            self.db.close()
            raise StoreError(f"cannot open the database {self.path}: {_first_line(exc)}") from None

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def _reconnect(self) -> None:
        """Open the connection again if it broke (the server restarted, the network)."""
        if self.db.closed or self.db.broken:
            self.db.close()
            self.db = connect(self.url)

    def run_batch(self, calls: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        """Run ``calls`` in one transaction, each in its own savepoint (see
        :meth:`Store.run_batch`)."""
        with self._lock:
            return self._run_batch(calls)

    def _run_batch(self, calls: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        try:
            self._reconnect()
        except StoreError as exc:
            return [(False, psycopg.OperationalError(str(exc)))] * len(calls)
        out: list[tuple[bool, Any]] = []
        self._batch = True
        try:
            if len(calls) == 1:
                # One call: its own transaction (no savepoint), and a move alone is one
                # statement, atomic by itself (append_action).
                self._batch, self._lone = False, True
                try:
                    out.append((True, calls[0]()))
                except psycopg.OperationalError:
                    raise
                except Exception as exc:
                    out.append((False, exc))
                return out
            with self.db.transaction():
                for call in calls:
                    try:
                        with self.db.transaction():
                            out.append((True, call()))
                    except psycopg.OperationalError:
                        raise  # the connection is gone: the whole batch failed
                    except Exception as exc:
                        out.append((False, exc))
        except psycopg.Error as exc:
            return [(False, exc)] * len(calls)
        finally:
            self._batch = self._lone = False
        return out

    @contextmanager
    def _one(self) -> Iterator[psycopg.Connection[Any]]:
        """The connection for one statement: atomic by itself, so it needs no ``BEGIN`` and
        ``COMMIT`` of its own (two round trips) outside a batch; inside one it is part of the
        batch's transaction."""
        with self._lock:
            yield self.db

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection[Any]]:
        with self._lock:
            if self._batch:
                yield self.db
                return
            with self.db.transaction():
                yield self.db

    def _read(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        return self._tx()  # one snapshot for reads that belong together

    def _sql(self, query: str) -> str:
        return _marks(query)

    def _many(self, db: psycopg.Connection[Any], query: str, rows: list[tuple[Any, ...]]) -> None:
        with db.cursor() as cur:
            cur.executemany(query, rows)

    def _fence(self, db: psycopg.Connection[Any], code: str | None) -> None:
        """Hold the room's row (shared) and check this server owns it. That suffices: the
        owner changes only under this row's lock (a claim of a dead owner's room), so a write
        that passes commits before any claim of the room, and the claimer then loads it.

        Raises:
            LeaseLost: another server owns the room now.
        """
        if self.server_id is None or code is None:
            return
        row = db.execute("SELECT owner FROM rooms WHERE code=%s FOR SHARE", (code,)).fetchone()
        if row is None or row[0] != self.server_id:
            raise LeaseLost(f"room {code} is owned by {row[0] if row else 'nobody'} now")

    def notify(self, notice: str) -> None:
        """Send ``notice`` to every server listening, when this transaction commits."""
        with self._one() as db:
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice))

    # ------------------------------------------------------------------ rooms
    def create_room(
        self,
        room: RoomRow,
        *,
        address: str | None = None,
        per_hour: int = 0,
        max_rooms: int = 0,
    ) -> float | None:
        """See :meth:`SharedStore.create_room`: the budgets are counted and spent under one
        advisory lock; the room's lease is this server's heartbeat."""
        with self._tx() as db:
            if (address is not None and per_hour > 0) or max_rooms > 0:
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
            if max_rooms > 0:
                row = db.execute("SELECT count(*) FROM rooms WHERE closed IS NULL").fetchone()
                if row is not None and row[0] >= max_rooms:
                    return -1.0
            if address is not None and per_hour > 0:
                now_row = db.execute(f"SELECT {_NOW}").fetchone()
                assert now_row is not None
                now = float(now_row[0])
                db.execute("DELETE FROM creations WHERE at <= %s", (now - 3600.0,))
                times = [
                    t
                    for (t,) in db.execute(
                        "SELECT at FROM creations WHERE address=%s ORDER BY at", (address,)
                    )
                ]
                if len(times) >= per_hour:
                    return float(times[len(times) - per_hour] + 3600.0 - now)
                db.execute("INSERT INTO creations VALUES (%s, %s)", (address, now))
            self._insert_room(db, room, ", owner, lease", f", ?, {_FOREVER}", (self.server_id,))
        return None

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
        """Store action number ``index`` (see :meth:`StoreBase.append_action`); the room must
        be this server's (``room``), and an index stored already is a lost lease, never a
        second copy of a move.

        Raises:
            LeaseLost: another server owns the room, or stored this move first.
        """
        lone = self._lone and finished is None and notice is not None
        if not (lone and room is not None and self.server_id is not None):
            super().append_action(
                game_id, index, action, finished=finished, room=room, notice=notice
            )
            return
        # One statement, one round trip: the lease check (the room's row held shared), the
        # move, and its notice, committed together.
        try:
            row = self.db.execute(
                "WITH f AS (SELECT 1 FROM rooms WHERE code=%s AND owner=%s FOR SHARE) "
                "INSERT INTO actions (game, idx, action, at) SELECT %s, %s, %s, %s FROM f "
                "RETURNING pg_notify(%s, %s)",
                (room, self.server_id, game_id, index, action, time.time(), CHANNEL, notice),
            ).fetchone()
        except psycopg.errors.UniqueViolation:
            raise LeaseLost(f"move {index} of game {game_id} is stored already") from None
        if row is None:
            raise LeaseLost(f"room {room} is owned by another server now")

    # ------------------------------------------------------------------ servers and leases
    def heartbeat(self, ttl: float) -> tuple[set[str], set[str]]:
        """Say this server lives: renew its lease (its one ``servers`` row) for ``ttl``
        seconds, whatever the number of rooms it owns. Returns the servers alive and the rooms
        this server owns (one statement, one round trip)."""
        assert self.server_id is not None
        me = self.server_id
        with self._one() as db:
            rows = db.execute(
                # Unreferenced data-modifying CTEs run all the same. The long dead go (a
                # restored copy's, a crashed server's); this row never (a server paused for
                # an hour renews it, and its rooms' owner says it lost them).
                "WITH beat AS (INSERT INTO servers (id, started, beat, alive_until) "
                f"VALUES (%s, {_NOW}, {_NOW}, {_NOW} + %s) ON CONFLICT (id) DO UPDATE "
                "SET beat = EXCLUDED.beat, alive_until = EXCLUDED.alive_until RETURNING id), "
                f"gone AS (DELETE FROM servers WHERE beat < {_NOW} - 3600 AND id <> %s "
                "RETURNING id) "
                "SELECT true, code FROM rooms WHERE owner=%s AND closed IS NULL "
                f"UNION ALL SELECT false, s.id FROM servers s WHERE {_ALIVE}",
                (me, ttl, me, me),
            ).fetchall()
        # The statement's snapshot predates its own upsert: add this server.
        alive = {sid for (room, sid) in rows if not room} | {me}
        return alive, {c for (room, c) in rows if room}

    def claim(self, limit: int, code: str | None = None) -> list[str]:
        """Take up to ``limit`` open rooms nobody owns (never owned, released, or whose
        owner's lease ran out or whose owner is gone), oldest first (``code``: that room
        only). This server's heartbeat holds their lease.

        Exact under concurrency: ``dead`` lists the owners dead in this statement's snapshot,
        and the room's row, once locked, is taken only if its owner (as it is now, after any
        concurrent claim) is in that list, so a room another server just claimed is skipped.
        A dead server that revives meanwhile loses the room: its next write is refused.
        """
        me = self.server_id
        assert me is not None
        only = "AND code=%s" if code is not None else ""
        args: tuple[Any, ...] = (me, *((code,) if code is not None else ()), limit)
        with self._one() as db:
            return [
                c
                for (c,) in db.execute(
                    "WITH dead AS (SELECT DISTINCT r.owner FROM rooms r "
                    "WHERE r.closed IS NULL AND r.owner IS NOT NULL AND NOT EXISTS "
                    f"(SELECT 1 FROM servers s WHERE s.id = r.owner AND {_ALIVE})) "
                    f"UPDATE rooms SET owner=%s, lease={_FOREVER} WHERE code IN ("
                    "SELECT code FROM rooms WHERE closed IS NULL "
                    f"AND (owner IS NULL OR owner IN (SELECT owner FROM dead)) {only} "
                    "ORDER BY created, code LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING code",
                    args,
                )
            ]

    def owner(self, code: str) -> str | None:
        """The server that owns ``code`` and is alive (``None``: nobody, or closed)."""
        with self._one() as db:
            row = db.execute(
                "SELECT r.owner FROM rooms r JOIN servers s ON s.id = r.owner "
                f"WHERE r.code=%s AND r.closed IS NULL AND {_ALIVE}",
                (code,),
            ).fetchone()
            return None if row is None else row[0]

    def release(self, codes: list[str] | None = None, *, notice: str | None = None) -> list[str]:
        """Give up this server's rooms (``codes``: those only; all: its lease too) so that
        another server takes them over at once; ``notice`` tells them. Returns the rooms
        released."""
        me = self.server_id
        assert me is not None
        with self._tx() as db:
            if codes is None:
                rows = db.execute(
                    "UPDATE rooms SET owner=NULL, lease=NULL WHERE owner=%s RETURNING code", (me,)
                )
            else:
                rows = db.execute(
                    "UPDATE rooms SET owner=NULL, lease=NULL WHERE owner=%s AND code = ANY(%s) "
                    "RETURNING code",
                    (me, codes),
                )
            released = [c for (c,) in rows]
            if codes is None:
                # Stopping: this server's lease ends too. Not for a few rooms given up: its
                # row is the lease of every room it keeps.
                db.execute("DELETE FROM servers WHERE id=%s", (me,))
            if notice is not None:
                self.notify(notice)
            return released

    async def channel(self, *, listen: bool = False) -> PgChannel:
        """A new connection for notices (``listen``: ``LISTEN`` on :data:`CHANNEL`)."""
        conn = await psycopg.AsyncConnection.connect(
            self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
        )
        if listen:
            try:
                await conn.execute(f"LISTEN {CHANNEL}")
            except BaseException:
                await conn.close()
                raise
        return PgChannel(conn)


class PgChannel(NoticeChannel):
    """A connection of its own for the servers' notices (``LISTEN``/``NOTIFY``), in the event
    loop: psycopg 3's asynchronous connection, autocommit."""

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn

    @property
    def usable(self) -> bool:
        return not self.conn.closed and not self.conn.broken

    async def send(self, notice: str) -> None:
        await self.conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice))

    async def received(self, timeout: float) -> AsyncIterator[str]:
        async for notice in self.conn.notifies(timeout=timeout):
            yield notice.payload

    async def close(self) -> None:
        await self.conn.close()


def copy_sqlite(source: str, url: str) -> dict[str, int]:
    """Copy every room, seat, game and action of the SQLite database ``source`` into the
    PostgreSQL database ``url`` (migrated first), in one transaction. Rooms arrive with no
    owner: the first server to run takes them over. Returns the number of rows per table.

    Raises:
        StoreError: either database cannot be opened, or a room or game of ``source`` is in
            the target already (nothing is copied then).
    """
    sqlite = Store(source)
    try:
        migrate_postgres(url)
        db = connect(url)
        try:
            counts: dict[str, int] = {}
            with db.transaction():
                codes = [c for (c,) in sqlite.db.execute("SELECT code FROM rooms")]
                clash = db.execute(
                    "SELECT code FROM rooms WHERE code = ANY(%s) ORDER BY code LIMIT 5", (codes,)
                ).fetchall()
                if clash:
                    shown = ", ".join(c for (c,) in clash)
                    raise StoreError(
                        f"{redact(url)} holds rooms of {source} already ({shown}): nothing "
                        "copied (copy into a database without them)"
                    )
                for table, names in COLUMNS.items():
                    columns = ", ".join(names)
                    rows = sqlite.db.execute(f"SELECT {columns} FROM {table}").fetchall()
                    marks = ",".join(["%s"] * len(names))
                    with db.cursor() as cur:
                        cur.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)
                    counts[table] = len(rows)
            return counts
        except psycopg.Error as exc:
            raise StoreError(f"cannot copy into {redact(url)}: {_first_line(exc)}") from None
        finally:
            db.close()
    finally:
        sqlite.close()
