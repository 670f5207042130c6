"""Run many games: in this process, on local worker processes, or on a Ray cluster.

Work is cut into :class:`Chunk` s of consecutive game indices. Every game derives its seeds
from the run's master seed and its own index (:mod:`nomercy.core.seeds`), and results are put
back in chunk order, so the same run gives the same results with any ``jobs``, any chunk size
and either backend.

- ``local`` (default): ``jobs=1`` plays in this process; more jobs use a
  :class:`~concurrent.futures.ProcessPoolExecutor` of ``jobs`` workers. On Linux, when this
  process runs a single thread, the workers are forked (a few milliseconds; forking a process
  that runs other threads is unsafe, so the CLI starts its progress bar only once the workers
  exist); otherwise they are spawned (a fresh interpreter each, about half a second). Bots
  are built in the workers by registry name: a spawned worker knows the bots registered when
  their modules are imported (``nomercy.bots.registry``), not ones registered at run time.
- ``ray``: the chunks run as Ray tasks on an existing cluster (``address="host:port"`` or
  ``"auto"``), or on a private local Ray instance (``address="local"``). The ``nomercy``
  package is shipped to the workers (``runtime_env={"py_modules": [nomercy]}``) so that the
  cluster runs this very code. Ray is an optional extra: ``pip install 'uno-no-mercy[ray]'``.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from nomercy.arena.runner import BotSpec, GameResult, GameSetup, play_game

__all__ = [
    "BACKENDS",
    "ArenaError",
    "Chunk",
    "chunk_games",
    "default_jobs",
    "play_chunk",
    "run_chunks",
    "start_method",
]

#: The execution backends.
BACKENDS = ("local", "ray")

#: Called with the number of games just finished.
Progress = Callable[[int], None]


class ArenaError(RuntimeError):
    """A game of the run failed (a bot chose an illegal action, a game never ended, ...)."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """Games ``start`` to ``stop - 1`` of one setup; game ``i`` seats ``lineups[i % len]``."""

    setup: GameSetup
    lineups: tuple[tuple[BotSpec, ...], ...]
    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start


def play_chunk(chunk: Chunk) -> list[GameResult]:
    """Play every game of ``chunk`` in index order (the unit of work of every backend).

    Raises:
        ArenaError: a game failed; the message names its index and seed.
    """
    results = []
    lineups = chunk.lineups
    for index in range(chunk.start, chunk.stop):
        try:
            results.append(play_game(chunk.setup, lineups[index % len(lineups)], index))
        except (RuntimeError, ValueError) as exc:
            raise ArenaError(f"game {index} failed: {exc}") from exc
    return results


def start_method() -> str:
    """How worker processes start: ``fork`` on Linux when this process runs a single thread
    (fast, and safe without other threads), else ``spawn``."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return "fork"
    return "spawn"


def default_jobs() -> int:
    """The number of CPU cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def chunk_games(
    setup: GameSetup,
    lineups: Sequence[tuple[BotSpec, ...]],
    games: int,
    workers: int,
    *,
    size: int | None = None,
) -> list[Chunk]:
    """Cut ``games`` games into chunks: about eight per worker (for balance and progress
    updates), at most 250 games each; ``size`` forces a chunk size."""
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if size is None:
        size = max(1, min(250, math.ceil(games / (8 * max(1, workers)))))
    frozen = tuple(tuple(lineup) for lineup in lineups)
    return [
        Chunk(setup, frozen, start, min(start + size, games)) for start in range(0, games, size)
    ]


def run_chunks(
    chunks: Sequence[Chunk],
    *,
    jobs: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
) -> list[list[GameResult]]:
    """Play every chunk; return their results in chunk order, whatever order they finish in.

    Raises:
        ValueError: an unknown backend, ``jobs < 1``, or ``backend="ray"`` without an address.
        ImportError: the ray backend without Ray installed.
        ArenaError: a game failed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if backend == "ray":
        if not address:
            raise ValueError("the ray backend needs an address: host:port, 'auto' or 'local'")
        return _run_ray(chunks, address, progress)
    if address:
        raise ValueError("an address is only used with the ray backend")
    if jobs == 1 or len(chunks) == 1:
        out = []
        for chunk in chunks:
            out.append(play_chunk(chunk))
            if progress is not None:
                progress(len(chunk))
        return out
    return _run_processes(chunks, jobs, progress)


def _run_processes(
    chunks: Sequence[Chunk], jobs: int, progress: Progress | None
) -> list[list[GameResult]]:
    context = multiprocessing.get_context(start_method())
    results: list[list[GameResult] | None] = [None] * len(chunks)
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=context) as pool:
        futures: dict[Future[list[GameResult]], int] = {
            pool.submit(play_chunk, chunk): i for i, chunk in enumerate(chunks)
        }
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    i = futures[future]
                    results[i] = future.result()
                    if progress is not None:
                        progress(len(chunks[i]))
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return [r for r in results if r is not None]


def _run_ray(
    chunks: Sequence[Chunk], address: str, progress: Progress | None
) -> list[list[GameResult]]:
    try:
        import ray
    except ImportError as exc:
        raise ImportError(
            f"the ray backend needs Ray: pip install 'uno-no-mercy[ray]' ({exc})"
        ) from None
    import nomercy

    started = False
    if not ray.is_initialized():
        # Ray's own address forms: "local" always starts a new private instance, "auto"
        # finds the cluster running on this machine (or RAY_ADDRESS), "host:port" connects.
        ray.init(
            address=address,
            include_dashboard=False if address == "local" else None,
            runtime_env={"py_modules": [nomercy]},
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
        started = True
    try:
        remote = ray.remote(play_chunk)
        refs = [remote.remote(chunk) for chunk in chunks]
        index = {ref: i for i, ref in enumerate(refs)}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            if progress is not None:
                for ref in done:
                    progress(len(chunks[index[ref]]))
        try:
            return list(ray.get(refs))
        except ray.exceptions.RayTaskError as exc:
            cause = exc.as_instanceof_cause()  # type: ignore[no-untyped-call]
            if isinstance(cause, ArenaError):
                raise ArenaError(str(cause).splitlines()[-1]) from None
            raise
    finally:
        if started:
            ray.shutdown()
