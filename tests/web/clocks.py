"""A clock the web tests advance by hand (``ServerConfig.clock``): timers without real waits."""

from __future__ import annotations

import asyncio

from nomercy.web.config import Clock


class ManualClock(Clock):
    """Time stands still until :meth:`advance`; a ``sleep`` ends when the clock passes its end.

    >>> clock = ManualClock()
    >>> clock.advance(2.5); clock.time() == ManualClock.START + 2.5
    True
    """

    START = 1_800_000_000.0

    def __init__(self) -> None:
        self.now = self.START
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, future))
        await future

    @property
    def sleeping(self) -> int:
        """How many waits are under way (cancelled ones not counted)."""
        return sum(1 for _, f in self._sleepers if not f.done())

    def advance(self, seconds: float) -> None:
        """Move the clock on; every wait that ends by then ends now."""
        self.now += seconds
        due = [(end, f) for end, f in self._sleepers if end <= self.now]
        self._sleepers = [(end, f) for end, f in self._sleepers if end > self.now]
        for _, future in due:
            if not future.done():
                future.set_result(None)

    async def advance_when_waiting(self, seconds: float, timeout: float = 5.0) -> None:
        """Wait (real time, at most ``timeout`` s) until something sleeps on the clock, then
        :meth:`advance` it by ``seconds``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not self.sleeping:
            assert loop.time() < end, "nothing waits on the clock"
            await asyncio.sleep(0.001)
        self.advance(seconds)
