"""What a deal costs under each deal version (issue 42 point 3), on one or both core builds.

Two measures per deal version, timed back to back in every repetition (alternating which
version goes first, so machine noise hits both alike), medians over the repetitions:

- ``shuffle``: one shuffle of the 168-card No Mercy deck from a key, as ``Game._shuffle``
  does it (``nomercy.core.dealing.shuffle_with_key``: version 1 seeds ``random.Random(key)``
  and runs CPython's shuffle, draw for draw; version 2 seeds xoshiro128++ and runs our
  Fisher-Yates), without the key's advance;
- ``new_game``: a whole four-player deal (``new_game(4, seed=s, deal_version=v)``: the shuffle,
  A38's dealer draw, dealing, the NM-4 flip, and the game object around them);
- ``game``: a whole four-player random game on the id path, as ``bench_engine.py --path ids``
  plays it (events off, ``step(choice(legal_ids()))`` with ``random.Random(seed)``), in
  microseconds per step, deal and reshuffles included. The two versions deal different games
  from the same seeds, so their games differ in length and the figure carries that noise.

Times are CPU time (``time.process_time``). With ``--builds both`` the script runs itself in
two child processes, with ``NOMERCY_PURE=1`` and without it (a process loads one build; the
compiled one needs ``python -m nomercy.core.build``), and prints both tables.

    python benchmarks/bench_deal.py                     # this interpreter's build
    python benchmarks/bench_deal.py --builds both --deals 2000 --repeat 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

VERSIONS = (1, 2)


def _time(fn: Callable[[], None], count: int) -> float:
    """Microseconds per call of ``fn`` (``count`` calls), CPU clock."""
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1e6 / count


def measure(deals: int, repeat: int) -> dict[str, Any]:
    """Median microseconds per shuffle and per ``new_game`` for each version, this build."""
    import nomercy.core
    from nomercy import new_game
    from nomercy.core.dealing import fresh_deck, shuffle_with_key
    from nomercy.core.rules import make_rules

    deck = fresh_deck(make_rules("no-mercy"))
    keys = [(k * 0x9E3779B97F4A7C15) & ((1 << 64) - 1) for k in range(deals)]

    def shuffles(version: int) -> Callable[[], None]:
        def run() -> None:
            for key in keys:
                shuffle_with_key(list(deck), key, version)

        return run

    def games(version: int) -> Callable[[], None]:
        def run() -> None:
            for seed in range(deals):
                new_game(4, seed=seed, deal_version=version)

        return run

    def played(version: int) -> tuple[Callable[[], None], list[int]]:
        steps = [0]

        def run() -> None:
            steps[0] = 0
            for seed in range(deals):
                choice = random.Random(seed).choice
                game = new_game(4, seed=seed, deal_version=version)
                game.record_events = False
                step, legal_ids = game.step, game.legal_ids
                while not game.is_over:
                    step(choice(legal_ids()))
                    steps[0] += 1

        return run, steps

    def copies() -> None:  # what shuffles() spends outside the shuffle, subtracted
        for _ in keys:
            list(deck)

    found: dict[str, dict[int, list[float]]] = {
        "shuffle": {v: [] for v in VERSIONS},
        "new_game": {v: [] for v in VERSIONS},
        "game": {v: [] for v in VERSIONS},
    }
    steps_per_game: dict[str, float] = {}
    for rep in range(repeat + 1):  # the first round warms up and is dropped
        order = VERSIONS if rep % 2 else VERSIONS[::-1]
        for version in order:
            shuffle_us = _time(shuffles(version), deals) - _time(copies, deals)
            game_us = _time(games(version), deals)
            run, steps = played(version)
            step_us = _time(run, deals) * deals / steps[0]
            steps_per_game[str(version)] = steps[0] / deals
            if rep:
                found["shuffle"][version].append(shuffle_us)
                found["new_game"][version].append(game_us)
                found["game"][version].append(step_us)
    return {
        "build": nomercy.core.build_description(),
        "deals": deals,
        "repeat": repeat,
        "steps_per_game": steps_per_game,
        "median_us": {
            what: {str(v): statistics.median(times) for v, times in by.items()}
            for what, by in found.items()
        },
        "range_us": {
            what: {str(v): [min(times), max(times)] for v, times in by.items()}
            for what, by in found.items()
        },
    }


def show(result: dict[str, Any]) -> None:
    print(f"\n{result['build']}: {result['deals']} deals x {result['repeat']} repetitions, CPU")
    print(f"{'measure':<10} {'version 1 us':>13} {'version 2 us':>13} {'v1 / v2':>8}")
    # shuffle and new_game: per deal; game: per step of a whole game (deal included).
    for what, medians in result["median_us"].items():
        one, two = medians["1"], medians["2"]
        print(f"{what:<10} {one:>13.2f} {two:>13.2f} {one / two:>7.2f}x")
    lengths = result["steps_per_game"]
    print(f"steps per game: version 1 {lengths['1']:.1f}, version 2 {lengths['2']:.1f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=1000, help="deals per measure (default 1000)")
    p.add_argument("--repeat", type=int, default=5, help="timed repetitions (default 5)")
    p.add_argument(
        "--builds",
        choices=["this", "both"],
        default="this",
        help="this interpreter's core build, or pure and compiled in two child processes",
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    if args.builds == "this":
        results = [measure(args.deals, args.repeat)]
    else:
        results = []
        for pure in (True, False):
            env = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
            if pure:
                env["NOMERCY_PURE"] = "1"
            cmd = [sys.executable, __file__, "--json", "--deals", str(args.deals)]
            cmd += ["--repeat", str(args.repeat)]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            results.extend(json.loads(out.stdout))
    if args.json:
        print(json.dumps(results))
    else:
        for result in results:
            show(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
