"""``nomercy``: play bot games, replay records and list the rule options.

Subcommands:

- ``nomercy play``: play against bots in the terminal app (needs the ``tui`` extra);
- ``nomercy selfplay``: bots play one game (or a match, with ``scoring_enabled``) and every
  event is narrated;
- ``nomercy replay FILE``: narrate a saved :class:`~nomercy.core.records.GameRecord` move by
  move;
- ``nomercy rules``: every option of RULES.md §6 with its rule id, default and values;
- ``nomercy serve``: the web server (``nomercy.web.serve``; needs the ``web`` extra).
- ``nomercy tournament`` and ``nomercy simulate``: many bot games in parallel, ratings and
  rule statistics (:mod:`nomercy.cli.arena`).

User errors (an unknown option or value, a bad player count, an unreadable record) print one
line to stderr and exit with status 2, like argparse's own usage errors.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from nomercy.bots import Bot, bot_names, play_out
from nomercy.bots.levels import LEVELS, level_label, resolve_level
from nomercy.bots.spec import check_preset, for_table, parse_bot_spec
from nomercy.cli.analyse import add_analyse_parser
from nomercy.cli.arena import add_arena_commands
from nomercy.cli.common import (
    EXIT_FAILURE,
    EXIT_USAGE,
    PROG,
    UsageError,
    add_deal_version_argument,
    add_rules_arguments,
    check_writable,
    install_hint,
    parse_options,
)
from nomercy.core.actions import Action
from nomercy.core.dealing import seed_label
from nomercy.core.errors import NoMercyError
from nomercy.core.events import Event
from nomercy.core.game import Game, new_game
from nomercy.core.records import GameRecord
from nomercy.core.rules import OPTIONS, PRESETS, OptionSpec
from nomercy.tables.table import PLAY_UNO_FORGET
from nomercy.tables.wording import event_words

__all__ = ["build_parser", "main"]

#: A safety stop for selfplay; real games end far sooner.
MAX_ACTIONS = 1_000_000


# ---------------------------------------------------------------------- parser
#: The levels with their No Mercy bots, for the --bots help (classic: docs/bots.md#levels).
_LEVELS_HELP = ", ".join(level_label(level) for level in LEVELS)

_MAIN_EPILOG = """\
examples:
  nomercy play
  nomercy play --players 3 --bots greedy,random --match
  nomercy selfplay --players 4 --seed 1
  nomercy selfplay --players 2 --bots greedy,random --save game.json
  nomercy replay game.json
  nomercy analyse game.json --seat 1 --top 5
  nomercy rules --preset classic
  nomercy serve --host 0.0.0.0
  nomercy tournament --bots greedy,random --players 4 --games 400
  nomercy simulate --games 2000 --compare mercy_threshold=20,25,30 --out sim/

Rules: docs/RULES.md. Notation and record format: docs/notation.md.
"""

_SELFPLAY_EPILOG = """\
examples:
  nomercy selfplay --players 4 --seed 1
  nomercy selfplay --players 3 --seed 2 --quiet
  nomercy selfplay --preset classic --players 5 --bots random
  nomercy selfplay --players 2 --bots greedy,random --save game.json
  nomercy selfplay --option stack_threshold=running_total --option mercy_threshold=30
  nomercy selfplay --option scoring_enabled=true --quiet     # play a match to 1000 points

Every event is narrated with its rule id, omnisciently (drawn cards are named). Bot seat s
gets the seed SEED*100+s. List the options with `nomercy rules`.
"""

_PLAY_EPILOG = """\
examples:
  nomercy play                                   # you (seat 0) against 3 greedy bots
  nomercy play --bots hard                       # 3 bots of level Hard (ismcts)
  nomercy play --players 3 --bots greedy,random --seat 1
  nomercy play --preset classic --players 5 --match
  nomercy play --option stack_threshold=running_total --speed 1.5
  nomercy play --seed 4242                       # deal the game of seed 4242 again
  nomercy play --save-dir games/                 # every finished game saved as a record
  nomercy play --resume games/nomercy-saved-seed4242-20260101-120000.json

