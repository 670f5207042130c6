"""The database writer: one thread that runs every database call, in order, batched."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from nomercy.web.sqlcore import StoreBase

__all__ = ["StoreUnavailable", "Writer", "log_unsent"]

log = logging.getLogger("nomercy.web")
T = TypeVar("T")


class StoreUnavailable(Exception):
    """The database refused a write (locked by another process, read-only, full) even after
    retries; nothing was changed."""


class Writer:
    """The thread that runs every database call, in order, many to a transaction.

    A call per move handed to a thread pool one at a time pays a thread switch (and, with the
    event loop busy, a wait for the GIL) per move: at a few hundred moves a second the queue
    grows without bound. Here the thread takes everything queued while its last batch ran and
    commits it at once (:meth:`Store.run_batch`), then resolves the batch's futures in one
    callback on the event loop.
    """

    _STOP = object()

    def __init__(self, store: StoreBase) -> None:
        self.store = store
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="nomercy-db", daemon=True)
        self._thread.start()

    def submit(self, call: Callable[[], T]) -> asyncio.Future[T]:
        """Queue ``call``; its result (or exception) arrives on the returned future."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((call, future, loop))
        return future

    def stop(self) -> None:
        """Finish the queued calls, then end the thread."""
        self._queue.put(self._STOP)
        self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is self._STOP:
                return
            batch = [item]
            stop = False
            while len(batch) < 512:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is self._STOP:
                    stop = True
                    break
                batch.append(more)
            try:
                results = self.store.run_batch([call for call, _, _ in batch])
            except Exception as exc:  # a bug: fail the batch, keep the thread
                log.exception("the database thread failed")
                results = [(False, exc)] * len(batch)
            by_loop: dict[Any, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
            for (_, future, loop), (ok, value) in zip(batch, results, strict=True):
                by_loop.setdefault(loop, []).append((future, ok, value))
            for loop, items in by_loop.items():
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    loop.call_soon_threadsafe(_resolve, items)
            if stop:
                return


def log_unsent(future: asyncio.Future[Any]) -> None:
    """A done-callback for a call nobody waits for (a notice): log its failure."""
    if not future.cancelled() and future.exception() is not None:
        log.warning("a notice was not sent: %s", future.exception())


def _resolve(items: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    for future, ok, value in items:
        if future.cancelled():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
