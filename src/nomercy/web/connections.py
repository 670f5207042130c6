"""Connections: one WebSocket's seat, rate limit and outgoing queue, and the loop watch.

Every message to a connection goes through its own bounded queue and sender task
(:class:`Connection`), so a slow client never blocks a room.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from nomercy.web.config import ServerConfig
from nomercy.web.messages import dumps
from nomercy.web.protocol import (
    TokenBucket,
)

__all__ = ["Connection", "Delivery", "LoopWatch", "address_key"]

log = logging.getLogger("nomercy.web")


class Delivery:
    """The server-side time of one person's action: from its arrival until the last
    connection's update was handed to the network (``ServerConfig.timings``)."""

    def __init__(self, arrived: float, sink: collections.deque[float]) -> None:
        self.arrived = arrived
        self.sink = sink
        self.pending = 0

    def done(self) -> None:
        """One connection's update went out."""
        self.pending -= 1
        if self.pending == 0:
            self.sink.append(time.perf_counter() - self.arrived)


class LoopWatch:
    """Measures the event loop's stalls: time in which no connection's messages were read,
    so none of them may be judged on how they bunched up then (``Connection.admit``).

    In real time (``time.monotonic()``), whatever ``ServerConfig.clock`` says: a stall is the
    server's own, and a clock a test advances by hand is no stall."""

    PERIOD = 0.05

    def __init__(self) -> None:
        self._stalled = 0.0
        self._tick: float | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start measuring (in the running loop)."""
        self._tick = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop measuring."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.PERIOD)
            now = time.monotonic()
            assert self._tick is not None
            late = now - self._tick - self.PERIOD
            if late > self.PERIOD:
                self._stalled += late
            self._tick = now

    def stalled(self, now: float) -> float:
        """Seconds the loop has been stalled since it started, the stall going on at ``now``
        (seen from a callback that runs as the loop comes back) included; never decreases."""
        if self._tick is None:
            return self._stalled
        return self._stalled + max(0.0, now - self._tick - 2 * self.PERIOD)


class Connection:
    """One WebSocket: its seat (``None``: a spectator), rate limit, and outgoing queue.

    ``send`` never blocks: messages wait in a bounded queue that one sender task drains with
    ``send_text``. A connection whose queue overflows (``send_queue`` messages or
    ``send_bytes`` bytes) is stuck: it is closed (``close``).
    """

    def __init__(
        self,
        send_text: Callable[[str], Coroutine[Any, Any, None]],
        close: Callable[[int], Coroutine[Any, Any, None]],
        config: ServerConfig,
        watch: LoopWatch | None = None,
        address: str | None = None,
        on_stuck: Callable[[], None] | None = None,
    ) -> None:
        self._send_text = send_text
        self._on_stuck = on_stuck
        #: Closed for not reading its messages (see ``send``).
        self.stuck = False
        #: The client's address key (``address_key``), for the per-address hello budget.
        self.address = address_key(address) if address is not None else None
        self._send_bytes = config.send_bytes
        self.queued_bytes = 0  # text waiting in ``queue``
        self._close = close
        self.seat: int | None = None
        self.greeted = False
        self.hello_at = 0.0  # the clock's monotonic() at the last hello
        self.hello_token: str | None = None  # and its token
        self._clock = config.clock
        self.bucket = TokenBucket(
            config.rate_capacity, config.rate_per_second, config.clock.monotonic
        )
        self._throttle = config.throttle
        self._watch = watch
        self._stalls_seen = watch.stalled(time.monotonic()) if watch is not None else 0.0
        self._abuse_limit = config.abuse_limit
        self._abuse_window = config.abuse_window
        self._refused: collections.deque[float] = collections.deque()
        #: A hint is being computed for this connection (one at a time).
        self.hint_pending = False
        self.queue: asyncio.Queue[tuple[str, Delivery | None] | None] = asyncio.Queue(
            maxsize=config.send_queue
        )
        self.closed = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the sender task."""
        self._task = asyncio.create_task(self._sender())

    def admit(self, arrived: float, busy: float = 0.0) -> float | None:
        """Judge a message by when it arrived (the clock's ``monotonic()``): the seconds to hold it
        back so that the connection keeps to its rate (0: at once), or ``None``: it is over
        the rate by more than ``ServerConfig.throttle`` seconds of messages (refuse it).

        Time the server did not read (its event loop stalled, see :class:`LoopWatch`, or
        ``busy``: seconds this connection's messages waited for the server) is credited, so
        messages that piled up meanwhile count at the rate they were sent, not as a burst.
        """
        stalled = busy
        if self._watch is not None:
            # The stall going on now, in the watch's real time (read as the message arrived).
            total = self._watch.stalled(time.monotonic())
            stalled += max(0.0, total - self._stalls_seen)
            self._stalls_seen = max(self._stalls_seen, total)
        self.bucket.credit(arrived, stalled)
        return self.bucket.reserve(arrived, self._throttle)

    def refuse(self) -> bool:
        """Count a rate-limited message; whether the connection now floods (``abuse_limit``
        refusals within ``abuse_window`` seconds: a sliding window, so sending just under the
        limit now and then does not reset the count)."""
        now = self._clock.monotonic()
        self._refused.append(now)
        while self._refused and self._refused[0] <= now - self._abuse_window:
            self._refused.popleft()
        return len(self._refused) >= self._abuse_limit

    async def _sender(self) -> None:
        while True:
            item = await self.queue.get()
            if item is None:
                return
            text, delivery = item
            self.queued_bytes -= len(text)
            try:
                await self._send_text(text)
            except Exception:  # the peer went away; the receive loop cleans up
                self.closed = True
                return
            if delivery is not None:
                delivery.done()

    def send(self, message: dict[str, Any] | str, delivery: Delivery | None = None) -> None:
        """Queue a message (a dict, or JSON text already encoded)."""
        if self.closed:
            return
        text = message if isinstance(message, str) else dumps(message)
        try:
            if self.queued_bytes + len(text) > self._send_bytes and self.queued_bytes:
                raise asyncio.QueueFull
            self.queue.put_nowait((text, delivery))
            self.queued_bytes += len(text)
            if delivery is not None:
                delivery.pending += 1
        except asyncio.QueueFull:
            # By count or by bytes (a few large states weigh as much as many small updates).
            log.warning("closing a connection that does not read its messages")
            self.closed = self.stuck = True
            asyncio.get_running_loop().create_task(self._close(1013))
            if self._on_stuck is not None:
                self._on_stuck()

    async def stop(self) -> None:
        """Stop the sender after the queued messages (or at once if the peer is gone)."""
        self.closed = True
        if self._task is None:
            return
        if not self._task.done():
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 1.0)
            except (TimeoutError, Exception):
                self._task.cancel()


def address_key(address: str) -> str:
    """The key a client address is counted under: IPv4 as it is, IPv6 by its /64 network
    (one household or host gets a whole /64; counting single IPv6 addresses would give it
    2**64 allowances).

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:aaaa::1")
    ('203.0.113.7', '2001:db8:1:2::/64')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
