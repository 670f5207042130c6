"""What a room sends: each seat's state, the room summary, notices to the other servers.

A layer of :class:`~nomercy.web.room.Room` over :class:`~nomercy.web.roomstate.RoomBase`.
Every connection gets what its seat may know (its :class:`~nomercy.core.views.PlayerView` and
``event.for_seat(seat)``, in the wire format of :mod:`~nomercy.web.messages`, and its own
legal actions), encoded once per seat (spectators share one); room summaries are coalesced
(at most one per ``SUMMARY_DELAY`` per room), so a crowd of connections saying ``hello``
costs each of them one message, not one per other connection. Notices about the room go to
the other servers of a shared database (``notice``, ``publish``, ``announce``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Self

from nomercy.core.actions import Action
from nomercy.core.events import Event
from nomercy.tables.advice import advice_for
from nomercy.web import messages
from nomercy.web.connections import Delivery
from nomercy.web.messages import dumps
from nomercy.web.roomstate import RoomBase, RoomLobby
from nomercy.web.sqlcore import RoomRow

__all__ = ["HELLO_HISTORY", "SUMMARY_DELAY", "Broadcasting"]

#: Seconds a room waits to send its changed summary, so that a burst of changes (a crowd
#: connecting, many hellos) becomes one message per connection.
SUMMARY_DELAY = 0.05
#: Public history entries (the current hand's) a ``hello``'s state carries at most: the
#: newest; the client asks for older ones with ``history`` messages (``HISTORY_PAGE``).
HELLO_HISTORY = 60


class Broadcasting(RoomBase):
    """A room's messages to its connections and notices to the other servers."""

    def __init__(self, lobby: RoomLobby[Self], row: RoomRow) -> None:
        super().__init__(lobby, row)
        #: The turn timer's deadline shown to the clients, and whose turn it times.
        self.deadline: float | None = None
        self._deadline_seat: int | None = None
        self._summary_pending: asyncio.TimerHandle | None = None
        # The state a hello gets, encoded once per game, move, timer and seat (spectators
        # share one): a crowd of hellos costs sends, not views (see hello_state).
        self._hello_key: tuple[Any, ...] | None = None
        self._hello_texts: dict[int | None, str] = {}
        self._arrival: float | None = None  # when the person's action being applied arrived

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

    # ------------------------------------------------------------------ other servers
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
