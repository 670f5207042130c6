"""``nomercy analyse RECORD --seat N``: where one seat's moves lost the most winning chance.

The record is replayed; at each decision of the seat (its in-turn actions that had an
alternative; UNO calls and catches are not searched) the coach (:mod:`nomercy.tables.coach`)
estimates, from that seat's view at that moment only, the chance to win the hand after each
of its moves, the move played included. The decisions where the played move's estimate is
furthest below the best move's are listed, worst first, with the better move and why.

Each decision's search has its own seed (``hint_seed`` of the game seed, the move and the seat,
as every interface seeds its hints, mixed with ``--seed``), and the budget is a number of
iterations (``--max-time`` only caps a search on a slow machine), so the same record, seat and
flags give the same analysis.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from nomercy.cli.common import UsageError
from nomercy.cli.progress import progress_bar
from nomercy.core.actions import Action, CallUno, Catch, Play
from nomercy.core.errors import NoMercyError
from nomercy.core.records import GameRecord
from nomercy.core.views import PlayerView
from nomercy.tables.coach import DEFAULT_ITERATIONS, Coach, Estimate, reason_for
from nomercy.tables.table import hint_seed

__all__ = ["Decision", "add_analyse_parser", "analyse_record"]

_EPILOG = """\
examples:
  nomercy selfplay --players 2 --bots heuristic,greedy --seed 3 --save game.json --quiet
  nomercy analyse game.json --seat 1                 # the 5 costliest decisions of seat 1
  nomercy analyse game.json --seat 1 --top 10 --json
  nomercy analyse game.json --seat 0 --iterations 4000 --seed 7

A decision is an in-turn action of the seat that had an alternative. For each, the coach
searches from the seat's view at that moment (never the hidden cards) and estimates the chance
to win the hand after every move; "loss" is the best move's estimate minus the played move's,
in percentage points. Estimates of moves the search tried rarely (few visits) are rough.
Records come from `nomercy selfplay --save`, `nomercy play` (saved games) and the web server's
replays (GET /api/replays/ID?format=record); see docs/notation.md.
"""


class AnalyseError(ValueError):
    """A record that cannot be analysed (unreadable, does not replay, bad seat)."""


@dataclass(frozen=True)
class Decision:
    """One analysed decision of the seat.

    Attributes:
        index: the action's number in the record (1-based, as ``nomercy replay`` numbers it).
        hand: the hand it was played in (1-based).
        played: the move played; played_chance, played_visits: its estimate.
        best: the move the coach rates best; best_chance, best_visits: its estimate.
        loss: ``best_chance - played_chance``, at least 0 (0 when the played move was the
            best, or when its estimate is no lower than the best's: the best is the most
            visited move, which need not have the highest estimate).
        reason: why the best move, in English.
        estimates: every searched move's estimate, best first.
    """

    index: int
    hand: int
    played: Action
    played_chance: float
    played_visits: int
    best: Action
    best_chance: float
    best_visits: int
    loss: float
    reason: str
    estimates: list[Estimate]

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON data (``--json``)."""
        return {
            "index": self.index,
            "hand": self.hand,
            "played": str(self.played),
            "played_chance": round(self.played_chance, 4),
            "played_visits": self.played_visits,
            "best": str(self.best),
            "best_chance": round(self.best_chance, 4),
            "best_visits": self.best_visits,
            "loss": round(self.loss, 4),
            "reason": self.reason,
        }


def _decisions(
    record: GameRecord, seat: int
) -> Iterator[tuple[int, int, PlayerView, list[Action], Action]]:
    """Replay ``record``; yield each decision of ``seat`` with a choice, before it is played:
    (index, hand, view, legal actions, the action played).

    Raises:
        AnalyseError: the record does not replay.
    """
    try:
        game = record.start_game()
    except (ValueError, TypeError) as exc:  # NoMercyError is a ValueError
        raise AnalyseError(f"the record's game cannot be set up: {exc}") from None
    if not 0 <= seat < game.n:
        raise AnalyseError(f"--seat {seat}: the game has seats 0 to {game.n - 1}")
    for number, text in enumerate(record.actions, 1):
        before: tuple[PlayerView, list[Action]] | None = None
        if game.to_act == seat:
            legal = game.legal_actions(seat)
            if len([a for a in legal if not isinstance(a, (CallUno, Catch))]) > 1:
                before = (game.view(seat), legal)
        try:
            game.apply(text)
        except NoMercyError as exc:
            raise AnalyseError(f"action {number} {text!r} does not replay: {exc}") from None
        action = game.history[-1]
        if (
            before is not None
            and action.seat == seat
            and not isinstance(action, (CallUno, Catch))
            and not (isinstance(action, Play) and action.jump)
        ):
            view, legal = before
            yield number, view.hand_number, view, legal, action


