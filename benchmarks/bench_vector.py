"""Vector envs: the native ``NoMercy-v0`` vector env against Gymnasium's ``SyncVectorEnv`` of
the same env and RLCard's UNO env, in one run.

Each side plays random legal actions (ours: from the masks; RLCard: from
``state['legal_actions']``) for ``--steps`` learner decisions per repetition, and the table
gives median decisions per second over the repetitions (sides interleaved, order rotating).
Ours: ``--tables`` tables of 2 players against ``random``, flat observations, next-step
autoreset; a step of N tables counts N decisions (a table being reset counts too, as its
action is taken). RLCard: one ``rlcard.make('uno')`` env, one decision per ``step``.

    python benchmarks/bench_vector.py
    python benchmarks/bench_vector.py --tables 64 --steps 20000 --repeat 5 --preset classic

Needs the rl and bench extras: ``pip install -e '.[rl,bench]'``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def make_ours(mode: str, tables: int, preset: str) -> Callable[[int, int], float]:
    import gymnasium as gym

    import nomercy.rl  # noqa: F401 (registers NoMercy-v0)

    envs = gym.make_vec(
        "NoMercy-v0",
        num_envs=tables,
        vectorization_mode=mode,
        opponents=["random"],
        preset=preset,
        obs_format="flat",
    )

    def run(steps: int, seed: int) -> float:
        _, info = envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        start = time.perf_counter()
        while done < steps:
            masks = info["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            _, _, _, _, info = envs.step(actions)
            done += tables
        return done / (time.perf_counter() - start)

    return run


def make_rlcard() -> Callable[[int, int], float]:
    import rlcard

    def run(steps: int, seed: int) -> float:
        env = rlcard.make("uno", config={"seed": seed})
        rng = np.random.default_rng(seed)
        state, _ = env.reset()
        done = 0
        start = time.perf_counter()
        while done < steps:
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.integers(len(legal)))])
            done += 1
            if env.is_over():
                state, _ = env.reset()
        return done / (time.perf_counter() - start)

    return run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=64, help="tables of our vector envs")
    p.add_argument("--steps", type=int, default=20_000, help="decisions per side and repetition")
    p.add_argument("--repeat", type=int, default=5, help="repetitions (medians are reported)")
    p.add_argument("--preset", default="no-mercy", choices=["no-mercy", "classic"])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.tables < 1 or args.steps < 1 or args.repeat < 1:
        p.error("--tables, --steps and --repeat must be at least 1")
    sides: dict[str, Callable[[int, int], float]] = {
        "native (vector_entry_point)": make_ours("vector_entry_point", args.tables, args.preset),
        "SyncVectorEnv (sync)": make_ours("sync", args.tables, args.preset),
    }
    try:
        sides["rlcard.make('uno')"] = make_rlcard()
    except ImportError as exc:
        print(f"rlcard is missing ({exc}): pip install -e '.[bench]'", file=sys.stderr)
    rates: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for rep in range(args.repeat):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            rate = sides[name](args.steps, args.seed + rep)
            rates[name].append(rate)
            print(f"  rep {rep + 1}/{args.repeat} {name:<28} {rate:>10,.0f} decisions/s")
    medians: dict[str, Any] = {name: statistics.median(r) for name, r in rates.items()}
    base = medians.get("rlcard.make('uno')")
    print(f"\n{args.tables} tables, 2 players vs random, {args.preset}, flat observations")
    for name, median in medians.items():
        ratio = f"{median / base:.2f}x rlcard" if base else ""
        print(f"{name:<28} {median:>10,.0f} decisions/s  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
