"""Simulator throughput: the engine's raw random id loop against ``nomercy simulate``, in one run.

The sides play the same number of four-player No Mercy games with random players:

- ``raw``: the engine benchmark's id loop (``benchmarks/bench_engine.py --path ids``): events
  off, at every step ``game.step(rng.choice(game.legal_ids()))``; no bots, no statistics;
- ``objects``: the engine benchmark's object loop (``--path objects``): events on, at every
  step ``game.apply(rng.choice(game.legal_actions()))``, for scale;
- ``plain``: ``RandomBot`` s seated by the driver as it was before it was made lean (every
  seat's legal actions and a full view, history included, for every decision), for scale
  (it plays a fifth of the games, being slow; ``--skip-plain`` leaves it out);
- ``sim1``: :func:`nomercy.arena.simulate.run_simulation` with ``random`` bots and
  ``jobs=1``: derived seeds, a generator per seat, events off, the bots' choices as ids,
  each game in one compiled call (``nomercy.bots.fastplay``), and the per-hand statistics
  from the engine's counters (``Game.hand_tallies``);
- ``sim2``: the same with ``jobs=2`` (worker processes, their start-up included);
- ``rlcard`` (with ``--rlcard``): RLCard's ``UnoGame`` playing the same number of 4-player
  random games, one object reused across games (``init_game()`` per game, as its env does;
  ``bench_engine.make_rlcard``), the baseline of ``sim1/rlcard (cpu time)``.

Steps are applied actions; each side's steps/s is its steps over its wall time (dealing
included). The sides run back to back in every repetition, in a rotating order, and the
table gives medians. The bars: ``sim1`` at least 80% of ``raw``'s steps/s (issue 23), and
``sim2`` at least 1.7 times ``sim1`` (only meaningful with two idle cores). Because a shared
machine's load moves wall times, the script also reports steps per CPU-second: the process's
own for the single-process sides, the workers' for ``sim2`` (so ``sim2 workers/sim1`` near
1.0 means that splitting the games across processes costs next to nothing); on a loaded
machine the CPU-time ratio ``sim1/raw (cpu time)`` is the steadier one.

    python benchmarks/bench_simulate.py                   # defaults: 3000 games, 5 repeats
    python benchmarks/bench_simulate.py --games 1000 --repeat 3 --json
    python benchmarks/bench_simulate.py --check           # exit 1 if a bar is missed
    python benchmarks/bench_simulate.py --skip-plain --rlcard --games 2000 --repeat 7

Needs the arena extra: ``pip install -e '.[arena]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import nomercy
from nomercy.arena.runner import BotSpec, GameSetup
from nomercy.arena.simulate import run_simulation
from nomercy.bots import Bot, OutOfTurnBot, RandomBot
from nomercy.core import BUILD as CORE_BUILD
from nomercy.core.actions import Action, CallUno

PLAYERS = 4
#: sim1 / raw steps/s, and sim2 / sim1.
BARS = {"sim1/raw": 0.80, "sim2/sim1": 1.70}


def raw(games: int, seed: int) -> int:
    """The engine benchmark's id loop (bench_engine.make_ours, ``--path ids``)."""
    steps = 0
    for i in range(games):
        choice = random.Random(seed + i).choice
        game = nomercy.new_game(PLAYERS, seed=seed + i)
        game.record_events = False
        step = game.step
        legal_ids = game.legal_ids
        while not game.is_over:
            step(choice(legal_ids()))
            steps += 1
    return steps


def objects(games: int, seed: int) -> int:
    """The engine benchmark's object loop (bench_engine.make_ours, ``--path objects``)."""
    steps = 0
    for i in range(games):
        choice = random.Random(seed + i).choice
        game = nomercy.new_game(PLAYERS, seed=seed + i)
        while not game.is_over:
            game.apply(choice(game.legal_actions()))
            steps += 1
    return steps


def _plain_next_action(game: nomercy.Game, bots: Sequence[Bot]) -> Action:
    """The driver before this change: every seat's legal actions, full views."""
    n = game.n
    turn = game.to_act
    assert turn is not None
    callers: list[tuple[int, list[Action]]] = []
    others: list[tuple[int, list[Action]]] = []
    for seat in [*range(turn, n), *range(turn)]:
        legal = game.legal_actions(seat) if not game.out[seat] else []
        if not legal:
            continue
        if any(isinstance(a, CallUno) for a in legal):
            if seat == turn:
                return bots[seat].choose_action(game.view(seat), legal)
            callers.append((seat, legal))
        elif seat != turn:
            others.append((seat, legal))
    for seat, legal in [*callers, *others]:
        bot = bots[seat]
        if isinstance(bot, OutOfTurnBot):
            action = bot.choose_out_of_turn(game.view(seat), legal)
            if action is not None:
                return action
    legal = game.legal_actions(turn)
    action = bots[turn].choose_action(game.view(turn), legal)
    if action not in legal:
        raise RuntimeError("illegal")
    return action