Each game gets a fresh random seed unless --seed is given; the log's first line shows it
(with --deal-version 2, the cheaper shuffles, it shows the version too: the seed deals
another game under each version).
Keys: arrows + enter choose a legal action (mouse clicks work too); d draws (or takes a
pending penalty), and says which rule forbids it when it cannot; u calls UNO (with two cards,
choose a 'play ... + call UNO' action); i types an action in notation (play W+6 G, play R7 2,
draw, colour G, pass, uno, catch 2), and the box shows the highlighted move's notation; ? shows
the card notation; h asks the coach for a hint (the strongest bot's move for your seat, from
your view only, with its estimated chance to win the hand and why; it is highlighted, not
played); escape goes back to the list; q quits and offers to save (a new file each time:
nomercy-saved-seedSEED-DATE-TIME.json). A move whose consequence is not obvious (you
become the target of a stack, a penalty knocks you out) is marked with a warning.

A wild asks for its colour and a 7 for its target through the list's variants (one line per
colour or seat). The log narrates every event with its rule id; cards you cannot see stay
hidden. Bots come by level (easy, medium, hard, expert: the strongest bot at the table) or
by algorithm name (docs/bots.md#levels). Bots call UNO but forget at --bot-uno-forget; catch
them with 'catch SEAT'. Bots catch you too. Bot seat s gets the seed SEED*100+s. List the
options with `nomercy rules`.
"""

_REPLAY_EPILOG = """\
examples:
  nomercy selfplay --players 3 --seed 2 --save game.json --quiet
  nomercy replay game.json

  nomercy replay game.json --step               # one action at a time (enter: next, q: stop)
  nomercy replay game.json --seat 1 --step       # as seat 1 saw it, its hand shown

The record is replayed on a fresh game (new_game with the recorded players, preset, options
and seed, or the recorded start position) and every action and its events are printed: all
of it (every drawn card), or with --seat N what seat N saw (others' draws as counts) and N's
hand whenever it changes. With --step the replay waits after each action for a line on
standard input: empty for the next action, a number to go that many actions ahead, q to stop.
"""

_RULES_EPILOG = """\
examples:
  nomercy rules                      # every option, with the default of both presets
  nomercy rules --preset no-mercy    # the No Mercy options only
  nomercy rules --preset classic --json

Set an option with `nomercy selfplay --option NAME=VALUE` (booleans: true/false).
"""


class _VersionAction(argparse.Action):
    """``--version``: computed when asked (the writer's line imports numpy)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from nomercy import __version__
        from nomercy.core import build_description

        lines = [f"{parser.prog} {__version__}", build_description()]
        try:
            import nomercy.encoding as encoding
        except ImportError:
            pass  # no RL extras: no observation writer to describe
        else:
            lines.append(f"observation writer: {encoding.WRITER_BUILD} ({encoding.WRITER_REASON})")
        print("\n".join(lines))
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser for every subcommand."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="No Mercy (168 cards) and classic: bot self-play, replays and rule options.",
        epilog=_MAIN_EPILOG,
        formatter_class=raw,
    )
    # The second line says whether the rules engine runs compiled (mypyc) or as pure Python
    # and why; the third, when the RL extras are installed, the same for the observation writer.
    parser.add_argument(
        "--version",
        action=_VersionAction,
        nargs=0,
        help="show the version and which build of the rules engine runs (compiled or pure)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser(
        "selfplay",
        help="bots play a game; every event is narrated",
        description="Play a full game with bots and narrate every event.",
        epilog=_SELFPLAY_EPILOG,
        formatter_class=raw,
    )
    play.add_argument(
        "--players", type=int, default=4, metavar="N", help="number of seats (default: 4)"
    )
    play.add_argument("--seed", type=int, default=0, help="shuffle seed (default: 0)")
    add_deal_version_argument(play)
    add_rules_arguments(play)
    play.add_argument(
        "--bots",
        default="greedy",
        metavar="LIST",
        help=(
            "comma-separated bot per seat, or one bot for every seat, each a level "
            f"({_LEVELS_HELP}) or NAME or NAME:KEY=VALUE... (e.g. ismcts:iterations=200) "
            f"(default: greedy; known: {', '.join(bot_names())})"
        ),
    )
    play.add_argument("--save", metavar="FILE", help="write the game record (JSON) to FILE")
    play.add_argument(
        "--quiet", "-q", action="store_true", help="print only the result, not the narration"
    )
    play.set_defaults(handler=_selfplay)

    _add_play(sub, raw)
    add_arena_commands(sub, raw)

    replay = sub.add_parser(
        "replay",
        help="narrate a saved game record move by move",
        description="Replay a game record and narrate every action and event.",
        epilog=_REPLAY_EPILOG,
        formatter_class=raw,
    )
    replay.add_argument("file", metavar="FILE", help="a record written by `selfplay --save`")
    replay.add_argument(
        "--step",
        action="store_true",
        help="pause after every action: enter for the next, a number to go that many "
        "actions ahead, q to stop",
    )
    replay.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="show the game as seat N saw it: its own hand after each change, other hands' "
        "cards hidden in the events (default: everything, as a referee sees it)",
    )
    replay.set_defaults(handler=_replay)

    rules = sub.add_parser(
        "rules",
        help="list every rule option with its default, values and rule id",
        description="List the rule options of RULES.md §6 (and §3, §5.2).",
        epilog=_RULES_EPILOG,
        formatter_class=raw,
    )
    rules.add_argument(
        "--preset", choices=PRESETS, help="only this preset's options (default: both presets)"
    )
    rules.add_argument("--json", action="store_true", help="print JSON instead of a table")
    rules.set_defaults(handler=_rules)

    add_analyse_parser(sub, raw)

    from nomercy.web.serve import add_db_parser, add_serve_parser  # standard library only

    add_serve_parser(sub, raw)
    add_db_parser(sub, raw)
    return parser


def _add_play(sub: Any, raw: type[argparse.HelpFormatter]) -> None:
    play = sub.add_parser(
        "play",
        help="play against bots in the terminal (needs the tui extra)",
        description=(
            "Play No Mercy (or classic) against bots in a terminal app. "
            f"Install the app with: {install_hint('tui')}."
        ),
        epilog=_PLAY_EPILOG,
        formatter_class=raw,
    )
    play.add_argument(
        "--players", type=int, default=4, metavar="N", help="number of seats (default: 4)"
    )
    play.add_argument(
        "--bots",
        default="greedy",
        metavar="LIST",
        help=(
            "comma-separated bot per bot seat in seat order, or one bot for every bot seat, "
            f"each a level ({_LEVELS_HELP}) or NAME or NAME:KEY=VALUE... "
            "(e.g. ismcts:iterations=200) "
            f"(default: greedy; known: {', '.join(bot_names())})"
        ),
    )
    play.add_argument(
        "--seat", type=int, default=0, metavar="K", help="your seat, 0-based (default: 0)"
    )
    add_rules_arguments(play)
    play.add_argument(
        "--match",
        action="store_true",
        help="play a match of hands to the target score (sets scoring_enabled=true)",
    )
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        help="shuffle seed, to deal a game again (default: a fresh random seed, shown in the log)",
    )
    add_deal_version_argument(play)
    play.add_argument(
        "--speed",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="pause between two bot actions (default: %(default)s)",
    )
    play.add_argument("--fast", action="store_true", help="bots act instantly")
    play.add_argument(
        "--bot-uno-forget",
        type=float,
        default=PLAY_UNO_FORGET,
        metavar="RATE",
        help="how often a bot forgets to call UNO, 0 to 1 (default: %(default)s)",
    )
    play.add_argument(
        "--resume",
        metavar="FILE",
        help="continue a saved game (setup flags other than pace and --save-dir are ignored)",
    )
    play.add_argument(
        "--save-dir",
        metavar="DIR",
        help=(
            "save every finished game there as a record (`nomercy replay FILE` narrates it); "
            "quitting mid-game saves there too (default: $XDG_DATA_HOME/nomercy/games, "
            "i.e. ~/.local/share/nomercy/games)"
        ),
    )
    play.set_defaults(handler=_play)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 failure, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args, sys.stdout)
    except UsageError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `nomercy selfplay | head`
        sys.stderr.close()
        return EXIT_FAILURE
    return status


