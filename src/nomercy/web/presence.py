"""Who is connected to a room through the other servers of a shared database (issues 25, 43).

Each server announces its connections to a room in a ``here`` notice (:class:`Here`); every
server keeps, per room, the newest one from each other server and when it came
(:class:`Presence`). The room's summary counts them (a seat connected anywhere, spectators,
sockets), its owner waits for them before it calls a person away, and the cluster
(:mod:`~nomercy.web.cluster`: sending, hearing and asking, handing a room to where its clients
are) reads and writes them. This module imports no other of the web package's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Here", "Presence"]


@dataclass(frozen=True)
class Here:
    """One server's connections to a room: the seats connected, spectators, sockets."""

    seats: frozenset[int]
    spectators: int
    sockets: int

    @classmethod
    def from_notice(cls, message: Mapping[str, Any]) -> Here:
        """The connections a ``here`` notice announces."""
        return cls(frozenset(message["seats"]), int(message["spec"]), int(message["socks"]))

    def fields(self) -> dict[str, Any]:
        """The ``here`` notice's fields."""
        return {"seats": sorted(self.seats), "spec": self.spectators, "socks": self.sockets}


#: Nobody connected (what a server without the room loaded answers ``who``).
NOBODY = Here(frozenset(), 0, 0)


class Presence:
    """A room's connections on the other servers, as their ``here`` notices said."""

    def __init__(self) -> None:
        #: Each other server's connections to the room (servers with none are left out).
        self.remote: dict[str, Here] = {}
        #: When each other server last announced its connections here (``time.monotonic()``).
        self.heard: dict[str, float] = {}
        #: When this server took the room over (``time.monotonic()``): presence heard before
        #: may be stale (:meth:`settled`).
        self.adopted_at = 0.0

    def hear(self, server: str, here: Here, now: float) -> None:
        """``server`` announced ``here`` at ``now``."""
        self.heard[server] = now
        if here.sockets == 0:
            self.remote.pop(server, None)
        else:
            self.remote[server] = here

    def forget(self, server: str) -> bool:
        """Drop a server that stopped; whether it had connections here."""
        return self.remote.pop(server, None) is not None

    def seated(self, seat: int) -> bool:
        """Whether another server has a connection holding ``seat``."""
        return any(seat in here.seats for here in self.remote.values())

    def spectators(self) -> int:
        """Spectators watching through the other servers."""
        return sum(here.spectators for here in self.remote.values())

    def sockets(self) -> int:
        """WebSockets attached through the other servers."""
        return sum(here.sockets for here in self.remote.values())

    def settled(self, others: Iterable[str], since: float) -> bool:
        """Whether each of the live servers ``others`` has announced its connections since
        ``since`` (before that, an announcement may have been missed; issue 43)."""
        since = max(since, self.adopted_at)
        return all(self.heard.get(server, -1.0) >= since for server in others)

    def busiest(self) -> str | None:
        """The other server with most of the room's sockets (ties: the greatest id)."""
        if not self.remote:
            return None
        return max(self.remote, key=lambda server: (self.remote[server].sockets, server))
