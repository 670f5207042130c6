"""Engine throughput: our No Mercy engine against RLCard's UNO game, in one run.

Both sides play random games: at every step the seat to act picks uniformly
from its legal actions with a ``random.Random(seed)``. One step is one call that
advances the game (``Game.apply`` for us, ``UnoGame.step`` for RLCard); the
time includes dealing each game. RLCard's side reuses ONE ``UnoGame`` (and its one
``RandomState``, reseeded per game) across games and deals each with ``init_game()``, as
RLCard's own env does on every ``reset()``; ``--rlcard-game rebuilt`` times the old protocol
(a new ``UnoGame`` and two generators per game, ~195 us of a ~48-step game, which made our
ratios ~1.6x larger). Times are CPU time of the process that plays (``time.process_time``:
on a loaded machine the wall clock also counts other programs' turns); ``--clock wall``
measures wall time. ``--path ids`` plays our games on the engine's id
path instead (``Game.step(choice(game.legal_ids()))`` with events off), ``--path both``
times both paths as two sides; they play the same games (the ids come in the order of
the actions). The sides are timed back to back in every
repetition, alternating which goes first, so machine noise hits both alike;
the table gives medians over the repetitions. Every repetition plays the same
seeds, so each side does identical work each time.

The two sides do not play the same game (No Mercy's 168 cards, stacking and
mercy rule against RLCard's classic 108-card UNO), so steps/s is the figure to
compare; games/s is shown for scale.

    python benchmarks/bench_engine.py                    # both sides, defaults
    python benchmarks/bench_engine.py --games 2000 --repeat 7
    python benchmarks/bench_engine.py --only rlcard --players 2
    python benchmarks/bench_engine.py --builds both   # our engine pure and compiled, side by side
    python benchmarks/bench_engine.py --builds both --path both   # four sides of ours
    python benchmarks/bench_engine.py --json > bench.json
    python benchmarks/bench_engine.py --path ids --builds both --games 2000 --repeat 7

Our engine runs on the build of ``nomercy.core`` that this interpreter picks (compiled by
``python -m nomercy.core.build`` unless ``NOMERCY_PURE=1``; the notes say which). With
``--builds both`` it runs as two sides, ``pure`` and ``compiled``, each in a child process
started with and without ``NOMERCY_PURE`` (a process loads one build); the child times the
games and the parent interleaves it with RLCard as for the other sides.

Needs the bench extra: ``pip install -e '.[bench]'``.
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
from dataclasses import asdict, dataclass
from typing import Any

from build_worker import start_worker

# A game still running after this many steps is stopped and counted as truncated.
MAX_STEPS = 100_000

OK, TRUNCATED, ABORTED = "ok", "truncated", "aborted"

# Plays one game from a seed; returns (steps taken, OK | TRUNCATED | ABORTED).
PlayFn = Callable[[int], tuple[int, str]]

# The timer: CPU time of this process (the default), or wall time (--clock wall).
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


@dataclass
class Side:
    key: str  # "ours" or "rlcard"
    label: str
    players: int
    version: str
    play: PlayFn
    # Times one repetition elsewhere (a child process) instead of calling play here.
    timer: Callable[[range, int], Run] | None = None


@dataclass
class Run:
    side: str
    rep: int
    games: int
    steps: int
    seconds: float
    truncated: int
    aborted: int

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def _version(dist: str, module: Any = None) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(module, "__version__", "unknown"))


PATHS = ("objects", "ids")


def make_ours(
    players: int, path: str = "objects", key: str = "ours", deal_version: int = 1
) -> Side:
    """Our engine on the object path (``legal_actions``/``apply``, events on) or the id path
    (``legal_ids``/``step``, events off), its games dealt by ``deal_version``."""
    import nomercy

    new_game = nomercy.new_game

    def play_objects(seed: int) -> tuple[int, str]:
        choice = random.Random(seed).choice
        game = new_game(players, seed=seed, deal_version=deal_version)
        steps = 0
        while not game.is_over:
            game.apply(choice(game.legal_actions()))
            steps += 1
            if steps >= MAX_STEPS:
                return steps, TRUNCATED
        return steps, OK

    def play_ids(seed: int) -> tuple[int, str]:
        choice = random.Random(seed).choice
        game = new_game(players, seed=seed, deal_version=deal_version)
        game.record_events = False
        step = game.step
        legal_ids = game.legal_ids
        steps = 0
        while not game.is_over:
            step(choice(legal_ids()))
            steps += 1
            if steps >= MAX_STEPS:
                return steps, TRUNCATED
        return steps, OK

    play = play_ids if path == "ids" else play_objects
    label = f"nomercy {path}" + (f" deal v{deal_version}" if deal_version != 1 else "")
    return Side(key, label, players, _version("uno-no-mercy", nomercy), play)


def make_rlcard(players: int, game_object: str = "reused") -> Side:
    """RLCard's ``UnoGame``: one object dealt anew by ``init_game()`` per game, as RLCard's env
    does (``reused``), or a new one with two new generators per game (``rebuilt``)."""
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    reused = UnoGame(allow_step_back=False, num_players=players)

    def new_game(seed: int) -> Any:
        if game_object == "rebuilt":
            game = UnoGame(allow_step_back=False, num_players=players)
            game.np_random = np.random.RandomState(seed)
            return game
        # The one RandomState reseeded in place: the same stream as a new one from `seed`.
        reused.np_random.seed(seed)
        return reused

    def play(seed: int) -> tuple[int, str]:
        choice = random.Random(seed).choice
        # Seeded per game so every repetition replays the same deals, top-card colours and
        # reshuffles.
        game = new_game(seed)
        game.init_game()
        steps = 0
        try:
            while not game.is_over():
                game.step(choice(game.get_legal_actions()))
                steps += 1
                if steps >= MAX_STEPS:
                    return steps, TRUNCATED
        except IndexError:
            # RLCard draws from an empty list when deck and discard are both
            # empty (every card in hands); the game cannot go on.
            return steps, ABORTED
        return steps, OK

    label = f"rlcard UnoGame {game_object}"
    return Side("rlcard", label, players, _version("rlcard"), play)


def time_side(side: Side, seeds: range, rep: int, clock: str = "cpu") -> Run:
    if side.timer is not None:
        return side.timer(seeds, rep)
    play = side.play
    now = CLOCKS[clock]
    truncated = aborted = steps = 0
    start = now()
    for seed in seeds:
        n, status = play(seed)
        steps += n
        if status == TRUNCATED:
            truncated += 1
        elif status == ABORTED:
            aborted += 1
    seconds = now() - start
    return Run(side.key, rep, len(seeds), steps, seconds, truncated, aborted)


def make_build_side(
    build: str, players: int, path: str, key: str, clock: str = "cpu", deal_version: int = 1
) -> Side:
    """Our engine on one build of nomercy.core ("pure" or "compiled"), in a child process."""
    request, info = start_worker(
        build,
        [
            *(__file__, "--worker", "--players", str(players), "--path", path),
            *("--clock", clock, "--deal-version", str(deal_version)),
        ],
    )

    def ask(command: str, seeds: range) -> dict[str, Any]:
        reply: dict[str, Any] = request(f"{command} {seeds.start} {seeds.stop}")
        return reply

    def timer(seeds: range, rep: int) -> Run:
        r = ask("run", seeds)
        return Run(key, rep, r["games"], r["steps"], r["seconds"], r["truncated"], r["aborted"])

    def play(seed: int) -> tuple[int, str]:
        ask("warm", range(seed, seed + 1))
        return 0, OK

    label = f"nomercy {build} {path}" + (f" deal v{deal_version}" if deal_version != 1 else "")
    return Side(key, label, players, info["version"], play, timer)


def worker(players: int, path: str, clock: str = "cpu", deal_version: int = 1) -> int:
    """Child of --builds: play and time what the parent asks on this process's core build."""
    import nomercy.core

    side = make_ours(players, path, deal_version=deal_version)
    info = {
        "build": nomercy.core.BUILD,
        "description": nomercy.core.build_description(),
        "version": side.version,
    }
    print(json.dumps(info), flush=True)
    for line in sys.stdin:
        command, start, stop = line.split()
        seeds = range(int(start), int(stop))
        if command == "warm":
            for seed in seeds:
                side.play(seed)
            print("{}", flush=True)
        else:
            print(json.dumps(asdict(time_side(side, seeds, 0, clock))), flush=True)
    return 0