# ---------------------------------------------------------------------- narration
def _print_events(
    events: Iterable[Event], out: TextIO, indent: str = "", *, seat: int | None = None
) -> None:
    """Print the events' texts: in full, or as ``seat`` saw them (``Event.for_seat``)."""
    for event in events:
        text = event.text if seat is None else event.for_seat(seat).text
        print(f"{indent}{event_words(text)}", file=out)


def _show_hand(game: Game, seat: int | None, before: list[str] | None, out: TextIO) -> list[str]:
    """With ``--seat``: print the seat's hand when it differs from ``before``; return it."""
    if seat is None:
        return []
    hand = sorted(c.code for c in game.hand_of(seat))
    if hand != before:
        shown = " ".join(hand) if hand else "(empty)"
        print(f"    {game.names[seat]}'s hand ({len(hand)}): {shown}", file=out)
    return hand


def _ask_step(number: int, total: int, out: TextIO) -> int | None:
    """Wait for a line on stdin: empty -> 1 (next), N -> N ahead, q or end of input -> None."""
    while True:
        print(f"-- {number}/{total} [enter] next, [N] N ahead, [q] stop: ", end="", file=out)
        out.flush()
        line = sys.stdin.readline()
        if not line or not sys.stdin.isatty():  # a terminal echoes the enter; a pipe does not
            print(file=out)
        if not line:
            return None
        answer = line.strip().lower()
        if answer in ("q", "quit"):
            return None
        if not answer:
            return 1
        if answer.isdigit() and int(answer) > 0:
            return int(answer)
        print(f"not understood: {answer!r}", file=out)


