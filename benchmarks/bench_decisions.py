"""Decision time per bot: every decision a bot makes in real games, median, p99 and max.

Each bot under test plays ``--games`` seeded games in one seat (game *i* seats it at
``i % players``) against ``--vs`` in every other seat; every call to its ``choose_action`` is
timed, forced decisions included (a bot answers those at once, which is part of what a
player waits for). A bot with ``last_iterations`` (``ismcts``) also gets figures over its
searched decisions only. The issue's bar: under 0.25 s median and 1 s p99 for every bot.

    python benchmarks/bench_decisions.py
    python benchmarks/bench_decisions.py --players 4 --games 20
    python benchmarks/bench_decisions.py --preset classic --bots heuristic,ismcts,rlcard-rule
    python benchmarks/bench_decisions.py --bots ismcts:time_limit=0.1,ismcts:iterations=400

Bot specs are as for ``nomercy tournament --bots`` (``NAME:KEY=VALUE[:KEY=VALUE]``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any

from nomercy import new_game
from nomercy.arena.runner import parse_bot_spec
from nomercy.bots import Bot, make_bot
from nomercy.bots.driver import Driver
from nomercy.core.actions import Action
from nomercy.core.seeds import bot_seed, game_seed

if TYPE_CHECKING:  # a --baseline side runs older sources without it
    from nomercy import PlayerView

DEFAULT_BOTS = "random,greedy,heuristic,ismcts,ismcts:time_limit=0.1"


class Timed:
    """Wraps a bot; records the time of each ``choose_action`` and whether it searched."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []
        self.searched: list[float] = []
        view_mode = getattr(bot, "view_mode", None)
        if view_mode is not None:
            self.view_mode = view_mode

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        start = time.perf_counter()
        action = self.bot.choose_action(view, legal)
        elapsed = time.perf_counter() - start
        self.times.append(elapsed)
        if getattr(self.bot, "last_iterations", 0):
            self.searched.append(elapsed)
        return action

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        chooser = getattr(self.bot, "choose_out_of_turn", None)
        return None if chooser is None else chooser(view, legal)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def figures(times: list[float]) -> dict[str, float]:
    """Count, median, p99 and max of ``times``, in milliseconds."""
    if not times:
        return {"decisions": 0}
    return {
        "decisions": len(times),
        "median_ms": statistics.median(times) * 1000,
        "p99_ms": percentile(times, 0.99) * 1000,
        "max_ms": max(times) * 1000,
    }


def measure(spec_text: str, args: argparse.Namespace) -> dict[str, Any]:
    """Play ``args.games`` games with the bot ``spec_text`` in one seat; its decision times."""
    spec = parse_bot_spec(spec_text)
    timed: Timed | None = None
    all_times: list[float] = []
    searched: list[float] = []
    wins = 0
    started = time.perf_counter()
    for i in range(args.games):
        seat = i % args.players
        game = new_game(args.players, rules=args.preset, seed=game_seed(args.seed, i))
        bots: list[Bot] = []
        for s in range(args.players):
            if s == seat:
                timed = Timed(spec.build(bot_seed(args.seed, i, s)))
                bots.append(timed)
            else:
                bots.append(make_bot(args.vs, seed=bot_seed(args.seed, i, s)))
        Driver(bots).play_out(game)
        assert timed is not None
        all_times.extend(timed.times)
        searched.extend(timed.searched)
        winner = game.winner if game.winner is not None else game.hand_winner
        wins += winner == seat
    result: dict[str, Any] = {
        "bot": spec.label,
        "games": args.games,
        "wins": wins,
        "seconds": time.perf_counter() - started,
        "all": figures(all_times),
    }
    if searched:
        result["searched"] = figures(searched)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", default=DEFAULT_BOTS, help=f"bots to time ({DEFAULT_BOTS})")
    parser.add_argument("--vs", default="heuristic", help="the bot in the other seats")
    parser.add_argument("--players", type=int, default=2, help="seats per game (2)")
    parser.add_argument("--games", type=int, default=40, help="games per bot (40)")
    parser.add_argument("--preset", default="no-mercy", choices=["no-mercy", "classic"])
    parser.add_argument("--seed", type=int, default=1, help="master seed (1)")
    parser.add_argument("--json", action="store_true", help="print JSON lines instead")
    args = parser.parse_args(argv)
    if args.games < 1 or not 2 <= args.players <= 10:
        parser.error("--games must be at least 1 and --players between 2 and 10")
    try:
        for text in args.bots.split(","):
            parse_bot_spec(text)  # an unknown bot or a malformed spec fails before any game
        make_bot(args.vs)
    except ValueError as exc:
        parser.error(str(exc))
    if not args.json:
        print(
            f"{args.preset}, {args.players} players, {args.games} games per bot against "
            f"{args.vs}, --seed {args.seed}"
        )
        print("| bot | decisions | median | p99 | max | searched: median | p99 | max |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for text in args.bots.split(","):
        result = measure(text, args)
        if args.json:
            print(json.dumps(result))
            continue
        a = result["all"]
        row = (
            f"| `{result['bot']}` | {a['decisions']:,} | {a['median_ms']:.2f} ms "
            f"| {a['p99_ms']:.1f} ms | {a['max_ms']:.1f} ms |"
        )
        s = result.get("searched")
        if s:
            row += f" {s['median_ms']:.1f} ms | {s['p99_ms']:.1f} ms | {s['max_ms']:.1f} ms |"
        else:
            row += " | | |"
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