def probe_rlcard_players(wanted: int, notes: list[str]) -> int:
    """RLCard's UNO env is 2-player only; check whether its game class runs `wanted` seats."""
    notes.append(
        "rlcard.make('uno') is fixed at 2 players (game_num_players is ignored for uno) "
        "and UnoGame.get_payoffs() assumes 2 players; the benchmark drives UnoGame directly "
        "and never calls get_payoffs()."
    )
    if wanted == 2:
        return 2
    try:
        side = make_rlcard(wanted)
        for seed in range(20):
            side.play(seed)
    except Exception as exc:  # any failure: fall back to what RLCard supports
        notes.append(
            f"UnoGame(num_players={wanted}) failed ({type(exc).__name__}: {exc}); "
            "RLCard baseline falls back to 2 players."
        )
        return 2
    notes.append(f"UnoGame(num_players={wanted}) runs; RLCard baseline uses {wanted} players.")
    return wanted


def summarize(side: Side, runs: list[Run]) -> dict[str, Any]:
    first = runs[0]
    return {
        "label": side.label,
        "key": side.key,
        "version": side.version,
        "players": side.players,
        "games": first.games,
        "steps_per_game": first.steps / first.games,
        "median_steps_per_s": statistics.median(r.steps_per_s for r in runs),
        "median_games_per_s": statistics.median(r.games_per_s for r in runs),
        "min_steps_per_s": min(r.steps_per_s for r in runs),
        "max_steps_per_s": max(r.steps_per_s for r in runs),
        "truncated": first.truncated,
        "aborted": first.aborted,
        "runs": [
            {**asdict(r), "steps_per_s": r.steps_per_s, "games_per_s": r.games_per_s} for r in runs
        ],
    }


