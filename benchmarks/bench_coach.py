"""How long the coach's hints take, and how many search iterations fit in the time cap.

Plays heuristic games (No Mercy and classic, 2 and 4 players) and asks the coach for a hint at
every decision of the seat to act that has a choice; prints the median, p90, p99 and maximum
time per hint and the share of hints the time cap cut short (fewer iterations than the
budget). The default budget is the one the apps use (``nomercy.tables.coach``)::

    python benchmarks/bench_coach.py
    python benchmarks/bench_coach.py --games 4 --iterations 3000 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import nomercy.core
from nomercy import new_game
from nomercy.bots import make_bot
from nomercy.core.actions import CallUno, Catch
from nomercy.tables.coach import DEFAULT_ITERATIONS, DEFAULT_MAX_TIME, Coach


def measure(preset: str, players: int, games: int, iterations: int, max_time: float) -> dict:
    times: list[float] = []
    cut = 0
    for index in range(games):
        g = new_game(players, rules=preset, seed=1000 + index)
        bots = [make_bot("heuristic", seed=s) for s in range(players)]
        coach = Coach(seed=index, iterations=iterations, max_time=max_time)
        steps = 0
        while not g.is_over and steps < 2000:
            seat = g.to_act
            legal = g.legal_actions(seat)
            choices = [a for a in legal if not isinstance(a, (CallUno, Catch))]
            if len(choices) > 1:
                start = time.perf_counter()
                hint = coach.hint(g.view(seat), legal)
                times.append(time.perf_counter() - start)
                cut += hint.iterations < iterations
            g.apply(bots[seat].choose_action(g.view(seat), legal))
            steps += 1
    times.sort()
    q = statistics.quantiles(times, n=100, method="inclusive")
    return {
        "preset": preset,
        "players": players,
        "hints": len(times),
        "median_s": round(statistics.median(times), 4),
        "p90_s": round(q[89], 4),
        "p99_s": round(q[98], 4),
        "max_s": round(times[-1], 4),
        "cut_short": round(cut / len(times), 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per line-up (default: 3)")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--max-time", type=float, default=DEFAULT_MAX_TIME)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    rows = [
        measure(preset, players, args.games, args.iterations, args.max_time)
        for preset in ("no-mercy", "classic")
        for players in (2, 4)
    ]
    if args.json:
        print(json.dumps({"build": nomercy.core.BUILD, "rows": rows}, indent=2))
        return 0
    print(
        f"core build: {nomercy.core.BUILD}; budget {args.iterations} iterations, "
        f"cap {args.max_time} s",
        file=sys.stderr,
    )
    print("| preset | players | hints | median | p90 | p99 | max | cut short by the cap |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['preset']} | {r['players']} | {r['hints']} | {r['median_s']:.3f} s | "
            f"{r['p90_s']:.3f} s | {r['p99_s']:.3f} s | {r['max_s']:.3f} s | "
            f"{100 * r['cut_short']:.0f}% |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