def _print_action(number: int, game: Game, action: Action, out: TextIO) -> None:
    print(f"{number}. {game.names[action.seat]}: {action}", file=out)


def _result_lines(game: Game, actions: int) -> list[str]:
    names = game.names
    if game.is_over and game.winner is not None:
        head = f"Result: {names[game.winner]} (seat {game.winner}) wins after {actions} actions"
    else:
        head = f"Result: not over after {actions} actions; seat {game.to_act} to act"
    lines = [head]
    if game.rules.scoring_enabled:
        lines.append(
            "Scores: " + ", ".join(f"{n} {s}" for n, s in zip(names, game.scores, strict=True))
        )
    else:  # NM-39: a single hand is won, not scored; say who was left holding what
        held = [f"{names[s]} {len(game.hand_of(s))}" for s in range(game.n) if not game.out[s]]
        lines.append("Cards left: " + ", ".join(held))
    out = [names[s] for s in range(game.n) if game.out[s]]
    if out:
        where = f" in hand {game.hand_number}" if game.hand_number > 1 else ""
        lines.append(f"Knocked out{where}: " + ", ".join(out))
    return lines


# ---------------------------------------------------------------------- selfplay
def _make_bots(spec: str, players: int, seed: int, preset: str) -> list[Bot]:
    """The seats' bots of ``--bots`` (``name`` or ``name:key=value...`` each), checked
    against the preset before the game starts."""
    names = [part.strip() for part in spec.split(",")]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise UsageError(f"--bots lists {len(names)} bots for {players} players")
    try:
        specs = [parse_bot_spec(resolve_level(name, preset)) for name in names]
        for bot in specs:
            check_preset(bot.name, preset)
        # ``best`` is the strongest bot at this table (nomercy.bots.registry.BEST_AT).
        return [
            for_table(bot, preset, players).build(seed * 100 + s) for s, bot in enumerate(specs)
        ]
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _selfplay(args: argparse.Namespace, out: TextIO) -> int:
    options = parse_options(args.option)
    check_writable(args.save)  # before the game, not after it
    try:
        game = new_game(
            args.players,
            rules=args.preset,
            options=options,
            seed=args.seed,
            deal_version=args.deal_version,
        )
    except NoMercyError as exc:
        raise UsageError(str(exc)) from None
    bots = _make_bots(args.bots, game.n, args.seed, game.rules.preset)
    for warning in game.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    quiet = args.quiet
    if not quiet:
        seats = ", ".join(f"{game.names[s]} {bot.name}" for s, bot in enumerate(bots))
        seed = seed_label(args.seed, game.deal_version)
        print(f"{args.preset}, {game.n} players, {seed}; bots: {seats}", file=out)
        _print_events(game.opening_events, out)

    def narrate(action: Action, events: list[Event]) -> None:
        if not quiet:
            _print_action(len(game.history), game, action, out)
            _print_events(events, out, "    ")

    try:
        count = play_out(game, bots, listener=narrate, max_actions=MAX_ACTIONS)
    except (NoMercyError, RuntimeError) as exc:
        print(f"{PROG} selfplay: failed after {len(game.history)} actions: {exc}", file=sys.stderr)
        _save(game, bots, args.save)
        return EXIT_FAILURE
    for line in _result_lines(game, count):
        print(line, file=out)
    _save(game, bots, args.save)
    return 0


