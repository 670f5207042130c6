"""A clock the web tests advance by hand (``ServerConfig.clock``): timers, idle expiry and rate
limits without real waits."""

from __future__ import annotations

import asyncio

from nomercy.web.config import Clock
from nomercy.web.rooms import SWEEP_TASK


class ManualClock(Clock):
    """Time stands still until :meth:`advance`; a ``sleep`` ends when the clock passes its end.
    ``time()`` and ``monotonic()`` read the same value.

    >>> clock = ManualClock()
    >>> clock.advance(2.5); clock.time() == clock.monotonic() == ManualClock.START + 2.5
    True
    """

    START = 1_800_000_000.0

    def __init__(self) -> None:
        self.now = self.START
        self._sleepers: list[tuple[float, asyncio.Future[None], bool]] = []

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future = asyncio.get_running_loop().create_future()
        task = asyncio.current_task()
        sweep = task is not None and task.get_name() == SWEEP_TASK
        self._sleepers.append((self.now + seconds, future, sweep))
        await future

    @property
    def sleeping(self) -> int:
        """How many waits are under way (cancelled ones not counted), besides the lobby's sweep
        (which always waits for its next round)."""
        return sum(1 for _, f, sweep in self._sleepers if not f.done() and not sweep)

    @property
    def wakes(self) -> list[float]:
        """When the waits under way end (the lobby's sweep aside), soonest first: what still
        waits for the clock, which no real-time pause can tell."""
        return sorted(end for end, f, sweep in self._sleepers if not f.done() and not sweep)

    def advance(self, seconds: float) -> None:
        """Move the clock on; every wait that ends by then ends now."""
        self.now += seconds
        due = [s for s in self._sleepers if s[0] <= self.now]
        self._sleepers = [s for s in self._sleepers if s[0] > self.now]
        for _, future, _ in due:
            if not future.done():
                future.set_result(None)

    async def advance_and_sweep(self, seconds: float, timeout: float = 60.0) -> None:
        """:meth:`advance` the clock, then wait until the lobby's sweep has finished any round
        that came due (it waits for its next one): the rooms it expires are gone when this
        returns. ``timeout`` (real time) only catches a hang."""
        self.advance(seconds)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not any(sweep and not f.done() for _, f, sweep in self._sleepers):
            assert loop.time() < end, "the lobby's sweep does not come back"
            await asyncio.sleep(0.001)

    async def advance_when_waiting(self, seconds: float, timeout: float = 60.0) -> None:
        """Wait until something sleeps on the clock (the lobby's sweep aside), then
        :meth:`advance` it by ``seconds``. ``timeout`` (real time) only catches a hang."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not self.sleeping:
            assert loop.time() < end, "nothing waits on the clock"
            await asyncio.sleep(0.001)
        self.advance(seconds)
