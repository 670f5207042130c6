"""A room's seats and who holds them: hellos, departures, joining late, the host's removals.

A layer of :class:`~nomercy.web.room.Room` over :mod:`~nomercy.web.gameflow`. A connection
says ``hello`` with its seat token (or none: a spectator) and gets the room and the state; the
host frees a person's seat before the game, and lets late friends take over bots' seats (or
keeps them out); a person who takes over a bot's seat plays it from its next decision on.
"""

from __future__ import annotations

import functools
import hmac
import logging
from typing import Any

from nomercy.web import messages
from nomercy.web.connections import Connection
from nomercy.web.gameflow import GameFlow
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.roomstate import BOT, HUMAN, OPEN, SeatState, hash_token, seat_json

__all__ = ["Seating"]

log = logging.getLogger("nomercy.web")


class Seating(GameFlow):
    """A room's seats: who holds each, who is connected, late joining."""

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
                self.publish("seat", seat=seat_json(s, away=False))
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
                notice=self.notice("seat", seat=seat_json(freed)),
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