def _save(game: Game, bots: Sequence[Bot], path: str | None) -> None:
    if path is None:
        return
    record = GameRecord.from_game(game)
    record.result["bots"] = [bot.name for bot in bots]
    try:
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(record.dumps() + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------- play
def _play_config(args: argparse.Namespace) -> Any:
    """Check the flags and build the table and the app's config (UsageError on bad input)."""

    from nomercy.tables import Table, TableError

    try:
        from nomercy.tui.app import PlayConfig
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise UsageError(
            f"the terminal app needs the tui extra: {install_hint('tui')} ({exc})"
        ) from None
    if not 0 <= args.speed < math.inf:  # NaN fails both comparisons
        raise UsageError(f"--speed must be a number >= 0, got {args.speed}")
    if not 0.0 <= args.bot_uno_forget <= 1.0:
        raise UsageError(f"--bot-uno-forget must be between 0 and 1, got {args.bot_uno_forget}")
    save_dir = Path(args.save_dir) if args.save_dir else _default_save_dir()
    if save_dir.exists() and not save_dir.is_dir():
        raise UsageError(f"--save-dir {save_dir}: not a directory")
    if args.resume:
        path = Path(args.resume)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"{path}: not a saved game (not UTF-8 text: {exc.reason})") from None
        try:
            table = Table.loads(text)
        except TableError as exc:
            raise UsageError(f"{path}: {exc}") from None
        if table.game.is_over:
            raise UsageError(f"{path}: that game is already over (narrate it: nomercy replay)")
        humans = table.humans
        if not humans:
            raise UsageError(f"{path}: no human seat to play")
        if len(humans) > 1:  # the terminal app seats one person; nobody would play the others
            raise UsageError(
                f"{path}: seats {', '.join(map(str, humans))} are people; the terminal app "
                "plays one person's seat"
            )
        return PlayConfig(
            table=table,
            human=humans[0],
            speed=args.speed,
            fast=args.fast,
            save_dir=save_dir,
            resume_path=path,
        )
    options = parse_options(args.option)
    if args.match:
        if options.get("scoring_enabled") is False:
            raise UsageError("--match plays a scored match: not with scoring_enabled=false")
        options["scoring_enabled"] = True
    names = [part.strip() for part in args.bots.split(",")]
    try:
        table = Table.new(
            args.players,
            bots=names,
            human=args.seat,
            rules=args.preset,
            options=options,
            seed=args.seed if args.seed is not None else secrets.randbelow(1_000_000),
            uno_forget=args.bot_uno_forget,
            deal_version=args.deal_version,
        )
    except (NoMercyError, TableError) as exc:
        raise UsageError(str(exc)) from None
    return PlayConfig(
        table=table, human=args.seat, speed=args.speed, fast=args.fast, save_dir=save_dir
    )


def _play(args: argparse.Namespace, out: TextIO) -> int:
    config = _play_config(args)
    from nomercy.tui.app import NomercyApp

    for warning in config.table.game.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    message = NomercyApp(config).run()
    if message:
        print(message, file=out)
    return 0


