"""``nomercy tournament`` and ``nomercy simulate``: many bot games, in parallel.

Both need the ``arena`` extra (rich, openskill, matplotlib); ``--backend ray`` needs the
``ray`` extra. They are registered on the main parser by :func:`add_arena_commands`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from nomercy.arena.parallel import BACKENDS, ArenaError, default_jobs
from nomercy.arena.runner import BotSpec, GameSetup
from nomercy.bots import bot_names
from nomercy.bots.levels import resolve_level
from nomercy.bots.spec import check_preset, parse_bot_spec
from nomercy.cli.common import (
    EXIT_FAILURE,
    PROG,
    UsageError,
    add_deal_version_argument,
    add_rules_arguments,
    check_writable,
    install_hint,
    parse_options,
)
from nomercy.cli.progress import progress_bar
from nomercy.core.dealing import DEAL_VERSION, seed_label
from nomercy.core.errors import NoMercyError
from nomercy.core.rules import parse_option_value

__all__ = ["add_arena_commands"]

_TOURNAMENT_EPILOG = """\
examples:
  nomercy tournament --bots greedy,random --players 4 --games 400
  nomercy tournament --bots heuristic,ismcts,random --players 4 --games 600 --jobs 2
  nomercy tournament --bots greedy,random --games 200 --json ladder.json --csv ladder.csv
  nomercy tournament --bots ismcts:iterations=200,greedy --players 2 --games 100
  nomercy tournament --bots greedy,random --games 1000 --backend ray --address 10.0.0.5:6379
  nomercy tournament --sprt --bots puct,ismcts --players 2 --elo0 0 --elo1 15 \\
      --max-games 8000 --state sprt-hu.json

Line-ups: the rotations of the bot list over the seats (then of the reversed list, with three
bots or more); a multiple of that block of games seats every bot in every seat equally often.
Game i is dealt with a seed derived from --seed and i, and so are its bots' seeds: results do
not depend on --jobs or the backend. Ratings: openskill Plackett-Luce from each game's finishing
order (winner; players still in by fewest cards; knocked out, latest first). See docs/ladder.md.
"""

_SIMULATE_EPILOG = """\
examples:
  nomercy simulate --games 1000
  nomercy simulate --games 10000 --players 4 --bots greedy --out sim/
  nomercy simulate --games 2000 --compare mercy_threshold=20,25,30 --out sim-mercy/
  nomercy simulate --games 500 --bots random --option stack_threshold=running_total
  nomercy simulate --games 5000 --backend ray --address auto --out sim/

