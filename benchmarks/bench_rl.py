"""RL environment throughput: our PettingZoo AEC env against RLCard's UNO env, in one run.

Both sides play random games through their RL interface: ours is ``nomercy.rl.env`` (2
players by default); at every step the agent to act reads its observation with ``env.last()``
(observation vector + action mask) and picks uniformly among the legal ids of the mask.
RLCard's is ``rlcard.make('uno')`` (classic UNO, 2 players) in a manual ``reset()``/``step()``
loop, picking uniformly among ``state['legal_actions']`` (its ``step`` builds the next
player's encoded state). One step is one action; resets count in the time. Choices come from
``random.Random(seed)`` on both sides. Each repetition times every side on the same seeds,
rotating which goes first; medians over repetitions.

Our env runs on the one rules engine, ``nomercy.core``. Our sides are every pair of a rule
configuration (``--configs``: ``default`` No Mercy, ``options`` No Mercy with the non-default
option set :data:`OPTIONS` below, ``classic`` the classic preset) and a build of the core
(``--builds``: ``current``, what this process loads; ``both``: ``pure`` and ``compiled``, each
side in a child process started with and without ``NOMERCY_PURE``, since a process loads one
build).

    python benchmarks/bench_rl.py                                  # defaults, current build
    python benchmarks/bench_rl.py --configs default,options,classic --builds both --repeat 5
    python benchmarks/bench_rl.py --parts --builds both   # where an env step's time goes
    python benchmarks/bench_rl.py --configs default,options,classic --clock cpu   # busy machine
    python benchmarks/bench_rl.py --configs default,classic --deal-version 1,2   # both deals

``--parts`` adds three sides per configuration and build, to show where the time of a step
goes: ``mask only`` plays the same games through the env but reads only the action mask
(``env.action_mask(agent)``, no observation vector); ``no env`` plays them with the env's
own parts and no PettingZoo bookkeeping (``new_game``, the env's ``TableObserver``: the
vector, the mask and ``step``; the same pick from the mask), the floor of any AEC env over
this engine; and ``engine only`` plays them on a bare ``Game`` of the same rules
(``legal_actions()``, ``apply()``; no env, no ids, no mask).

``--deal-version`` is the env's ``deal_version`` (and the deal of the ``--parts`` sides), 1 by
default; several (``1,2``) give each of our sides once per version in the same run. The
versions deal other games for the same seeds, so their games differ in length too: compare
steps per second, not seconds.

Needs the rl and bench extras: ``pip install -e '.[rl,bench]'``; ``--builds both`` needs the
compiled core (``python -m nomercy.core.build``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from build_worker import start_worker

#: Plays the games of some seeds; returns (actions taken, seconds).
TimeFn = Callable[[range], tuple[int, float]]

CONFIGS = ("default", "options", "classic")
#: The non-default option set of the ``options`` configuration (RULES.md §6 names): a
#: running-total stack threshold, stacking only on a match, a Discard All whose player picks
#: the top card, Roulette's player naming the colour, Mercy checked at the end of the turn,
#: a voluntary draw of one card that may be passed, and one draw then pass when stuck.
OPTIONS: dict[str, Any] = {
    "stack_threshold": "running_total",
    "stack_requires_match": True,
    "discard_all_mode": "choose_top_and_fire",
    "roulette_chooser": "player",
    "mercy_timing": "end_of_turn",
    "voluntary_draw": "draw_one_may_pass",
    "no_playable_action": "draw_one_pass",
}


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def make_env(players: int, config: str, version: int = 1) -> Any:
    import nomercy.rl

    if config == "classic":
        return nomercy.rl.env(num_players=players, preset="classic", deal_version=version)
    if config == "options":
        return nomercy.rl.env(num_players=players, options=OPTIONS, deal_version=version)
    return nomercy.rl.env(num_players=players, deal_version=version)


#: What a side of ours runs: the env (``env``), the env reading masks only (``mask``), the
#: env's parts without the env (``floor``), the bare engine (``engine``); see ``--parts``.
PARTS = {"env": "", "mask": ", mask only", "floor": ", no env", "engine": ", engine only"}


def make_ours(players: int, config: str, part: str = "env", version: int = 1) -> TimeFn:
    env = make_env(players, config, version)
    if part == "engine":
        return _timed(_engine_play(players, env.rules, version))
    if part == "floor":
        return _timed(_floor_play(players, env))
    observe = part == "env"

    def play(seed: int) -> int:
        randrange = random.Random(seed).randrange
        env.reset(seed=seed)
        steps = 0
        for agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last(observe)
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"] if observe else env.action_mask(agent)
            ids = mask.nonzero()[0]
            env.step(int(ids[randrange(len(ids))]))
            steps += 1
        return steps

    return _timed(play)


def _floor_play(players: int, env: Any) -> Callable[[int], int]:
    from nomercy.core.game import new_game

    observer = env._observer  # the env's own observer: the same writer and step

    def play(seed: int) -> int:
        randrange = random.Random(seed).randrange
        game = new_game(players, rules=env.rules, seed=seed, deal_version=env.deal_version)
        observer.start(game)
        steps = 0
        while not game.is_over:
            seat = game.turn
            legal = game.legal_ids(seat)
            obs = {"observation": observer.vector(game, seat), "action_mask": observer.mask(legal)}
            ids = obs["action_mask"].nonzero()[0]
            observer.step(game, int(ids[randrange(len(ids))]), seat)
            steps += 1
        return steps

    return play


def _engine_play(players: int, rules: Any, version: int) -> Callable[[int], int]:
    from nomercy.core.game import new_game

    def play(seed: int) -> int:
        choice = random.Random(seed).choice
        game = new_game(players, rules=rules, seed=seed, deal_version=version)
        steps = 0
        while not game.is_over:
            game.apply(choice(game.legal_actions()))
            steps += 1
        return steps

    return play


def make_rlcard() -> TimeFn:
    import rlcard

    env = rlcard.make("uno", config={"seed": 0})

    def play(seed: int) -> int:
        choice = random.Random(seed).choice
        env.seed(seed)
        state, _player = env.reset()
        steps = 0
        while not env.is_over():
            state, _player = env.step(choice(list(state["legal_actions"])))
            steps += 1
        return steps

    return _timed(play)


#: The clock sides are timed with (``--clock``): wall time, or the process's CPU time, which a
#: machine shared with other work disturbs far less.
CLOCK: list[Callable[[], float]] = [time.perf_counter]


def _timed(play: Callable[[int], int]) -> TimeFn:
    def run(seeds: range) -> tuple[int, float]:
        clock = CLOCK[0]
        start = clock()
        steps = sum(play(seed) for seed in seeds)
        return steps, clock() - start

    return run


def make_child(
    build: str, players: int, config: str, part: str = "env", version: int = 1
) -> TimeFn:
    """Our env on one core build ("pure" or "compiled"), timed in a child process."""
    clock = "cpu" if CLOCK[0] is time.process_time else "wall"
    request, _info = start_worker(
        build,
        [
            __file__,
            "--worker",
            config,
            "--players",
            str(players),
            "--part",
            part,
            "--clock",
            clock,
            "--deal-version",
            str(version),
        ],
    )

    def run(seeds: range) -> tuple[int, float]:
        steps, seconds = request(f"{seeds.start} {seeds.stop}")
        return int(steps), float(seconds)

    return run


def worker(players: int, config: str, part: str, version: int) -> int:
    """Child of --builds both: time what the parent asks on this process's core build."""
    import nomercy.core

    run = make_ours(players, config, part, version)
    print(
        json.dumps({"build": nomercy.core.BUILD, "description": nomercy.core.build_description()}),
        flush=True,
    )
    for line in sys.stdin:
        start, stop = line.split()
        print(json.dumps(run(range(int(start), int(stop)))), flush=True)
    return 0