# ---------------------------------------------------------------------- replay
def _replay(args: argparse.Namespace, out: TextIO) -> int:
    path = args.file
    try:
        with open(path, encoding="utf-8") as fp:
            record = GameRecord.loads(fp.read())
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (NoMercyError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    try:
        game = record.start_game()
        opening: list[Event] = [] if record.start is not None else game.opening_events
    except (ValueError, TypeError) as exc:  # NoMercyError is a ValueError
        raise UsageError(f"{path}: the record's game cannot be set up: {exc}") from None
    seat = args.seat
    if seat is not None and not 0 <= seat < game.n:
        raise UsageError(f"--seat {seat}: the game has seats 0 to {game.n - 1}")
    origin = (
        "from a position"
        if record.start is not None
        else seed_label(record.seed, record.deal_version)
    )
    count = len(record.actions)
    head = f"{record.rules}, {game.n} players, {origin}; {count} action{'' if count == 1 else 's'}"
    if seat is not None:
        head += f"; as seen by seat {seat} ({game.names[seat]})"
    print(head, file=out)
    _print_events(opening, out, seat=seat)
    hand = _show_hand(game, seat, None, out)
    total = len(record.actions)
    ahead = 0  # --step: actions still to show before the next pause
    for number, text in enumerate(record.actions, 1):
        try:
            events = game.apply(text)
        except NoMercyError as exc:
            raise UsageError(f"{path}: action {number} {text!r} does not replay: {exc}") from None
        _print_action(number, game, game.history[-1], out)
        _print_events(events, out, "    ", seat=seat)
        hand = _show_hand(game, seat, hand, out)
        if args.step and number < total:
            if ahead > 0:
                ahead -= 1
            else:
                answer = _ask_step(number, total, out)
                if answer is None:
                    print(f"Stopped after action {number} of {total}", file=out)
                    return 0
                ahead = answer - 1
    for line in _result_lines(game, len(record.actions)):
        print(line, file=out)
    recorded = record.result.get("winner")
    if "winner" in record.result and recorded != game.winner:
        print(
            f"warning: the record says the winner is {recorded!r}, the replay gives "
            f"{game.winner!r}",
            file=sys.stderr,
        )
    return 0


# ---------------------------------------------------------------------- rules
def _show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def _values(spec: OptionSpec) -> str:
    if spec.kind == "int":
        return f"integer >= {spec.minimum}"
    if spec.kind == "counts":
        return 'JSON {"CODE": copies, ...}'
    return ", ".join(_show(v) for v in spec.values or ())


def _rules(args: argparse.Namespace, out: TextIO) -> int:
    presets = (args.preset,) if args.preset else PRESETS
    specs = [s for s in OPTIONS if any(p in s.presets for p in presets)]
    if args.json:
        rows = []
        for spec in specs:
            entry: dict[str, Any] = {
                "name": spec.name,
                "rule": spec.rule,
                "help": spec.help,
                "kind": spec.kind,
                "defaults": {p: spec.defaults[p] for p in presets if p in spec.defaults},
                "values": list(spec.values) if spec.values is not None else None,
            }
            if spec.kind == "int":
                entry["minimum"] = spec.minimum
            if args.preset:
                entry["default"] = spec.defaults[args.preset]
            rows.append(entry)
        print(json.dumps(rows, indent=1), file=out)
        return 0
    defaults = ["DEFAULT"] if args.preset else [f"DEFAULT ({p})" for p in presets]
    headers = ["OPTION", "RULE", *defaults, "VALUES"]
    table = [
        [
            spec.name,
            spec.rule,
            *(_show(spec.defaults[p]) if p in spec.defaults else "" for p in presets),
            _values(spec),
        ]
        for spec in specs
    ]
    widths = [max(len(r[i]) for r in [headers, *table]) for i in range(len(headers) - 1)]

    def line(cells: Sequence[str]) -> str:
        padded = [c.ljust(w) for c, w in zip(cells[:-1], widths, strict=True)]
        return "  ".join([*padded, cells[-1]]).rstrip()

    which = args.preset or " and ".join(PRESETS)
    print(f"Rule options for {which} (set with --option NAME=VALUE; docs/RULES.md §6)", file=out)
    print(file=out)
    print(line(headers), file=out)
    for spec, cells in zip(specs, table, strict=True):
        print(line(cells), file=out)
        print(f"{' ' * (widths[0] + 2)}{spec.help}", file=out)
    return 0


def _default_save_dir() -> Path:
    """Where `nomercy play` keeps records unless --save-dir says otherwise (XDG data dir)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nomercy" / "games"
