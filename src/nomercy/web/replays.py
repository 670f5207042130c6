"""Finished games' replays (``GET /api/replays/{id}``): built once, off the event loop, kept
as bytes and served a page at a time.

A replay grows with its game: each step carries a frame with every hand (a few KB; a 4,000-move
game with a large deck is ~13 MB of JSON). So nothing of that size runs in the event loop:

- a replay is built in a worker thread, one build at a time (:class:`ReplayCache`), and each
  step is encoded to JSON bytes as it is made (the whole game never exists as Python objects);
  concurrent requests for one game share its build;
- the bytes are kept (least recently used out first, ``budget`` bytes in all): a finished game
  never changes, so a second fetch costs no database read, no engine and no encoding;
- an answer carries at most ``page`` steps (``ServerConfig.replay_page``); the others come a
  page at a time (``?from=K&count=C``), so one answer costs a bounded copy of bytes.

The requests themselves are rate-limited per client address (``Lobby.replay_allowed``).
"""

from __future__ import annotations

import asyncio
import collections
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nomercy.web import messages
from nomercy.web.sqlcore import GameRow

__all__ = ["Replay", "ReplayCache", "build_replay"]


def _encode(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Replay:
    """A finished game's replay as JSON bytes: ``head`` (every key but ``steps``), each step,
    and the record text (``?format=record``)."""

    game_id: str
    head: bytes
    steps: tuple[bytes, ...]
    record: bytes
    page_size: int

    @property
    def size(self) -> int:
        """Bytes kept for this replay."""
        return len(self.head) + len(self.record) + sum(len(s) for s in self.steps)

    def first(self) -> bytes:
        """The whole head and the first page of steps (``"from": 0``)."""
        return b"".join(
            (self.head[:-1], b',"from":0,"steps":', self._steps(0, self.page_size), b"}")
        )

    def page(self, start: int, count: int) -> bytes:
        """Steps ``start`` to ``start + count`` (fewer at the end): ``{"id", "from",
        "steps_total", "steps"}``."""
        opening = _encode({"id": self.game_id, "from": start, "steps_total": len(self.steps)})
        return b"".join((opening[:-1], b',"steps":', self._steps(start, count), b"}"))

    def _steps(self, start: int, count: int) -> bytes:
        return b"[" + b",".join(self.steps[start : start + count]) + b"]"


def build_replay(row: GameRow, page: int) -> Replay:
    """``row``'s replay: the game played again from its record, a frame after each action.

    Engine work and encoding for every step of the game: call it in a worker thread."""
    record = row.record
    game = record.start_game()
    opening = [e.to_dict() for e in game.opening_events] if record.start is None else []
    start = messages.frame(game)
    steps = [_encode(messages.replay_step(game, game.apply(text))) for text in record.actions]
    head = messages.replay_head(row.id, row.room, record, game, opening, start, page)
    return Replay(row.id, _encode(head), tuple(steps), (record.dumps() + "\n").encode(), page)


class ReplayCache:
    """Replays built on demand and kept, ``budget`` bytes at most (0: none kept), ``page``
    steps to an answer.

    One build runs at a time, in a worker thread: builds are CPU work that competes with the
    event loop for the interpreter, so several at once would slow every room down.
    """

    def __init__(self, budget: int, page: int) -> None:
        self.budget = budget
        self.page = page
        self._kept: collections.OrderedDict[str, tuple[Replay, int]] = collections.OrderedDict()
        self._bytes = 0
        self._building: dict[str, asyncio.Task[Replay | None]] = {}
        self._slot = asyncio.Semaphore(1)
        #: Replays built so far (tests: a kept replay is not built again).
        self.builds = 0

    @property
    def kept_bytes(self) -> int:
        """Bytes of the replays kept now."""
        return self._bytes

    async def get(
        self, game_id: str, load: Callable[[], Awaitable[GameRow | None]]
    ) -> Replay | None:
        """The replay of finished game ``game_id`` (``None``: no such finished game);
        ``load()`` reads its row when it is not kept."""
        kept = self._kept.get(game_id)
        if kept is not None:
            self._kept.move_to_end(game_id)
            return kept[0]
        task = self._building.get(game_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._build(game_id, load))
            self._building[game_id] = task
            task.add_done_callback(lambda done: self._done(game_id, done))
        # A requester that leaves does not cancel the build the others wait for.
        return await asyncio.shield(task)

    def _done(self, game_id: str, task: asyncio.Task[Replay | None]) -> None:
        self._building.pop(game_id, None)
        if not task.cancelled():
            task.exception()  # retrieved here: every waiter may have gone

    async def _build(
        self, game_id: str, load: Callable[[], Awaitable[GameRow | None]]
    ) -> Replay | None:
        row = await load()
        if row is None or row.status != "finished":
            return None  # not kept: a game being played may finish
        async with self._slot:
            replay = await asyncio.to_thread(build_replay, row, self.page)
        self.builds += 1
        self._keep(replay)
        return replay

    def _keep(self, replay: Replay) -> None:
        size = replay.size
        if size > self.budget:
            return
        while self._kept and self._bytes + size > self.budget:
            _, (_, old) = self._kept.popitem(last=False)
            self._bytes -= old
        self._kept[replay.game_id] = (replay, size)
        self._bytes += size
