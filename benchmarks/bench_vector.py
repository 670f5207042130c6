"""Vector envs: the native ``NoMercy-v0`` vector env against Gymnasium's ``SyncVectorEnv`` of
the same env and RLCard's UNO env, in one run, for three rule configurations.

Each side plays random legal actions (ours: uniformly among the ids of each table's mask;
RLCard: among ``state['legal_actions']``) for ``--steps`` decisions per repetition, and the
table gives median decisions per second over the repetitions (sides interleaved, order
rotating). Ours: ``--tables`` tables of 2 players against ``random`` opponents, flat
observations, next-step autoreset; only the learner's decisions count (a step of N tables
counts N, a table being reset included, as its action is taken); the opponents' moves are
part of the step's time. RLCard: one ``rlcard.make('uno')`` env, both players picking at
random, run twice: counting every ``step`` (both players' decisions), and counting player
0's decisions only, player 1 being its random opponent (issue 42's protocol, as ours count
the learner's). The policy on our side is batched (``random_legal``: a few numpy calls for
all the tables), RLCard's one ``random.choice`` per step. The configurations
(``--configs``) are ``bench_rl.py``'s: ``default`` No Mercy, ``options`` No Mercy with its
non-default option set, ``classic``.

    python benchmarks/bench_vector.py
    python benchmarks/bench_vector.py --configs default,options,classic --steps 20000 --repeat 5
    python benchmarks/bench_vector.py --no-sync     # leave Gymnasium's SyncVectorEnv out
    python benchmarks/bench_vector.py --floor       # add the engine floor of each configuration
    python benchmarks/bench_vector.py --self-play   # add nomercy.rl.batched.SelfPlayVectorEnv
    python benchmarks/bench_vector.py --clock cpu   # CPU time: a machine shared with other work
    python benchmarks/bench_vector.py --tables 8,16,64 --single --no-sync  # sizes vs one env
    python benchmarks/bench_vector.py --tables 8,64 --no-sync --deal-version 1,2  # both deals
    # instructions per decision: the difference of two runs (README, 2026-12-07)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/bench_vector.py \
        --tables 64 --no-sync --no-rlcard --configs default --repeat 1 --steps 6000

``--floor`` adds, per configuration, the same kind of games on bare ``Game`` objects with no
env at all: ``new_game``, then ``legal_ids`` / ``step`` with events off and a uniform pick
for both seats, counting seat 0's decisions. It is what any env over this engine must
stay below: the engine's own cost per learner decision (its move, the opponent's, dealing).
``--single`` adds one ``gym.make("NoMercy-v0")`` env with the same options, stepped one
decision at a time (every step is the learner's): the vector env must beat it per decision at
every size from 8 tables up (issue 42). ``--tables`` takes several sizes (``8,16,64``).
``--self-play`` adds :class:`nomercy.rl.batched.SelfPlayVectorEnv` (``--tables`` tables of 2
learners, flat observations): there every decision of every seat counts, as in RLCard's env.
``--deal-version`` is the envs' (and the floor's) ``deal_version``, 1 by default; several
(``1,2``) give each of our sides once per version, side by side in the same run.

Needs the rl and bench extras: ``pip install -e '.[rl,bench]'``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

# The three configurations and --deal-version's check are bench_rl.py's: this script
# runs from benchmarks/, whose folder Python puts first on the path.
from bench_rl import CONFIGS, OPTIONS, deal_versions

#: RLCard's env counting every step (both players' decisions), and player 0's only.
RLCARD = "rlcard.make('uno')"
RLCARD_P0 = "rlcard.make('uno') player 0"

#: The clock the rates are timed with (``--clock``): wall time, or this process's CPU time,
#: which a machine shared with other work disturbs far less.
CLOCK: list[Callable[[], float]] = [time.perf_counter]


def rules_of(config: str) -> dict[str, Any]:
    """The env keyword arguments of a configuration."""
    if config == "classic":
        return {"preset": "classic"}
    if config == "options":
        return {"options": OPTIONS}
    return {}


def random_legal(masks: Any, rng: np.random.Generator) -> Any:
    """One id per row of ``masks``, uniform among the row's legal ids (0 for an empty row),
    as an ``int64`` array: a batched policy, as a learner's is, in a few numpy calls for the
    whole batch (a loop over the rows in Python was a tenth of the vector env's decision at
    64 tables, callgrind).

    The masks' 0/1 bytes are read as booleans (a view, no copy): ``np.flatnonzero`` on them
    takes numpy's fast path, some ten times cheaper than ``np.nonzero`` on the ``int8``
    rows. Row ``r``'s legal ids are ``flat[starts[r]:ends[r]]``; the pick is
    ``starts[r] + floor(u * count)`` for a uniform ``u`` in [0, 1)."""
    rows, width = masks.shape
    flat = np.flatnonzero(masks.view(np.bool_))
    if not len(flat):
        return np.zeros(rows, dtype=np.int64)
    ends = np.searchsorted(flat, np.arange(width, (rows + 1) * width, width))
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1]
    counts = ends - starts
    picks = starts + (rng.random(rows) * counts).astype(np.int64)
    ids = flat.take(picks, mode="clip") % width
    ids[counts == 0] = 0  # an ended episode's empty row, reset at its next step
    return ids


def make_ours(mode: str, tables: int, config: str, version: int = 1) -> Callable[[int, int], float]:
    import gymnasium as gym

    import nomercy.rl  # noqa: F401 (registers NoMercy-v0)

    envs = gym.make_vec(
        "NoMercy-v0",
        num_envs=tables,
        vectorization_mode=mode,
        opponents=["random"],
        obs_format="flat",
        deal_version=version,
        **rules_of(config),
    )

    def run(steps: int, seed: int) -> float:
        _, info = envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        start = CLOCK[0]()
        while done < steps:
            _, _, _, _, info = envs.step(random_legal(info["action_mask"], rng))
            done += tables
        return done / (CLOCK[0]() - start)

    return run


def make_single(config: str, version: int = 1) -> Callable[[int, int], float]:
    """One ``gym.make("NoMercy-v0")`` env (2 players, ``random`` opponent, flat observations),
    stepped with a random legal id from ``info["action_mask"]`` and reset when its episode
    ends; every step is a learner decision. The figure the vector env must beat per
    decision (issue 42)."""
    import gymnasium as gym

    import nomercy.rl  # noqa: F401 (registers NoMercy-v0)

    env = gym.make(
        "NoMercy-v0",
        opponents=["random"],
        obs_format="flat",
        deal_version=version,
        **rules_of(config),
    )

    def run(steps: int, seed: int) -> float:
        _, info = env.reset(seed=seed)
        randbelow = random.Random(seed)._randbelow  # type: ignore[attr-defined]
        done = 0
        start = CLOCK[0]()
        while done < steps:
            ids = np.flatnonzero(info["action_mask"]).tolist()
            _, _, terminated, truncated, info = env.step(ids[randbelow(len(ids))])
            done += 1
            if terminated or truncated:
                _, info = env.reset()
        return done / (CLOCK[0]() - start)

    return run


def make_selfplay(tables: int, config: str, version: int = 1) -> Callable[[int, int], float]:
    from nomercy.rl.batched import SelfPlayVectorEnv

    envs = SelfPlayVectorEnv(tables, 2, copy=False, deal_version=version, **rules_of(config))

    def run(steps: int, seed: int) -> float:
        _, masks, _ = envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        start = CLOCK[0]()
        while done < steps:
            _, masks, *_ = envs.step(random_legal(masks, rng).tolist())
            done += tables
        return done / (CLOCK[0]() - start)

    return run


def make_floor(config: str, version: int = 1) -> Callable[[int, int], float]:
    from nomercy.core.game import new_game
    from nomercy.core.rules import make_rules

    kwargs = rules_of(config)
    rules = make_rules(kwargs.get("preset", "no-mercy"), kwargs.get("options"))

    def run(steps: int, seed: int) -> float:
        randbelow = random.Random(seed)._randbelow  # type: ignore[attr-defined]
        done = 0
        game_seed = seed * 1_000_003
        start = CLOCK[0]()
        while done < steps:
            game = new_game(2, rules=rules, seed=game_seed, deal_version=version)
            game.record_events = False
            game_seed += 1
            while True:
                turn = game.to_act
                if turn is None:
                    break
                ids = game.legal_ids(turn)
                game.step(ids[randbelow(len(ids))], turn)
                if turn == 0:
                    done += 1
        return done / (CLOCK[0]() - start)

    return run


def make_rlcard(learner_only: bool = False) -> Callable[[int, int], float]:
    """RLCard's UNO env, both players picking at random among ``state['legal_actions']``,
    counting every step, or with ``learner_only`` player 0's decisions only (player 1 is
    its random opponent, whose moves are part of the time: issue 42's protocol, as ours
    count the learner's decisions only)."""
    import rlcard

    def run(steps: int, seed: int) -> float:
        env = rlcard.make("uno", config={"seed": seed})
        choice = random.Random(seed).choice
        state, player = env.reset()
        done = 0
        start = CLOCK[0]()
        while done < steps:
            if player == 0 or not learner_only:
                done += 1
            state, player = env.step(choice(list(state["legal_actions"])))
            if env.is_over():
                state, player = env.reset()
        return done / (CLOCK[0]() - start)

    return run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--tables",
        default="64",
        help="tables of our vector envs; several sizes comma-separated (e.g. 8,16,64)",
    )
    p.add_argument("--steps", type=int, default=20_000, help="decisions per side and repetition")
    p.add_argument("--repeat", type=int, default=5, help="repetitions (medians are reported)")
    p.add_argument(
        "--configs",
        default="default,options,classic",
        help=f"rule configurations, comma-separated from: {', '.join(CONFIGS)}",
    )
    p.add_argument("--no-sync", action="store_true", help="leave SyncVectorEnv out")
    p.add_argument("--no-native", action="store_true", help="leave the native vector env out")
    p.add_argument("--no-rlcard", action="store_true", help="leave RLCard's env out")
    p.add_argument("--floor", action="store_true", help="add the bare engine's floor")
    p.add_argument("--self-play", action="store_true", help="add SelfPlayVectorEnv")
    p.add_argument(
        "--single", action="store_true", help="add one NoMercy-v0 env (gym.make), no vector"
    )
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time with the wall clock or with this process's CPU time (a busy machine)",
    )
    p.add_argument(
        "--deal-version",
        default="1",
        help="the envs' deal_version (docs/notation.md); several comma-separated (1,2) "
        "run each of our sides once per version",
    )
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        sizes = [int(t) for t in args.tables.split(",") if t.strip()]
    except ValueError:
        p.error("--tables takes integers, comma-separated")
    versions = deal_versions(p, args.deal_version)
    if not sizes or min(sizes) < 1 or args.steps < 1 or args.repeat < 1:
        p.error("--tables, --steps and --repeat must be at least 1")
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not configs or any(c not in CONFIGS for c in configs) or len(set(configs)) < len(configs):
        p.error(f"--configs takes distinct names from {', '.join(CONFIGS)}")
    sides: dict[str, Callable[[int, int], float]] = {}
    for config in configs:
        for v in versions:
            # The version and the size are in the names only when several are compared.
            dv = f" v{v}" if len(versions) > 1 else ""
            for tables in sizes:
                at = f" x{tables}" if len(sizes) > 1 else ""
                if not args.no_native:
                    sides[f"native{at} {config}{dv}"] = make_ours(
                        "vector_entry_point", tables, config, v
                    )
                if not args.no_sync:
                    sides[f"SyncVectorEnv{at} {config}{dv}"] = make_ours("sync", tables, config, v)
                if args.self_play:
                    sides[f"self-play{at} {config}{dv}"] = make_selfplay(tables, config, v)
            if args.single:
                sides[f"single env {config}{dv}"] = make_single(config, v)
            if args.floor:
                sides[f"engine floor {config}{dv}"] = make_floor(config, v)
    try:
        if not args.no_rlcard:
            sides[RLCARD] = make_rlcard()
            sides[RLCARD_P0] = make_rlcard(learner_only=True)
    except ImportError as exc:
        print(f"rlcard is missing ({exc}): pip install -e '.[bench]'", file=sys.stderr)
    for run in sides.values():  # warm-up
        run(min(args.steps, 2000), args.seed)
    rates: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for rep in range(args.repeat):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            rate = sides[name](args.steps, args.seed + rep)
            rates[name].append(rate)
            print(f"  rep {rep + 1}/{args.repeat} {name:<30} {rate:>10,.0f} decisions/s")
    medians: dict[str, Any] = {name: statistics.median(r) for name, r in rates.items()}
    base = medians.get(RLCARD)
    base_p0 = medians.get(RLCARD_P0)
    print(
        f"\n{args.tables} tables, 2 players vs random, flat observations, deal version "
        f"{args.deal_version}, medians ({args.clock} clock); ratios to RLCard's env counting "
        "every step, then player 0's decisions only (issue 42's protocol)"
    )
    for name, median in medians.items():
        ratio = f"{median / base:.2f}x / {median / base_p0:.2f}x rlcard" if base and base_p0 else ""
        print(f"{name:<32} {median:>10,.0f} decisions/s  {ratio}")
    print(
        "\nbars (issue 42): native >= 5x rlcard in every configuration; native faster per "
        "decision than the single env at every size from 8 tables up"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
