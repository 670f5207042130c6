"""Bot strength and decision time: one bot against a field of another, seats alternated.

Game *i* seats the tested bot at seat ``i % players`` and the opponent bot everywhere else,
so every seat (first to act, dealer, ...) is played equally often. Each game's shuffle seed
and each bot's seed derive from ``--seed``, so a run is reproducible. The win rate comes with
a 95% Wilson score interval; for a searching bot (``ismcts``) the time of every decision it
searched is recorded (median and p99; forced decisions, which return at once, are left out
and counted separately).

    python benchmarks/bench_bots.py --bot heuristic --vs random --games 1000
    python benchmarks/bench_bots.py --bot ismcts --vs heuristic --games 1000
    python benchmarks/bench_bots.py --bot ismcts --vs heuristic --players 4 --games 1000 --jobs 2
    python benchmarks/bench_bots.py --bot ismcts --param iterations=300 --games 200 --json

``--speed`` measures search speed instead: ``ismcts`` iterations per second on a fixed set of
decision points (positions reached by seeded heuristic games), for this checkout and, with
``--baseline REV``, for the ``src/`` of another commit (extracted with ``git archive``), side
by side in one run, each side in its own subprocess, alternating which goes first:

    python benchmarks/bench_bots.py --speed --baseline 888ce4f
    python benchmarks/bench_bots.py --speed --baseline 888ce4f --players 4 --repeat 5
    python benchmarks/bench_bots.py --speed --baseline 23911fc --baseline 8683193

Every ``--baseline`` is a side of its own, all of them in every round.

The baseline runs on the same core build as this checkout (``--baseline-build same``): when
this checkout loads the compiled core, the baseline's core is compiled too (``python -m
nomercy.core.build`` in the extracted copy, a few minutes), so the ratio is the bot's and the
engine's, not the compiler's. Each side reports the build it ran on.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from nomercy import new_game
from nomercy.bots import Bot, make_bot, next_action, play_out
from nomercy.core.actions import Action
from nomercy.core.stats import wilson_interval

if TYPE_CHECKING:  # a --baseline side runs older sources without it
    from nomercy import PlayerView


class Timed:
    """Wraps a bot and records how long each searched decision takes."""

    def __init__(self, bot: Bot, times: list[float], forced: list[int]) -> None:
        self.bot = bot
        self.name = bot.name
        self.times = times
        self.forced = forced

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        start = time.perf_counter()
        action = self.bot.choose_action(view, legal)
        elapsed = time.perf_counter() - start
        if getattr(self.bot, "last_iterations", 1):
            self.times.append(elapsed)
        else:
            self.forced[0] += 1
        return action

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        chooser = getattr(self.bot, "choose_out_of_turn", None)
        return None if chooser is None else chooser(view, legal)


def play_one(
    job: tuple[str, str, int, str, dict[str, Any], int, int],
) -> tuple[bool, list[float], int, list[float]]:
    """Play game ``index`` (tested bot at seat ``index % players``): won, decision times,
    forced decisions, and the opponents' decision times (searched ones, as the bot's)."""
    bot, vs, players, preset, params, index, seed = job
    game = new_game(players, rules=preset, seed=seed)
    seat = index % players
    seeds_rng = random.Random(seed)
    vs_times: list[float] = []
    vs_forced = [0]
    bots: list[Bot] = [
        Timed(make_bot(vs, seed=seeds_rng.getrandbits(32)), vs_times, vs_forced)
        for _ in range(players)
    ]
    times: list[float] = []
    forced = [0]
    bots[seat] = Timed(make_bot(bot, seed=seeds_rng.getrandbits(32), **params), times, forced)
    play_out(game, bots)
    return game.winner == seat, times, forced[0], vs_times


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


def decision_points(
    players: int, preset: str, seed: int, count: int, every: int = 3
) -> list[dict[str, Any]]:
    """Positions of seeded heuristic games at every ``every``-th decision (with ``to_act``)."""
    points: list[dict[str, Any]] = []
    game_seed = seed
    while len(points) < count:
        game = new_game(players, rules=preset, seed=game_seed)
        bots = [make_bot("heuristic", seed=game_seed + s) for s in range(players)]
        steps = 0
        while not game.is_over and len(points) < count:
            if steps % every == 0 and len(game.legal_actions()) > 1:
                points.append(game.to_position())
            game.apply(next_action(game, bots))
            steps += 1
        game_seed += 1
    return points


def speed_worker(path: str, params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Search every position in ``path`` once with a fresh ``ismcts``; per-decision figures.

    Uses only the public API that every version of the bot has (``from_position``, ``view``,
    ``legal_actions``, ``ISMCTSBot.choose_action`` and ``last_iterations``), so the same
    function measures an older checkout through ``PYTHONPATH``.
    """
    import nomercy.bots.determinize as determinize
    from nomercy import Game

    positions = json.loads(Path(path).read_text())
    rates: list[float] = []
    times: list[float] = []
    deals: list[float] = []
    iterations = 0
    for i, pos in enumerate(positions):
        game = Game.from_position(pos)
        seat = game.to_act
        view = game.view(seat)
        legal = game.legal_actions(seat)
        # One determinization as the search takes it per iteration, with what it prepares
        # once per decision done beforehand: a redealer's sample_for_search (sample before
        # it existed), or (before redeal existed) sample_game with the view's knowledge.
        rng = random.Random(seed + i)
        redealer_for = getattr(determinize, "redealer_for", None)
        if redealer_for is not None:
            redealer = redealer_for(view)
            deal: Any = getattr(redealer, "sample_for_search", redealer.sample)
            start = time.perf_counter()
            for _ in range(20):
                deal(rng)
        else:
            from nomercy.bots import read_view, sample_game

            knowledge = read_view(view)
            start = time.perf_counter()
            for _ in range(20):
                sample_game(view, rng, knowledge)
        deals.append((time.perf_counter() - start) / 20)
        bot = make_bot("ismcts", seed=seed + i, **params)
        start = time.perf_counter()
        bot.choose_action(view, legal)
        elapsed = time.perf_counter() - start
        done = int(getattr(bot, "last_iterations", 0))
        if done:  # a forced decision is not a search
            rates.append(done / elapsed)
            times.append(elapsed)
            iterations += done
    import nomercy.core as core

    build = str(getattr(core, "BUILD", "pure"))
    return {
        "rates": rates,
        "times": times,
        "iterations": iterations,
        "deals": deals,
        "build": build,
    }


