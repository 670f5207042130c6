"""Decision time of the ``neural`` bot (docs/puct.md; ``--bot neural-ppo``: docs/neural.md):
wall time of each ``choose_action``.

Plays ``--games`` games of the bot (``--bot``, default ``neural``) against ``--vs`` bots
through the driver (the bot gets what a tournament gives it: its view and the legal actions)
and times every call that has a choice (two legal actions or more; single-action calls return
at once and are counted apart). Prints median, p90, p99 and max in milliseconds.

    python benchmarks/bench_neural.py --games 500 --players 2
    python benchmarks/bench_neural.py --games 300 --players 4 --preset classic --json
    python benchmarks/bench_neural.py --games 500 --bot neural-ppo
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import TYPE_CHECKING

from nomercy.bots.base import Bot
from nomercy.bots.driver import play_out
from nomercy.bots.registry import make_bot
from nomercy.core.actions import Action
from nomercy.core.game import new_game

if TYPE_CHECKING:  # a --baseline side runs older sources without it
    from nomercy import PlayerView


class Timed:
    """Wraps a bot and records the wall time of each decision with a choice."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.view_mode = getattr(bot, "view_mode", "full")
        self.times: list[float] = []
        self.forced = 0

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        if len(legal) < 2:
            self.forced += 1
            return self.bot.choose_action(view, legal)
        t0 = time.perf_counter()
        action = self.bot.choose_action(view, legal)
        self.times.append(time.perf_counter() - t0)
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="neural", help="the timed bot (default: neural)")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--vs", default="heuristic", help="the other seats' bot")
    parser.add_argument("--preset", default="no-mercy", choices=["no-mercy", "classic"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    timed = Timed(make_bot(args.bot))
    wins = 0
    started = time.perf_counter()
    for i in range(args.games):
        seat = i % args.players
        bots = [
            timed if s == seat else make_bot(args.vs, seed=args.seed * 1000 + i * 10 + s)
            for s in range(args.players)
        ]
        game = new_game(args.players, rules=args.preset, seed=args.seed * 100_000 + i)
        play_out(game, bots)
        wins += game.winner == seat
    ms = sorted(t * 1000 for t in timed.times)
    result = {
        "bot": args.bot,
        "games": args.games,
        "players": args.players,
        "preset": args.preset,
        "vs": args.vs,
        "wins": wins,
        "decisions": len(ms),
        "forced": timed.forced,
        "median_ms": statistics.median(ms),
        "p90_ms": ms[int(0.9 * (len(ms) - 1))],
        "p99_ms": ms[int(0.99 * (len(ms) - 1))],
        "max_ms": ms[-1],
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.bot}, {args.players} players, {args.preset}, vs {args.vs}: {len(ms)} decisions "
            f"(+{timed.forced} forced), median {result['median_ms']:.3f} ms, "
            f"p90 {result['p90_ms']:.3f}, p99 {result['p99_ms']:.3f}, max {result['max_ms']:.3f}"
        )


if __name__ == "__main__":
    main()
