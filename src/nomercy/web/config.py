"""The server's settings (``nomercy serve`` flags; tests shorten the delays)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nomercy.tables.coach import DEFAULT_ITERATIONS, DEFAULT_MAX_TIME
from nomercy.web.guard import AllowedHosts

__all__ = ["Clock", "ServerConfig"]


class Clock:
    """The time the server's timers and limits read: the turn timer's deadlines (wall-clock
    seconds, shown to clients), the waits for them and for the disconnection grace periods,
    the idle expiry of rooms (and its sweep), and the rate limits (each connection's token
    bucket, its hold-back and abuse window, the hello budgets, rooms per hour, reactions).

    Real time by default; tests give ``ServerConfig.clock`` a clock they advance by hand, so
    a test of a 30-second timer or a 10-minute idle limit takes no such time
    (tests/web/clocks.py). The event loop's stalls (``LoopWatch``) are always measured in real
    time: they are the server's, not the clock's.
    """

    def time(self) -> float:
        """Seconds since the epoch (``time.time()``)."""
        return time.time()

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back, for intervals (``time.monotonic()``)."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (``asyncio.sleep``)."""
        await asyncio.sleep(seconds)


def _default_seed() -> int:
    # A cryptographic source for online deals: nobody can predict or choose the deck.
    return secrets.randbits(64)


@dataclass
class ServerConfig:
    """How the server runs (``nomercy serve`` flags; tests shorten the delays).

    Attributes:
        database: the SQLite file, or a ``postgresql://`` URL (several servers may share it).
        bot_delay: seconds a bot waits before each action, so people can follow.
        grace: seconds a disconnected person's seat waits before the room's bot plays it.
        timers: the turn timer lengths a room may choose (0: off).
        rate_capacity / rate_per_second: each connection's token bucket.
        throttle: a connection over its rate has its messages held back (handled in turn at
            the rate) up to this many seconds; past that they are refused (``rate_limited``).
        abuse_limit / abuse_window: this many refused messages within ``abuse_window``
            seconds close the connection.
        send_queue: messages queued for one connection before it counts as stuck and is closed.
        send_bytes: bytes queued for one connection before it counts as stuck and is closed.
        hellos_per_address: ``hello`` messages per second one client address (an IPv6 /64)
            may send across all its connections, with bursts of ``hello_burst`` (0: no limit).
        replays_per_address / replay_burst: ``GET /api/replays`` requests per second one client
            address may make, with bursts of ``replay_burst`` (0: no limit); more get 429.
        replay_cache_bytes: bytes of finished games' replays kept encoded (least recently
            used out first); a replay bigger than this is built for each request.
        replay_page: steps one replay answer carries at most (the rest: ``?from=``).
        hello_timeout: seconds a new WebSocket has to say ``hello`` before it is closed.
        body_timeout: seconds a request's body may take to arrive once its headers have; a
            slower one is answered 408 (``bad_request``) and its connection closed, so a
            stalled upload cannot hold a connection (``--header-timeout`` sets both).
        room_connections: WebSockets one room holds at most (seats and spectators).
        sockets_per_address: game WebSockets one client address (an IPv6 /64) holds at once
            on this server, counted on the address the proxy forwards (0: no limit); for a
            proxy that does not limit connections per client (compose.yaml's Caddy).
        room_idle: seconds a room with no connection and no move is kept open (0: for ever);
            then it is closed (its finished games stay, as replays).
        unjoined_idle: the same for a room nobody but its host ever joined and that never
            started a game (0: like any room), so rooms made and left cost minutes, not a week.
        rooms_per_hour: rooms one client address may create per hour (0: no limit).
        max_rooms: open rooms on the server at most; more are refused (0: no limit).
        action_retry: seconds a person's move waits for a locked database before it is refused
            with ``unavailable`` (bots' and the timer's moves are retried until stored).
        timings: record the server-side time of each person's action (``GET /api/timings``,
            for benchmarks/).
        hint_iterations / hint_max_time: the coach's search budget per hint.
        hint_workers: hints the whole server computes at once (each takes a thread for up to
            ``hint_max_time`` seconds); one more request gets ``hint_busy``.
        seed_source: the game seeds (``secrets.randbits(64)``; tests inject their own).
        allowed_hosts: the ``Host`` names HTTP and WebSocket requests may carry (``None``: any;
            ``nomercy serve`` always sets it).
        clock: the time of the turn timer, the grace periods, idle expiry and the rate limits
            (:class:`Clock`; real time).
    """

    database: str | Path
    bot_delay: float = 0.8
    grace: float = 60.0
    timers: tuple[int, ...] = (0, 15, 30, 60)
    rate_capacity: float = 20.0
    rate_per_second: float = 10.0
    throttle: float = 3.0
    abuse_limit: int = 50
    abuse_window: float = 10.0
    send_queue: int = 256
    send_bytes: int = 1 << 20
    hellos_per_address: float = 10.0
    hello_burst: float = 60.0
    replays_per_address: float = 4.0
    replay_burst: float = 20.0
    replay_cache_bytes: int = 64 << 20
    replay_page: int = 100
    hello_timeout: float = 10.0
    body_timeout: float = 10.0
    room_connections: int = 64
    sockets_per_address: int = 0
    room_idle: float = 7 * 86400.0
    unjoined_idle: float = 600.0
    rooms_per_hour: int = 60
    max_rooms: int = 2000
    action_retry: float = 5.0
    timings: bool = False
    hint_iterations: int = DEFAULT_ITERATIONS
    hint_max_time: float = DEFAULT_MAX_TIME
    hint_workers: int = 2
    seed_source: Callable[[], int] = field(default=_default_seed)
    allowed_hosts: AllowedHosts | None = None
    clock: Clock = field(default_factory=Clock)
    #: PostgreSQL: seconds a room's lease lasts without renewal (a dead owner's rooms are taken
    #: over this long after its last heartbeat); heartbeats come every quarter of it.
    lease_ttl: float = 3.0
