"""A room: seats, the game, server-side bots, the turn timer and every connection's updates.

The server is the only authority: a :class:`Room` owns its game at a
:class:`~nomercy.tables.Table` (the table layer every interface shares: the seating during
the game, bot or person, who is away and the bot that plays an away seat; the bots' questions
in :func:`~nomercy.core.decisions.decision_order`'s order and their per-move seeding; what a
timed-out seat does; who may ask for a hint and its seed; the record's seating block). The
room keeps what is about the room and its connections: the seats' names, tokens and kinds
before a game (open, person, bot), the connections, the grace periods that make a person
away, the timer's task. It applies the actions its
seats send (the engine judges them), stores each accepted action in the database in the move's
own transaction, and sends every connection what its seat may know (its
:class:`~nomercy.core.views.PlayerView` and ``event.for_seat(seat)``, in the wire format of
:mod:`~nomercy.web.messages`, and its own legal actions).

Concurrency: one asyncio lock per room; the engine is fast, so actions are applied in the event
loop, but the database is written from one writer thread (``Lobby.write``), so a database
locked by another process stalls only the rooms that write, and a failed write is retried (a
bot's or the timer's move until it is stored, a person's for a few seconds before an
``unavailable`` error). Bots, the turn timer and the disconnection grace periods are asyncio
tasks of the room, cancelled when the server stops. Every message to a connection goes through
its own bounded queue and sender task (:class:`Connection`), so a slow client never blocks a
room; room summaries are coalesced (at most one per ``SUMMARY_DELAY`` per room), so a crowd of
connections saying ``hello`` costs each of them one message, not one per other connection.
Memory: the room's game lets go of its past as it goes (``EVENTS_HELD``, ``Game.forget``: the
record is in the database), so a room holds the same however long its game runs.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import functools
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from nomercy.core.actions import Action, CallUno, Catch, parse_action
from nomercy.core.errors import NoMercyError
from nomercy.core.events import Event
from nomercy.core.game import Game, new_game
from nomercy.core.records import GameRecord
from nomercy.tables.advice import advice_for
from nomercy.tables.coach import Coach, CoachError
from nomercy.tables.table import (
    BotQuestion,
    HintRefusal,
    SeatBot,
    Table,
    TableError,
    answer,
    bot_seed,
)
from nomercy.web import messages
from nomercy.web.config import ServerConfig
from nomercy.web.connections import Connection, Delivery
from nomercy.web.messages import dumps
from nomercy.web.presence import Here, Presence
from nomercy.web.protocol import (
    ErrorCode,
    ProtocolError,
)
from nomercy.web.reactions import Reactions
from nomercy.web.sqlcore import GameRow, LeaseLost, RoomRow, SeatRow, StoreBase
from nomercy.web.writer import StoreUnavailable

__all__ = [
    "BOT",
    "HELLO_HISTORY",
    "HISTORY_PAGE",
    "HUMAN",
    "OPEN",
    "BotQuestion",
    "Room",
    "RoomCluster",
    "RoomLobby",
    "RoomState",
    "SeatState",
    "answer",
    "bot_seed",
    "hash_token",
]

log = logging.getLogger("nomercy.web")
T = TypeVar("T")

#: Seconds a room waits to send its changed summary, so that a burst of changes (a crowd
#: connecting, many hellos) becomes one message per connection.
SUMMARY_DELAY = 0.05
#: Seconds a connection waits between two hellos (each answered with the whole state).
HELLO_EVERY = 0.5
#: Public history entries (the current hand's) a ``hello``'s state carries at most: the
#: newest; the client asks for older ones with ``history`` messages, ``HISTORY_PAGE`` at a time.
HELLO_HISTORY = 60
HISTORY_PAGE = 100
#: The current hand's newest events a room's game keeps when it lets go of its past
#: (``Game.forget``: every action and the older events, which are in the database), done
#: when it holds twice as many events or actions: a room's memory is bounded however long
#: its game runs (issue 43). At least ``HELLO_HISTORY``; a hand longer than this is read
#: whole (bots, hints, old history pages) from the game replayed off the event loop.
EVENTS_HELD = 500
#: Seconds between asking the other servers who is here, while a grace period has run out but
#: some live server has not said yet (``Room._away``).
PRESENCE_WAIT = 0.5
#: Finished games a room summary lists (the newest; the others stay replays by their ids).
FINISHED_KEPT = 20
#: Seconds a bot or the timer waits before retrying a move the database refused.
RETRY_PAUSE = 0.25

HUMAN, BOT, OPEN = "human", "bot", "open"


def hash_token(token: str) -> str:
    """The stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class SeatState:
    """A seat of the room: who holds it (its name, kind and token, as stored) and its
    connections. Whether its person is away is the game's table's (``Table.is_away``)."""

    seat: int
    name: str | None
    kind: str
    bot: str | None
    token_hash: str | None
    conns: set[Connection] = field(default_factory=set)

    def row(self) -> SeatRow:
        """The stored form."""
        return SeatRow(self.seat, self.name, self.kind, self.bot, self.token_hash)


class RoomCluster(Protocol):
    """What a room needs of the other servers (:class:`nomercy.web.cluster.Cluster`, which
    imports this module: the room sees it through this)."""

    def encode(self, kind: str, code: str, fields: dict[str, Any]) -> str:
        """A notice about room ``code``."""
        ...

    def send(self, notice: str) -> None:
        """Send a notice after the database calls queued before it."""
        ...

    def announce(self, room: Room) -> None:
        """Tell the other servers, soon, who is connected to ``room`` here."""
        ...

    def presence_settled(self, room: Room) -> bool:
        """Whether every live server has said who it has in ``room``."""
        ...

    def ask_presence(self, room: Room) -> None:
        """Ask every server who is connected to ``room`` through it."""
        ...

    async def forward(self, room: Room, seat: int | None, data: dict[str, Any]) -> Any:
        """Have ``room``'s owner handle a request; its answer."""
        ...

    async def demote(self, room: Room) -> None:
        """Stop playing ``room`` and follow its new owner."""
        ...