def this_build() -> str:
    """The core build (``pure`` or ``compiled``) this process loads."""
    import nomercy.core as core

    return str(getattr(core, "BUILD", "pure"))


def compile_baseline(src: Path) -> None:
    """Compile the core of an extracted ``src/`` in place (its ``nomercy.core.build``).

    Raises:
        argparse.ArgumentTypeError: that revision cannot build its core (no build module, or
            the compilation failed).
    """
    if not (src / "nomercy" / "core" / "build.py").exists():
        raise argparse.ArgumentTypeError("the baseline has no nomercy/core/build.py to compile")
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("NOMERCY_PURE", None)
    done = subprocess.run(
        [sys.executable, "-m", "nomercy.core.build"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise argparse.ArgumentTypeError(
            f"compiling the baseline's core failed:\n{done.stdout}{done.stderr}"
        )


def run_speed(args: argparse.Namespace, params: dict[str, Any]) -> int:
    """``--speed``: iterations/s of this checkout and of ``--baseline``, side by side."""
    here = Path(__file__).resolve()
    repo = here.parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        sides: dict[str, str] = {}
        for rev in args.baseline:
            # --baseline-dir keeps the extracted (and compiled) baseline for later runs.
            where = Path(args.baseline_dir) / rev if args.baseline_dir else Path(tmp) / rev
            base_src = where / "base" / "src"
            if not (base_src / "nomercy").is_dir():
                where.mkdir(parents=True, exist_ok=True)
                archive = where / "base.tar"
                subprocess.run(
                    ["git", "-C", str(repo), "archive", "-o", str(archive), rev, "src"],
                    check=True,
                )
                with tarfile.open(archive) as tar:
                    tar.extractall(where / "base", filter="data")
            want = this_build() if args.baseline_build == "same" else args.baseline_build
            built = (base_src / "nomercy" / "core" / "_compiled" / "build.json").exists()
            if want == "compiled" and not built:
                print(f"compiling the core of {rev} ...", file=sys.stderr, flush=True)
                compile_baseline(base_src)
            sides[f"baseline {rev}"] = str(base_src)
        sides["this checkout"] = str(repo / "src")
        points = decision_points(args.players, args.preset, args.seed, args.decisions)
        positions = Path(tmp) / "positions.json"
        positions.write_text(json.dumps(points))
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
        names = list(sides)
        for rep in range(args.repeat):
            order = names if rep % 2 == 0 else names[::-1]
            for name in order:
                env = {**os.environ, "PYTHONPATH": sides[name]}
                if name != names[-1] and args.baseline_build == "pure":
                    env["NOMERCY_PURE"] = "1"
                elif name != names[-1] and args.baseline_build == "compiled":
                    env.pop("NOMERCY_PURE", None)
                out = subprocess.run(
                    [
                        sys.executable,
                        str(here),
                        "--speed-worker",
                        str(positions),
                        "--seed",
                        str(args.seed),
                        *[f"--param={p}" for p in args.param],
                        *[f"--param={p}" for p in (args.here_param if name == names[-1] else [])],
                    ],
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                )
                runs[name].append(json.loads(out.stdout))
                print(f"[{rep + 1}/{args.repeat}] {name} done", file=sys.stderr, flush=True)
    result: dict[str, Any] = {
        "mode": "speed",
        "params": params,
        "players": args.players,
        "preset": args.preset,
        "decisions": args.decisions,
        "repeat": args.repeat,
        "seed": args.seed,
        "sides": {},
    }
    for name, reps in runs.items():
        rates = [r for rep in reps for r in rep["rates"]]
        times = [t for rep in reps for t in rep["times"]]
        per_rep = [rep["iterations"] / sum(rep["times"]) for rep in reps if rep["times"]]
        deals = [d for rep in reps for d in rep["deals"]]
        result["sides"][name] = {
            "build": ",".join(sorted({str(rep.get("build", "pure")) for rep in reps})),
            "searched": len(rates) // max(1, len(reps)),
            "median_iterations_per_s": statistics.median(rates),
            "median_of_runs_iterations_per_s": statistics.median(per_rep),
            "median_decision_ms": statistics.median(times) * 1000,
            "p99_decision_ms": percentile(times, 0.99) * 1000,
            "median_deal_us": statistics.median(deals) * 1e6,
        }
    if args.json:
        json.dump(result, sys.stdout)
        print()
        return 0
    print(
        f"ismcts{params or ''} speed, {args.players} players, {args.preset}, "
        f"{args.decisions} decision points x {args.repeat} runs (medians):"
    )
    print(
        f"{'side':<26} {'build':>8} {'searched':>8} {'iter/s':>9} {'runs iter/s':>12} "
        f"{'ms/dec':>8} {'p99':>8} {'deal us':>8}"
    )
    for name, side in result["sides"].items():
        print(
            f"{name:<26} {side['build']:>8} {side['searched']:>8} "
            f"{side['median_iterations_per_s']:>9,.0f} "
            f"{side['median_of_runs_iterations_per_s']:>12,.0f} "
            f"{side['median_decision_ms']:>8.1f} {side['p99_decision_ms']:>8.1f} "
            f"{side['median_deal_us']:>8.0f}"
        )
    new = result["sides"][names[-1]]["median_iterations_per_s"]
    for name in names[:-1]:
        base = result["sides"][name]["median_iterations_per_s"]
        label = name.removeprefix("baseline ")
        print(f"ratio this/{label} (median iterations/s): {new / base:.2f}x")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Win rate of one bot against a field of another, seats alternated; "
        "or, with --speed, ismcts iterations/s against a baseline commit.",
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
    parser.add_argument(
        "--here-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --speed: a parameter for this checkout's bot only, e.g. rollout=greedy and "
        "variants=all to search with the baseline's settings (repeatable)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="J",
        help="worker processes for the games (default: 1); the results do not depend on it",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "--every",
        type=int,
        default=0,
        metavar="N",
        help="also print the running figures to stderr every N games (for logs)",
    )
    parser.add_argument(
        "--speed",
        action="store_true",
        help="measure ismcts iterations/s on fixed decision points instead of win rates",
    )
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="with --speed: also measure the src/ of this git revision, side by side "
        "(repeatable: every side in every round)",
    )
    parser.add_argument(
        "--decisions",
        type=int,
        default=60,
        help="with --speed: decision points per run (default: 60)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="with --speed: runs per side (default: 3)"
    )
    parser.add_argument(
        "--baseline-build",
        choices=("same", "pure", "compiled"),
        default="same",
        help="with --speed: the baseline's core build; same (default) is this checkout's, "
        "compiling the baseline's core when this one is compiled",
    )
    parser.add_argument(
        "--baseline-dir",
        metavar="DIR",
        help="with --speed: keep the extracted (and compiled) baseline in DIR/REV and reuse it "
        "on later runs (default: a temporary directory)",
    )
    parser.add_argument("--speed-worker", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.speed_worker:
        json.dump(speed_worker(args.speed_worker, parse_params(args.param), args.seed), sys.stdout)
        return 0
    if args.speed:
        if args.decisions < 1 or args.repeat < 1:
            parser.error("--decisions and --repeat must be at least 1")
        try:
            return run_speed(args, parse_params(args.param))
        except argparse.ArgumentTypeError as exc:
            parser.error(str(exc))
    # Imported here: --speed-worker runs this file on an older checkout without it.
    from nomercy.bots import bot_factory

    for name in (args.bot, args.vs):
        try:
            bot_factory(name)
        except ValueError as exc:
            parser.error(str(exc))
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        params = parse_params(args.param)
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    master = random.Random(args.seed)
    seeds = [master.getrandbits(63) for _ in range(args.games)]
    times: list[float] = []
    vs_times: list[float] = []
    forced = [0]
    wins = 0
    start = time.perf_counter()
    jobs = [
        (args.bot, args.vs, args.players, args.preset, params, i, seed)
        for i, seed in enumerate(seeds)
    ]
    pool = multiprocessing.get_context("fork").Pool(args.jobs) if args.jobs > 1 else None
    # Each game is played the same way in any process, so --jobs changes no result.
    results = pool.imap(play_one, jobs) if pool else map(play_one, jobs)
    with Progress(
        TextColumn(f"{args.bot} vs {args.vs} x{args.players - 1}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("win {task.fields[rate]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True) if args.json else None,
    ) as progress:
        task = progress.add_task("games", total=args.games, rate="-")
        for i, (won, game_times, game_forced, game_vs_times) in enumerate(results):
            wins += won
            times.extend(game_times)
            vs_times.extend(game_vs_times)
            forced[0] += game_forced
            progress.update(task, advance=1, rate=f"{wins / (i + 1):.3f}")
            if args.every and (i + 1) % args.every == 0:
                low, high = wilson_interval(wins, i + 1)
                median = f"{statistics.median(times) * 1000:.1f} ms" if times else "-"
                print(
                    f"[partial] {i + 1} games: won {wins} = {wins / (i + 1):.1%} "
                    f"[{low:.1%}, {high:.1%}], median decision {median}",
                    file=sys.stderr,
                    flush=True,
                )
    if pool:
        pool.close()
        pool.join()
    elapsed = time.perf_counter() - start
    low, high = wilson_interval(wins, args.games)
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
    add_times(result, times, vs_times)
    if args.json:
        json.dump(result, sys.stdout)
        print()
        return 0
    print_report(args, params, result, forced[0])
    return 0


def add_times(result: dict[str, Any], times: list[float], vs_times: list[float]) -> None:
    """The decision-time figures of the bot and of its opponents, into ``result``."""
    if times:
        result["decision_ms_median"] = statistics.median(times) * 1000
        result["decision_ms_p99"] = percentile(times, 0.99) * 1000
        result["decision_ms_max"] = max(times) * 1000
    if vs_times:
        result["vs_decisions"] = len(vs_times)
        result["vs_decision_ms_median"] = statistics.median(vs_times) * 1000
        result["vs_decision_ms_p99"] = percentile(vs_times, 0.99) * 1000


def print_report(
    args: argparse.Namespace, params: dict[str, Any], result: dict[str, Any], forced: int
) -> None:
    """The human-readable lines of a strength run."""
    wins, games = result["wins"], result["games"]
    low, high = result["wilson95"]
    print(
        f"{args.bot}{params or ''} vs {args.players - 1} x {args.vs} ({args.preset}, "
        f"{args.players} players): won {wins}/{games} = {wins / games:.1%}, "
        f"95% Wilson [{low:.1%}, {high:.1%}] (fair share {1 / args.players:.0%}); "
        f"{result['seconds']:.0f} s"
    )
    if "decision_ms_median" in result:
        which = f"searched decisions ({forced} forced ones answered at once)"
        if not forced and args.bot not in ("ismcts",):
            which = "decisions"
        print(
            f"{args.bot} decision time over {result['searched_decisions']} {which}: "
            f"median {result['decision_ms_median']:.1f} ms, p99 {result['decision_ms_p99']:.1f} "
            f"ms, max {result['decision_ms_max']:.1f} ms"
        )
    if "vs_decision_ms_median" in result:
        print(
            f"{args.vs} decision time over {result['vs_decisions']} decisions (the same rule): "
            f"median {result['vs_decision_ms_median']:.1f} ms, "
            f"p99 {result['vs_decision_ms_p99']:.1f} ms"
        )


if __name__ == "__main__":
    raise SystemExit(main())
