"""Bot strength and decision time: one bot against a field of another, seats alternated.

Game *i* seats the tested bot at seat ``i % players`` and the opponent bot everywhere else,
so every seat (first to act, dealer, ...) is played equally often. Each game's shuffle seed
and each bot's seed derive from ``--seed``, so a run is reproducible. The win rate comes with
a 95% Wilson score interval; for a searching bot (``ismcts``) the time of every decision it
searched is recorded (median and p99; forced decisions, which return at once, are left out
and counted separately).

    python benchmarks/bench_bots.py --bot heuristic --vs random --games 1000
    python benchmarks/bench_bots.py --bot ismcts --vs heuristic --games 1000
    python benchmarks/bench_bots.py --bot ismcts --vs heuristic --players 4 --games 1000
    python benchmarks/bench_bots.py --bot ismcts --param iterations=300 --games 200 --json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from nomercy import new_game
from nomercy.bots import BOTS, Bot, make_bot, play_out
from nomercy.core.actions import Action


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


class Timed:
    """Wraps a bot and records how long each searched decision takes."""

    def __init__(self, bot: Bot, times: list[float], forced: list[int]) -> None:
        self.bot = bot
        self.name = bot.name
        self.times = times
        self.forced = forced

    def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
        start = time.perf_counter()
        action = self.bot.choose_action(view, legal)
        elapsed = time.perf_counter() - start
        if getattr(self.bot, "last_iterations", 1):
            self.times.append(elapsed)
        else:
            self.forced[0] += 1
        return action

    def choose_out_of_turn(self, view: dict[str, Any], legal: list[Action]) -> Action | None:
        chooser = getattr(self.bot, "choose_out_of_turn", None)
        return None if chooser is None else chooser(view, legal)


def parse_params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"--param needs KEY=VALUE, not {item!r}")
        value: Any
        try:
            value = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                value = text
        params[key] = value
    return params


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Win rate of one bot against a field of another, seats alternated.",
    )
    parser.add_argument("--bot", default="ismcts", help="the bot under test (default: ismcts)")
    parser.add_argument("--vs", default="heuristic", help="the opponents (default: heuristic)")
    parser.add_argument("--players", type=int, default=2, help="seats per game (default: 2)")
    parser.add_argument("--games", type=int, default=1000, help="games (default: 1000)")
    parser.add_argument("--seed", type=int, default=1, help="master seed (default: 1)")
    parser.add_argument("--preset", default="no-mercy", help="rules preset (default: no-mercy)")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword parameter for the tested bot, e.g. iterations=300 (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "--every",
        type=int,
        default=0,
        metavar="N",
        help="also print the running figures to stderr every N games (for logs)",
    )
    args = parser.parse_args(argv)
    for name in (args.bot, args.vs):
        if name not in BOTS:
            parser.error(f"unknown bot {name!r}; valid bots: {', '.join(sorted(BOTS))}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        params = parse_params(args.param)
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    master = random.Random(args.seed)
    seeds = [master.getrandbits(63) for _ in range(args.games)]
    times: list[float] = []
    forced = [0]
    wins = 0
    start = time.perf_counter()
    with Progress(
        TextColumn(f"{args.bot} vs {args.vs} x{args.players - 1}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("win {task.fields[rate]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True) if args.json else None,
    ) as progress:
        task = progress.add_task("games", total=args.games, rate="-")
        for i, seed in enumerate(seeds):
            game = new_game(args.players, rules=args.preset, seed=seed)
            seat = i % args.players
            seeds_rng = random.Random(seed)
            bots: list[Bot] = [
                make_bot(args.vs, seed=seeds_rng.getrandbits(32)) for _ in range(args.players)
            ]
            bots[seat] = Timed(
                make_bot(args.bot, seed=seeds_rng.getrandbits(32), **params), times, forced
            )
            play_out(game, bots)
            wins += game.winner == seat
            progress.update(task, advance=1, rate=f"{wins / (i + 1):.3f}")
            if args.every and (i + 1) % args.every == 0:
                low, high = wilson(wins, i + 1)
                median = f"{statistics.median(times) * 1000:.1f} ms" if times else "-"
                print(
                    f"[partial] {i + 1} games: won {wins} = {wins / (i + 1):.1%} "
                    f"[{low:.1%}, {high:.1%}], median decision {median}",
                    file=sys.stderr,
                    flush=True,
                )
    elapsed = time.perf_counter() - start
    low, high = wilson(wins, args.games)
    result: dict[str, Any] = {
        "bot": args.bot,
        "params": params,
        "vs": args.vs,
        "players": args.players,
        "preset": args.preset,
        "games": args.games,
        "seed": args.seed,
        "wins": wins,
        "win_rate": wins / args.games,
        "wilson95": [low, high],
        "fair_share": 1 / args.players,
        "seconds": elapsed,
        "searched_decisions": len(times),
        "forced_decisions": forced[0],
    }
    if times:
        result["decision_ms_median"] = statistics.median(times) * 1000
        result["decision_ms_p99"] = percentile(times, 0.99) * 1000
        result["decision_ms_max"] = max(times) * 1000
    if args.json:
        json.dump(result, sys.stdout)
        print()
        return 0
    print(
        f"{args.bot}{params or ''} vs {args.players - 1} x {args.vs} ({args.preset}, "
        f"{args.players} players): won {wins}/{args.games} = {wins / args.games:.1%}, "
        f"95% Wilson [{low:.1%}, {high:.1%}] (fair share {1 / args.players:.0%}); "
        f"{elapsed:.0f} s"
    )
    if times:
        which = f"searched decisions ({forced[0]} forced ones answered at once)"
        if not forced[0] and args.bot not in ("ismcts",):
            which = "decisions"
        print(
            f"{args.bot} decision time over {len(times)} {which}: "
            f"median {result['decision_ms_median']:.1f} ms, p99 {result['decision_ms_p99']:.1f} "
            f"ms, max {result['decision_ms_max']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