def deal_versions(p: argparse.ArgumentParser, text: str) -> list[int]:
    """``--deal-version``'s versions (``"1,2"``), checked against the core's list (bench_vector
    reads its flag with it too)."""
    from nomercy.core.dealing import DEAL_VERSIONS

    try:
        versions = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        versions = []
    if not versions or any(v not in DEAL_VERSIONS for v in versions):
        p.error(
            f"--deal-version takes deal versions, comma-separated, from "
            f"{', '.join(map(str, DEAL_VERSIONS))}"
        )
    if len(set(versions)) < len(versions):
        p.error("--deal-version takes distinct versions")
    return versions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=300, help="games per side per repetition")
    p.add_argument("--repeat", type=int, default=5, help="repetitions (medians are reported)")
    p.add_argument("--seed", type=int, default=0, help="first seed; game i uses seed+i")
    p.add_argument("--players", type=int, default=2, help="seats in our games (RLCard: 2)")
    p.add_argument(
        "--configs",
        default="default",
        help=f"our rule configurations, comma-separated from: {', '.join(CONFIGS)}",
    )
    p.add_argument(
        "--builds",
        choices=("current", "both"),
        default="current",
        help="the core build this process loads, or pure and compiled side by side",
    )
    p.add_argument(
        "--parts",
        action="store_true",
        help="also time the env reading masks only and the bare engine (where a step's time goes)",
    )
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time with the wall clock or with each process's CPU time (a busy machine)",
    )
    p.add_argument(
        "--deal-version",
        default="1",
        help="our env's deal_version (docs/notation.md); several comma-separated (1,2) run "
        "each of our sides once per version",
    )
    p.add_argument("--worker", metavar="CONFIG", help=argparse.SUPPRESS)
    p.add_argument("--part", choices=tuple(PARTS), default="env", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = p.parse_args(argv)
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    versions = deal_versions(p, args.deal_version)
    if args.worker:
        return worker(args.players, args.worker, args.part, versions[0])
    if args.games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    if not 2 <= args.players <= 6:
        p.error("--players must be 2-6")
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    bad = [c for c in configs if c not in CONFIGS]
    if bad or not configs or len(set(configs)) != len(configs):
        p.error(f"--configs takes distinct names from {', '.join(CONFIGS)}, not {args.configs!r}")
    import nomercy.core

    builds = ["pure", "compiled"] if args.builds == "both" else [nomercy.core.BUILD]
    parts = list(PARTS) if args.parts else ["env"]
    sides: dict[str, TimeFn] = {}
    try:
        for config in configs:
            for v in versions:
                # The version is in the names only when several are compared.
                dv = f" v{v}" if len(versions) > 1 else ""
                for build in builds:
                    for part in parts:
                        key = f"{config}{dv} ({build}){PARTS[part]}"
                        if args.builds == "both":
                            sides[key] = make_child(build, args.players, config, part, v)
                        else:
                            sides[key] = make_ours(args.players, config, part, v)
        sides["rlcard"] = make_rlcard()
    except ImportError as exc:
        print(f"missing dependency ({exc}): pip install -e '.[rl,bench]'", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"{exc}: build it with python -m nomercy.core.build", file=sys.stderr)
        return 2
    log = sys.stderr if args.json else sys.stdout
    seeds = range(args.seed, args.seed + args.games)
    for run in sides.values():  # warm-up: caches, imports
        run(range(args.seed, args.seed + min(20, args.games)))
    rates: dict[str, list[float]] = {k: [] for k in sides}
    steps: dict[str, int] = {}
    keys = list(sides)
    for rep in range(args.repeat):
        shift = rep % len(keys)
        for key in keys[shift:] + keys[:shift]:
            total, seconds = sides[key](seeds)
            steps[key] = total
            rates[key].append(total / seconds)
            print(
                f"  rep {rep + 1}/{args.repeat} {key:<36} {total:>8,} steps {seconds:7.3f}s "
                f"{total / seconds:>10,.0f} steps/s",
                file=log,
                flush=True,
            )
    med = {k: statistics.median(v) for k, v in rates.items()}
    result: dict[str, Any] = {
        "config": vars(args),
        "options": OPTIONS,
        "python": f"Python {platform.python_version()} ({platform.python_implementation()})",
        "versions": {
            "uno-no-mercy": _version("uno-no-mercy"),
            "pettingzoo": _version("pettingzoo"),
            "rlcard": _version("rlcard"),
        },
        "sides": {
            key: {
                "steps_per_game": steps[key] / args.games,
                "median_steps_per_s": med[key],
                "runs": rates[key],
            }
            for key in sides
        },
        "ratios_to_rlcard": {key: med[key] / med["rlcard"] for key in sides if key != "rlcard"},
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"\nRL env throughput, random legal play: {args.games} games x {args.repeat} repeats")
    print(f"{result['python']}; versions {result['versions']}")
    print(f"{'side':<50} {'steps/game':>10} {'steps/s (median)':>17} {'range':>19} {'ratio':>6}")
    for key, s in result["sides"].items():
        spread = f"{min(s['runs']):,.0f}-{max(s['runs']):,.0f}"
        label = "rlcard.make('uno') (2p)" if key == "rlcard" else f"nomercy.rl.env {key}"
        ratio = result["ratios_to_rlcard"].get(key)
        print(
            f"{label:<50} {s['steps_per_game']:>10.1f} {s['median_steps_per_s']:>17,.0f} "
            f"{spread:>19} {'' if ratio is None else f'{ratio:.2f}x':>6}"
        )
    print("\nbars: compiled >= 2.5x, pure >= 1.5x RLCard (issue 12)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
