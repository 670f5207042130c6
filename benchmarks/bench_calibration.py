"""Is the coach's chance to win true? Its predictions against the outcomes of held-out games.

Plays games with the strongest bot at every seat (``best``, docs/ladder.md) on the tables of
the ``puct`` network's training (mostly 2-player No Mercy, 4 players, classic) and, at every
``--every``-th decision of a seat with a choice, asks the coach (its default budget) for the
hint's chance to win the hand. When the hand ends, each prediction gets its outcome: did that
seat win? Predictions are bucketed by tenths; the issue's bar is that in every bucket with at
least 100 decisions the observed win rate lies within 5 points of the mean prediction::

    python benchmarks/bench_calibration.py --games 960 --seed 2034 --jobs 2 \\
        --png docs/img/coach-calibration.png --json calibration.json

Check a new network on at least 960 games, with the pass rule fixed before the run: hints
come every ``--every``-th decision of the same games, so a bucket of 150 decisions holds far
fewer independent hands, and two checks of 480 games once failed on their own in opposite
directions (docs/coach.md).

Every seed derives from ``--seed`` (:mod:`nomercy.core.seeds`); the coach's time cap
(0.5 s) can cut a search short on a loaded machine, so figures move a little between runs.

The ``puct`` coach shows its search's means through a per-table fit
(:data:`nomercy.tables.coach.CALIBRATION`). ``--raw`` asks for the means themselves and
``--fit`` prints the fit of the rows (per table, ``sigmoid(a * logit(p) + b)`` by maximum
likelihood) to paste there; fit on games no held-out figure uses::

    python benchmarks/bench_calibration.py --games 480 --seed 7 --jobs 2 --raw --fit

``--recalibrate`` puts the chances of ``--include``d raw rows through the coach's fit, which
is what the coach shows for them (the fit is applied after the search, so the held-out games
need not be played again).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from nomercy import new_game
from nomercy.bots import make_bot
from nomercy.bots.driver import Driver
from nomercy.core.actions import CallUno, Catch
from nomercy.core.seeds import derive_seed
from nomercy.rl.puct_data import table_for
from nomercy.tables.coach import Coach, calibrated


def play(args: tuple[int, int, int, str, int, str, bool]) -> list[tuple[str, int, float, int]]:
    """One game: ``(preset, players, predicted chance, won)`` per hinted decision."""
    master, index, every, bot, iterations, coach_bot, raw = args
    table = table_for(master, index)
    n = table.players
    g = new_game(n, rules=table.preset, seed=derive_seed(master, "game", index))
    bots = [
        make_bot(bot, seed=derive_seed(master, "bot", index, s), iterations=iterations)
        for s in range(n)
    ]
    driver = Driver(bots)
    coach = Coach(seed=derive_seed(master, "coach", index), bot=coach_bot, calibrated=not raw)
    asked: list[tuple[int, float]] = []
    decision = 0
    while not g.is_over:
        seat = g.to_act
        assert seat is not None
        legal = g.legal_actions(seat)
        if len([a for a in legal if not isinstance(a, CallUno | Catch)]) > 1:
            decision += 1
            if decision % every == 0:
                hint = coach.hint(g.view(seat), legal)
                if hint.chance is not None:
                    asked.append((seat, hint.chance))
        g.apply(driver.next_action(g))
    winner = g.winner if g.winner is not None else g.hand_winner
    return [(table.preset, n, chance, int(seat == winner)) for seat, chance in asked]


def fit(rows: list[tuple[str, int, float, int]]) -> dict[tuple[bool, int], tuple[float, float]]:
    """Per table, ``(a, b)`` maximising the likelihood of the outcomes under
    ``sigmoid(a * logit(chance) + b)`` (Newton's method on the two parameters)."""
    out = {}
    for preset, n in sorted({(r[0], r[1]) for r in rows}):
        xs = [r for r in rows if (r[0], r[1]) == (preset, n)]
        data = [
            (math.log(p / (1 - p)), w) for _, _, c, w in xs for p in [min(max(c, 1e-4), 1 - 1e-4)]
        ]
        a, b = 1.0, 0.0
        for _ in range(50):
            ga = gb = haa = hab = hbb = 0.0
            for x, w in data:
                q = 1.0 / (1.0 + math.exp(-(a * x + b)))
                ga += (w - q) * x
                gb += w - q
                v = q * (1 - q)
                haa += v * x * x
                hab += v * x
                hbb += v
            det = haa * hbb - hab * hab
            if det <= 0:
                break
            da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
            a, b = a + da, b + db
            if abs(da) + abs(db) < 1e-9:
                break
        out[(preset == "classic", n)] = (round(a, 4), round(b, 4))
    return out


def buckets(rows: list[tuple[str, int, float, int]]) -> list[dict[str, Any]]:
    """Predictions by tenths: count, mean prediction, observed rate, their gap in points."""
    out = []
    for b in range(10):
        inside = [r for r in rows if min(9, int(r[2] * 10)) == b]
        if not inside:
            continue
        predicted = sum(r[2] for r in inside) / len(inside)
        observed = sum(r[3] for r in inside) / len(inside)
        out.append(
            {
                "bucket": f"{b * 10}-{b * 10 + 10}%",
                "decisions": len(inside),
                "predicted": round(predicted, 4),
                "observed": round(observed, 4),
                "gap_points": round(100 * (observed - predicted), 1),
            }
        )
    return out


def plot(rows: list[tuple[str, int, float, int]], table: list[dict[str, float]], png: Path) -> None:
    """A reliability diagram: observed win rate against prediction, per bucket."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", label="perfect calibration")
    xs = [t["predicted"] for t in table]
    ys = [t["observed"] for t in table]
    sizes = [max(10.0, t["decisions"] / 5) for t in table]
    ax.scatter(xs, ys, s=sizes, label="buckets (area: decisions)")
    ax.plot(xs, ys)
    ax.fill_between(
        [0, 1], [-0.05, 0.95], [0.05, 1.05], color="green", alpha=0.1, label="±5 points"
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("coach's chance to win (mean per bucket)")
    ax.set_ylabel("observed win rate")
    ax.set_title(f"Coach calibration: {len(rows)} decisions")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="the first game's index")
    parser.add_argument("--rows", type=Path, help="also write every (table, chance, won) row")
    parser.add_argument(
        "--include",
        type=Path,
        action="append",
        default=[],
        help="add the rows of an earlier run (its --rows file) before the figures",
    )
    parser.add_argument("--seed", type=int, default=2031, help="master seed (held out)")
    parser.add_argument("--every", type=int, default=3, help="hint every N-th decision")
    parser.add_argument("--bot", default="best", help="the bot at every seat")
    parser.add_argument("--iterations", type=int, default=200, help="the players' budget")
    parser.add_argument("--coach", default="puct", help="the coach's search: puct or ismcts")
    parser.add_argument(
        "--raw", action="store_true", help="the search's means, not the coach's fitted chances"
    )
    parser.add_argument("--fit", action="store_true", help="print the per-table fit of the rows")
    parser.add_argument(
        "--recalibrate",
        action="store_true",
        help="put the --include'd (raw) rows' chances through the coach's fit",
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--png", type=Path, help="write the reliability diagram here")
    args = parser.parse_args(argv)
    tasks = [
        (args.seed, i, args.every, args.bot, args.iterations, args.coach, args.raw)
        for i in range(args.first, args.first + args.games)
    ]
    rows: list[tuple[str, int, float, int]] = []
    for earlier in args.include:
        rows += [(p, n, c, w) for p, n, c, w in json.loads(earlier.read_text())]
    if args.recalibrate:
        rows = [(p, n, calibrated(c, p == "classic", n), w) for p, n, c, w in rows]
    pool = ProcessPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else None
    results = pool.map(play, tasks) if pool else map(play, tasks)
    for done, found in enumerate(results, 1):
        rows += found
        if done % 20 == 0:
            print(f"{done}/{args.games} games, {len(rows)} decisions", file=sys.stderr)
    if pool:
        pool.shutdown()
    if args.rows:
        args.rows.write_text(json.dumps(rows) + "\n")
    table = buckets(rows)
    brier = sum((r[2] - r[3]) ** 2 for r in rows) / len(rows)
    base = sum(r[3] for r in rows) / len(rows)
    worst = max((abs(t["gap_points"]) for t in table if t["decisions"] >= 100), default=math.nan)
    report = {
        "config": {k: str(v) if isinstance(v, Path | list) else v for k, v in vars(args).items()},
        "decisions": len(rows),
        "brier": round(brier, 4),
        "brier_of_the_base_rate": round(base * (1 - base), 4),
        "worst_gap_points_in_buckets_of_100": worst,
        "buckets": table,
        "by_table": {
            f"{p} {n}p": buckets([r for r in rows if (r[0], r[1]) == (p, n)])
            for p, n in sorted({(r[0], r[1]) for r in rows})
        },
    }
    print(f"{len(rows)} decisions, Brier {brier:.4f} (base rate alone {base * (1 - base):.4f})")
    for t in table:
        predicted, observed = 100 * t["predicted"], 100 * t["observed"]
        print(
            f"  {t['bucket']:>8}: {t['decisions']:5d} decisions, predicted {predicted:5.1f}%,"
            f" observed {observed:5.1f}%, gap {t['gap_points']:+5.1f} points"
        )
    print(f"worst gap in a bucket of 100 or more: {worst} points")
    if args.fit:
        print("CALIBRATION = {")
        for (classic, n), (a, b) in fit(rows).items():
            print(f"    ({classic}, {n}): ({a}, {b}),")
        print("}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.png:
        plot(rows, table, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
