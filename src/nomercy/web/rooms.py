"""The lobby: every room of the server, the database, and the replays of finished games.

The web package's modules, along its seams: :mod:`~nomercy.web.config` (``ServerConfig``),
:mod:`~nomercy.web.connections` (a WebSocket's queue and rate limit),
:mod:`~nomercy.web.writer` (the database thread), :mod:`~nomercy.web.messages` (the wire
format), :mod:`~nomercy.web.room` (one room: seats, game, bots, timer) and this module
(:class:`Lobby`: creating, finding, joining and expiring rooms). The names they define are
importable from here too, as before the split.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

from nomercy.core.errors import NoMercyError
from nomercy.core.game import Game
from nomercy.web import messages
from nomercy.web.cluster import Cluster
from nomercy.web.config import ServerConfig
from nomercy.web.connections import Connection, Delivery, LoopWatch, address_key
from nomercy.web.database import open_store
from nomercy.web.protocol import (
    ErrorCode,
    ProtocolError,
    RoomSettings,
    TokenBucket,
    check_deal,
    check_name,
    check_option_bounds,
    same_name,
)
from nomercy.web.replays import Replay, ReplayCache
from nomercy.web.room import (
    BOT,
    HELLO_EVERY,
    HELLO_HISTORY,
    HISTORY_PAGE,
    HUMAN,
    OPEN,
    RETRY_PAUSE,
    SUMMARY_DELAY,
    BotQuestion,
    Room,
    RoomState,
    SeatState,
    answer,
    bot_seed,
    hash_token,
    seat_json,
)
from nomercy.web.sqlcore import GameRow, LeaseLost, RoomRow, SeatRow, SharedStore, StoreBase
from nomercy.web.writer import StoreUnavailable, Writer, log_unsent

__all__ = [
    "BOT",
    "HELLO_EVERY",
    "HELLO_HISTORY",
    "HISTORY_PAGE",
    "HUMAN",
    "OPEN",
    "RETRY_PAUSE",
    "SUMMARY_DELAY",
    "AddressBudgets",
    "BotQuestion",
    "Connection",
    "Delivery",
    "HourlyLimit",
    "Lobby",
    "LoopWatch",
    "Room",
    "RoomState",
    "SeatState",
    "ServerConfig",
    "SocketCount",
    "StoreUnavailable",
    "Writer",
    "address_key",
    "answer",
    "bot_seed",
    "hash_token",
    "open_store",
]

log = logging.getLogger("nomercy.web")
T = TypeVar("T")

#: The name of the lobby's sweeping task (it always waits on the clock: tests/web/clocks.py).
SWEEP_TASK = "nomercy-lobby-sweep"

#: Seconds a copy of another server's room stays loaded with no connection here.
COPY_IDLE = 60.0

#: Room codes: no 0/O or 1/I, so a code read aloud or typed is unambiguous.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10


class HourlyLimit:
    """At most ``per_hour`` events per key in any hour (a sliding window; 0: no limit).

    >>> limit = HourlyLimit(2)
    >>> [limit.take("a", t) for t in (0.0, 1.0, 2.0)], limit.take("a", 3600.0)
    ([None, None, 3598.0], None)
    """

    def __init__(self, per_hour: int) -> None:
        self.per_hour = per_hour
        self._times: dict[str, collections.deque[float]] = {}

    def take(self, key: str, now: float) -> float | None:
        """Count one event for ``key`` (``None``); if the hour's allowance is spent, count
        nothing and return the seconds until the next one is allowed."""
        if self.per_hour <= 0:
            return None
        times = self._times.setdefault(key, collections.deque())
        while times and times[0] <= now - 3600.0:
            times.popleft()
        if len(times) >= self.per_hour:
            return times[0] + 3600.0 - now
        times.append(now)
        return None

    def forget(self, now: float) -> None:
        """Drop keys with no event in the last hour (their memory)."""
        for key in [k for k, t in self._times.items() if not t or t[-1] <= now - 3600.0]:
            del self._times[key]


class AddressBudgets:
    """A token bucket per client address key (``address_key``): ``burst`` requests at once,
    ``rate`` a second sustained (``rate`` 0: no limit). Buckets that have refilled are
    forgotten (:meth:`forget`), so quiet addresses cost no memory."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float]) -> None:
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, key: str | None) -> bool:
        """Spend one of ``key``'s tokens, if it has one (no key: always)."""
        if key is None or self.rate <= 0:
            return True
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.burst, self.rate, self.clock)
        return bucket.take()

    def forget(self, now: float) -> None:
        """Drop the buckets that have refilled (their addresses are quiet)."""
        self._buckets = {
            k: b
            for k, b in self._buckets.items()
            if b.tokens + (now - b.stamp) * b.rate < b.capacity
        }