With --out DIR: DIR/hands.csv (one row per hand), DIR/summary.json and PNG plots (hand length,
seat advantage, penalties, endings, points). Every --compare value plays the same game seeds.
Play order 1 is the dealer's left, who plays first. See docs/statistics.md.
"""


def add_arena_commands(sub: Any, raw: type[argparse.HelpFormatter]) -> None:
    """Add the ``tournament`` and ``simulate`` subcommands to ``sub``."""
    bots = ", ".join(bot_names())
    tour = sub.add_parser(
        "tournament",
        help="bots play seat-rotated games; win rates and openskill ratings",
        description="Play a tournament of bots and rank them (needs the arena extra).",
        epilog=_TOURNAMENT_EPILOG,
        formatter_class=raw,
    )
    tour.add_argument(
        "--bots",
        required=True,
        metavar="LIST",
        help=(
            "comma-separated bots (a bot listed n times holds n places of the rotation); "
            "NAME, NAME:KEY=VALUE[:KEY=VALUE], or policy:MODULE:ATTR for a trained policy "
            f"(known: {bots})"
        ),
    )
    tour.add_argument(
        "--players", type=int, default=4, metavar="N", help="seats per game (default: 4)"
    )
    tour.add_argument(
        "--games", type=int, default=None, metavar="N", help="games to play (default: 120)"
    )
    _add_run_arguments(tour)
    tour.add_argument("--json", metavar="PATH", help="write the full report (JSON) to PATH")
    tour.add_argument("--csv", metavar="PATH", help="write the standings (CSV) to PATH")
    _add_sprt_arguments(tour)
    tour.set_defaults(handler=_tournament)

    sim = sub.add_parser(
        "simulate",
        help="statistics of many hands: length, knock-outs, seat advantage, stacks, plots",
        description="Simulate many hands and describe the rules' statistics (arena extra).",
        epilog=_SIMULATE_EPILOG,
        formatter_class=raw,
    )
    sim.add_argument(
        "--games", type=int, default=1000, metavar="N", help="games per variant (default: 1000)"
    )
    sim.add_argument(
        "--players", type=int, default=4, metavar="N", help="seats per game (default: 4)"
    )
    sim.add_argument(
        "--bots",
        default="greedy",
        metavar="LIST",
        help=f"one bot for every seat, or one per seat (default: greedy; known: {bots})",
    )
    sim.add_argument(
        "--compare",
        metavar="NAME=V1,V2",
        help="play every game once per value of one option, e.g. mercy_threshold=20,25,30",
    )
    sim.add_argument(
        "--out", metavar="DIR", help="write hands.csv, summary.json and PNG plots into DIR"
    )
    sim.add_argument("--no-plots", action="store_true", help="with --out: skip the PNG plots")
    _add_run_arguments(sim)
    sim.set_defaults(handler=_simulate)


def _add_sprt_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "sequential test (--sprt)",
        "--bots CANDIDATE,BASELINE: each deal is played once per seat with the candidate in "
        "that seat and the baseline in the others; stops when H0 or H1 is accepted "
        "(docs/ladder.md#decisions-by-sequential-test)",
    )
    group.add_argument(
        "--sprt", action="store_true", help="run a sequential probability ratio test"
    )
    group.add_argument("--elo0", type=float, metavar="E", help="H0: the candidate is E Elo up")
    group.add_argument("--elo1", type=float, metavar="E", help="H1: the candidate is E Elo up")
    group.add_argument("--p0", type=float, metavar="P", help="H0 as a win rate per game")
    group.add_argument("--p1", type=float, metavar="P", help="H1 as a win rate per game")
    group.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default: 0.05)")
    group.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default: 0.05)")
    group.add_argument(
        "--max-games",
        type=int,
        default=20_000,
        metavar="N",
        help="stop undecided after N games (default: 20000)",
    )
    group.add_argument(
        "--batch", type=int, default=None, metavar="PAIRS", help="pairs between checkpoints"
    )
    group.add_argument(
        "--state", metavar="PATH", help="save the test's state to PATH after every batch"
    )
    group.add_argument(
        "--resume",
        action="store_true",
        help="continue the test saved in --state PATH (the same command)",
    )


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument(
        "--seed", type=int, default=0, help="master seed; game i's seeds derive from it (0)"
    )
    add_deal_version_argument(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="J",
        help=f"worker processes (default: the cores available, here {default_jobs()})",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local processes, or an existing Ray cluster (needs --address; ray extra)",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="Ray cluster address: HOST:PORT, 'auto' (RAY_ADDRESS or the running cluster), "
        "or 'local' (start a private Ray instance)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


# ---------------------------------------------------------------------- checks
def _need_arena_extra() -> None:
    try:
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
        import rich  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"this command needs the arena extra: {install_hint('arena')} ({exc})"
        ) from None


def _check_run(args: argparse.Namespace) -> int:
    """Check games, jobs, backend and address; return the job count."""
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    jobs = default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if args.backend == "ray":
        if not args.address:
            raise UsageError(
                "--backend ray needs --address: HOST:PORT of the cluster's head, 'auto' "
                "(RAY_ADDRESS or the cluster running here) or 'local' (a private instance)"
            )
        try:
            import ray  # noqa: F401
        except ImportError as exc:
            raise UsageError(
                f"--backend ray needs the ray extra: {install_hint('ray')} ({exc})"
            ) from None
    elif args.address:
        raise UsageError("--address is only used with --backend ray")
    return int(jobs)


def _parse_bots(text: str, preset: str) -> list[BotSpec]:
    specs = []
    for part in text.split(","):
        if not part.strip():
            raise UsageError(f"--bots {text!r} has an empty entry")
        try:
            spec = parse_bot_spec(resolve_level(part, preset))
            check_preset(spec.name, preset)  # before any game, not in a worker
            spec.build(0)  # unknown parameters fail here, not in a worker
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        specs.append(spec)
    return specs


def _setup(args: argparse.Namespace, options: dict[str, Any]) -> GameSetup:
    setup = GameSetup.make(
        args.players, args.preset, options, args.seed, deal_version=args.deal_version
    )
    try:
        setup.new_game(0)  # player count and option combination, checked once here
    except NoMercyError as exc:
        raise UsageError(str(exc)) from None
    return setup


def _parse_compare(text: str, options: dict[str, Any]) -> tuple[str, list[Any]]:
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name or not values.strip():
        raise UsageError(f"--compare needs NAME=V1,V2[,...], got {text!r}")
    items = [v.strip() for v in values.split(",")]
    if any(not v for v in items):
        raise UsageError(f"--compare {text!r} has an empty value")
    if len(items) < 2:
        raise UsageError(f"--compare needs at least two values to compare, got {text!r}")
    if name in options:
        raise UsageError(f"--compare {name} and --option {name} cannot both be given")
    try:
        parsed = [parse_option_value(name, v) for v in items]
    except NoMercyError as exc:
        raise UsageError(str(exc)) from None
    # The values as read: "20" and "020", "true" and "TRUE" are one variant.
    if len({(type(v), v) for v in parsed}) != len(parsed):
        raise UsageError(f"--compare {text!r} lists a value twice")
    return name, parsed


class _Failure(Exception):
    """The run failed (exit status 1)."""


def _run(run: Callable[[], Any]) -> Any:
    """Call ``run``; a failed game or an unreachable cluster is a _Failure."""
    try:
        return run()
    except ArenaError as exc:
        raise _Failure(str(exc)) from None
    except ConnectionError as exc:
        raise _Failure(f"cannot reach the Ray cluster: {exc}") from None
    except (ValueError, ImportError) as exc:
        raise UsageError(str(exc)) from None


def _write(path: str | None, text: str) -> None:
    if path is None:
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------- tournament
def _tournament(args: argparse.Namespace, out: TextIO) -> int:
    if args.sprt:
        return _sprt(args, out)
    for flag in ("elo0", "elo1", "p0", "p1", "state", "batch"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag} is for a sequential test: add --sprt")
    if args.resume:
        raise UsageError("--resume is for a sequential test: add --sprt")
    if args.games is None:
        args.games = 120
    _need_arena_extra()
    jobs = _check_run(args)
    bots = _parse_bots(args.bots, args.preset)
    options = parse_options(args.option)
    setup = _setup(args, options)
    from nomercy.arena.tournament import lineups, run_tournament

    try:
        block = len(lineups(bots, setup.players))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    check_writable(args.json, args.csv)
    if args.games % block:
        print(
            f"warning: {args.games} games is not a multiple of the {block}-game line-up block; "
            "seats are not perfectly balanced",
            file=sys.stderr,
        )
    try:
        with progress_bar("tournament", "games", total=args.games, quiet=args.quiet) as bar:
            result = _run(
                lambda: run_tournament(
                    bots,
                    setup,
                    args.games,
                    jobs=jobs,
                    backend=args.backend,
                    address=args.address,
                    progress=bar.advance,
                )
            )
    except _Failure as exc:
        print(f"{PROG} tournament: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    _print_standings(result, out)
    _write(args.json, json.dumps(result.to_json(), indent=1) + "\n")
    _write(args.csv, result.to_csv())
    return 0


def _standings_caption(result: Any) -> str:
    """What the columns count: seats, not games, when a bot holds several seats of a game."""
    shared = [s for s in result.standings if s.seats != s.games]
    lines = []
    if shared:
        s = shared[0]
        lines.append(
            f"Wins count per seat played, not per game: {s.bot} held {s.seats} seats in "
            f"{s.games} games and won {s.wins} of them ({s.win_rate:.1%})."
        )
    lines.append(
        "won/played: seats won / seats played, 95% Wilson interval; openskill "
        "Plackett-Luce, ordinal = mu - 3 sigma"
    )
    return "\n".join(lines)


def _print_standings(result: Any, out: TextIO) -> None:
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    setup = result.setup
    options = ", ".join(f"{k}={v}" for k, v in setup.options)
    table = Table(
        title=(
            f"{len(result.games)} games, {setup.players} players, {setup.preset}"
            + (f" ({options})" if options else "")
            + f", {seed_label(setup.seed, setup.deal_version)}"
        ),
        caption=_standings_caption(result),
    )
    # The bot column is never cut: two policies of one module (policy:mypkg:ppo and
    # policy:mypkg:selfplay) must stay apart. The console widens to the table instead.
    table.add_column("#", justify="right")
    table.add_column("bot", justify="left", no_wrap=True, overflow="fold")
    for header, justify in (
        ("games", "right"),
        ("seats played", "right"),
        ("seats won", "right"),
        ("won/played", "right"),
        ("95% CI", "center"),
        ("mean rank", "right"),
        ("mu", "right"),
        ("sigma", "right"),
        ("ordinal", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for place, s in enumerate(result.standings, 1):
        low, high = s.win_ci
        table.add_row(
            str(place),
            s.bot,
            str(s.games),
            str(s.seats),
            str(s.wins),
            f"{s.win_rate:.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{s.mean_rank:.2f}",
            f"{s.mu:.2f}",
            f"{s.sigma:.2f}",
            f"{s.ordinal:.2f}",
        )
    console = Console(file=out, width=120)
    wide = console.options.update_width(10_000)
    needed = Measurement.get(console, wide, table).maximum
    Console(file=out, width=max(120, needed)).print(table)


# ---------------------------------------------------------------------- simulate
def _simulate(args: argparse.Namespace, out: TextIO) -> int:
    _need_arena_extra()
    jobs = _check_run(args)
    bots = _parse_bots(args.bots, args.preset)
    if len(bots) not in (1, args.players):
        raise UsageError(f"--bots lists {len(bots)} bots for {args.players} players")
    options = parse_options(args.option)
    compare = _parse_compare(args.compare, options) if args.compare else None
    setup = _setup(args, options)
    if compare is not None:
        name, values = compare
        for value in values:
            _setup(args, {**options, name: value})
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
    from nomercy.arena.simulate import run_simulation

    variants = len(compare[1]) if compare else 1
    try:
        with progress_bar(
            "simulate", "games", total=args.games * variants, quiet=args.quiet
        ) as bar:
            result = _run(
                lambda: run_simulation(
                    bots,
                    setup,
                    args.games,
                    compare=compare,
                    jobs=jobs,
                    backend=args.backend,
                    address=args.address,
                    progress=bar.advance,
                )
            )
    except _Failure as exc:
        print(f"{PROG} simulate: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    summary = result.summary()
    _print_summary(summary, out)
    if out_dir is not None:
        _write(str(out_dir / "hands.csv"), result.to_csv())
        _write(str(out_dir / "summary.json"), json.dumps(summary, indent=1) + "\n")
        written = ["hands.csv", "summary.json"]
        if not args.no_plots:
            from nomercy.arena.plots import write_plots

            written += [p.name for p in write_plots(result, out_dir)]
        print(f"wrote {', '.join(written)} to {out_dir}", file=out)
    else:
        print("(--out DIR writes hands.csv, summary.json and the plots)", file=out)
    return 0


def _print_summary(summary: dict[str, Any], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, width=140)
    config = summary["config"]
    options = ", ".join(f"{k}={v}" for k, v in config["options"].items())
    title = (
        f"{config['games']} games per variant, {config['players']} players, {config['preset']}"
        + (f" ({options})" if options else "")
        + f", bots {','.join(sorted(set(config['bots'])))}, "
        + seed_label(config["seed"], config.get("deal_version", DEAL_VERSION))
    )
    table = Table(title=title, caption="mean (median); penalties: cards in each stack taken")
    for header in (
        "variant",
        "hands",
        "turns",
        "actions",
        "cards drawn",
        "last standing",
        "knock-outs",
        "penalties / hand",
        "biggest penalty p99 / max",
        "points",
    ):
        if header == "variant":
            table.add_column(header, no_wrap=True)
        else:
            table.add_column(header, justify="right")
    for v in summary["variants"]:

        def mm(key: str, v: dict[str, Any] = v) -> str:
            return f"{v[key]['mean']:.1f} ({v[key]['median']:g})"

        penalties = v["penalties_taken"]
        table.add_row(
            "default rules" if v["label"] == "base" else v["label"],
            str(v["hands"]),
            mm("turns"),
            mm("actions"),
            mm("cards_drawn"),
            f"{v['endings']['last standing']['share']:.1%}",
            f"{v['knockouts_per_hand']['mean']:.2f}",
            f"{penalties['per_hand']:.1f}",
            f"{penalties.get('p99', 0):.0f} / {penalties.get('max', 0)}",
            mm("points"),
        )
    console.print(table)
    seats = Table(title="Seat advantage: win rate by play order (1 plays first), 95% Wilson CI")
    seats.add_column("variant", no_wrap=True)
    for order in range(1, config["players"] + 1):
        seats.add_column(f"{order}" + (" (dealer)" if order == config["players"] else ""))
    for v in summary["variants"]:
        seats.add_row(
            "default rules" if v["label"] == "base" else v["label"],
            *(
                f"{row['win_rate']:.1%} [{row['win_ci'][0]:.1%}, {row['win_ci'][1]:.1%}]"
                for row in v["by_order"]
            ),
        )
    console.print(seats)


# ---------------------------------------------------------------------- sequential test
def _hypotheses(args: argparse.Namespace) -> tuple[float, float, float | None, float | None]:
    """``(s0, s1, elo0, elo1)`` from --elo0/--elo1 or --p0/--p1."""
    from nomercy.arena.sprt import elo_to_score

    elo = args.elo0 is not None or args.elo1 is not None
    rate = args.p0 is not None or args.p1 is not None
    if elo and rate:
        raise UsageError("give the hypotheses as --elo0/--elo1 or as --p0/--p1, not both")
    if elo:
        if args.elo0 is None or args.elo1 is None:
            raise UsageError("--sprt needs both --elo0 and --elo1")
        s0 = elo_to_score(args.elo0, args.players)
        s1 = elo_to_score(args.elo1, args.players)
        return s0, s1, args.elo0, args.elo1
    if args.p0 is None or args.p1 is None:
        raise UsageError("--sprt needs the hypotheses: --elo0 E0 --elo1 E1, or --p0 P0 --p1 P1")
    return args.p0, args.p1, None, None


def _sprt_state(args: argparse.Namespace, config: Any) -> Any:
    """A new state, or the saved one for --resume (which must be of the same test)."""
    from nomercy.arena.sprt import SprtState

    if args.resume and not args.state:
        raise UsageError("--resume needs --state PATH, the saved test")
    if args.state is None:
        return SprtState(config)
    path = Path(args.state)
    if not args.resume:
        if path.exists():
            raise UsageError(
                f"{path} exists: pass --resume to continue that test, or another --state"
            )
        check_writable(args.state)
        return SprtState(config)
    try:
        state = SprtState.from_json(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise UsageError(f"{path}: {exc}") from None
    if state.config != config:
        saved, given = state.config.to_json(), config.to_json()
        diff = ", ".join(
            f"{k} {saved[k]!r} (saved) vs {given[k]!r}" for k in saved if saved[k] != given[k]
        )
        raise UsageError(f"{path} is another test: {diff}")
    return state


def _save_state(path: str, state: Any) -> None:
    """Write ``state`` atomically: a crash mid-write leaves the previous checkpoint."""
    target = Path(path)
    temp = target.with_name(target.name + ".tmp")
    try:
        temp.write_text(json.dumps(state.to_json(), indent=1) + "\n", encoding="utf-8")
        temp.replace(target)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _sprt_line(status: Any, players: int) -> str:
    from nomercy.arena.sprt import score_to_elo

    low, high = status.score_ci
    elo = score_to_elo(status.score, players) if status.pairs else 0.0
    return (
        f"{status.games} games ({status.pairs} pairs), score {status.wins}/{status.games} = "
        f"{status.score:.2%} [{low:.2%}, {high:.2%}] ({elo:+.1f} Elo), "
        f"LLR {status.llr:.2f} ({status.lower:.2f}, {status.upper:.2f})"
    )


def _sprt(args: argparse.Namespace, out: TextIO) -> int:
    from nomercy.arena.sprt import SprtConfig, run_sprt

    if args.games is not None:
        raise UsageError("--sprt plays until it decides: use --max-games, not --games")
    if args.csv:
        raise UsageError("--sprt writes no standings: use --json or --state")
    if args.deal_version != DEAL_VERSION:
        # Its saved state (--state) names no deal version: a resumed test must deal alike.
        raise UsageError(f"--sprt deals with deal version {DEAL_VERSION} only")
    args.games = args.max_games
    jobs = _check_run(args)
    bots = _parse_bots(args.bots, args.preset)
    if len(bots) != 2:
        raise UsageError(f"--sprt needs two bots, CANDIDATE,BASELINE; got {len(bots)}")
    s0, s1, elo0, elo1 = _hypotheses(args)
    options = parse_options(args.option)
    _setup(args, options)  # the player count and options, checked once here
    try:
        config = SprtConfig(
            candidate=bots[0].label,
            baseline=bots[1].label,
            players=args.players,
            preset=args.preset,
            options=tuple(sorted(options.items())),
            seed=args.seed,
            s0=s0,
            s1=s1,
            alpha=args.alpha,
            beta=args.beta,
            max_games=args.max_games,
            elo0=elo0,
            elo1=elo1,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.batch is not None and args.batch < 1:
        raise UsageError(f"--batch must be at least 1 pair, got {args.batch}")
    check_writable(args.json)
    state = _sprt_state(args, config)

    def checkpoint(saved: Any) -> None:
        if args.state:
            _save_state(args.state, saved)
        if not args.quiet:
            print(f"sprt: {_sprt_line(saved.status(), args.players)}", file=sys.stderr)

    if state.pair_wins and not args.quiet:
        print(f"sprt: resumed at {_sprt_line(state.status(), args.players)}", file=sys.stderr)
    try:
        status = _run(
            lambda: run_sprt(
                bots[0],
                bots[1],
                state,
                batch=args.batch,
                jobs=jobs,
                backend=args.backend,
                address=args.address,
                checkpoint=checkpoint,
            )
        )
    except _Failure as exc:
        print(f"{PROG} tournament: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    verdict = {
        "H1": "H1 accepted",
        "H0": "H0 accepted",
        "cap": f"no decision within {args.max_games} games",
    }[status.decision]
    hypotheses = f"p0 {s0:.2%}, p1 {s1:.2%}"
    if elo0 is not None:
        hypotheses = f"elo0 {elo0:g}, elo1 {elo1:g} ({hypotheses})"
    print(
        f"SPRT {config.candidate} vs {config.baseline}, {args.players} players, {args.preset}, "
        f"seed {args.seed}: {hypotheses}, alpha {args.alpha:g}, beta {args.beta:g}",
        file=out,
    )
    print(_sprt_line(status, args.players), file=out)
    print(verdict, file=out)
    _write(args.json, json.dumps(state.to_json(), indent=1) + "\n")
    return 0
