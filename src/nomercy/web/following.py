"""A room on a server that does not play it, and a room taken up again: following, resuming.

A layer of :class:`~nomercy.web.room.Room` over :mod:`~nomercy.web.seating`. With several
servers on one database (:mod:`~nomercy.web.cluster`), one owns a room and the others hold
copies that apply its notices in order (a move: the engine replays it; a new game; a seat; a
reaction), reloading from the database when one was missed. A room loaded, restored or taken
over resumes where its game stands; one handed to another server stands down.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from typing import Any, Self

from nomercy.core.actions import parse_action
from nomercy.core.game import Game
from nomercy.core.records import GameRecord
from nomercy.web.roomstate import (
    FINISHED_KEPT,
    RoomLobby,
    RoomState,
    SeatState,
    seat_from,
    seat_json,
)
from nomercy.web.seating import Seating
from nomercy.web.sqlcore import RoomRow

__all__ = ["Following"]

log = logging.getLogger("nomercy.web")


class Following(Seating):
    """A room's life across servers: resuming, standing down, following the owner."""

    def __init__(self, lobby: RoomLobby[Self], row: RoomRow) -> None:
        super().__init__(lobby, row)
        #: Actions forwarded to the owner, by seat: when they arrived (timings).
        self.forwarded: dict[int, float] = {}
        self._notices: collections.deque[dict[str, Any]] = collections.deque()
        self._follower: asyncio.Task[None] | None = None

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

    def presence_changed(self) -> None:
        """Another server's connections changed (the cluster heard it): the owner starts or
        stops grace periods (and a person back on another server is no longer away);
        everyone's summary changes."""
        if self.owned:
            for s in self.seats:
                if self.is_away(s.seat) and self.connected(s.seat):
                    self._set_away(s.seat, False)
                    log.info("room %s: seat %d is back", self.code, s.seat)
                    self.publish("seat", seat=seat_json(s, away=False))
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
                self.set_seat(*seat_from(seat))
            self.game, self.game_id = game, message["g"]
            self.games_played += 1
            self.joined = True
            self.active = self.config.clock.monotonic()
            self._in_turn = 0
            self._timer_key = None
            self._reschedule_timer()
            self.broadcast_state([], None, history=True)
        elif kind == "seat":
            self.set_seat(*seat_from(message["seat"]))
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
            self.lobby.drop(self)
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