class SocketCount:
    """Open game sockets per client address key, ``limit`` at most each (0: no limit)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}

    def open(self, key: str | None) -> bool:
        """Count one more socket for ``key``, unless it holds ``limit`` already."""
        if key is None or self.limit <= 0:
            return True
        held = self._open.get(key, 0)
        if held >= self.limit:
            return False
        self._open[key] = held + 1
        return True

    def close(self, key: str | None) -> None:
        """One of ``key``'s sockets closed (after an :meth:`open` that counted it)."""
        if key is None or self.limit <= 0:
            return
        held = self._open.get(key, 0) - 1
        if held > 0:
            self._open[key] = held
        else:
            self._open.pop(key, None)


class Lobby:
    """Every room of the server, the database, and the replays of finished games.

    With SQLite the server owns every room. With PostgreSQL (``StoreBase.shared``) several
    servers share the database: ``rooms`` holds the rooms this server owns (it plays their
    games) and copies of the rooms its clients are in (they follow the owners' notices);
    :class:`~nomercy.web.cluster.Cluster` holds the leases and carries the notices.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.rooms: dict[str, Room] = {}
        self._store: StoreBase | None = None
        # One thread uses the database: writes wait there for another process's lock, not
        # in the event loop, and in order.
        self._writer: Writer | None = None
        self._sweeper: asyncio.Task[None] | None = None
        #: Server-side action times in seconds (``ServerConfig.timings``), newest last.
        self.timings: collections.deque[float] = collections.deque(maxlen=200_000)
        #: Hints being computed now (``ServerConfig.hint_workers`` at most), and their tasks.
        self.hints_running = 0
        self.hint_tasks: set[asyncio.Task[None]] = set()
        #: Rooms created per client address in the last hour (``ServerConfig.rooms_per_hour``).
        self.creations = HourlyLimit(config.rooms_per_hour)
        #: The event loop's stalls (flood detection does not count them against clients).
        self.watch = LoopWatch()
        #: Hellos per client address (``ServerConfig.hellos_per_address``).
        self._hellos = AddressBudgets(
            config.hello_burst, config.hellos_per_address, config.clock.monotonic
        )
        #: Replay requests per client address (``ServerConfig.replays_per_address``).
        self._replay_budgets = AddressBudgets(
            config.replay_burst, config.replays_per_address, config.clock.monotonic
        )
        #: Game sockets per client address (``ServerConfig.sockets_per_address``).
        self.sockets = SocketCount(config.sockets_per_address)
        #: Finished games' replays, built off the event loop and kept as bytes.
        self.replays = ReplayCache(config.replay_cache_bytes, config.replay_page)
        #: This server's id (leases, notices).
        self.server_id = secrets.token_hex(6)
        #: The other servers of a shared (PostgreSQL) database; ``None`` with SQLite.
        self.cluster: Cluster | None = None
        #: Whether the lobby is open and its database answers (``GET /readyz``).
        self.opened = False

    @property
    def store(self) -> StoreBase:
        """The open database."""
        assert self._store is not None, "the lobby is not open"
        return self._store

    @property
    def ready(self) -> bool:
        """Whether this server serves: open, and (shared) its heartbeat is current."""
        if not self.opened:
            return False
        return self.cluster is None or self.cluster.healthy()

    async def write(self, call: Callable[..., T], *args: Any, retry_for: float) -> T:
        """Run ``call(*args)`` (a database call) in the writer thread; retry while the database
        is locked or unwritable, for ``retry_for`` seconds.

        Raises:
            StoreUnavailable: it still failed; the call's transaction was rolled back.
            LeaseLost: another server owns the room the call wrote for.
        """
        assert self._writer is not None, "the lobby is not open"
        store = self.store
        loop = asyncio.get_running_loop()
        end = loop.time() + retry_for
        pause = 0.05
        while True:
            try:
                return await self._writer.submit(functools.partial(call, *args))
            except LeaseLost:
                raise
            except store.retryable as exc:  # locked, busy, read-only, disk full, disconnected
                if loop.time() + pause > end:
                    log.warning("database unavailable: %s", exc)
                    raise StoreUnavailable(str(exc)) from None
            except store.errors as exc:
                log.error("database error: %s", exc)
                raise StoreUnavailable(str(exc)) from None
            await asyncio.sleep(pause)
            pause = min(0.5, pause * 2)

    def submit(self, call: Callable[[], Any]) -> None:
        """Queue a database call whose answer nobody waits for (a notice), in order."""
        if self._writer is None:
            return
        future = self._writer.submit(call)
        future.add_done_callback(log_unsent)

    async def open(self) -> None:
        """Open the database and resume every room where it was (games replayed)."""
        self._store = open_store(self.config.database, server_id=self.server_id)
        self._writer = Writer(self._store)
        self.watch.start()
        if self._store.shared:
            self.cluster = Cluster(self)
            await self.cluster.start()  # listening before any room is read: no notice missed
            self.opened = True
        else:
            for row in self.store.load_rooms():
                state = self.load_state(row.code, row)
                if state is None:
                    continue
                room = self.add_room(state.row)
                room.restore(state, *self.replayed(state))
                if room.started:
                    async with room.lock:
                        room.resume()
            log.info("%d rooms loaded from %s", len(self.rooms), self.config.database)
            self.opened = True
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep(), name=SWEEP_TASK)

    def load_state(self, code: str, row: RoomRow | None = None) -> RoomState | None:
        """A room as stored (``None``: no open room ``code``, or one to close: options past
        today's bounds). A database call: the writer thread's, or at startup."""
        store = self.store
        if row is None:
            row = store.load_room(code)
            if row is None:
                return None
        try:
            check_option_bounds(row.options)
        except ProtocolError as exc:
            # Made before these bounds existed: replaying its game could stall the start.
            log.error("room %s is closed: %s", row.code, exc.message)
            store.close_room(row.code)
            return None
        finished = store.finished_games(row.code)
        games = store.games_count(row.code)
        game: GameRow | None = None
        if row.game_id is not None:
            game = store.load_game(row.game_id)
            if game is None:
                log.error("room %s: game %s is missing", row.code, row.game_id)
        elif finished:
            game = store.load_game(finished[-1])
        return RoomState(row, finished, games, game)

    async def stored(self, code: str) -> tuple[RoomState, Game | None, str | None] | None:
        """Room ``code`` as stored (:meth:`load_state`, in the writer thread), its game
        replayed in a worker thread, and the game's id (``None``: no open room ``code``).

        Raises:
            StoreUnavailable: the database cannot be read.
        """
        state = await self.write(self.load_state, code, retry_for=self.config.action_retry)
        if state is None:
            return None
        return (state, *await asyncio.to_thread(self.replayed, state))

    def add_room(self, row: RoomRow, *, owned: bool = True) -> Room:
        """A new room of this server from its row, registered by its code (``owned``: this
        server plays it; else it is a copy that follows its owner's notices)."""
        room = Room(self, row)
        room.owned = owned
        self.rooms[row.code] = room
        return room

    def replayed(self, state: RoomState) -> tuple[Game | None, str | None]:
        """The stored room's game rebuilt from its record, and its id (``None``: none)."""
        row = state.game
        if row is None:
            return None, None
        try:
            return row.record.replay(), row.id
        except (NoMercyError, TypeError) as exc:
            if row.status == "playing":
                log.error("room %s: game %s does not replay: %s", state.row.code, row.id, exc)
            return None, None

    async def find(self, code: str) -> Room | None:
        """The room ``code``: this server's, or (shared database) a copy loaded now that
        follows its owner (or this server's, if nobody owned it)."""
        room = self.rooms.get(code)
        if room is not None or self.cluster is None:
            return room
        return await self.cluster.load(code)

    def drop(self, room: Room) -> None:
        """Forget a room that is closed (by its owner, or gone from the database)."""
        self.rooms.pop(room.code, None)

    async def resync(self, room: Room) -> None:
        """Reload a room's copy from the database (a notice was missed or failed), holding
        the room's lock."""
        async with room.lock:
            await self.reload(room)

    async def reload(self, room: Room) -> None:
        """:meth:`resync` for a caller that holds the room's lock. The lock keeps the owner's
        notices out while the room is read and restored: a move applied from a notice
        meanwhile (stored after the read) would otherwise be undone by the older read, and
        its players sent a state older than one they have seen."""
        stored = await self.stored(room.code)
        if stored is None:
            self.drop(room)
            room.closed = True
            return
        if room.restore(*stored):
            room.resume()
            if room.game is not None:
                room.broadcast_state([], None, history=True)
        room.broadcast_room()

    async def close(self) -> None:
        """Stop every room's tasks and close the database (shared: hand the rooms over)."""
        self.opened = False
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.watch.stop()
        for room in self.rooms.values():
            await room.close()
        for task in list(self.hint_tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.cluster is not None:
            await self.cluster.stop()
        if self._writer is not None:
            self._writer.stop()
            self._writer = None
        if self._store is not None:
            self._store.close()
            self._store = None

    async def _sweep(self) -> None:
        """Close rooms idle for ``room_idle`` seconds (no connection, no move), and rooms never
        joined idle for ``unjoined_idle`` seconds; forget stale per-address counts, and copies
        of other servers' rooms nobody here watches."""
        limits = [t for t in (self.config.room_idle, self.config.unjoined_idle) if t > 0]
        every = min(60.0, max(0.05, min(limits) / 4)) if limits else 60.0
        if self.cluster is not None:
            every = min(every, 10.0)
        clock = self.config.clock
        while True:
            await clock.sleep(every)
            now = clock.monotonic()
            for room in list(self.rooms.values()):
                if not room.owned:
                    if room.sockets == 0 and now - room.active >= COPY_IDLE:
                        self.rooms.pop(room.code, None)
                        await room.close()
                    continue
                if room.all_sockets() == 0:
                    idle = self.idle_limit(room)
                    if idle > 0 and now - room.active >= idle:
                        await self.expire(room)
            self.creations.forget(now)
            self._hellos.forget(now)
            self._replay_budgets.forget(now)

    def hello_allowed(self, address: str | None) -> bool:
        """Spend one of ``address``'s hellos (its key, see ``address_key``), if it has one.
        One budget for all the address's connections: opening more connections does not buy
        more hellos (each is answered with a whole state)."""
        return self._hellos.take(address)

    def replay_allowed(self, address: str | None) -> bool:
        """Spend one of ``address``'s replay requests (``ServerConfig.replays_per_address``)."""
        return self._replay_budgets.take(address_key(address) if address is not None else None)

    def idle_limit(self, room: Room) -> float:
        """Seconds ``room`` may stay idle (0: for ever)."""
        unjoined = self.config.unjoined_idle
        if not room.joined and unjoined > 0:
            return min(unjoined, self.config.room_idle or unjoined)
        return self.config.room_idle

    async def expire(self, room: Room) -> None:
        """Close an idle room: it leaves the server and the database's open rooms; its
        finished games stay as replays; an unfinished game is abandoned."""
        async with room.lock:
            if room.closed or not room.owned:
                return
            try:
                await self.write(
                    functools.partial(
                        self.store.close_room, room.code, notice=room.notice("closed")
                    ),
                    retry_for=0.0,
                )
            except (StoreUnavailable, LeaseLost):
                return  # the next sweep tries again (or the new owner does)
            self.rooms.pop(room.code, None)
            log.info("room %s closed after %.0f s idle", room.code, self.idle_limit(room))
        await room.close()

    # ------------------------------------------------------------------ rooms
    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                return code

    async def create_room(
        self, settings: RoomSettings, address: str | None = None
    ) -> tuple[Room, str]:
        """A new room with the host in seat 0; returns the room and the host's token.
        ``address``: the client's, for ``rooms_per_hour`` (``None``: not counted). With a
        shared database both budgets count every server's rooms.

        Raises:
            ProtocolError: ``rate_limited`` (429): this address made its rooms for the hour;
                ``server_full`` (503): ``max_rooms`` rooms are open; ``bad_options``: these
                rules cannot deal a game.
            StoreUnavailable: the database refused it.
        """
        shared = self.cluster is not None
        if not shared and self.config.max_rooms and len(self.rooms) >= self.config.max_rooms:
            raise self._full()
        if address is not None and not shared:
            wait = self.creations.take(address_key(address), self.config.clock.monotonic())
            if wait is not None:
                raise self._too_many(wait)
        # The dry run deals a game: in a worker thread, never in the event loop.
        await asyncio.to_thread(check_deal, settings)
        token = secrets.token_urlsafe(24)
        code = self._new_code()
        seats = [SeatRow(0, settings.host_name, HUMAN, None, hash_token(token))]
        seats += [SeatRow(s, None, OPEN, None, None) for s in range(1, settings.seats)]
        row = RoomRow(
            code,
            settings.name,
            settings.preset,
            settings.options,
            settings.seats,
            settings.bot,
            settings.timer,
            settings.mode,
            time.time(),
            None,
            seats,
            hints=settings.hints,
        )
        if shared:
            store = self.store
            assert isinstance(store, SharedStore)
            refused = await self.write(
                functools.partial(
                    store.create_room,
                    row,
                    address=address_key(address) if address is not None else None,
                    per_hour=self.config.rooms_per_hour,
                    max_rooms=self.config.max_rooms,
                ),
                retry_for=self.config.action_retry,
            )
            if refused is not None:
                raise self._full() if refused < 0 else self._too_many(refused)
        else:
            await self.write(self.store.create_room, row, retry_for=self.config.action_retry)
        room = self.add_room(row)
        log.info("room %s created (%s, %d seats)", code, settings.preset, settings.seats)
        return room, token

    def _full(self) -> ProtocolError:
        return ProtocolError(
            ErrorCode.SERVER_FULL,
            f"the server has {self.config.max_rooms} open rooms, its limit; try later",
            503,
        )

    def _too_many(self, wait: float) -> ProtocolError:
        return ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"at most {self.config.rooms_per_hour} new rooms an hour from one address; "
            f"try again in {max(1, round(wait / 60))} min",
            429,
            retry_after=wait,
        )

    async def join(self, code: str, name: Any) -> tuple[int, str]:
        """Take a seat: the lowest open one before the game; once it has started (or every
        seat is held), a bot's seat when the host lets late friends in
        (:meth:`Room.seat_to_take`). Returns the seat and its token.

        Raises:
            ProtocolError: unknown room (404), full, started with late joining closed, or
                name taken (409), bad name (400).
            StoreUnavailable: the database refused it.
        """
        room = await self.find(code)
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"no room {code!r}", 404)
        name = check_name(name, "name")
        token = secrets.token_urlsafe(24)
        if room.owned:
            seat = await self.seat_person(room, name, hash_token(token))
        else:
            assert self.cluster is not None
            data = {"type": "join", "name": name, "hash": hash_token(token)}
            seat = int(await self.cluster.forward(room, None, data))
        return seat, token

    async def seat_person(self, room: Room, name: str, token_hash: str) -> int:
        """Give a checked ``name`` a seat of ``room`` (this server's; :meth:`Room.seat_to_take`),
        held by the token whose hash is ``token_hash``; returns the seat. Taking over a bot's
        seat is announced to the table (a ``seat_taken`` message).

        Raises:
            ProtocolError: full, started with late joining closed, or name taken (409).
            StoreUnavailable: the database refused it.
        """
        async with room.lock:
            seat = room.seat_to_take()
            if seat is None:
                if room.started and not room.late_join:
                    raise ProtocolError(
                        ErrorCode.ALREADY_STARTED,
                        "the game has started and the host keeps late joiners out: "
                        "watch as a spectator",
                        409,
                    )
                raise ProtocolError(ErrorCode.ROOM_FULL, "every seat is taken", 409)
            if any(s.kind == HUMAN and s.name and same_name(s.name, name) for s in room.seats):
                raise ProtocolError(
                    ErrorCode.NAME_TAKEN, f"someone in this room is already called {name}", 409
                )
            was = seat.name if seat.kind == BOT else None
            taken = SeatState(seat.seat, name, HUMAN, None, token_hash)
            await self.write(
                functools.partial(
                    self.store.update_seat,
                    room.code,
                    taken.row(),
                    notice=room.notice("seat", seat=seat_json(taken)),
                ),
                retry_for=self.config.action_retry,
            )
            room.set_seat(taken)
            room.active = self.config.clock.monotonic()
            room.joined = True
            if was is not None:
                log.info("room %s: %s takes over seat %d from a bot", room.code, name, seat.seat)
                room.send_all(messages.seat_taken(seat.seat, name, was, room.started))
            room.broadcast_room()
            return seat.seat

    # ------------------------------------------------------------------ replays
    async def replay(self, game_id: str) -> Replay:
        """A finished game's replay (docs/web-protocol.md), built in a worker thread the first
        time and kept as bytes (:mod:`~nomercy.web.replays`).

        Raises:
            ProtocolError: ``unknown_game`` (404): no such game, or it is still being played.
            StoreUnavailable: the database cannot be read.
        """

        async def load() -> GameRow | None:
            return await self.write(self.store.load_game, game_id, retry_for=0.0)

        replay = await self.replays.get(game_id, load)
        if replay is None:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no finished game {game_id!r}", 404)
        return replay
