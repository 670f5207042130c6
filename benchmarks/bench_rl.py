"""RL environment throughput: our PettingZoo AEC env against RLCard's UNO env, in one run.

Both sides play random games through their RL interface: ours is ``nomercy.rl.env`` (No
Mercy, every rule at its default, 2 players); at every step the agent to act reads its
observation with ``env.last()`` (observation vector + action mask) and picks uniformly among
the legal ids of the mask. RLCard's is ``rlcard.make('uno')`` (classic UNO, 2 players) in a
manual ``reset()``/``step()`` loop, picking uniformly among ``state['legal_actions']`` (its
``step`` builds the next player's encoded state). One step is one action; resets count in
the time. Choices come from ``random.Random(seed)`` on both sides. Each repetition times both
sides on the same seeds, alternating which goes first; medians over repetitions.

Our env runs on the integer kernel (``nomercy.rl.kernel``) for the default rules; it uses the
mypyc build of the kernel when ``python -m nomercy.rl.build_kernel`` has made one, and the
side's label says which. ``--engines default,python,reference`` adds our env on the
pure-Python kernel and on the reference engine as further sides of the same run.

    python benchmarks/bench_rl.py                      # defaults: 300 games x 5 repeats
    python benchmarks/bench_rl.py --games 500 --repeat 7
    python benchmarks/bench_rl.py --engines default,python,reference --breakdown

Needs the rl and bench extras: ``pip install -e '.[rl,bench]'``.
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

# Plays one game from a seed; returns the number of actions taken.
PlayFn = Callable[[int], int]


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


ENGINES = ("default", "python", "reference")


def make_env(players: int, engine: str) -> Any:
    """Our env: ``default`` as ``nomercy.rl.env`` builds it (the compiled kernel when it is
    built), ``python`` the pure-Python kernel, ``reference`` the reference engine."""
    import nomercy.rl
    from nomercy.rl.kernel import Kernel

    if engine == "reference":
        return nomercy.rl.env(num_players=players, engine="reference")
    env = nomercy.rl.env(num_players=players)
    if engine == "python" and env.kernel_build != "python":
        # Swap in the pure-Python kernel (benchmark only: the env picks its kernel itself).
        env._kernel = Kernel(env.rules, players)
        env.kernel_build = "python"
    return env


def label(env: Any, players: int) -> str:
    build = env.kernel_build or "reference engine"
    if build in ("mypyc", "python"):
        build = f"{build} kernel"
    return f"nomercy.rl.env (No Mercy, {players}p, {build})"


def make_ours(env: Any) -> PlayFn:
    def play(seed: int) -> int:
        randrange = random.Random(seed).randrange
        env.reset(seed=seed)
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            ids = obs["action_mask"].nonzero()[0]
            env.step(int(ids[randrange(len(ids))]))
            steps += 1
        return steps

    return play


def make_rlcard() -> PlayFn:
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

    return play


def breakdown(env: Any, games: int, seed: int) -> dict[str, float]:
    """Microseconds per step in each part of a kernel env's work, outside the env loop."""
    import numpy as np

    kernel = env._kernel
    if kernel is None:
        raise SystemExit("--breakdown needs a kernel engine (not --engines reference)")
    clock = time.perf_counter
    parts = dict.fromkeys(("reset", "observation", "legal ids", "mask", "choice", "apply"), 0.0)
    steps = 0
    for k in range(games):
        rng = random.Random(seed + k)
        t0 = clock()
        kernel.reset(seed + k)
        parts["reset"] += clock() - t0
        while not kernel.is_over:
            t0 = clock()
            np.frombuffer(kernel.observation(kernel.turn), np.float32)
            t1 = clock()
            ids = kernel.legal()
            t2 = clock()
            buf = bytearray(469)
            for i in ids:
                buf[i] = 1
            np.frombuffer(buf, np.int8)
            t3 = clock()
            action = ids[rng.randrange(len(ids))]
            t4 = clock()
            kernel.apply(action)
            t5 = clock()
            parts["observation"] += t1 - t0
            parts["legal ids"] += t2 - t1
            parts["mask"] += t3 - t2
            parts["choice"] += t4 - t3
            parts["apply"] += t5 - t4
            steps += 1
    return {k: v / steps * 1e6 for k, v in parts.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=300, help="games per side per repetition")
    p.add_argument("--repeat", type=int, default=5, help="repetitions (medians are reported)")
    p.add_argument("--seed", type=int, default=0, help="first seed; game i uses seed+i")
    p.add_argument("--players", type=int, default=2, help="seats in our games (RLCard: 2)")
    p.add_argument(
        "--engines",
        default="default",
        help="our sides, comma-separated from: default (what nomercy.rl.env picks), python "
        "(the pure-Python kernel), reference (the reference engine); default: default",
    )
    p.add_argument("--breakdown", action="store_true", help="also time the kernel's parts")
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = p.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    if not 2 <= args.players <= 6:
        p.error("--players must be 2-6")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES]
    if bad or not engines or len(set(engines)) != len(engines):
        p.error(f"--engines takes distinct names from {', '.join(ENGINES)}, not {args.engines!r}")
    try:
        envs = {f"ours:{e}": make_env(args.players, e) for e in engines}
        sides = {key: make_ours(env) for key, env in envs.items()}
        sides["rlcard"] = make_rlcard()
    except ImportError as exc:
        print(f"missing dependency ({exc}): pip install -e '.[rl,bench]'", file=sys.stderr)
        return 2
    log = sys.stderr if args.json else sys.stdout
    seeds = range(args.seed, args.seed + args.games)
    for play in sides.values():  # warm-up: caches, imports
        for seed in range(args.seed, args.seed + min(20, args.games)):
            play(seed)
    rates: dict[str, list[float]] = {k: [] for k in sides}
    steps: dict[str, int] = {}
    for rep in range(args.repeat):
        order = list(sides) if rep % 2 == 0 else list(sides)[::-1]
        for key in order:
            play = sides[key]
            start = time.perf_counter()
            total = sum(play(seed) for seed in seeds)
            seconds = time.perf_counter() - start
            steps[key] = total
            rates[key].append(total / seconds)
            print(
                f"  rep {rep + 1}/{args.repeat} {key:<16} {total:>8,} steps {seconds:7.3f}s "
                f"{total / seconds:>10,.0f} steps/s",
                file=log,
                flush=True,
            )
    med = {k: statistics.median(v) for k, v in rates.items()}
    result: dict[str, Any] = {
        "config": vars(args),
        "python": f"Python {platform.python_version()} ({platform.python_implementation()})",
        "versions": {
            "uno-no-mercy": _version("uno-no-mercy"),
            "pettingzoo": _version("pettingzoo"),
            "rlcard": _version("rlcard"),
        },
        "sides": {
            key: {
                "label": label(envs[key], args.players)
                if key in envs
                else "rlcard.make('uno') (2p)",
                "steps_per_game": steps[key] / args.games,
                "median_steps_per_s": med[key],
                "runs": rates[key],
            }
            for key in sides
        },
        "ratios_to_rlcard": {key: med[key] / med["rlcard"] for key in envs},
    }
    if args.breakdown:
        result["breakdown_us_per_step"] = breakdown(envs[next(iter(envs))], args.games, args.seed)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"\nRL env throughput, random legal play: {args.games} games x {args.repeat} repeats")
    print(f"{result['python']}; versions {result['versions']}")
    print(f"{'side':<52} {'steps/game':>10} {'steps/s (median)':>17} {'range':>19}")
    for s in result["sides"].values():
        spread = f"{min(s['runs']):,.0f}-{max(s['runs']):,.0f}"
        print(
            f"{s['label']:<52} {s['steps_per_game']:>10.1f} "
            f"{s['median_steps_per_s']:>17,.0f} {spread:>19}"
        )
    print()
    for key, ratio in result["ratios_to_rlcard"].items():
        print(f"ratio {result['sides'][key]['label']} / rlcard, steps/s: {ratio:.2f}x (bar: 2x)")
    if args.breakdown:
        parts = result["breakdown_us_per_step"]
        total = sum(parts.values())
        print("\nthe kernel, microseconds per step (outside the env loop, no PettingZoo calls):")
        for name, value in parts.items():
            print(f"  {name:<14} {value:6.2f} us  {100 * value / total:5.1f}%")
        print(f"  {'total':<14} {total:6.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
