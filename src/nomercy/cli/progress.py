"""Progress bars on stderr for the long commands (tournament, simulate, analyse)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Bar", "progress_bar"]


class Bar:
    """A progress bar that draws nothing until its first update.

    Starting late matters: the arena forks its worker processes before the first update,
    and rich's refresh thread would make forking unsafe (see
    :func:`nomercy.arena.parallel.start_method`). Without rich installed it prints a line
    that counts instead.
    """

    def __init__(self, label: str, unit: str, total: int | None, quiet: bool) -> None:
        self._label, self._unit, self._quiet = label, unit, quiet
        self._done, self._total = 0, total
        self._start = time.monotonic()
        self._bar: Any = None
        self._task: Any = None
        if quiet:
            return
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
        except ImportError:
            return
        self._bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(unit),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
        )
        self._task = self._bar.add_task(label, total=total)

    def update(self, done: int, total: int | None = None) -> None:
        """Show ``done`` of ``total`` (the total given at the start if ``None``)."""
        self._done = done
        if total is not None:
            self._total = total
        if self._quiet:
            return
        bar = self._bar
        if bar is None:
            end = "\n" if done == self._total else ""
            elapsed = time.monotonic() - self._start
            print(
                f"\r{self._label}: {done}/{self._total} {self._unit}, {elapsed:.0f} s",
                end=end,
                file=sys.stderr,
            )
            return
        if not bar.live.is_started:
            bar.start()
        bar.update(self._task, completed=done, total=self._total)

    def advance(self, count: int) -> None:
        """Count ``count`` more."""
        self.update(self._done + count)

    def close(self) -> None:
        """Stop drawing (a no-op if nothing was drawn)."""
        if self._bar is not None and self._bar.live.is_started:
            self._bar.stop()


@contextmanager
def progress_bar(
    label: str, unit: str, *, total: int | None = None, quiet: bool = False
) -> Iterator[Bar]:
    """A :class:`Bar` of ``unit`` (``"games"``) headed ``label``; ``quiet`` draws nothing."""
    bar = Bar(label, unit, total, quiet)
    try:
        yield bar
    finally:
        bar.close()
