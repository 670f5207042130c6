"""The SQL both web stores share: the stored rows, the tables' columns, and every query that
is the same on SQLite (:mod:`nomercy.web.store`) and PostgreSQL (:mod:`nomercy.web.postgres`).

A store is this core plus its dialect, which says:

- how a statement's parameters are written: the core writes ``?``, :meth:`StoreBase._sql`
  turns it into the driver's mark (PostgreSQL: ``%s``);
- how a statement runs: ``_one`` (one statement, atomic by itself), ``_read`` (reads seen
  together), ``_tx`` (a write transaction; inside :meth:`StoreBase.run_batch` the batch's),
  ``_many`` (one statement for many rows);
- what a write for a room checks first (``_fence``: PostgreSQL's lease) and how its notice
  goes out to the other servers (``notify``: PostgreSQL's ``NOTIFY``; SQLite has none);
- what a duplicate move means (``duplicate``: on PostgreSQL a lost lease, never a second
  copy of a move).

A database several servers share (:class:`SharedStore`, PostgreSQL's) also holds their leases
and carries their notices (:class:`NoticeChannel`): the contract
:mod:`nomercy.web.cluster` works with, without knowing the driver.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from nomercy.core.records import GameRecord

__all__ = [
    "COLUMNS",
    "GameRow",
    "LeaseLost",
    "NoticeChannel",
    "RoomRow",
    "SeatRow",
    "SharedStore",
    "StoreBase",
    "StoreError",
    "not_ours",
]

#: Every table's columns, in their order: the SQLite schema's (PostgreSQL's ``rooms`` adds
#: ``owner`` and ``lease``, and its schema the cluster's tables).
COLUMNS: dict[str, tuple[str, ...]] = {
    "rooms": (
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
        "closed",
        "hints",
    ),
    "seats": ("room", "seat", "name", "kind", "bot", "token_hash"),
    "games": ("id", "room", "number", "setup", "status", "started", "finished", "result"),
    "actions": ("game", "idx", "action", "at"),
}

_ROOM_READ = "code, name, preset, options, seats, bot, timer, mode, created, game_id, hints"
_SEAT_UPDATE = "UPDATE seats SET name=?, kind=?, bot=?, token_hash=? WHERE room=? AND seat=?"


class StoreError(RuntimeError):
    """The database cannot be opened or is not a nomercy server database."""


class LeaseLost(RuntimeError):
    """This server no longer owns the room it wrote for (PostgreSQL: another server took its
    lease over); nothing was written."""


def not_ours(where: str, tables: set[str]) -> StoreError:
    """The error for a database some other program made (``tables``: what it holds)."""
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    return StoreError(
        f"{where} is not a nomercy server database (it holds the tables {shown}); "
        "give another --database"
    )


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
    """What the server needs of a database, with the queries both dialects share (SQLite:
    :class:`~nomercy.web.store.Store`; PostgreSQL: :class:`~nomercy.web.postgres.PgStore`).
    Every method is one short transaction.

    ``notice`` arguments are a message for the other servers of the service, sent with the
    transaction's commit (PostgreSQL's ``NOTIFY``); SQLite, one server alone, drops them.
    """

    #: Errors after which the same call may succeed if tried again (a lock, a lost connection).
    retryable: tuple[type[BaseException], ...] = ()
    #: Every error the database driver raises.
    errors: tuple[type[BaseException], ...] = ()
    #: Errors of an action stored twice (PostgreSQL: a lost lease, :class:`LeaseLost`; SQLite,
    #: one server alone: none, such an error is the driver's).
    duplicate: tuple[type[BaseException], ...] = ()
    #: Whether several servers share this database (leases, notices).
    shared = False
    #: The database as given (a path or a URL without its password).
    path: str = ""
    #: What closing a room clears besides its game (PostgreSQL: its owner and lease).
    _close_clears = ""

    # ------------------------------------------------------------------ the dialect
    def close(self) -> None:
        """Close the database."""
        raise NotImplementedError

    def run_batch(self, calls: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        """Run ``calls`` (this store's method calls) in one transaction, each in its own
        savepoint: one commit for many writes (the server's writer thread batches what
        queued up while the previous batch ran). Returns ``(True, result)`` or
        ``(False, exception)`` per call; a call that fails leaves no trace, and if the
        transaction cannot begin or commit every call fails with that error."""
        raise NotImplementedError

    def _sql(self, query: str) -> str:
        """``query`` (written with ``?`` marks) in the driver's form."""
        return query

    def _one(self) -> AbstractContextManager[Any]:
        """The connection for one statement (atomic by itself)."""
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        """The connection for several reads that belong together."""
        return self._one()

    def _tx(self) -> AbstractContextManager[Any]:
        """The connection inside a write transaction (in a batch: the batch's)."""
        raise NotImplementedError

    def _many(self, db: Any, query: str, rows: list[tuple[Any, ...]]) -> None:
        """Run ``query`` (in the driver's form) once per row of ``rows``."""
        db.executemany(query, rows)

    def _fence(self, db: Any, code: str | None) -> None:
        """Check, in the write's transaction, that this server may write room ``code``
        (PostgreSQL: it holds the room's lease; :class:`LeaseLost` otherwise)."""

    def notify(self, notice: str) -> None:
        """Send ``notice`` to the other servers with this transaction's commit."""

    # ------------------------------------------------------------------ rooms
    def create_room(self, room: RoomRow) -> float | None:
        """Store a new room and its seats (``None``: done; see ``PgStore.create_room``)."""
        with self._tx() as db:
            self._insert_room(db, room)
        return None

    def _insert_room(
        self,
        db: Any,
        room: RoomRow,
        columns: str = "",
        values: str = "",
        more: tuple[Any, ...] = (),
    ) -> None:
        """Insert ``room`` and its seats; ``columns``, ``values`` and ``more``: further
        columns of the room's row (``", owner"``), their SQL (``", ?"``) and parameters."""
        names = ", ".join(COLUMNS["rooms"])
        marks = ",".join("?" * len(COLUMNS["rooms"]))
        db.execute(
            self._sql(f"INSERT INTO rooms ({names}{columns}) VALUES ({marks}{values})"),
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
                *more,
            ),
        )
        self._many(
            db,
            self._sql("INSERT INTO seats VALUES (?,?,?,?,?,?)"),
            [(room.code, s.seat, s.name, s.kind, s.bot, s.token_hash) for s in room.seat_rows],
        )

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code exists."""
        with self._one() as db:
            query = self._sql("SELECT 1 FROM rooms WHERE code=?")
            return db.execute(query, (code,)).fetchone() is not None

    def update_seat(self, code: str, seat: SeatRow, *, notice: str | None = None) -> None:
        """Store a seat's new name, kind, bot or token hash."""
        with self._tx() as db:
            self._fence(db, code)
            db.execute(
                self._sql(_SEAT_UPDATE),
                (seat.name, seat.kind, seat.bot, seat.token_hash, code, seat.seat),
            )
            if notice is not None:
                self.notify(notice)

    def close_room(self, code: str, *, notice: str | None = None) -> None:
        """Close an expired room: it is no longer loaded; its unfinished game is abandoned
        (its finished games stay, as replays)."""
        with self._tx() as db:
            self._fence(db, code)
            db.execute(
                self._sql(
                    f"UPDATE rooms SET closed=?, game_id=NULL{self._close_clears} WHERE code=?"
                ),
                (time.time(), code),
            )
            db.execute(
                self._sql("UPDATE games SET status='abandoned' WHERE room=? AND status='playing'"),
                (code,),
            )
            if notice is not None:
                self.notify(notice)

    def load_room(self, code: str) -> RoomRow | None:
        """One open room with its seats, or ``None``."""
        rooms = self._load("AND code=?", (code,))
        return rooms[0] if rooms else None

    def load_rooms(self) -> list[RoomRow]:
        """Every open room with its seats, oldest first."""
        return self._load("", ())

    def _load(self, where: str, args: tuple[Any, ...]) -> list[RoomRow]:
        seats = self._sql(
            "SELECT seat, name, kind, bot, token_hash FROM seats WHERE room=? ORDER BY seat"
        )
        with self._read() as db:
            rows = db.execute(
                self._sql(
                    f"SELECT {_ROOM_READ} FROM rooms WHERE closed IS NULL {where} "
                    "ORDER BY created, code"
                ),
                args,
            ).fetchall()
            rooms: list[RoomRow] = []
            for row in rows:
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
                room.seat_rows = [SeatRow(*r) for r in db.execute(seats, (room.code,))]
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
            self._fence(db, code)
            db.execute(
                self._sql("INSERT INTO games VALUES (?,?,?,?,?,?,?,?)"),
                (game_id, code, number, record.dumps(), "playing", now, None, None),
            )
            db.execute(self._sql("UPDATE rooms SET game_id=? WHERE code=?"), (game_id, code))
            self._many(
                db,
                self._sql(_SEAT_UPDATE),
                [(s.name, s.kind, s.bot, s.token_hash, code, s.seat) for s in seats],
            )
            if notice is not None:
                self.notify(notice)

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

        One transaction: the move and, for the last move, the result and the room's release
        (``room``: the room's code, which this server must own).

        Raises:
            LeaseLost: another server owns the room, or stored this move first.
            Exception: the driver's, when the write failed (the caller reloads the game).
        """
        now = time.time()
        with self._tx() as db:
            self._fence(db, room)
            try:
                db.execute(
                    self._sql("INSERT INTO actions VALUES (?,?,?,?)"),
                    (game_id, index, action, now),
                )
            except self.duplicate:
                raise LeaseLost(f"move {index} of game {game_id} is stored already") from None
            if finished is not None:
                db.execute(
                    self._sql(
                        "UPDATE games SET status='finished', finished=?, result=? WHERE id=?"
                    ),
                    (now, json.dumps(finished), game_id),
                )
                db.execute(self._sql("UPDATE rooms SET game_id=NULL WHERE code=?"), (room,))
            if notice is not None:
                self.notify(notice)

    def load_game(self, game_id: str) -> GameRow | None:
        """A game with its record (actions included), or ``None``."""
        with self._read() as db:
            row = db.execute(
                self._sql(
                    "SELECT id, room, number, setup, status, started, finished, result "
                    "FROM games WHERE id=?"
                ),
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            record = GameRecord.loads(row[3])
            query = self._sql("SELECT action FROM actions WHERE game=? ORDER BY idx")
            record.actions = [a for (a,) in db.execute(query, (game_id,))]
        result = json.loads(row[7]) if row[7] is not None else None
        if result is not None:
            record.result = dict(result)
        return GameRow(row[0], row[1], row[2], record, row[4], row[5], row[6], result)

    def finished_games(self, code: str) -> list[str]:
        """The ids of a room's finished games, in order."""
        query = "SELECT id FROM games WHERE room=? AND status='finished' ORDER BY number"
        with self._one() as db:
            return [gid for (gid,) in db.execute(self._sql(query), (code,))]

    def games_count(self, code: str) -> int:
        """How many games the room has started."""
        with self._one() as db:
            query = self._sql("SELECT COUNT(*) FROM games WHERE room=?")
            row = db.execute(query, (code,)).fetchone()
            return int(row[0]) if row else 0


class NoticeChannel:
    """A connection of its own to a shared database, for the servers' notices: it listens
    (:meth:`received`) or sends at once (:meth:`send`), apart from the writer's transactions.
    Its methods raise the store's ``errors`` when the connection fails."""

    @property
    def usable(self) -> bool:
        """Whether it is open and unbroken."""
        raise NotImplementedError

    async def send(self, notice: str) -> None:
        """Send ``notice`` to every server listening."""
        raise NotImplementedError

    def received(self, timeout: float) -> AsyncIterator[str]:
        """The notices every server sends (this one's too), as they come, for ``timeout``
        seconds at most (a listening channel's)."""
        raise NotImplementedError

    async def close(self) -> None:
        """Close the connection."""
        raise NotImplementedError


class SharedStore(StoreBase):
    """A database several servers share (:class:`~nomercy.web.postgres.PgStore`): besides the
    rooms, each server's lease on the rooms it plays, the room budgets of the whole service,
    and the notices between the servers (see :mod:`nomercy.web.cluster`)."""

    shared = True
    #: Seconds a connection attempt waits before it fails.
    connect_timeout: float = 5.0

    def create_room(
        self,
        room: RoomRow,
        *,
        address: str | None = None,
        per_hour: int = 0,
        max_rooms: int = 0,
    ) -> float | None:
        """Store a new room and its seats, owned by this server. With ``address`` and
        ``per_hour``: at most ``per_hour`` rooms from that address in any hour, across every
        server; ``max_rooms``: open rooms at most. Returns ``None`` (done) or, refused: the
        seconds until the address may create one again, or ``-1.0``: the service is full."""
        raise NotImplementedError

    def heartbeat(self, ttl: float) -> tuple[set[str], set[str]]:
        """Renew this server's lease for ``ttl`` seconds; the servers alive and the rooms this
        server owns."""
        raise NotImplementedError

    def claim(self, limit: int, code: str | None = None) -> list[str]:
        """Take up to ``limit`` open rooms nobody owns (``code``: that room only); the rooms
        taken."""
        raise NotImplementedError

    def owner(self, code: str) -> str | None:
        """The live server that owns room ``code`` (``None``: nobody, or closed)."""
        raise NotImplementedError

    def release(self, codes: list[str] | None = None, *, notice: str | None = None) -> list[str]:
        """Give up this server's rooms (``codes``: those only; all: its lease too), sending
        ``notice`` with the commit; the rooms released."""
        raise NotImplementedError

    async def channel(self, *, listen: bool = False) -> NoticeChannel:
        """A new connection for notices (``listen``: one that receives them)."""
        raise NotImplementedError