def plain(games: int, seed: int) -> int:
    steps = 0
    for i in range(max(1, games // 5)):  # slow: a fifth of the games gives its steps/s
        game = nomercy.new_game(PLAYERS, seed=seed + i)
        bots = [RandomBot(seed * 10 + s) for s in range(PLAYERS)]
        while not game.is_over:
            game.apply(_plain_next_action(game, bots))
            steps += 1
    return steps


def sim(jobs: int) -> Callable[[int, int], int]:
    def play(games: int, seed: int) -> int:
        result = run_simulation(
            [BotSpec("random")], GameSetup.make(PLAYERS, seed=seed), games, jobs=jobs
        )
        return sum(g.actions for g in result.variants[0].games)

    return play


def rlcard_side() -> Callable[[int, int], int]:
    """RLCard's UnoGame reused across games (bench_engine.make_rlcard), as a side."""
    from bench_engine import make_rlcard

    side = make_rlcard(PLAYERS)

    def play(games: int, seed: int) -> int:
        return sum(side.play(seed + i)[0] for i in range(games))

    return play


def _children_cpu() -> float:
    """CPU seconds used by this process's finished child processes (the pool's workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3000, help="games per side per repetition")
    p.add_argument("--repeat", type=int, default=5, help="repetitions (medians are reported)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games")
    p.add_argument("--skip-plain", action="store_true", help="leave out the slow plain driver")
    p.add_argument(
        "--rlcard", action="store_true", help="add RLCard's UnoGame (reused) as a baseline"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--check", action="store_true", help="exit 1 if a bar is missed")
    args = p.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    log = sys.stderr if args.json else sys.stdout
    sides: dict[str, Callable[[int, int], int]] = {
        "raw": raw,
        "objects": objects,
        "sim1": sim(1),
        "sim2": sim(2),
    }
    if not args.skip_plain:
        sides["plain"] = plain
    if args.rlcard:
        sides["rlcard"] = rlcard_side()
    for play in sides.values():  # warm-up: imports, caches, the first worker spawn
        play(min(20, args.games), args.seed)
    rates: dict[str, list[float]] = {k: [] for k in sides}
    cpu_rates: dict[str, list[float]] = {k: [] for k in sides if k != "sim2"}
    worker_rates: list[float] = []
    steps: dict[str, int] = {}
    keys = list(sides)
    for rep in range(args.repeat):
        order = keys[rep % len(keys) :] + keys[: rep % len(keys)]
        for key in order:
            start, cpu = time.perf_counter(), time.process_time()
            children = _children_cpu()
            n = sides[key](args.games, args.seed)
            seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
            steps[key] = n
            rates[key].append(n / seconds)
            if key in cpu_rates:
                cpu_rates[key].append(n / cpu_seconds)
            else:  # the workers' CPU time: the parallel run's overhead, whatever the load
                worker_rates.append(n / (_children_cpu() - children))
            print(
                f"  rep {rep + 1}/{args.repeat} {key:<7} {n:>9,} steps {seconds:7.2f}s "
                f"{n / seconds:>10,.0f} steps/s",
                file=log,
                flush=True,
            )
    median = {k: statistics.median(v) for k, v in rates.items()}
    cpu_median = {k: statistics.median(v) for k, v in cpu_rates.items()}
    ratios = {
        "sim1/raw": median["sim1"] / median["raw"],
        "sim2/sim1": median["sim2"] / median["sim1"],
    }
    ratios["sim1/objects"] = median["sim1"] / median["objects"]
    if "plain" in median:
        ratios["sim1/plain"] = median["sim1"] / median["plain"]
    # On a machine shared with other work, CPU time is steadier than wall time for the
    # single-process sides (it cannot show the parallel speed-up, so sim2 has none).
    ratios["sim1/raw (cpu time)"] = cpu_median["sim1"] / cpu_median["raw"]
    # Work per CPU-second in sim2's workers against sim1's: 1.0 means splitting the games
    # costs nothing, so two idle cores would give about twice sim1's speed.
    if "rlcard" in cpu_median:
        for key in ("raw", "objects", "sim1"):
            ratios[f"{key}/rlcard (cpu time)"] = cpu_median[key] / cpu_median["rlcard"]
    cpu_median["sim2 workers"] = statistics.median(worker_rates)
    ratios["sim2 workers/sim1 (cpu time)"] = cpu_median["sim2 workers"] / cpu_median["sim1"]
    result: dict[str, Any] = {
        "config": {"games": args.games, "repeat": args.repeat, "seed": args.seed},
        "python": f"Python {platform.python_version()} ({platform.python_implementation()})",
        "core": CORE_BUILD,
        "cpus": os.cpu_count(),
        "steps": steps,
        "median_steps_per_s": median,
        "median_steps_per_cpu_s": cpu_median,
        "load_average": os.getloadavg(),
        "ratios": ratios,
        "bars": {k: {"bar": v, "met": ratios[k] >= v} for k, v in BARS.items()},
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print(
            f"\nsimulator throughput, {PLAYERS}-player No Mercy, random players: "
            f"{args.games} games x {args.repeat} repetitions (medians), {result['python']}, "
            f"core {CORE_BUILD}"
        )
        for key in keys:
            cpu_key = "sim2 workers" if key == "sim2" else key
            cpu_text = f"{cpu_median[cpu_key]:>10,.0f} steps/cpu-s"
            print(
                f"  {key:<7} {median[key]:>10,.0f} steps/s  {cpu_text:<22} "
                f"({steps[key]:,} steps per run)"
            )
        print(f"  load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for name, value in ratios.items():
            bar = BARS.get(name)
            verdict = ""
            if bar is not None:
                verdict = f" (bar {bar:.2f}: {'met' if value >= bar else 'MISSED'})"
            print(f"  {name:<29} {value:.2f}x{verdict}")
    missed = [k for k, v in result["bars"].items() if not v["met"]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