def print_table(result: dict[str, Any]) -> None:
    cfg = result["config"]
    last_seed = cfg["seed"] + cfg["games"] - 1
    print(
        f"\nengine throughput, random play: {cfg['games']} games per side x "
        f"{cfg['repeat']} repetitions (medians), seeds {cfg['seed']}..{last_seed}"
    )
    print(
        f"{result['python']} on {result['machine']}; {cfg['clock']} clock; "
        f"RLCard's UnoGame {cfg['rlcard_game']}"
    )
    header = (
        f"{'side':<22} {'version':>8} {'seats':>5} {'steps/game':>10} "
        f"{'steps/s':>10} {'games/s':>9} {'steps/s range':>21} {'trunc':>5} {'abort':>5}"
    )
    print(header)
    print("-" * len(header))
    for s in result["sides"].values():
        spread = f"{s['min_steps_per_s']:,.0f}-{s['max_steps_per_s']:,.0f}"
        print(
            f"{s['label']:<22} {s['version']:>8} {s['players']:>5} {s['steps_per_game']:>10.1f} "
            f"{s['median_steps_per_s']:>10,.0f} {s['median_games_per_s']:>9,.1f} {spread:>21} "
            f"{s['truncated']:>5} {s['aborted']:>5}"
        )
    print()
    for key, ratio in result.get("ratios_to_rlcard", {}).items():
        print(
            f"ratio {key}/rlcard: {ratio['steps_per_s']:.2f}x steps/s, "
            f"{ratio['games_per_s']:.2f}x games/s"
        )
    if "ratio_compiled_pure_steps_per_s" in result:
        print(f"ratio compiled/pure, steps/s: {result['ratio_compiled_pure_steps_per_s']:.2f}x")
    for note in result["notes"]:
        print(f"note: {note}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000, help="games per side per repetition")
    p.add_argument("--repeat", type=int, default=5, help="repetitions (medians are reported)")
    p.add_argument("--players", type=int, default=4, help="seats in our games (default 4)")
    p.add_argument(
        "--rlcard-players",
        type=int,
        default=None,
        help="seats in RLCard's games (default: --players if UnoGame runs it, else 2)",
    )
    p.add_argument("--seed", type=int, default=0, help="first seed; game i uses seed+i")
    p.add_argument("--only", choices=["both", "ours", "rlcard"], default="both")
    p.add_argument(
        "--builds",
        choices=["current", "both"],
        default="current",
        help=(
            "our engine on the core build this process loads (current), or as two sides, "
            "pure and compiled, each in a child process (both; needs python -m "
            "nomercy.core.build)"
        ),
    )
    p.add_argument(
        "--path",
        choices=[*PATHS, "both"],
        default="objects",
        help=(
            "our engine's object path (legal_actions/apply, events on), its id path "
            "(legal_ids/step, events off), or both as two sides"
        ),
    )
    p.add_argument(
        "--rlcard-game",
        choices=["reused", "rebuilt"],
        default="reused",
        help=(
            "RLCard's side: one UnoGame dealt by init_game() per game, as its env does "
            "(reused, default), or a new UnoGame and generators per game (rebuilt)"
        ),
    )
    p.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="time each side by the CPU time of the process that plays (default) or wall time",
    )
    p.add_argument(
        "--deal-version",
        type=int,
        choices=(1, 2),
        default=1,
        help="the generator our games are shuffled with (docs/notation.md; default 1)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:  # noqa: C901 (measured in tests/test_complexity.py)
    args = parse_args(argv)
    if args.worker:
        return worker(args.players, args.path, args.clock, args.deal_version)
    log = sys.stderr if args.json else sys.stdout
    notes: list[str] = []
    sides: list[Side] = []
    paths = PATHS if args.path == "both" else (args.path,)

    def key_of(build: str, path: str) -> str:
        # One side of ours keeps the historical keys ("ours", "pure", "compiled").
        if len(paths) == 1:
            return build or "ours"
        return f"{build}-{path}" if build else path

    if args.only in ("both", "ours") and args.builds == "both":
        try:
            sides += [
                make_build_side(b, args.players, p, key_of(b, p), args.clock, args.deal_version)
                for b in ("pure", "compiled")
                for p in paths
            ]
        except RuntimeError as exc:
            print(f"{exc}; build it with python -m nomercy.core.build", file=sys.stderr)
            return 2
    elif args.only in ("both", "ours"):
        try:
            sides += [make_ours(args.players, p, key_of("", p), args.deal_version) for p in paths]
        except (ImportError, AttributeError) as exc:
            print(f"cannot load our engine ({exc}); use --only rlcard", file=sys.stderr)
            return 2
        import nomercy.core

        notes.append(f"our engine runs the {nomercy.core.build_description()}.")
    if args.only in ("both", "rlcard"):
        try:
            import rlcard.games.uno.game  # noqa: F401
        except ImportError as exc:
            print(f"cannot import rlcard ({exc}); pip install -e '.[bench]'", file=sys.stderr)
            return 2
        wanted = args.rlcard_players or args.players
        sides.append(make_rlcard(probe_rlcard_players(wanted, notes), args.rlcard_game))

    seeds = range(args.seed, args.seed + args.games)
    warmup = range(args.seed, args.seed + min(20, args.games))
    for side in sides:
        for seed in warmup:
            side.play(seed)

    runs: dict[str, list[Run]] = {s.key: [] for s in sides}
    for rep in range(args.repeat):
        order = sides if rep % 2 == 0 else sides[::-1]
        for side in order:
            run = time_side(side, seeds, rep, args.clock)
            runs[side.key].append(run)
            print(
                f"  rep {rep + 1}/{args.repeat} {side.key:<16} {run.steps:>9,} steps "
                f"{run.seconds:7.3f}s  {run.steps_per_s:>10,.0f} steps/s "
                f"{run.games_per_s:>8,.1f} games/s",
                file=log,
                flush=True,
            )

    result: dict[str, Any] = {
        "config": {
            "games": args.games,
            "repeat": args.repeat,
            "seed": args.seed,
            "max_steps": MAX_STEPS,
            "clock": args.clock,
            "rlcard_game": args.rlcard_game,
        },
        "python": f"Python {platform.python_version()} ({platform.python_implementation()})",
        "machine": f"{platform.system()} {platform.machine()}",
        "sides": {s.key: summarize(s, runs[s.key]) for s in sides},
        "notes": notes,
    }
    if "ours" in runs and "rlcard" in runs:
        ours, theirs = result["sides"]["ours"], result["sides"]["rlcard"]
        result["ratio_steps_per_s"] = ours["median_steps_per_s"] / theirs["median_steps_per_s"]
        result["ratio_games_per_s"] = ours["median_games_per_s"] / theirs["median_games_per_s"]
        if ours["players"] != theirs["players"]:
            notes.append(f"seat counts differ: ours {ours['players']}, rlcard {theirs['players']}.")
    if "rlcard" in runs:
        theirs_steps = result["sides"]["rlcard"]["median_steps_per_s"]
        theirs_games = result["sides"]["rlcard"]["median_games_per_s"]
        result["ratios_to_rlcard"] = {
            key: {
                "steps_per_s": side["median_steps_per_s"] / theirs_steps,
                "games_per_s": side["median_games_per_s"] / theirs_games,
            }
            for key, side in result["sides"].items()
            if key != "rlcard"
        }
    if "pure" in runs:
        pure = result["sides"]["pure"]["median_steps_per_s"]
        compiled = result["sides"]["compiled"]["median_steps_per_s"]
        result["ratio_compiled_pure_steps_per_s"] = compiled / pure
        if "rlcard" in runs:
            theirs_steps = result["sides"]["rlcard"]["median_steps_per_s"]
            result["ratio_pure_steps_per_s"] = pure / theirs_steps
            result["ratio_compiled_steps_per_s"] = compiled / theirs_steps

    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
