"""Several servers on one PostgreSQL database (issue 25): leases, notices and forwarding.

Every server of the service listens on one ``LISTEN``/``NOTIFY`` channel
(:data:`~nomercy.web.postgres.CHANNEL`) and may serve any room to its clients. This module
knows no driver: it works with the shared database's contract
(:class:`~nomercy.web.sqlcore.SharedStore`, its leases and :class:`NoticeChannel`), with the
rooms through their public API (:class:`~nomercy.web.room.Room`) and with the lobby through
:class:`Host`; :mod:`nomercy.web.rooms` imports it, never the reverse.

- **One owner per room.** The room's owner (``rooms.owner``, a server id) plays its game
  while its lease runs: one lease per server (``servers.alive_until``), renewed every
  ``lease_ttl / 4`` seconds by its heartbeat, whatever the number of rooms it owns. The owner
  alone applies moves, runs the bots, the turn timer and the grace periods, and writes the
  room (each write checks, under the room's row lock, that it is still the owner,
  ``StoreBase._fence``).
- **Copies follow notices.** The owner sends a notice in the very transaction that stores a
  change (a move, a new game, a seat), so a notice goes out exactly when its change is
  committed, in commit order. Every other server with clients in the room holds a copy that
  applies the same moves with the same engine (the game is deterministic), and sends each of
  its clients what that seat may know, as the owner does for its own.
- **Requests go to the owner.** A client's ``start``/``action``/``remove``/``react`` and HTTP
  joins on a server that does not own the room are forwarded to the owner as a ``fwd`` notice;
  its answer (``re``) comes back the same way. A join sends only the new token's hash.
- **Presence.** Each server announces who is connected to each room through it (``here``),
  so summaries and grace periods count every server's connections (each room keeps what it
  heard: :class:`~nomercy.web.presence.Presence`; this module sends, hears and asks).
  Presence is a fact, not a guess (issue 43): a server whose notices' connection comes back
  (a database outage) announces its clients again and asks the others to; and an owner hands
  a person's seat to the bot only once every live server has said who it has in the room
  since the owner last could have missed it (since it took the room over, or since its own
  notices came back): until then it asks (``who``), and every server answers for the room,
  if only "nobody".
- **Rooms follow their clients.** When every client of a room has been connected through
  other servers for ``HANDOVER_DELAY`` seconds, its owner releases it with a ``take`` notice
  to the server holding most of them, which claims it at once. With a proxy that routes by
  the room's code, every room then ends up played by the server all its clients reach:
  nothing is forwarded and no copy replays its moves. With round robin, a room whose clients
  are spread stays where it is.
- **Failover.** A server that stops heartbeating loses its lease ``lease_ttl`` seconds
  later; the others claim its rooms (a heartbeat, or a forwarded request that finds no
  owner), reload them from the database and carry on: bots, timers and grace periods resume.
- **The database says who plays a room** (issue 43): each heartbeat makes this server's rooms
  agree with ``rooms.owner``, both ways. A room it plays that the database gives another is
  stood down; a room the database gives it that it does not play (its load failed while the
  database went away, or it stood down on a stale reading) is taken up again, since its
  lease runs and no other server would ever claim it.
  A server that stops cleanly (SIGTERM) releases its rooms and says ``bye``: the others claim
  its rooms at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import itertools
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from nomercy.core.game import Game
from nomercy.web.config import ServerConfig
from nomercy.web.presence import NOBODY, Here
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.room import SUMMARY_DELAY, Room, RoomState
from nomercy.web.sqlcore import LeaseLost, NoticeChannel, RoomRow, SharedStore, StoreBase
from nomercy.web.writer import StoreUnavailable

__all__ = ["Cluster", "Host"]

log = logging.getLogger("nomercy.web")
T = TypeVar("T")

#: Seconds a forwarded request waits for the owner's answer before the owner is looked up
#: again (it may have died) and the request is sent again, guarded.
FORWARD_WAIT = 1.5
#: Rooms claimed in one statement.
CLAIM_BATCH = 50
#: Seconds between attempts to reload a room's copy while the database is unavailable.
RELOAD_PAUSE = 0.5
#: Seconds every client of a room must have been on other servers before its owner hands it
#: to one of them (so a client reconnecting through another server does not move the room).
HANDOVER_DELAY = 1.0

#: The forwarded action the current task serves, as ``[forwarder, request id, room]``, until
#: the move's ``act`` notice carries it (then the forwarder's id is cleared): that notice is
#: the answer, so the owner sends no ``re`` for a move played (one notice per forwarded move
#: fewer). Tasks the request spawns (bots) share the cleared list, so they never answer it.
_serving: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "nomercy_serving", default=None
)


class Host(Protocol):
    """What the cluster needs of this server's lobby (:class:`nomercy.web.rooms.Lobby`): its
    rooms, its database calls, and rooms loaded from the database."""

    server_id: str
    config: ServerConfig
    rooms: dict[str, Room]

    @property
    def store(self) -> StoreBase:
        """The open database."""
        ...

    async def write(self, call: Callable[..., T], *args: Any, retry_for: float) -> T:
        """Run a database call in the writer thread (retried for ``retry_for`` seconds)."""
        ...

    def submit(self, call: Callable[[], Any]) -> None:
        """Queue a database call whose answer nobody waits for."""
        ...

    async def stored(self, code: str) -> tuple[RoomState, Game | None, str | None] | None:
        """Room ``code`` as stored, its game replayed, and the game's id."""
        ...

    def add_room(self, row: RoomRow, *, owned: bool = True) -> Room:
        """A new room of this server from its row (``owned``: played here), registered."""
        ...

    async def resync(self, room: Room) -> None:
        """Reload a copy of a room from the database."""
        ...

    async def seat_person(self, room: Room, name: str, token_hash: str) -> int:
        """Seat a person in a room this server owns; the seat."""
        ...


