"""A room: seats, the game, server-side bots, the turn timer and every connection's updates.

The server is the only authority: a :class:`Room` owns its game at a
:class:`~nomercy.tables.Table` (the table layer every interface shares: the seating during
the game, bot or person, who is away and the bot that plays an away seat; the bots' questions
in :func:`~nomercy.core.decisions.decision_order`'s order and their per-move seeding; what a
timed-out seat does; who may ask for a hint and its seed; the record's seating block). The
room keeps what is about the room and its connections: the seats' names, tokens and kinds
before a game (open, person, bot), the connections, the grace periods that make a person
away, the timer's task. Every move goes through the table (``Table.submit``), is stored in
the database in the move's own transaction, and every connection is sent what its seat may
know.

The room is built in layers, one module each, every layer calling only the ones below it:

- :mod:`~nomercy.web.roomstate`: the room's settings, seats, table and connections, its
  summary, and what it needs of the lobby and the cluster (``RoomLobby``, ``RoomCluster``);
- :mod:`~nomercy.web.broadcast`: what it sends (each seat's state, summaries, notices);
- :mod:`~nomercy.web.gameflow`: starting a game, moves, bots, the turn timer, grace periods,
  the hand's history and what the room forgets of it;
- :mod:`~nomercy.web.seating`: hellos and departures, the host's removals, late joining;
- :mod:`~nomercy.web.following`: resuming, standing down, a copy following its owner;
- this module: :class:`Room`, a client's requests (and forwarding them to the owner), hints.

Concurrency: one asyncio lock per room; the engine is fast, so actions are applied in the event
loop, but the database is written from one writer thread (``Lobby.write``), so a database
locked by another process stalls only the rooms that write, and a failed write is retried (a
bot's or the timer's move until it is stored, a person's for a few seconds before an
``unavailable`` error). Bots, the turn timer and the disconnection grace periods are asyncio
tasks of the room, cancelled when the server stops. Every message to a connection goes through
its own bounded queue and sender task (:class:`Connection`), so a slow client never blocks a
room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Self

from nomercy.tables.coach import Coach, CoachError
from nomercy.tables.table import BotQuestion, HintRefusal, answer, bot_seed
from nomercy.web import messages
from nomercy.web.broadcast import HELLO_HISTORY, SUMMARY_DELAY
from nomercy.web.connections import Connection
from nomercy.web.following import Following
from nomercy.web.gameflow import EVENTS_HELD, HISTORY_PAGE, PRESENCE_WAIT, RETRY_PAUSE
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.roomstate import (
    BOT,
    FINISHED_KEPT,
    HUMAN,
    OPEN,
    RoomCluster,
    RoomLobby,
    RoomState,
    SeatState,
    hash_token,
    seat_json,
    unavailable,
)
from nomercy.web.sqlcore import LeaseLost, RoomRow
from nomercy.web.writer import StoreUnavailable

__all__ = [
    "BOT",
    "EVENTS_HELD",
    "FINISHED_KEPT",
    "HELLO_EVERY",
    "HELLO_HISTORY",
    "HISTORY_PAGE",
    "HUMAN",
    "OPEN",
    "PRESENCE_WAIT",
    "RETRY_PAUSE",
    "SUMMARY_DELAY",
    "BotQuestion",
    "Room",
    "RoomCluster",
    "RoomLobby",
    "RoomState",
    "SeatState",
    "answer",
    "bot_seed",
    "hash_token",
    "seat_json",
]

log = logging.getLogger("nomercy.web")

#: Seconds a connection waits between two hellos (each answered with the whole state).
HELLO_EVERY = 0.5


class Room(Following):
    """A room: its settings, seats, current (or last) game and connections (the layers:
    see the module's docstring)."""

    def __init__(self, lobby: RoomLobby[Self], row: RoomRow) -> None:
        super().__init__(lobby, row)
        # Hints computed in this game, by (move, seat): asking again costs no search.
        self._hint_cache: dict[tuple[str | None, int, int], dict[str, Any]] = {}

    # ------------------------------------------------------------------ client requests
    async def handle(
        self, conn: Connection, data: dict[str, Any], arrived: float | None = None
    ) -> None:
        """One checked client message (a JSON object with a string ``type``); ``arrived``:
        its ``time.perf_counter()`` on arrival (``ServerConfig.timings``).

        Raises:
            ProtocolError: the request is refused; nothing changed.
        """
        kind = data["type"]
        if kind == "ping":
            conn.send(messages.pong())
            return
        if kind == "hello":
            token = data.get("token")
            if token is not None and not isinstance(token, str):
                raise ProtocolError(ErrorCode.MALFORMED, "'token' must be a string")
            now = self.config.clock.monotonic()
            if conn.greeted and token == conn.hello_token and now - conn.hello_at < HELLO_EVERY:
                # A hello answers with the whole state (the hand's history too): the most
                # expensive message, so a connection repeats the same one at most every
                # HELLO_EVERY s (switching seats, e.g. a spectator who joined, is not held up).
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED, f"the same hello at most every {HELLO_EVERY} s"
                )
            if not self.lobby.hello_allowed(conn.address):
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED,
                    f"too many hellos from your address: {self.config.hellos_per_address:g} "
                    "a second at most",
                )
            conn.hello_at, conn.hello_token = now, token
            async with self.lock:
                self.hello(conn, token)
            return
        kinds = ("start", "action", "remove", "hint", "history", "react", "reactions", "late_join")
        if kind not in kinds:
            raise ProtocolError(
                ErrorCode.UNKNOWN_TYPE,
                f"unknown message type {kind[:40]!r}; expected hello, start, action, remove, "
                "hint, history, react, reactions, late_join or ping",
            )
        if not conn.greeted:
            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first (with your seat token)")
        if kind == "history":
            async with self.lock:
                conn.send(await self.history_page(data.get("before")))
            return
        if kind == "hint":
            await self.hint(conn)
            return
        if kind == "remove":
            seat = data.get("seat")
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise ProtocolError(ErrorCode.MALFORMED, "'seat' must be a seat number")
        if kind == "action" and not isinstance(data.get("action"), str):
            raise ProtocolError(ErrorCode.MALFORMED, "'action' must be a string of notation")
        if self.owned:
            try:
                await self.request(conn.seat, data, arrived)
                return
            except LeaseLost:
                self.lost()  # another server took the room over meanwhile: nothing changed
        # Another server plays this room's game: it judges the request (cluster.py).
        cluster = self.lobby.cluster
        assert cluster is not None
        timed = kind == "action" and conn.seat is not None and arrived is not None
        if timed and conn.seat is not None and arrived is not None:
            self.forwarded[conn.seat] = arrived
        try:
            await cluster.forward(self, conn.seat, data)
        except BaseException:
            if timed and conn.seat is not None:
                self.forwarded.pop(conn.seat, None)
            raise

    async def request(
        self, seat: int | None, data: dict[str, Any], arrived: float | None = None
    ) -> None:
        """A checked ``start``, ``action``, ``remove``, ``react``, ``reactions`` or ``late_join``
        request from ``seat`` (``None``: a spectator), from a connection here or one another
        server forwarded. The room must be this server's.

        Raises:
            ProtocolError: the request is refused; nothing changed.
        """
        kind = data["type"]
        if kind in ("react", "reactions"):
            self.reactions.handle(self, seat, data)
            return
        if kind == "late_join":
            self.switch_late_join(seat, data.get("on"))
            return
        if kind == "start":
            async with self.lock:
                await self.start(seat)
            return
        if kind == "remove":
            async with self.lock:
                await self.remove(seat, data["seat"])
            return
        async with self.lock:
            self._arrival = arrived
            try:
                await self.act(seat, data["action"])
            finally:
                self._arrival = None

    async def hint(self, conn: Connection) -> None:
        """The coach's hint for the connection's seat, sent as a ``hint`` message when ready.

        The search runs in a worker thread, as a task of its own, so neither the event loop nor
        this connection's other messages wait for it. Limits: one hint in flight per connection,
        ``hint_workers`` in the whole server, one search per seat and move (asking again gets
        the stored answer).

        Raises:
            ProtocolError: a spectator, hints off in this room, no game, nothing to decide for
                this seat, or the coach busy.
        """
        seat = conn.seat
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators get no hints")
        if not self.hints:
            raise ProtocolError(ErrorCode.HINTS_OFF, "the host turned hints off in this room")
        async with self.lock:
            self._live_game(seat)
            table = self.table
            assert table is not None
            move = table.moves
            key = (self.game_id, move, seat)
            cached = self._hint_cache.get(key)
            if cached is not None:
                conn.send(cached)
                return
            if table.hint_refusal(seat) is HintRefusal.NOT_YOUR_TURN:
                turn = table.to_act
                who = table.names[turn] if turn is not None else "nobody"
                raise ProtocolError(
                    ErrorCode.NOT_YOUR_TURN, f"it is {who}'s turn: hints are for your decisions"
                )
            try:
                whole = await self.whole_table()  # the coach reads the whole hand (NM-9)
            except StoreUnavailable:
                raise unavailable("no hint now") from None
            legal = whole.legal_actions(seat)
            view = whole.view(seat)
            seed = whole.hint_seed(seat)
            game_id = self.game_id
        if conn.hint_pending:
            raise ProtocolError(ErrorCode.HINT_BUSY, "one hint at a time: the last one is coming")
        lobby = self.lobby
        if lobby.hints_running >= self.config.hint_workers:
            raise ProtocolError(
                ErrorCode.HINT_BUSY, "the coach is busy with other hints: ask again in a moment"
            )
        conn.hint_pending = True
        lobby.hints_running += 1
        coach = Coach(
            seed=seed, iterations=self.config.hint_iterations, max_time=self.config.hint_max_time
        )

        async def run() -> None:
            try:
                hint = await asyncio.to_thread(coach.hint, view, legal)
            except CoachError as exc:
                conn.send(ProtocolError(ErrorCode.NO_HINT, str(exc)).to_message())
                return
            except Exception:
                log.exception("room %s: a hint failed", self.code)
                conn.send(ProtocolError(ErrorCode.SERVER_ERROR, "the coach failed").to_message())
                return
            finally:
                conn.hint_pending = False
                lobby.hints_running -= 1
            message = messages.hint(game_id, move, seat, hint.to_json())
            if len(self._hint_cache) >= 256:
                self._hint_cache.pop(next(iter(self._hint_cache)))
            self._hint_cache[key] = message
            conn.send(message)

        task = asyncio.get_running_loop().create_task(run())
        lobby.hint_tasks.add(task)
        task.add_done_callback(lobby.hint_tasks.discard)

    async def start(self, seat: int | None) -> None:
        """The host (``seat`` 0) starts a game: open seats get the room's bot."""
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot start the game")
        if seat != 0:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host (seat 0) starts the game")
        if self.started:
            raise ProtocolError(ErrorCode.ALREADY_STARTED, "a game is already in progress")
        await self.start_game()

    async def close(self) -> None:
        """Cancel the room's tasks (server shutdown)."""
        self.closed = True
        await self.stop_tasks()
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follower
