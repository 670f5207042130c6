"""A room's memory over a long game (issue 43, point 5).

One client drives both seats of a room (classic on a 972-card custom deck: the long game an
attacker makes in its own room, tests/web/longgames.py) for ``--moves`` (8,000+) moves, against
the app in this process (tests/web/webharness.py: the real app and SQLite store, no sockets).
The Python memory traced (``tracemalloc``, after a garbage collection) is read every 1,000
moves; the growth from move 1,000 to the end, per move, is what the room keeps of its past.
It runs twice: with the room's bound (``EVENTS_HELD``, the default) and without one (as
before: the game kept every action and event). The two runs must show their clients the same
states (a digest of every state message is compared).

    python benchmarks/bench_memory.py                 # 8,000+ moves, bounded and unbounded
    python benchmarks/bench_memory.py --moves 20000 --json

Needs the web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))

from longgames import BIG_DECK, long_actions
from webharness import Server

from nomercy import new_game
from nomercy.web import gameflow

EVERY = 1000


def traced() -> int:
    """Bytes of Python memory traced now, after a collection."""
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


async def drive(database: Path, actions: list[str]) -> dict[str, Any]:
    """Play ``actions`` in a new room, one client per seat (both driven from here)."""
    samples: list[tuple[int, int]] = []
    digest = hashlib.sha256()
    async with Server(database) as server:
        created = await server.create(seats=2, preset="classic", options={"deck_counts": BIG_DECK})
        code = created["code"]
        bob = (await server.join(code, "Bob"))["token"]
        clients = [await server.ws(code), await server.ws(code)]
        await clients[0].hello(created["token"])
        await clients[1].hello(bob)
        await server.rig(
            code, new_game(2, rules="classic", options={"deck_counts": BIG_DECK}, seed=3)
        )
        room = server.room(code)
        for client in clients:
            await client.state(0)
            client.log.clear()
        began = time.perf_counter()
        most = 0
        for move, action in enumerate(actions, 1):
            game = room.game
            assert game is not None
            seat = game.to_act if game.to_act is not None else int(action[1])
            await clients[seat].act(action)
            for client in clients:
                state = await client.state(move)
                state.pop("room")
                state.pop("game_id")
                digest.update(json.dumps(state, sort_keys=True).encode())
                client.log.clear()
            game = room.game
            assert game is not None
            most = max(most, len(game.log), len(game.history))
            if move % EVERY == 0 or move == len(actions):
                samples.append((move, traced()))
        seconds = time.perf_counter() - began
        assert room.game is not None and room.game.is_over
        first, last = samples[0], samples[-1]
        return {
            "moves": len(actions),
            "seconds": round(seconds, 1),
            "most_held": most,
            "traced_kb": {move: round(size / 1024) for move, size in samples},
            "growth_bytes_per_move": round((last[1] - first[1]) / (last[0] - first[0]), 1),
            "states_digest": digest.hexdigest(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=8000)
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    actions = long_actions(args.moves)
    tracemalloc.start()
    results: dict[str, Any] = {}
    held = gameflow.EVENTS_HELD
    with tempfile.TemporaryDirectory() as tmp:
        for name, bound in (("bounded", held), ("unbounded", 10**12)):
            gameflow.EVENTS_HELD = bound
            results[name] = asyncio.run(drive(Path(tmp) / f"{name}.sqlite", actions))
    gameflow.EVENTS_HELD = held
    same = results["bounded"]["states_digest"] == results["unbounded"]["states_digest"]
    results["same_states"] = same
    results["events_held"] = held
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"{len(actions)} moves, EVENTS_HELD {held}; the clients saw the same states: {same}")
    for name in ("bounded", "unbounded"):
        r = results[name]
        print(
            f"{name:9}  held at most {r['most_held']:6} events or actions   "
            f"growth {r['growth_bytes_per_move']:7.1f} B/move   "
            f"traced {r['traced_kb']}   ({r['seconds']} s)"
        )
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