class RoomLobby(Protocol):
    """What a room needs of its server's lobby (:class:`nomercy.web.rooms.Lobby`, which
    imports this module): the database, the other servers, budgets, reloading a room."""

    config: ServerConfig
    rooms: dict[str, Room]
    timings: collections.deque[float]
    hints_running: int
    hint_tasks: set[asyncio.Task[None]]

    @property
    def store(self) -> StoreBase:
        """The open database."""
        ...

    @property
    def cluster(self) -> RoomCluster | None:
        """The other servers of a shared database (``None``: SQLite)."""
        ...

    async def write(self, call: Callable[..., T], *args: Any, retry_for: float) -> T:
        """Run a database call in the writer thread (retried for ``retry_for`` seconds)."""
        ...

    def hello_allowed(self, address: str | None) -> bool:
        """Spend one of ``address``'s hellos, if it has one."""
        ...

    async def resync(self, room: Room) -> None:
        """Reload a copy of a room from the database, taking its lock."""
        ...

    async def reload(self, room: Room) -> None:
        """Reload a copy of a room from the database (the caller holds its lock)."""
        ...


class Room:
    """A room: its settings, seats, current (or last) game and connections."""

    def __init__(self, lobby: RoomLobby, row: RoomRow) -> None:
        self.lobby = lobby
        self.config = lobby.config
        self.code = row.code
        self.name = row.name
        self.preset = row.preset
        self.options = dict(row.options)
        self.bot = row.bot
        self.timer = row.timer
        self.mode = row.mode
        self.hints = row.hints
        self.reactions = Reactions()  # quick reactions and the host's switch (reactions.py)
        #: Whether a person with the invite link may take over a bot's seat once the game has
        #: started (the host's switch; in memory like reactions': a restart opens it again).
        self.late_join = True
        # Hints computed in this game, by (move, seat): asking again costs no search.
        self._hint_cache: dict[tuple[str | None, int, int], dict[str, Any]] = {}
        self.seats = [SeatState(s.seat, s.name, s.kind, s.bot, s.token_hash) for s in row.seat_rows]
        #: The current (or last) game at its table (``nomercy.tables``), seated as the room's
        #: seats were when it started (``_seat_table``).
        self.table: Table | None = None
        self.game_id: str | None = None
        #: The newest finished games' ids (the summary carries them: bounded, issue 43).
        self.finished: collections.deque[str] = collections.deque(maxlen=FINISHED_KEPT)
        self.games_played = 0
        self.conns: set[Connection] = set()
        self.lock = asyncio.Lock()
        self.deadline: float | None = None
        self._deadline_seat: int | None = None
        self._timer_key: tuple[Any, ...] | None = None
        self._in_turn = 0  # in-turn actions so far: the timer restarts when this changes
        self._bot_task: asyncio.Task[None] | None = None
        self._timer_task: asyncio.Task[None] | None = None
        self._grace: dict[int, asyncio.Task[None]] = {}
        self.closed = False
        self._stuck: str | None = None
        self.sockets = 0  # WebSockets attached, greeted or not (ServerConfig.room_connections)
        # Someone besides the host took a seat, or a game started (ServerConfig.unjoined_idle).
        self.joined = any(s.kind == HUMAN and s.seat != 0 for s in self.seats)
        self.active = (
            self.config.clock.monotonic()
        )  # the last move, hello or departure (room expiry)
        self._summary_pending: asyncio.TimerHandle | None = None
        # The state a hello gets, encoded once per game, move, timer and seat (spectators
        # share one): a crowd of hellos costs sends, not views (see hello_state).
        self._hello_key: tuple[Any, ...] | None = None
        self._hello_texts: dict[int | None, str] = {}
        self._arrival: float | None = None  # when the person's action being applied arrived
        #: Whether this server plays the room's game (always, with SQLite); otherwise it
        #: follows the owner's notices and forwards its clients' requests (cluster.py).
        self.owned = True
        #: The room's connections on the other servers (their ``here`` notices: presence.py).
        self.presence = Presence()
        #: Actions forwarded to the owner, by seat: when they arrived (timings).
        self.forwarded: dict[int, float] = {}
        #: The server thought to own the room (a copy's; ``None``: look it up).
        self.owner: str | None = None
        self._notices: collections.deque[dict[str, Any]] = collections.deque()
        self._follower: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ reading
    @property
    def game(self) -> Game | None:
        """The current (or last) game: its table's."""
        return None if self.table is None else self.table.game

    @game.setter
    def game(self, game: Game | None) -> None:
        self.table = None if game is None else self._seat_table(game)

    def _seat_table(self, game: Game) -> Table:
        """``game`` at a table seated as the room's seats are: a bot seat plays with its bot
        (the room's bot by default), made afresh for each move (``Table``'s seeding); a
        person's seat is played by the room's bot while they are away. Who is away carries
        over from the room's previous table (a move taken back, the next game)."""
        try:
            where = (game.rules.preset, game.n)  # ``best``: the strongest bot at this table
            bots = [
                SeatBot.named(s.bot or self.bot, table=where) if s.kind == BOT else None
                for s in self.seats
            ]
            table = Table(game, bots, stand_in=self.bot)
        except TableError as exc:
            # A bot this version no longer has (a room stored by an older one): the room still
            # loads and shows its game; nobody plays the bots' seats (as a failing bot did).
            log.error("room %s: its bots cannot play: %s", self.code, exc)
            return Table(game, [None] * game.n)
        old = self.table
        if old is not None and old.players == table.players:
            for seat in range(table.players):
                if old.is_away(seat) and bots[seat] is None:
                    table.set_away(seat, True)
        return table

    def is_away(self, seat: int) -> bool:
        """Whether ``seat``'s person is away (the room's bot plays it)."""
        return self.table is not None and self.table.is_away(seat)

    def _set_away(self, seat: int, away: bool) -> None:
        """Mark ``seat``'s person away or back at the game's table (a seat the table gives a
        bot, e.g. the last game's table before the next starts, has nobody to be away)."""
        table = self.table
        if table is not None and table.bots[seat] is None:
            table.set_away(seat, away)

    @property
    def started(self) -> bool:
        """Whether a game is in progress."""
        return self.game is not None and not self.game.is_over

    def summary(self) -> dict[str, Any]:
        """The public room summary (docs/web-protocol.md)."""
        return {
            "code": self.code,
            "name": self.name,
            "preset": self.preset,
            "options": self.options,
            "mode": self.mode,
            "timer": self.timer,
            "bot": self.bot,
            "hints": self.hints,
            "reactions": self.reactions.on,
            "late_join": self.late_join,
            "host": 0,
            "started": self.started,
            "game_id": self.game_id if self.started else None,
            "games_played": self.games_played,
            "finished_games": list(self.finished),
            "seats": [
                {
                    "seat": s.seat,
                    "name": s.name,
                    "kind": s.kind,
                    "bot": s.bot,
                    "connected": self.connected(s.seat),
                    "away": self.is_away(s.seat),
                }
                for s in self.seats
            ],
            "spectators": self.spectators(),
        }

    def connected(self, seat: int) -> bool:
        """Whether a connection holds ``seat``, on this server or another."""
        return bool(self.seats[seat].conns) or self.presence.seated(seat)

    def spectators(self) -> int:
        """Spectators watching, on every server."""
        here = sum(1 for c in self.conns if c.seat is None)
        return here + self.presence.spectators()

    def all_sockets(self) -> int:
        """WebSockets attached to the room on every server."""
        return self.sockets + self.presence.sockets()

    def robot(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` now (a bot seat, or a person's seat while away)."""
        return self.table is not None and self.table.robot(seat)

    async def whole_table(self) -> Table:
        """The room's table, its game with the whole hand's history: the table itself while
        its game holds it; else (a hand longer than ``EVENTS_HELD``) a table seated alike
        over the game replayed, in a worker thread, from its stored record up to this move.
        Bots, the timer's bot and hints read the hand's whole public history (the colours a
        draw proves a seat lacks, NM-9), so they decide exactly as in a room that keeps it.
        The caller holds the lock.

        Raises:
            StoreUnavailable: the database did not answer.
        """
        table = self.table
        assert table is not None and self.game_id is not None
        game = table.game
        if not game.hand_forgotten:
            return table
        moves, game_id = game.moves, self.game_id
        row = await self.lobby.write(
            functools.partial(self.lobby.store.load_game, game_id),
            retry_for=self.config.action_retry,
        )
        # A copy of the room may be behind its owner: its own move, not the database's last.
        if row is None or len(row.record.actions) < moves:
            raise RuntimeError(f"game {game_id}: the database lacks moves before {moves}")
        record = dataclasses.replace(row.record, actions=row.record.actions[:moves])
        return self._seat_table(await asyncio.to_thread(record.replay))

    def _bound(self) -> None:
        """Let the game go of its past when it holds ``2 * EVENTS_HELD`` events or actions:
        the room's memory stays bounded however long the game runs (issue 43); the record
        is in the database."""
        game = self.game
        keep = max(EVENTS_HELD, HELLO_HISTORY)  # a hello carries HELLO_HISTORY events
        if game is not None and max(len(game.log), len(game.history)) > 2 * keep:
            game.forget(keep)

    def state_message(
        self,
        seat: int | None,
        events: list[Event],
        last: Action | None,
        *,
        history: bool,
        room: bool = True,
    ) -> dict[str, Any]:
        """The ``state`` message for ``seat`` (``None``: a spectator); ``room=False`` leaves
        the room summary out (the broadcast splices in one encoding for every seat)."""
        game = self.game
        assert game is not None
        actions: list[Action] = []
        advice: Mapping[str, Sequence[Any]] = {}
        view = game.view(seat, history=False)
        history_from = None
        public: list[dict[str, Any]] = []
        if history:
            # The newest HELLO_HISTORY public events of the hand; older ones on request
            # (``history`` messages), so a hello's size does not grow with the hand. The game
            # holds at least that many (EVENTS_HELD): its first ``hand_forgotten`` are gone.
            public = game.public_history()
            held = max(0, len(public) - HELLO_HISTORY)
            history_from = game.hand_forgotten + held
            public = public[held:]
        if seat is not None and not game.is_over and not game.out[seat]:
            actions = game.legal_actions(seat)
            # Consequences a player may not expect, from this seat's view only.
            advice = advice_for(actions, view)
        timer = None
        if self.deadline is not None and self._deadline_seat is not None:
            timer = {"seat": self._deadline_seat, "deadline": self.deadline, "seconds": self.timer}
        return messages.state(
            seat=seat,
            game_id=self.game_id,
            move=game.moves,
            view=messages.view_json(view, public),
            legal=actions,
            advice=advice,
            events=events,
            last=last,
            timer=timer,
            history_from=history_from,
            room=self.summary() if room else None,
        )

    def hello_state(self, seat: int | None) -> str:
        """The encoded ``state`` a ``hello`` (or a removed seat) gets: built once per game,
        move, timer and seat, then reused; the room summary, which changes with every
        connection, is spliced in fresh."""
        game = self.game
        assert game is not None
        key = (id(game), self.game_id, game.moves, game.is_over, self.deadline)
        if key != self._hello_key:
            self._hello_key = key
            self._hello_texts = {}
        text = self._hello_texts.get(seat)
        if text is None:
            message = self.state_message(seat, [], None, history=True, room=False)
            text = self._hello_texts[seat] = dumps(message)[:-1]
        return f'{text},"room":{dumps(self.summary())}}}'

    async def history_page(self, before: Any) -> dict[str, Any]:
        """A ``history`` message: the current hand's public events ``[from, before)``, at most
        ``HISTORY_PAGE`` of them, oldest first. The caller holds the lock. Events the game
        let go of (``EVENTS_HELD``) come from the game replayed (:meth:`whole_table`).

        Raises:
            ProtocolError: ``malformed`` (``before`` not an index), ``not_started``,
                ``unavailable`` (an old page, and the database does not answer).
        """
        if isinstance(before, bool) or not isinstance(before, int) or before < 0:
            raise ProtocolError(ErrorCode.MALFORMED, "'before' must be an event index (>= 0)")
        game = self.game
        if game is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
        gone = game.hand_forgotten
        public = game.public_history()
        end = min(before, gone + len(public))
        start = max(0, end - HISTORY_PAGE)
        if start >= gone:
            page = public[start - gone : end - gone]
        else:
            try:
                whole = (await self.whole_table()).game
            except StoreUnavailable:
                raise _unavailable("the older history is not at hand") from None
            page = whole.public_history()[start:end]
        return messages.history(self.game_id, game.hand_number, start, page)

    # ------------------------------------------------------------------ broadcasting
    def broadcast_room(self) -> None:
        """Send the room summary to every connection, soon: changes within ``SUMMARY_DELAY``
        share one message (a hello storm costs each connection a few summaries, not one per
        hello)."""
        if self._summary_pending is None and not self.closed:
            loop = asyncio.get_running_loop()
            self._summary_pending = loop.call_later(SUMMARY_DELAY, self._send_room)

    def _send_room(self) -> None:
        self._summary_pending = None
        if self.closed:
            return
        text = dumps(messages.room(self.summary()))
        for conn in list(self.conns):
            conn.send(text)

    def broadcast_state(
        self, events: list[Event], last: Action | None, *, history: bool = False
    ) -> None:
        """Send each connection the state for its seat (one encoding per seat)."""
        if self.game is None:
            return
        delivery = None
        if self._arrival is not None and self.config.timings:
            delivery = Delivery(self._arrival, self.lobby.timings)
        cache: dict[int | None, str] = {}
        room = ""
        for conn in list(self.conns):
            if not conn.greeted:
                continue
            text = cache.get(conn.seat)
            if text is None:
                if not room:
                    room = dumps(self.summary())
                # The room summary is the same for every seat: encoded once, spliced in.
                message = self.state_message(conn.seat, events, last, history=history, room=False)
                text = cache[conn.seat] = f'{dumps(message)[:-1]},"room":{room}}}'
            conn.send(text, delivery)

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

    def hello(self, conn: Connection, token: str | None) -> None:
        """Seat ``conn`` (by token) or make it a spectator; send ``welcome`` and the state."""
        seat: int | None = None
        if token is not None:
            wanted = hash_token(token)
            for s in self.seats:
                if s.token_hash is not None and hmac.compare_digest(s.token_hash, wanted):
                    seat = s.seat
                    break
            else:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "that token holds no seat in this room")
        if conn.greeted and conn.seat is not None:
            self.seats[conn.seat].conns.discard(conn)
        conn.seat = seat
        conn.greeted = True
        self.conns.add(conn)
        self.active = self.config.clock.monotonic()
        if seat is not None:
            s = self.seats[seat]
            s.conns.add(conn)
            if self.is_away(seat) and self.owned:
                self._set_away(seat, False)
                log.info("room %s: seat %d is back", self.code, seat)
                self.publish("seat", seat=_seat_json(s, away=False))
        self._presence()
        self.announce()
        self._reschedule_timer()
        conn.send(messages.welcome(seat, self.summary()))
        if self.game is not None:
            conn.send(self.hello_state(seat))
        self.broadcast_room()

    def leave(self, conn: Connection) -> None:
        """A connection closed."""
        self.active = self.config.clock.monotonic()
        self.conns.discard(conn)
        if conn.seat is not None:
            self.seats[conn.seat].conns.discard(conn)
        if conn.greeted:
            self._presence()
            self.broadcast_room()
        self.announce()

    async def remove(self, by: int | None, seat: int) -> None:
        """The host (``by``: the requesting seat) frees a person's seat before the game starts:
        the seat is open again, its token no longer holds it, and its connections watch as
        spectators."""
        if by != 0:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host (seat 0) removes a seat")
        if self.started:
            raise ProtocolError(ErrorCode.ALREADY_STARTED, "seats are fixed once a game runs")
        if not 1 <= seat < len(self.seats) or self.seats[seat].kind != HUMAN:
            raise ProtocolError(
                ErrorCode.BAD_SEAT, f"seat {seat} is not another person's seat in this room"
            )
        freed = SeatState(seat, None, OPEN, None, None)
        await self.lobby.write(
            functools.partial(
                self.lobby.store.update_seat,
                self.code,
                freed.row(),
                notice=self.notice("seat", seat=_seat_json(freed)),
            ),
            retry_for=self.config.action_retry,
        )
        log.info("room %s: the host removed seat %d", self.code, seat)
        self.set_seat(freed)

    def switch_late_join(self, seat: int | None, on: Any) -> None:
        """The host (seat 0) lets late friends take over bots' seats, or keeps them out.

        Raises:
            ProtocolError: not the host, or ``on`` is not a boolean.
        """
        if seat != 0:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host opens or closes late joining")
        if not isinstance(on, bool):
            raise ProtocolError(ErrorCode.MALFORMED, "'on' must be true or false")
        if on != self.late_join:
            self.late_join = on
            self.publish("late_join", on=on)
            self.broadcast_room()

    def seat_to_take(self) -> SeatState | None:
        """The seat a late friend takes: the lowest open seat before a game; else, when the
        host allows it, the lowest bot's seat still in the hand (any bot's between games)."""
        if not self.started:
            for s in self.seats:
                if s.kind == OPEN:
                    return s
        if not self.late_join:
            return None
        game = self.game
        bots = [s for s in self.seats if s.kind == BOT]
        if self.started and game is not None:
            bots = [s for s in bots if not game.out[s.seat]] or bots
        return bots[0] if bots else None

    def set_seat(self, new: SeatState, away: bool = False) -> None:
        """Give a seat its new holder (``away``: its person is away, at the game's table); a
        person who lost it (removed by the host) watches; a person who takes over a bot's seat
        plays it from its next decision on."""
        s = self.seats[new.seat]
        removed = s.kind == HUMAN and new.token_hash != s.token_hash
        taken = s.kind == BOT and new.kind == HUMAN
        name, conns = s.name, list(s.conns)
        s.name, s.kind, s.bot, s.token_hash = new.name, new.kind, new.bot, new.token_hash
        table = self.table
        if taken and table is not None and table.bots[s.seat] is not None:
            table.take_over(s.seat)
            if self.owned:
                self._presence()  # the newcomer has the grace period to connect
                self._reschedule_timer()
        self._set_away(s.seat, away)
        if s.kind == HUMAN and s.seat != 0:
            self.joined = True
        if not removed:
            self.broadcast_room()
            return
        seat = s.seat
        s.conns.clear()
        for c in conns:
            c.seat, c.hello_at = None, 0.0  # it may say hello again at once
            c.send(
                ProtocolError(
                    ErrorCode.REMOVED, f"the host removed {name} from seat {seat}: you watch now"
                ).to_message()
            )
            c.send(messages.welcome(None, self.summary()))
            if self.game is not None:
                c.send(self.hello_state(None))
        self.broadcast_room()

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
                raise _unavailable("no hint now") from None
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

    async def start_game(self, game: Game | None = None) -> None:
        """Fill the open seats with bots, deal a new game and store it.

        ``game``: a game to play instead of a new deal (a position, e.g. to rig a test or
        resume an analysis); its record keeps the start position, so it replays like any.
        """
        seats = [s.row() for s in self.seats]
        for row in seats:
            if row.kind == OPEN:
                row.kind, row.bot, row.name = BOT, self.bot, f"Bot {row.seat}"
        names = [row.name or f"P{row.seat}" for row in seats]
        if game is None:
            # Dealing builds the deck: in a worker thread, so no room waits for it.
            game = await asyncio.to_thread(
                functools.partial(
                    new_game,
                    len(self.seats),
                    rules=self.preset,
                    options=self.options,
                    seed=self.config.seed_source(),
                    names=names,
                )
            )
        elif game.n != len(self.seats):
            raise ValueError(f"a {game.n}-player game for {len(self.seats)} seats")
        game_id = secrets.token_urlsafe(9)
        record = GameRecord.from_game(game)
        record.result = self._table_info(seats)
        notice = None
        if self.lobby.cluster is not None:
            text = record.dumps()
            notice = self.notice(
                "game",
                g=game_id,
                rec=text if len(text) < 6000 else None,  # NOTIFY's payload is under 8000 bytes
                seats=[
                    _seat_json(SeatState(r.seat, r.name, r.kind, r.bot, r.token_hash))
                    for r in seats
                ],
            )
        await self.lobby.write(
            functools.partial(
                self.lobby.store.start_game,
                self.code,
                game_id,
                self.games_played + 1,
                record,
                seats,
                notice=notice,
            ),
            retry_for=self.config.action_retry,
        )
        for s, row in zip(self.seats, seats, strict=True):
            s.kind, s.bot, s.name = row.kind, row.bot, row.name
        self.game, self.game_id = game, game_id
        self.active = self.config.clock.monotonic()
        self.joined = True
        self.games_played += 1
        self._in_turn = 0
        self._timer_key = None
        log.info("room %s: game %s starts", self.code, game_id)
        self._presence()
        self._reschedule_timer()
        self.broadcast_state([], None, history=True)
        self._schedule()

    def _table_info(self, seats: list[SeatRow] | None = None) -> dict[str, Any]:
        rows = seats if seats is not None else [s.row() for s in self.seats]
        # Bots never forget UNO online.
        kinds = [s.kind if s.kind != BOT else (s.bot or self.bot) for s in rows]
        return {"room": self.code, "table": Table.seating(kinds, 0.0)}

    def _live_game(self, seat: int) -> Game:
        """The room's game, if it is under way and ``seat`` is still in this hand.

        Raises:
            ProtocolError: no game yet, the game is over, or the seat is knocked out (NM-34).
        """
        game = self.game
        if game is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
        if game.is_over:
            raise ProtocolError(ErrorCode.GAME_OVER, "the game is over")
        if game.out[seat]:
            raise ProtocolError(ErrorCode.KNOCKED_OUT, "you are knocked out of this hand [NM-34]")
        return game

    async def act(self, seat: int | None, text: str) -> None:
        """A seat's action in notation: the engine judges it."""
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot act")
        game = self._live_game(seat)
        try:
            action = parse_action(text, seat)
        except NoMercyError as exc:
            raise ProtocolError(ErrorCode.ILLEGAL, str(exc)) from None
        if action.seat != seat:
            raise ProtocolError(
                ErrorCode.WRONG_SEAT, f"you hold seat {seat}, not seat {action.seat}"
            )
        try:
            await self.apply(action, retry_for=self.config.action_retry)
        except StoreUnavailable:
            raise _unavailable("the move was not played") from None
        except NoMercyError as exc:  # IllegalActionError, NotationError, EngineError
            if game.to_act != seat and not isinstance(action, (CallUno, Catch)):
                turn = game.to_act
                raise ProtocolError(
                    ErrorCode.NOT_YOUR_TURN,
                    f"it is {game.names[turn] if turn is not None else 'nobody'}'s turn: {exc}",
                ) from None
            raise ProtocolError(ErrorCode.ILLEGAL, str(exc)) from None

    # ------------------------------------------------------------------ applying
    async def apply(self, action: Action, *, retry_for: float) -> list[Event]:
        """Submit ``action`` at the room's table (``Table.submit``, the terminal's door: the
        engine judges it), store it, and tell everyone. The caller holds the room's lock.

        Raises:
            NoMercyError: the engine refused the action; nothing changed.
            StoreUnavailable: the database refused the move for ``retry_for`` seconds; the game
                is as it was before.
            LeaseLost: another server owns the room now; the game is as it was before.
        """
        table = self.table
        assert table is not None and self.game_id is not None
        game = table.game
        turn = game.to_act
        before = game.copy()  # a few microseconds; the way back if the move cannot be stored
        # The one door for a move, as the terminal's: the table judges it (the engine's rules).
        events = table.submit(action.seat, action)
        index = game.moves - 1
        finished = self._result() if game.is_over else None
        try:
            await self.lobby.write(
                functools.partial(
                    self.lobby.store.append_action,
                    self.game_id,
                    index,
                    str(action),
                    finished=finished,
                    room=self.code,
                    notice=self.notice("act", g=self.game_id, i=index, a=str(action)),
                ),
                retry_for=retry_for,
            )
        except (StoreUnavailable, asyncio.CancelledError):
            # Cancelled: the room stands down (its bots' task is cancelled mid-write). The
            # move may be stored or not; the room is as it was, and a takeover or a reload
            # then finds the move in the database and sends it to the clients (kept, it
            # would look stored already, and this server's clients would never see it).
            self.game = before
            raise
        except LeaseLost:
            # Another server plays the room now (a handover or a failover): the caller sends
            # a person's move on to it (``handle``; forwarded ones: cluster.py), a bot lets go.
            self.game = before
            self.lost()
            raise
        self.active = self.config.clock.monotonic()
        if action.seat == turn:
            self._in_turn += 1
        if finished is not None:
            self.finished.append(self.game_id)
            log.info("room %s: game %s over, winner %s", self.code, self.game_id, game.winner)
        self._reschedule_timer()
        self.broadcast_state(events, action)
        self._bound()
        self._schedule()
        return events

    def _result(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        info = self._table_info()
        return {
            "winner": game.winner,
            "scores": list(game.scores),
            "over": game.is_over,
            **info,
            "bots": info["table"]["seats"],
        }

    # ------------------------------------------------------------------ bots, timer, presence
    def _schedule(self) -> None:
        """Make sure the bot task runs if a bot may act."""
        if self.closed or not self.owned or not self.started or self._stuck == self.game_id:
            return
        if not any(self.robot(s.seat) for s in self.seats):
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._bot_loop())

    def bot_questions(self) -> list[BotQuestion]:
        """The bot decisions to ask now (``Table.bot_questions``: in
        :func:`~nomercy.core.decisions.decision_order`'s order, the terminal's and the
        driver's, for the seats a bot plays now, each bot seeded for this move). The first
        answer that is an action is taken; each question can be answered away from the game
        (in a worker thread)."""
        table = self.table
        return [] if table is None else table.bot_questions()

    def bot_choice(self) -> Action | None:
        """The action a bot takes next, if any (see :meth:`bot_questions`)."""
        return answer(self.bot_questions())

    async def _bot_loop(self) -> None:
        # Bots think in a worker thread, without the room's lock: a slow bot (a search) keeps
        # neither this room's people nor other rooms waiting. Its answer is applied only if the
        # game has not moved on meanwhile; otherwise the bots are asked again.
        loop = asyncio.get_running_loop()
        delay = self.config.bot_delay
        try:
            while True:
                async with self.lock:
                    game, table = self.game, self.table
                    if self.closed or game is None or table is None:
                        return
                    if not table.bot_decisions():
                        return  # no bot has a decision to take: no need of the whole hand
                    try:
                        questions = (await self.whole_table()).bot_questions()
                    except StoreUnavailable:
                        questions = None  # an old hand's history is not at hand: wait
                    if questions == []:
                        return
                    moves, game_id = game.moves, self.game_id
                if questions is None:
                    await asyncio.sleep(RETRY_PAUSE)
                    continue
                began = loop.time()
                action = await asyncio.to_thread(answer, questions)
                await asyncio.sleep(max(0.0, delay - (loop.time() - began)))
                async with self.lock:
                    game = self.game
                    if self.closed or game is None:
                        return
                    if self.game_id != game_id or game.moves != moves:
                        continue  # someone acted meanwhile: ask again
                    if action is None:
                        return  # every bot lets its chance go; the next change asks again
                    if not self.robot(action.seat):
                        continue  # the seat's owner came back meanwhile
                    stored = await self._apply_robot(action)
                if not stored:
                    # The database refused the move: wait outside the lock, then ask again
                    # (the same seeded bot decides the same move), until it is stored.
                    await asyncio.sleep(RETRY_PAUSE)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: the bot task failed", self.code)

    async def _apply_robot(self, action: Action) -> bool:
        """Apply a bot's or the timer's action; if the engine refuses (A13's 'raise'), try
        the seat's other legal actions in order. ``False``: the database refused the move
        (nothing changed; the caller tries again)."""
        game = self.game
        assert game is not None
        retry = 2.0  # then the caller lets go of the lock for a moment and tries again
        try:
            await self.apply(action, retry_for=retry)
            return True
        except (StoreUnavailable, LeaseLost):  # lost: the new owner's bots play it
            return False
        except NoMercyError as exc:
            log.warning("room %s: %s refused: %s", self.code, action, exc)
        for other in game.legal_actions(action.seat):
            if other == action:
                continue
            try:
                await self.apply(other, retry_for=retry)
                return True
            except (StoreUnavailable, LeaseLost):
                return False
            except NoMercyError:
                continue
        log.error("room %s: seat %d has no action the engine accepts", self.code, action.seat)
        self._stuck = self.game_id  # stop the bots of this game; people may still act
        return True

    def _reschedule_timer(self) -> None:
        """(Re)start the turn timer when a person's seat gets a new decision."""
        game = self.game
        if (
            self.timer <= 0
            or game is None
            or game.is_over
            or game.to_act is None
            or self.robot(game.to_act)
        ):
            self._cancel_timer()
            return
        key = (self.game_id, game.to_act, self._in_turn)
        if key == self._timer_key and (self._timer_task is not None or not self.owned):
            return
        deadline = self.deadline if key == self._timer_key else None
        self._cancel_timer()
        self._timer_key = key
        self._deadline_seat = game.to_act
        # A room taken over from another server keeps the deadline its clients were shown.
        self.deadline = deadline if deadline is not None else self.config.clock.time() + self.timer
        if self.owned:  # the other servers only show the deadline; the owner enforces it
            self._timer_task = asyncio.get_running_loop().create_task(self._timer_wait(key))

    def _cancel_timer(self) -> None:
        if self._timer_task is not None:
            self._timer_task.cancel()
        self._timer_task = None
        self._timer_key = None
        self.deadline = None
        self._deadline_seat = None

    async def _timer_wait(self, key: tuple[Any, ...]) -> None:
        try:
            assert self.deadline is not None
            clock = self.config.clock
            await clock.sleep(max(0.0, self.deadline - clock.time()))
            while True:
                async with self.lock:
                    game = self.game
                    if self._timer_key != key or game is None or game.is_over:
                        return
                    seat = game.to_act
                    assert seat is not None
                    moves = game.moves
                    try:
                        decision: Action | BotQuestion | None = await self.timeout_decision(seat)
                    except StoreUnavailable:
                        decision = None  # an old hand's history is not at hand: wait
                if decision is None:
                    await asyncio.sleep(RETRY_PAUSE)
                    continue
                # A bot's decision is made in a worker thread, like the bots' own moves.
                if isinstance(decision, BotQuestion):
                    action = await asyncio.to_thread(answer, [decision])
                else:
                    action = decision
                async with self.lock:
                    game = self.game
                    if self._timer_key != key or game is None or game.is_over:
                        return
                    if game.moves != moves:
                        continue  # an out-of-turn action meanwhile: decide again
                    if action is None:
                        return
                    log.info("room %s: seat %d timed out: %s", self.code, seat, action)
                    task = self._timer_task
                    self._timer_task = None
                    self._timer_key = None
                    if await self._apply_robot(action):
                        return
                    # The database refused the move: the timer is still due; try again.
                    self._timer_task, self._timer_key = task, key
                await asyncio.sleep(RETRY_PAUSE)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: the timer failed", self.code)

    async def timeout_decision(self, seat: int) -> Action | BotQuestion:
        """What a seat whose time ran out does (``Table.timeout_question``): draw (or take the
        penalty), else pass, else the room's bot decides (a forced play, a colour, a Discard
        All choice, a challenge), from the whole hand (:meth:`whole_table`).

        Raises:
            StoreUnavailable: the hand's older history is not at hand.
        """
        table = self.table
        assert table is not None
        action, _ = table.timeout_choice(seat)
        if action is not None:
            return action
        return (await self.whole_table()).timeout_question(seat)

    def _presence(self) -> None:
        """Start or stop the grace period of each person's seat."""
        for s in self.seats:
            waiting = (
                self.owned
                and s.kind == HUMAN
                and not self.connected(s.seat)
                and not self.is_away(s.seat)
                and self.started
            )
            task = self._grace.get(s.seat)
            if waiting and (task is None or task.done()) and not self.closed:
                self._grace[s.seat] = asyncio.get_running_loop().create_task(self._away(s.seat))
            elif not waiting and task is not None:
                task.cancel()
                del self._grace[s.seat]

    async def _away(self, seat: int) -> None:
        try:
            await self.config.clock.sleep(self.config.grace)
            cluster = self.lobby.cluster
            while cluster is not None and self.owned and not cluster.presence_settled(self):
                # A person connected to any server is never handed to the bot (issue 43):
                # wait until every live server has said who it has here.
                cluster.ask_presence(self)
                await self.config.clock.sleep(PRESENCE_WAIT)
            async with self.lock:
                s = self.seats[seat]
                self._grace.pop(seat, None)
                if self.connected(seat) or not self.started or not self.owned:
                    return
                self._set_away(seat, True)
                log.info("room %s: seat %d is away; the bot plays it", self.code, seat)
                self.publish("seat", seat=_seat_json(s, away=True))
                self.broadcast_room()
                self._reschedule_timer()
                self._schedule()
        except asyncio.CancelledError:
            raise

    async def close(self) -> None:
        """Cancel the room's tasks (server shutdown)."""
        self.closed = True
        await self.stop_tasks()
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follower

    async def stop_tasks(self) -> None:
        """Cancel the bots', the timer's and the grace periods' tasks."""
        tasks = [t for t in (self._bot_task, self._timer_task, *self._grace.values()) if t]
        self._grace = {}
        self._timer_task = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            if task is asyncio.current_task():
                continue
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ------------------------------------------------------------------ several servers
    def lost(self) -> None:
        """A write found another server owning the room: follow it from now on."""
        cluster = self.lobby.cluster
        if cluster is not None and self.owned:
            log.warning("room %s: another server took it over", self.code)
            self.owned = False
            asyncio.get_running_loop().create_task(cluster.demote(self))

    def resume(self) -> None:
        """Carry on where the game stands, after the room was loaded, restored or taken over:
        the grace periods of people not connected, the turn timer and the bots (a copy of
        another server's room only shows the owner's deadline)."""
        self._presence()
        self._reschedule_timer()
        self._schedule()

    def take_over(self, now: float) -> None:
        """This server plays the room from now on (``now``: ``time.monotonic()``; presence
        heard before may be stale: ``Cluster.presence_settled``). The previous owner's queued
        notices are dropped, and the room resumes (:meth:`resume`)."""
        self.presence.adopted_at = now
        self.owned = True
        self._notices.clear()
        self.resume()

    async def stand_down(self) -> None:
        """Another server plays the room now: stop its bots, turn timer and grace periods
        (the copy then follows the owner's notices)."""
        self.owned = False
        await self.stop_tasks()
        self._cancel_timer()

    def notice(self, kind: str, **fields: Any) -> str | None:
        """A notice about this room for the other servers (``None`` with SQLite)."""
        cluster = self.lobby.cluster
        return None if cluster is None else cluster.encode(kind, self.code, fields)

    def publish(self, kind: str, **fields: Any) -> None:
        """Send a notice about this room to the other servers now (after the writes queued)."""
        cluster = self.lobby.cluster
        if cluster is not None:
            cluster.send(cluster.encode(kind, self.code, fields))

    def send_all(self, message: dict[str, Any]) -> None:
        """Send ``message`` to every connection of the room, on every server."""
        for conn in list(self.conns):
            conn.send(message)
        self.publish("relay", m=message)

    def announce(self) -> None:
        """Tell the other servers, soon, who is connected here (``Cluster.announce``)."""
        cluster = self.lobby.cluster
        if cluster is not None:
            cluster.announce(self)

    def here(self) -> Here:
        """This server's connections to the room (what it announces)."""
        seats = frozenset(s.seat for s in self.seats if s.conns)
        spectators = sum(1 for c in self.conns if c.seat is None)
        return Here(seats, spectators, self.sockets)

    def presence_changed(self) -> None:
        """Another server's connections changed (the cluster heard it): the owner starts or
        stops grace periods (and a person back on another server is no longer away);
        everyone's summary changes."""
        if self.owned:
            for s in self.seats:
                if self.is_away(s.seat) and self.connected(s.seat):
                    self._set_away(s.seat, False)
                    log.info("room %s: seat %d is back", self.code, s.seat)
                    self.publish("seat", seat=_seat_json(s, away=False))
            self._presence()
            self._reschedule_timer()
        self.broadcast_room()

    def receive(self, message: dict[str, Any]) -> None:
        """A notice from the room's owner: applied in order, by the room's follower task."""
        self._notices.append(message)
        if self._follower is None or self._follower.done():
            self._follower = asyncio.get_running_loop().create_task(self._follow_loop())

    async def _follow_loop(self) -> None:
        while self._notices and not self.closed:
            message = self._notices.popleft()
            try:
                async with self.lock:
                    if not self.owned:  # the owner's own notices, or stale ones once taken over
                        await self.follow(message)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("room %s: a notice failed; reloading the room", self.code)
                with contextlib.suppress(Exception):
                    await self.lobby.resync(self)

    async def follow(self, message: dict[str, Any]) -> None:
        """Apply one of the owner's notices to this server's copy of the room (the caller
        holds the lock): a move (the engine replays it), a new game, a seat, a reaction."""
        kind = message["k"]
        if kind == "act":
            game = self.game
            index = message["i"]
            if game is None or message["g"] != self.game_id:
                if message["g"] not in self.finished:
                    await self.lobby.reload(self)
                return
            if index < game.moves:
                return  # already in this copy (it was loaded after the move)
            if index > game.moves:
                await self.lobby.reload(self)  # a notice was missed
                return
            table = self.table
            assert table is not None
            turn = game.to_act
            # The owner's notation names the seat when it is not the seat to act (a catch).
            action = parse_action(message["a"], turn)
            events = table.submit(action.seat, action)
            if action.seat == turn:
                self._in_turn += 1
            if game.is_over and self.game_id is not None:
                self.finished.append(self.game_id)
            self.active = self.config.clock.monotonic()
            self._arrival = self.forwarded.pop(action.seat, None)
            try:
                self._reschedule_timer()
                self.broadcast_state(events, action)
            finally:
                self._arrival = None
            self._bound()
        elif kind == "game":
            if message["g"] == self.game_id:
                return
            text = message.get("rec")
            if text is None:
                await self.lobby.reload(self)
                return
            game = await asyncio.to_thread(GameRecord.loads(text).replay)
            for seat in message["seats"]:
                self.set_seat(*_seat_from(seat))
            self.game, self.game_id = game, message["g"]
            self.games_played += 1
            self.joined = True
            self.active = self.config.clock.monotonic()
            self._in_turn = 0
            self._timer_key = None
            self._reschedule_timer()
            self.broadcast_state([], None, history=True)
        elif kind == "seat":
            self.set_seat(*_seat_from(message["seat"]))
            self._reschedule_timer()
        elif kind == "relay":
            for conn in list(self.conns):
                conn.send(message["m"])
        elif kind == "reactions":
            self.reactions.on = bool(message["on"])
            self.broadcast_room()
        elif kind == "late_join":
            self.late_join = bool(message["on"])
            self.broadcast_room()
        elif kind == "closed":
            self.lobby.rooms.pop(self.code, None)
            self.closed = True

    def restore(self, state: RoomState, game: Game | None, game_id: str | None) -> bool:
        """Take the stored room (seats, games, the game replayed) as this copy's state, keeping
        its connections; whether the game changed (it was behind, or another game)."""
        changed = game_id != self.game_id or (
            game is not None and (self.game is None or game.moves != self.game.moves)
        )
        for row in state.row.seat_rows:
            s = self.seats[row.seat]
            if s.token_hash != row.token_hash or s.kind != row.kind:
                self.set_seat(SeatState(row.seat, row.name, row.kind, row.bot, row.token_hash))
        self.finished = collections.deque(state.finished, maxlen=FINISHED_KEPT)
        self.games_played = state.games
        self.joined = self.joined or state.games > 0
        if changed:
            self.game, self.game_id = game, game_id
            self._in_turn = 0
            self._timer_key = None
            self.deadline = None
            self._bound()
        return changed


def _unavailable(what: str) -> ProtocolError:
    """The ``unavailable`` error: the database did not answer; ``what`` did not happen."""
    return ProtocolError(
        ErrorCode.UNAVAILABLE, f"the database is unavailable: {what}; try again", 503
    )


def _seat_json(s: SeatState, away: bool = False) -> list[Any]:
    """A seat in the servers' notices (``away``: its person is away)."""
    return [s.seat, s.name, s.kind, s.bot, s.token_hash, away]


def _seat_from(data: list[Any]) -> tuple[SeatState, bool]:
    """A seat from a notice, and whether its person is away."""
    return SeatState(data[0], data[1], data[2], data[3], data[4]), bool(data[5])


@dataclass
class RoomState:
    """A room as stored: its row and seats, its finished games, how many games it started,
    and its current game (or its last finished one, to show)."""

    row: RoomRow
    finished: list[str]
    games: int
    game: GameRow | None
