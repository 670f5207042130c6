"""Quick reactions at the table: a small fixed set, shown next to the seat that sent it.

No free text, so there is nothing to moderate: a reaction is one of :data:`REACTIONS` (a key;
the client draws its emoji and names it in the player's language). A seated person may send one
every :data:`REACTION_EVERY` seconds; the server sends it to everyone in the room (spectators
too) as ``{"type": "reaction", "seat": S, "reaction": KEY}``. The host switches reactions off
(and on) for the room with ``{"type": "reactions", "on": false}``; the room summary's
``reactions`` says which. docs/web-protocol.md, "Reactions".

The switch lives with the room in memory: a restarted server starts every room with reactions
on (they carry no game state, so nothing is lost).
"""

from __future__ import annotations

from typing import Any, Protocol

from nomercy.web import messages
from nomercy.web.config import ServerConfig
from nomercy.web.protocol import ErrorCode, ProtocolError

__all__ = ["REACTIONS", "REACTION_EVERY", "ReactingRoom", "Reactions"]

#: The reactions a player may send (keys; the client shows 👍 😂 😮 😬 👏 🤝).
REACTIONS = ("thumbs_up", "laugh", "wow", "ouch", "clap", "good_game")
#: Seconds between two reactions of one seat (a third of the room's chatter at most).
REACTION_EVERY = 2.0


class ReactingRoom(Protocol):
    """What reactions need of their room (:class:`nomercy.web.room.Room`, which imports this
    module): its clock, and sending to its connections and to the other servers."""

    @property
    def config(self) -> ServerConfig:
        """The server's settings (its clock)."""
        ...

    def send_all(self, message: dict[str, Any]) -> None:
        """Send ``message`` to every connection of the room, on every server."""
        ...

    def publish(self, kind: str, **fields: Any) -> None:
        """Send a notice about the room to the other servers."""
        ...

    def broadcast_room(self) -> None:
        """Send the room summary to every connection, soon."""
        ...


class Reactions:
    """A room's reactions: whether the host allows them, and when each seat last sent one."""

    def __init__(self) -> None:
        self.on = True
        self._last: dict[int, float] = {}

    def handle(self, room: ReactingRoom, seat: int | None, data: dict[str, Any]) -> None:
        """A ``react`` or ``reactions`` message from ``seat`` (``None``: a spectator), sent to
        every connection of the room on every server.

        Raises:
            ProtocolError: a spectator, not the host, reactions off, an unknown reaction, the
                seat's last reaction too recent, or a malformed message.
        """
        if data["type"] == "reactions":
            self._switch(room, seat, data)
            return
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators send no reactions")
        if not self.on:
            raise ProtocolError(
                ErrorCode.REACTIONS_OFF, "the host turned reactions off in this room"
            )
        key = data.get("reaction")
        if not isinstance(key, str) or key not in REACTIONS:
            raise ProtocolError(
                ErrorCode.BAD_REACTION, f"'reaction' must be one of {', '.join(REACTIONS)}"
            )
        now = room.config.clock.monotonic()
        last = self._last.get(seat)
        if last is not None and now - last < REACTION_EVERY:
            raise ProtocolError(
                ErrorCode.TOO_SOON, f"one reaction every {REACTION_EVERY:g} s, please"
            )
        self._last[seat] = now
        room.send_all(messages.reaction(seat, key))

    def _switch(self, room: ReactingRoom, seat: int | None, data: dict[str, Any]) -> None:
        if seat != 0:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host switches reactions")
        on = data.get("on")
        if not isinstance(on, bool):
            raise ProtocolError(ErrorCode.MALFORMED, "'on' must be true or false")
        if on != self.on:
            self.on = on
            room.publish("reactions", on=on)
            room.broadcast_room()