def analyse_record(
    record: GameRecord,
    seat: int,
    *,
    seed: int = 0,
    iterations: int = DEFAULT_ITERATIONS,
    max_time: float = 5.0,
    progress: Callable[[int, int], None] | None = None,
) -> list[Decision]:
    """Every decision of ``seat`` with a choice, in game order, with the coach's estimates.

    ``progress(done, total)`` is called after each decision.

    Raises:
        AnalyseError: the record does not replay, or ``seat`` is not one of its seats.
    """
    found = list(_decisions(record, seat))
    coach = Coach(seed=seed, iterations=iterations, max_time=max_time)
    out: list[Decision] = []
    for done, (index, hand, view, legal, played) in enumerate(found, 1):
        # Its own seed per decision: the analysis of one move does not depend on the others.
        # hint_seed: with --seed 0 the same moment searches as the web's and the terminal's hint.
        moment = hint_seed(record.seed, index - 1, seat) ^ seed
        estimates, _ = coach.estimates(view, legal, include=[played], seed=moment)
        best = estimates[0]
        mine = next(e for e in estimates if e.action == played)
        out.append(
            Decision(
                index=index,
                hand=hand,
                played=played,
                played_chance=mine.chance,
                played_visits=mine.visits,
                best=best.action,
                best_chance=best.chance,
                best_visits=best.visits,
                loss=max(0.0, best.chance - mine.chance) if best.action != played else 0.0,
                reason=reason_for(best.action, view, estimates).text,
                estimates=estimates,
            )
        )
        if progress is not None:
            progress(done, len(found))
    return out


def add_analyse_parser(sub: Any, raw: type[argparse.HelpFormatter]) -> None:
    """The ``analyse`` subcommand."""
    parser = sub.add_parser(
        "analyse",
        help="list a seat's decisions in a game record that lost the most winning chance",
        description=(
            "Replay a game record and, at each decision of one seat, let the coach estimate "
            "from that seat's view the chance to win the hand after each move; list the "
            "decisions where the move played lost the most, with the better move."
        ),
        epilog=_EPILOG,
        formatter_class=raw,
    )
    parser.add_argument("record", metavar="RECORD", help="a game record (JSON) to analyse")
    parser.add_argument(
        "--seat", type=int, required=True, metavar="N", help="the seat to analyse, 0-based"
    )
    parser.add_argument(
        "--top",
        type=int,
        default=5,
        metavar="K",
        help="how many decisions to list, worst first (default: %(default)s)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help="search iterations per decision (default: %(default)s)",
    )
    parser.add_argument(
        "--max-time",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="cap on one decision's search; the iterations are the budget (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the coach's searches (default: 0)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run_analyse)


def _load(path: str) -> GameRecord:
    try:
        with open(path, encoding="utf-8") as fp:
            return GameRecord.loads(fp.read())
    except OSError as exc:
        raise AnalyseError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (NoMercyError, UnicodeDecodeError) as exc:
        raise AnalyseError(f"{path}: not a game record: {exc}") from None


def _load_or_fail(path: str) -> GameRecord:
    """:func:`_load`, its errors the CLI's usage errors (they name the file already)."""
    try:
        return _load(path)
    except AnalyseError as exc:
        raise UsageError(str(exc)) from None


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


def run_analyse(args: argparse.Namespace, out: TextIO) -> int:
    """The ``analyse`` command (user errors raise the CLI's usage error)."""

    if args.top < 1:
        raise UsageError(f"--top must be at least 1, not {args.top}")
    if args.iterations < 1:
        raise UsageError(f"--iterations must be at least 1, not {args.iterations}")
    if not args.max_time > 0:
        raise UsageError(f"--max-time must be positive, not {args.max_time}")
    record = _load_or_fail(args.record)
    try:
        with progress_bar("analyse", "decisions", quiet=args.quiet or args.json) as bar:
            decisions = analyse_record(
                record,
                args.seat,
                seed=args.seed,
                iterations=args.iterations,
                max_time=args.max_time,
                progress=bar.update,
            )
    except AnalyseError as exc:  # named by the file, as replay's errors are
        raise UsageError(f"{args.record}: {exc}") from None
    game = record.start_game()
    name = game.names[args.seat]
    # Only moves that cost something as shown (a loss that rounds to 0 points is no cost).
    worst = sorted(
        (d for d in decisions if round(100 * d.loss) > 0), key=lambda d: (-d.loss, d.index)
    )
    worst = worst[: args.top]
    if args.json:
        data = {
            "record": args.record,
            "seat": args.seat,
            "name": name,
            "rules": record.rules,
            "players": game.n,
            "seed": record.seed,
            "coach": {"iterations": args.iterations, "seed": args.seed},
            "decisions": len(decisions),
            "total_loss": round(sum(d.loss for d in decisions), 4),
            "worst": [d.to_json() for d in worst],
        }
        print(json.dumps(data, indent=2), file=out)
        return 0
    origin = "from a position" if record.start is not None else f"seed {record.seed}"
    print(
        f"{args.record}: {record.rules}, {game.n} players, {origin}; seat "
        f"{args.seat} ({name}) made {len(decisions)} "
        f"decision{'' if len(decisions) == 1 else 's'} with a choice",
        file=out,
    )
    print(
        f"coach: {args.iterations} search iterations per decision, seed {args.seed}; "
        "estimated chances to win the hand, from the seat's view",
        file=out,
    )
    if not worst:
        print("no decision lost a percentage point of estimated winning chance", file=out)
        return 0
    print(file=out)
    rows = [("action", "hand", "played", "est.", "better", "est.", "loss")]
    for d in worst:
        rows.append(
            (
                str(d.index),
                str(d.hand),
                str(d.played),
                _pct(d.played_chance),
                str(d.best),
                _pct(d.best_chance),
                f"{100 * d.loss:.0f} pts",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip(), file=out
        )
    print(file=out)
    for d in worst:
        print(f"action {d.index}: {d.best} — {d.reason}", file=out)
    total = round(100 * sum(d.loss for d in decisions))
    unit = "percentage point" if total == 1 else "percentage points"
    print(
        f"\ntotal estimated loss over {len(decisions)} decisions: {total} {unit} "
        "(search estimates: rough for moves tried rarely)",
        file=out,
    )
    return 0
