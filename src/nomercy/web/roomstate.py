"""A room's state: its settings, seats, table and connections, and what it reads of them.

The base of :class:`~nomercy.web.room.Room` (the room's modules, each a layer over the one
below: this one, :mod:`~nomercy.web.broadcast`, :mod:`~nomercy.web.gameflow`,
:mod:`~nomercy.web.seating`, :mod:`~nomercy.web.following` and :mod:`~nomercy.web.room`).
Here: the seats as stored (:class:`SeatState`), a room as stored (:class:`RoomState`), what
a room needs of its lobby and of the other servers (:class:`RoomLobby`, :class:`RoomCluster`:
the lobby and the cluster import the room, so the room sees them through these), and
:class:`RoomBase`: the room's settings, its seats and their kinds, its game at a
:class:`~nomercy.tables.Table`, who is connected or away, and its summary.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeVar

from nomercy.core.game import Game
from nomercy.tables.table import SeatBot, Table, TableError
from nomercy.web.config import ServerConfig
from nomercy.web.connections import Connection
from nomercy.web.presence import Here, Presence
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.reactions import Reactions
from nomercy.web.sqlcore import GameRow, RoomRow, SeatRow, StoreBase

__all__ = [
    "BOT",
    "FINISHED_KEPT",
    "HUMAN",
    "OPEN",
    "RoomBase",
    "RoomCluster",
    "RoomLobby",
    "RoomState",
    "SeatState",
    "hash_token",
    "seat_from",
    "seat_json",
    "unavailable",
]

log = logging.getLogger("nomercy.web")
T = TypeVar("T")
#: The room a lobby or a cluster is asked about (the concrete room class: ``Room``).
R = TypeVar("R", contravariant=True)

#: Finished games a room summary lists (the newest; the others stay replays by their ids).
FINISHED_KEPT = 20

HUMAN, BOT, OPEN = "human", "bot", "open"


def hash_token(token: str) -> str:
    """The stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
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


@dataclass
@dataclass
class RoomState:
    """A room as stored: its row and seats, its finished games, how many games it started,
    and its current game (or its last finished one, to show)."""

    row: RoomRow
    finished: list[str]
    games: int
    game: GameRow | None


def unavailable(what: str) -> ProtocolError:
    """The ``unavailable`` error: the database did not answer; ``what`` did not happen."""
    return ProtocolError(
        ErrorCode.UNAVAILABLE, f"the database is unavailable: {what}; try again", 503
    )


def seat_json(s: SeatState, away: bool = False) -> list[Any]:
    """A seat in the servers' notices (``away``: its person is away)."""
    return [s.seat, s.name, s.kind, s.bot, s.token_hash, away]


def seat_from(data: list[Any]) -> tuple[SeatState, bool]:
    """A seat from a notice, and whether its person is away."""
    return SeatState(data[0], data[1], data[2], data[3], data[4]), bool(data[5])


class RoomCluster(Protocol[R]):
    """What a room needs of the other servers (:class:`nomercy.web.cluster.Cluster`, which
    imports the room: the room sees it through this)."""

    def encode(self, kind: str, code: str, fields: dict[str, Any]) -> str:
        """A notice about room ``code``."""
        ...

    def send(self, notice: str) -> None:
        """Send a notice after the database calls queued before it."""
        ...

    def announce(self, room: R) -> None:
        """Tell the other servers, soon, who is connected to ``room`` here."""
        ...

    def presence_settled(self, room: R) -> bool:
        """Whether every live server has said who it has in ``room``."""
        ...

    def ask_presence(self, room: R) -> None:
        """Ask every server who is connected to ``room`` through it."""
        ...

    async def forward(self, room: R, seat: int | None, data: dict[str, Any]) -> Any:
        """Have ``room``'s owner handle a request; its answer."""
        ...

    async def demote(self, room: R) -> None:
        """Stop playing ``room`` and follow its new owner."""
        ...


class RoomLobby(Protocol[R]):
    """What a room needs of its server's lobby (:class:`nomercy.web.rooms.Lobby`, which
    imports the room): the database, the other servers, budgets, reloading a room."""

    config: ServerConfig
    timings: collections.deque[float]
    hints_running: int
    hint_tasks: set[asyncio.Task[None]]

    @property
    def store(self) -> StoreBase:
        """The open database."""
        ...

    @property
    def cluster(self) -> RoomCluster[R] | None:
        """The other servers of a shared database (``None``: SQLite)."""
        ...

    async def write(self, call: Callable[..., T], *args: Any, retry_for: float) -> T:
        """Run a database call in the writer thread (retried for ``retry_for`` seconds)."""
        ...

    def hello_allowed(self, address: str | None) -> bool:
        """Spend one of ``address``'s hellos, if it has one."""
        ...

    async def resync(self, room: R) -> None:
        """Reload a copy of a room from the database, taking its lock."""
        ...

    async def reload(self, room: R) -> None:
        """Reload a copy of a room from the database (the caller holds its lock)."""
        ...

    def drop(self, room: R) -> None:
        """Forget a room closed by its owner."""
        ...


class RoomBase:
    """A room's settings, seats, game and connections, and what the other layers read."""

    def __init__(self, lobby: RoomLobby[Self], row: RoomRow) -> None:
        self._lobby = lobby
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
        self.closed = False
        self.sockets = 0  # WebSockets attached, greeted or not (ServerConfig.room_connections)
        # Someone besides the host took a seat, or a game started (ServerConfig.unjoined_idle).
        self.joined = any(s.kind == HUMAN and s.seat != 0 for s in self.seats)
        self.active = (
            self.config.clock.monotonic()
        )  # the last move, hello or departure (room expiry)
        #: Whether this server plays the room's game (always, with SQLite); otherwise it
        #: follows the owner's notices and forwards its clients' requests (cluster.py).
        self.owned = True
        #: The room's connections on the other servers (their ``here`` notices: presence.py).
        self.presence = Presence()
        #: The server thought to own the room (a copy's; ``None``: look it up).
        self.owner: str | None = None

    @property
    def lobby(self) -> RoomLobby[Self]:
        """The server's lobby (as the room sees it: :class:`RoomLobby`)."""
        return self._lobby

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

    def robot(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` now (a bot seat, or a person's seat while away)."""
        return self.table is not None and self.table.robot(seat)

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

    def here(self) -> Here:
        """This server's connections to the room (what it announces)."""
        seats = frozenset(s.seat for s in self.seats if s.conns)
        spectators = sum(1 for c in self.conns if c.seat is None)
        return Here(seats, spectators, self.sockets)