class Cluster:
    """This server's part in a service of several (see the module's docstring)."""

    def __init__(self, lobby: Host) -> None:
        self.lobby = lobby
        self.id = lobby.server_id
        store = lobby.store
        assert isinstance(store, SharedStore)
        self.store = store
        self.ttl = lobby.config.lease_ttl
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._loading: dict[str, list[dict[str, Any]]] = {}
        self._loads: dict[str, asyncio.Future[Room | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._beater: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._claim_now = asyncio.Event()
        self._alive: set[str] = {self.id}
        self._beat_at = 0.0  # time.monotonic() of the last heartbeat that worked
        #: Servers missing from the live ones at a heartbeat, since when (time.monotonic()):
        #: one is taken as gone only after a lease's time (it may just be late to renew its
        #: own lease: after a database outage, or under load).
        self._missing: dict[str, float] = {}
        #: time.monotonic() when this server's notices' connection last came up (its
        #: knowledge of the others' presence starts there), and whether it is up now.
        self.listen_at = 0.0
        self.listening = False
        self._stopping = False
        self._handing: set[str] = set()  # rooms being handed to another server
        self._adopting: set[str] = set()  # rooms being loaded to be played here
        self._adoptions: set[asyncio.Task[Room | None]] = set()  # _adopt_soon's tasks
        # Rooms whose connections here are to be announced, and rooms to hand over, soon.
        self._announcing: dict[Room, asyncio.TimerHandle] = {}
        self._handovers: dict[Room, asyncio.TimerHandle] = {}
        # Requests and answers between servers go out on a connection of their own, at once
        # (not behind the writer's batches; they need no order with the writes).
        self._out: NoticeChannel | None = None

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        """Listen for notices, say hello, and claim the rooms nobody owns."""
        self._listener = asyncio.get_running_loop().create_task(self._listen())
        try:
            await asyncio.wait_for(self._listening.wait(), self.store.connect_timeout + 5)
        except TimeoutError:
            raise RuntimeError("cannot LISTEN on the database") from None
        with contextlib.suppress(*self.store.errors):
            self._out = await self.store.channel()
        await self._beat()
        if self._adoptions:  # the rooms claimed at startup are played before it serves
            await asyncio.gather(*self._adoptions, return_exceptions=True)
        self.send(self.encode("who", "", {}))
        self._beater = asyncio.get_running_loop().create_task(self._beat_loop())

    async def stop(self) -> None:
        """Hand this server's rooms over (release them and its lease, say ``bye``) and stop."""
        self._stopping = True
        if self._beater is not None:
            await _end(self._beater)
        try:
            released = await self.lobby.write(
                functools.partial(self.store.release, notice=self.encode("bye", "", {})),
                retry_for=1.0,
            )
            log.info("handed %d rooms over to the other servers", len(released))
        except Exception as exc:  # the database is gone: the lease runs out by itself
            log.warning("could not release the rooms: %s", exc)
        for task in list(self._tasks):
            task.cancel()
        if self._listener is not None:
            # It sees _stopping within a second by itself; cancelling a wait inside the
            # driver is only the fallback (a cancellation can be lost there: psycopg issue
            # 1371).
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._listener), 2.0)
            await _end(self._listener)
        if self._out is not None:
            with contextlib.suppress(*self.store.errors, TimeoutError):
                await asyncio.wait_for(self._out.close(), 2.0)

    def healthy(self) -> bool:
        """Whether the last heartbeat is recent (this server's lease is current)."""
        return time.monotonic() - self._beat_at < self.ttl

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ notices
    def encode(self, kind: str, code: str, fields: dict[str, Any]) -> str:
        """A notice's text: its kind, sender, room and fields (a move's ``act`` also answers
        the forwarded action it plays: ``rq``, see ``_serving``)."""
        if kind == "act":
            serving = _serving.get()
            if serving is not None and serving[0] is not None and serving[2] == code:
                fields = {**fields, "rq": serving[:2]}
                serving[0] = None
        return json.dumps({"k": kind, "s": self.id, "r": code, **fields}, separators=(",", ":"))

    def send(self, notice: str) -> None:
        """Send a notice after the database calls queued before it."""
        self.lobby.submit(lambda: self.store.notify(notice))

    async def post(self, notice: str) -> None:
        """Send a notice now, on the connection for requests (the writer's if it broke)."""
        out = self._out
        if out is not None and out.usable:
            try:
                await out.send(notice)
                return
            except self.store.errors as exc:
                log.warning("sending a request: %s", exc)
        self.send(notice)
        if not self._stopping:
            with contextlib.suppress(*self.store.errors):
                self._out = await self.store.channel()

    async def _listen(self) -> None:
        first = True
        while not self._stopping:
            try:
                channel = await self.store.channel(listen=True)
            except self.store.errors as exc:
                log.warning("cannot listen for notices: %s", str(exc).strip().splitlines()[0])
                await asyncio.sleep(0.5)
                continue
            try:
                await self._hear(channel, again=not first)
                return
            except self.store.errors as exc:
                self.listening = False
                if self._stopping:
                    return
                log.warning("lost the notices' connection: %s", exc)
                await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(*self.store.errors):
                    await channel.close()
            first = False

    async def _hear(self, channel: NoticeChannel, *, again: bool) -> None:
        """Handle the other servers' notices on ``channel`` until this server stops
        (``again``: the connection came back after a loss)."""
        self.listen_at = time.monotonic()
        self.listening = True
        self._listening.set()
        if again:
            # Notices may have been missed while disconnected: reload every copy, and say
            # again who is here (the others may have missed that), and ask them to (this
            # server may have missed theirs).
            for room in list(self.lobby.rooms.values()):
                if not room.owned:
                    self._spawn(self._reload(room))
                if room.sockets:
                    self.announce(room)
            self.send(self.encode("who", "", {}))
        mine = f'"s":"{self.id}"'
        while not self._stopping:
            # A bounded wait, so that the loop sees _stopping by itself.
            async for payload in channel.received(timeout=1.0):
                if mine in payload[:48]:
                    continue  # this server's own notice
                try:
                    self._on(json.loads(payload))
                except Exception:
                    log.exception("a notice failed: %.200s", payload)

    def _on(self, message: dict[str, Any]) -> None:
        sender = message["s"]
        if sender == self.id:
            return
        kind = message["k"]
        code = message["r"]
        if kind == "re":
            if message.get("to") == self.id:
                self._answered(message["q"], message)
            return
        if kind == "fwd":
            if message.get("to") == self.id:
                self._spawn(self._serve(message))
            return
        if kind == "take":  # a room handed to this server: its clients are here
            if message.get("to") == self.id and not self._stopping:
                self._spawn(self._take(code))
            return
        if kind == "who":  # a server started (or loaded ``code``): say who is here
            self._who(code)
            return
        if kind == "bye":
            self._alive.discard(sender)
            self._missing.pop(sender, None)
            self._forget(sender)
            self._claim_now.set()
            return
        if kind == "act":
            answers = message.get("rq")
            if answers is not None and answers[0] == self.id:
                self._answered(answers[1], {})  # the move of an action forwarded from here
        buffered = self._loading.get(code)
        if buffered is not None:
            buffered.append(message)
            return
        target = self.lobby.rooms.get(code)
        if target is None:
            return
        if kind in ("act", "game", "seat", "closed"):
            target.owner = sender  # only the owner sends these
        if kind == "here":
            target.presence.hear(sender, Here.from_notice(message), time.monotonic())
            self.presence_changed(target)
            return
        target.receive(message)

    def _who(self, code: str) -> None:
        """Answer ``who``: announce the rooms with connections here (``code`` empty), or
        room ``code``, even when nobody is here (a fact the owner waits for before it calls
        a person away: ``presence_settled``)."""
        if code == "":
            for room in self.lobby.rooms.values():
                if room.sockets:
                    self.announce(room)
            return
        loaded = self.lobby.rooms.get(code)
        if loaded is not None:
            self.announce(loaded)
        else:
            self.send(self.encode("here", code, NOBODY.fields()))

    def presence_settled(self, room: Room) -> bool:
        """Whether this server knows who is connected to ``room`` on every live server: its
        notices' connection is up, and each other live server has announced its connections
        to the room since this server took the room over or last reconnected (before that,
        an announcement may have been missed)."""
        if not self.listening:
            return False
        return room.presence.settled(self._alive - {self.id}, self.listen_at)

    def ask_presence(self, room: Room) -> None:
        """Ask every server who is connected to ``room`` through it (each answers ``here``)."""
        self.send(self.encode("who", room.code, {}))

    def _answered(self, request: int, answer: dict[str, Any]) -> None:
        """The owner's answer to a request this server forwarded (``re``, or the move)."""
        future = self._pending.pop(request, None)
        if future is not None and not future.done():
            future.set_result(answer)

    def _forget(self, server: str) -> None:
        """Drop the presence of a server that stopped."""
        for room in self.lobby.rooms.values():
            if room.presence.forget(server):
                self.presence_changed(room)

    # ------------------------------------------------------------------ leases
    async def _beat_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._claim_now.wait(), self.ttl / 4)
            self._claim_now.clear()
            try:
                await self._beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the heartbeat failed")

    async def _beat(self) -> None:
        """Renew this server's lease, notice dead servers, make this server's rooms agree
        with the database's owners (both ways), claim orphaned rooms."""
        asked = time.monotonic()
        try:
            alive, owned = await self.lobby.write(self.store.heartbeat, self.ttl, retry_for=0.0)
        except Exception as exc:
            log.warning("heartbeat: the database is unavailable: %s", exc)
            return
        now = time.monotonic()
        self._beat_at = now
        # A server whose lease lapsed may be alive with people connected, only late to renew
        # it (after a database outage every lease lapsed; under load a heartbeat is late):
        # its presence is kept, and presence_settled waits for it, until it has been missing
        # for a lease's time (issue 43: nobody connected anywhere is handed to the bot).
        for server in alive:
            self._missing.pop(server, None)
        for server in self._alive - alive - {self.id}:
            if now - self._missing.setdefault(server, now) >= self.ttl:
                del self._missing[server]
                self._alive.discard(server)
                self._forget(server)
        self._alive |= alive
        for room in list(self.lobby.rooms.values()):
            # A room taken over since the heartbeat was asked may be missing from its answer.
            lost = room.owned and room.code not in owned and room.presence.adopted_at < asked
            if lost and not room.closed:
                log.warning("room %s: lost its lease to another server", room.code)
                await self.demote(room)
        for code in sorted(owned):
            here = self.lobby.rooms.get(code)
            if here is not None and (here.owned or here.closed):
                continue
            if code in self._handing or code in self._adopting or self._stopping:
                continue
            # Its lease is this server's but nobody plays it here: a takeover whose load and
            # release both failed while the database was down, a room stood down on another
            # reading, a move found stored as another (the copy behind). No other server
            # claims a room of a live owner, so this one plays it.
            log.warning("room %s: this server holds its lease: taking it over", code)
            self._adopt_soon(code)
        while True:
            try:
                codes = await self.lobby.write(self.store.claim, CLAIM_BATCH, retry_for=0.0)
            except Exception as exc:  # as the heartbeat: the database is coming back; next beat
                log.warning("claiming rooms: the database is unavailable: %s", exc)
                return
            for code in codes:
                self._adopt_soon(code)
            if len(codes) < CLAIM_BATCH:
                break

    def _adopt_soon(self, code: str) -> None:
        """Adopt a room claimed by the heartbeat in a task of its own: loading rooms (a
        database read and a replay each) must not make this server's next heartbeat late, or
        the others would take its rooms and think its people gone."""
        self._adopting.add(code)
        task = asyncio.get_running_loop().create_task(self.adopt(code))
        for tasks in (self._tasks, self._adoptions):
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def adopt(self, code: str) -> Room | None:
        """Take over a room whose lease this server just got: reload it from the database
        (everything committed before the claim), then play it: bots, timer, grace periods."""
        self._adopting.add(code)
        try:
            return await self._adopt(code)
        finally:
            self._adopting.discard(code)

    async def _adopt(self, code: str) -> Room | None:
        lobby = self.lobby
        try:
            stored = await lobby.stored(code)
        except Exception as exc:
            if isinstance(exc, StoreUnavailable):  # an outage: said, not a failure of ours
                log.warning("room %s: cannot load it to take it over: %s", code, exc)
            else:
                log.exception("room %s: cannot load it to take it over", code)
            # Kept by this server if the database refuses this too: the heartbeat sees its
            # lease here and loads it again.
            with contextlib.suppress(Exception):
                await lobby.write(self.store.release, [code], retry_for=1.0)
            return None
        if stored is None:
            return None
        state, game, game_id = stored
        room = lobby.rooms.get(code) or lobby.add_room(state.row)
        async with room.lock:
            changed = room.restore(state, game, game_id)
            room.take_over(time.monotonic())  # presence heard before may be stale
            if changed and room.game is not None:
                room.broadcast_state([], None, history=True)
            room.broadcast_room()
        log.info("room %s: taken over by this server", code)
        self.send(self.encode("who", code, {}))  # the others say who is connected to it
        return room

    def hand_over(self, room: Room, target: str) -> None:
        """Give ``room`` to ``target``, the server its clients are connected to (see
        :meth:`_follow_clients`)."""
        if room.code in self._handing or self._stopping:
            return
        self._handing.add(room.code)
        self._spawn(self._hand_over(room, target))

    async def _hand_over(self, room: Room, target: str) -> None:
        try:
            # Released in one transaction with the notice: a move stored before it is in the
            # state the target loads; a write after it is refused here (LeaseLost) and a
            # forwarded one is sent again, to the new owner.
            notice = self.encode("take", room.code, {"to": target})
            released = await self.lobby.write(
                functools.partial(self.store.release, [room.code], notice=notice), retry_for=1.0
            )
        except Exception as exc:  # kept: the next change of presence tries again
            log.warning("room %s: could not hand it over: %s", room.code, exc)
            return
        finally:
            self._handing.discard(room.code)
        if released and room.owned:
            log.info("room %s: handed over to %s, where its clients are", room.code, target)
            room.owned = False
            room.owner = target
            await self.demote(room)

    async def _take(self, code: str) -> None:
        """Claim a room another server handed to this one (nobody else has claimed it)."""
        try:
            claimed = await self.lobby.write(self.store.claim, 1, code, retry_for=1.0)
        except Exception as exc:  # the heartbeat claims it later, here or elsewhere
            log.warning("room %s: could not take it over: %s", code, exc)
            return
        if claimed:
            await self.adopt(code)

    async def demote(self, room: Room) -> None:
        """This server lost the room's lease: stop playing it and follow the new owner."""
        await room.stand_down()
        # Not awaited: the reload waits for the room's lock, and the heartbeat (which calls
        # this) must not be late, or the others would think this server, and its people, gone.
        self._spawn(self._reload(room))

    async def _reload(self, room: Room) -> None:
        """Reload a room's copy from the database (notices were missed, or the room was
        lost), trying again while the database is unavailable: a copy left behind would show
        its people a turn that is not theirs while the owner waits for them."""
        while not self._stopping and not room.closed and not room.owned:
            try:
                await self.lobby.resync(room)
                return
            except StoreUnavailable as exc:
                log.warning("room %s: cannot reload it yet: %s", room.code, exc)
            await asyncio.sleep(RELOAD_PAUSE)

    async def load(self, code: str) -> Room | None:
        """A copy of room ``code`` for this server's clients (loaded once however many ask),
        or the room itself when nobody owned it (this server claims it)."""
        pending = self._loads.get(code)
        if pending is not None:
            return await pending
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loads[code] = future
        try:
            room = await self._load(code)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it
            raise
        else:
            future.set_result(room)
            return room
        finally:
            self._loads.pop(code, None)

    async def _load(self, code: str) -> Room | None:
        lobby = self.lobby
        retry = lobby.config.action_retry
        if await lobby.write(self.store.owner, code, retry_for=retry) is None:
            claimed = await lobby.write(self.store.claim, 1, code, retry_for=retry)
            if claimed:
                return await self.adopt(code)
        self._loading[code] = []
        try:
            stored = await lobby.stored(code)
            if stored is None:
                return None
            state, game, game_id = stored
            room = lobby.rooms.get(code)
            if room is not None:  # adopted meanwhile
                return room
            room = lobby.add_room(state.row, owned=False)
            room.restore(state, game, game_id)
            room.resume()  # a copy: it shows the owner's deadline
        finally:
            buffered = self._loading.pop(code, [])
        for message in buffered:
            self._on(message)
        self.send(self.encode("who", code, {}))
        return room

    # ------------------------------------------------------------------ presence
    def announce(self, room: Room) -> None:
        """Tell the other servers, soon, who is connected to ``room`` here (coalesced like
        summaries: a crowd connecting costs one notice)."""
        if room in self._announcing or room.closed:
            return
        loop = asyncio.get_running_loop()
        self._announcing[room] = loop.call_later(SUMMARY_DELAY, self._announce, room)

    def _announce(self, room: Room) -> None:
        del self._announcing[room]
        if not room.closed:
            self.send(self.encode("here", room.code, room.here().fields()))
            self._follow_clients(room)

    def presence_changed(self, room: Room) -> None:
        """Another server's connections to ``room`` changed: the room reacts (grace periods,
        summaries), and its owner may hand it to where its clients are."""
        room.presence_changed()
        self._follow_clients(room)

    def _elsewhere(self, room: Room) -> str | None:
        """The server to give ``room`` to: the one with most of its clients, when every
        client is on another server (``None``: keep it)."""
        if not room.owned or room.closed or room.sockets:
            return None
        return room.presence.busiest()

    def _follow_clients(self, room: Room) -> None:
        """Every client of ``room`` is on other servers: hand the room to one of them if that
        lasts ``HANDOVER_DELAY`` seconds (the room is then played where its clients are, so
        nothing is forwarded and no server keeps a copy: a proxy that routes by room code gets
        every room played by one server)."""
        if room in self._handovers or self._elsewhere(room) is None:
            return
        loop = asyncio.get_running_loop()
        self._handovers[room] = loop.call_later(HANDOVER_DELAY, self._hand_over_now, room)

    def _hand_over_now(self, room: Room) -> None:
        del self._handovers[room]
        target = self._elsewhere(room)
        if target is not None:
            self.hand_over(room, target)

    # ------------------------------------------------------------------ forwarding
    async def forward(self, room: Room, seat: int | None, data: dict[str, Any]) -> Any:
        """Have the room's owner handle ``data`` from ``seat``; its answer (a join's seat).

        Sent again, guarded by the move it was sent at (the owner ignores it if the game
        moved on: the first one was played), when the owner does not answer within
        ``FORWARD_WAIT`` (it may have died: another server takes the room over).

        Raises:
            ProtocolError: the owner refused it, or no owner answered within
                ``action_retry`` plus a lease (``unavailable``: nothing changed).
        """
        loop = asyncio.get_running_loop()
        lobby = self.lobby
        end = loop.time() + lobby.config.action_retry + self.ttl
        move = room.game.moves if room.game is not None else None
        guard: int | None = None
        while True:
            if room.owned:  # taken over meanwhile (by this server)
                try:
                    if data["type"] == "join":
                        return await lobby.seat_person(room, data["name"], data["hash"])
                    await room.request(seat, data)
                    return None
                except LeaseLost:  # and over again elsewhere: nothing changed, forward it
                    room.lost()
                    room.owner = None
                    continue
            if loop.time() > end:
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE,
                    "the server playing this room does not answer; try again",
                    503,
                )
            owner = room.owner
            if owner is None:
                owner = room.owner = await lobby.write(self.store.owner, room.code, retry_for=1.0)
            if owner == self.id:
                # This server, by the database or by a note older than a demotion: played
                # here if the database says so now (its lease runs: nobody else claims it).
                room.owner = None
                if await lobby.write(self.store.owner, room.code, retry_for=1.0) == self.id:
                    await self.adopt(room.code)
                continue
            if owner is None:
                claimed = await lobby.write(self.store.claim, 1, room.code, retry_for=1.0)
                if claimed:
                    await self.adopt(room.code)
                else:
                    await asyncio.sleep(0.1)
                continue
            q = next(self._ids)
            future: asyncio.Future[dict[str, Any]] = loop.create_future()
            self._pending[q] = future
            fields = {"to": owner, "q": q, "seat": seat, "m": data, "g": guard}
            if data["type"] == "action":
                fields["ack"] = 1  # its move's notice may answer it (servers of schema 3: no)
            await self.post(self.encode("fwd", room.code, fields))
            try:
                reply = await asyncio.wait_for(future, FORWARD_WAIT)
            except TimeoutError:
                guard = move
                room.owner = None
                continue
            finally:
                self._pending.pop(q, None)
            if reply.get("moved"):
                room.owner = None
                await asyncio.sleep(0.05)
                continue
            error = reply.get("e")
            if error is not None:
                raise ProtocolError(ErrorCode(error[0]), error[1], error[2], retry_after=error[3])
            return reply.get("v")

    async def _serve(self, message: dict[str, Any]) -> None:
        """A request another server forwarded to this one (the room's owner)."""
        lobby = self.lobby
        reply: dict[str, Any] = {"to": message["s"], "q": message["q"]}
        room = lobby.rooms.get(message["r"])
        data = message["m"]
        serving = None
        if message.get("ack") and data["type"] == "action":
            serving = [message["s"], message["q"], message["r"]]
            _serving.set(serving)
        try:
            if room is None or not room.owned:
                reply["moved"] = True
            elif message.get("g") is not None and (
                room.game is None or room.game.moves != message["g"]
            ):
                pass  # sent again after the game moved on: the first one was played
            elif data["type"] == "join":
                reply["v"] = await lobby.seat_person(room, data["name"], data["hash"])
            else:
                await room.request(message["seat"], data)
        except ProtocolError as exc:
            reply["e"] = [exc.code.value, exc.message, exc.status, exc.retry_after]
        except LeaseLost:
            reply["moved"] = True
        except StoreUnavailable:
            reply["e"] = [ErrorCode.UNAVAILABLE.value, "the database is unavailable", 503, None]
        except Exception:
            log.exception("room %s: a forwarded request failed", message["r"])
            reply["e"] = [ErrorCode.SERVER_ERROR.value, "the server failed", 500, None]
        if serving is not None:
            answered = serving[0] is None  # the move's notice carried the answer
            serving[0] = None
            if answered and "e" not in reply and "moved" not in reply:
                return
        await self.post(self.encode("re", message["r"], reply))


async def _end(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait for it, 2 s at most."""
    task.cancel()
    with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
        await asyncio.wait_for(asyncio.shield(task), 2.0)
