"""The rule-statistics simulator: per-hand rows, the summary, --compare and the plots."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from nomercy.arena.plots import PLOTS, figures, write_plots
from nomercy.arena.runner import BotSpec, GameSetup, finishing_ranks, play_game
from nomercy.arena.simulate import CSV_FIELDS, SCHEMA, SimulationResult, run_simulation
from nomercy.bots import make_bot, play_out

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def compared() -> SimulationResult:
    """30 games per value of mercy_threshold, four greedy players."""
    return run_simulation(
        [BotSpec("greedy")],
        GameSetup.make(4, seed=3),
        30,
        compare=("mercy_threshold", [20, 30]),
        jobs=1,
    )


def test_rows_one_per_hand_with_every_column(compared: SimulationResult) -> None:
    rows = list(csv.DictReader(io.StringIO(compared.to_csv())))
    assert tuple(rows[0]) == CSV_FIELDS
    assert len(rows) == 60  # one hand per game without scoring
    assert [r["variant"] for r in rows] == ["mercy_threshold=20"] * 30 + ["mercy_threshold=30"] * 30
    for row in rows:
        assert row["how"] in ("empty hand", "last standing")
        assert int(row["turns"]) <= int(row["actions"])
        knocked = [int(x) for x in row["knocked_out_orders"].split(";") if x]
        assert len(knocked) == int(row["knockouts"]) and all(1 <= k <= 4 for k in knocked)
        if row["how"] == "last standing":
            assert int(row["knockouts"]) == 3
        assert int(row["winner_order"]) not in knocked
        totals = [int(x) for x in row["penalty_totals"].split(";") if x]
        assert len(totals) == int(row["penalties_taken"])
        assert max(totals, default=0) == int(row["biggest_penalty_taken"])
        assert int(row["biggest_stack_built"]) >= int(row["biggest_penalty_taken"])


def test_variants_play_the_same_deals(compared: SimulationResult) -> None:
    low, high = compared.variants
    assert [g.seed for g in low.games] == [g.seed for g in high.games]
    assert dict(low.setup.options) == {"mercy_threshold": 20}
    # a lower Mercy limit knocks players out sooner: hands are shorter
    assert sum(h.turns for _, h in low.hands()) < sum(h.turns for _, h in high.hands())


def test_summary_schema_and_consistency(compared: SimulationResult) -> None:
    summary = compared.summary()
    assert summary["schema"] == SCHEMA
    assert summary["config"]["compare"] == "mercy_threshold"
    assert summary["config"]["bots"] == ["greedy"] * 4
    for v in summary["variants"]:
        assert v["hands"] == v["games"] == 30
        for key in ("turns", "actions", "cards_drawn", "points", "biggest_stack_built"):
            assert {"mean", "median", "p10", "p90", "max"} <= set(v[key])
        ends = v["endings"]
        assert ends["empty hand"]["hands"] + ends["last standing"]["hands"] == 30
        assert sum(row["wins"] for row in v["by_order"]) == 30
        assert [row["order"] for row in v["by_order"]] == [1, 2, 3, 4]
        for row in v["by_order"]:
            assert row["win_ci"][0] <= row["win_rate"] <= row["win_ci"][1]
        kos = sum(row["knockouts"] for row in v["by_order"])
        assert kos == round(v["knockouts_per_hand"]["mean"] * 30)
        assert sum(v["penalties_taken"]["distribution"].values()) == v["penalties_taken"]["count"]


def test_counts_match_the_engine_events() -> None:
    """The hand's counts agree with a direct reading of the same game's event log."""
    setup = GameSetup.make(3, seed=8)
    lineup = (BotSpec("greedy"), BotSpec("random"), BotSpec("greedy"))
    for index in range(6):
        result = play_game(setup, lineup, index)
        game = setup.new_game(index)
        from nomercy.core.seeds import bot_seed

        bots = [make_bot(s.name, seed=bot_seed(8, index, i)) for i, s in enumerate(lineup)]
        play_out(game, bots)
        assert result.actions == len(game.history)
        assert result.winner == game.winner
        log = game.log
        (hand,) = result.hands
        drawn = sum(
            e.data["count"]
            for e in log
            if e.kind in ("draw", "absorb", "catch", "challenge", "reveal")
        )
        assert hand.cards_drawn == drawn
        assert hand.knockouts == [e.seat for e in log if e.kind == "knockout"]
        assert hand.stacks == [e.data["total"] for e in log if e.kind == "absorb"]
        end = next(e for e in log if e.kind == "hand_end")
        assert (hand.winner, hand.how, hand.points) == (
            end.data["winner"],
            end.data["how"],
            end.data["points"],
        )
        # Cards are conserved: the deal, plus draws, is what was played or is still held.
        assert sum(len(h) for h in game.hands) <= 3 * 7 + drawn


def test_a_match_gives_one_row_per_hand_and_ranks_by_score() -> None:
    options = {"scoring_enabled": True, "score_target": 1500}
    result = run_simulation([BotSpec("greedy")], GameSetup.make(3, options=options), 4, jobs=1)
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    games = result.variants[0].games
    assert len(rows) == sum(len(g.hands) for g in games) > 4
    for game in games:
        assert [h.hand for h in game.hands] == list(range(1, len(game.hands) + 1))
        assert sum(h.actions for h in game.hands) == game.actions
        assert sum(h.turns for h in game.hands) == game.turns
        assert game.ranks[game.winner] == 1
        best = sorted(range(3), key=lambda s: (game.ranks[s], s))
        assert [game.scores[s] for s in best[1:]] == sorted(
            (game.scores[s] for s in best[1:]), reverse=True
        )
    assert finishing_ranks  # exported for the tournament


def test_jobs_do_not_change_the_simulation(compared: SimulationResult) -> None:
    again = run_simulation(
        [BotSpec("greedy")],
        GameSetup.make(4, seed=3),
        30,
        compare=("mercy_threshold", [20, 30]),
        jobs=2,
    )
    assert again.to_csv() == compared.to_csv()
    assert again.summary() == compared.summary()


def test_bots_must_fit_the_seats() -> None:
    with pytest.raises(ValueError, match="2 bots for 4 players"):
        run_simulation([BotSpec("greedy"), BotSpec("random")], GameSetup.make(4), 2, jobs=1)


def test_plots_are_written_as_png(compared: SimulationResult, tmp_path: Path) -> None:
    paths = write_plots(compared, tmp_path / "plots")
    assert [p.name for p in paths] == list(PLOTS)
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 10_000, path.name


def _bar_cover(ax: Any) -> float:
    """The share of the axes' area that its bars fill (in data units, over the limits)."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    area = sum(abs(p.get_width() * p.get_height()) for p in ax.patches if hasattr(p, "get_width"))
    return area / abs((x1 - x0) * (y1 - y0))


@pytest.mark.parametrize("variants", [1, 3])
def test_plots_read_cleanly(variants: int, compared: SimulationResult) -> None:
    import matplotlib.pyplot as plt

    result = compared
    if variants == 1:
        result = run_simulation([BotSpec("greedy")], GameSetup.make(4, seed=3), 30, jobs=1)
    figs = dict(figures(result))
    try:
        # seat_advantage: the fair share is named in the legend, not written over the bars
        win_ax = figs["seat_advantage.png"].axes[0]
        assert not [t for t in win_ax.texts if "fair share" in t.get_text()]
        legend = [t.get_text() for lg in figs["seat_advantage.png"].legends for t in lg.texts]
        assert "fair share 1/4" in legend
        # points: one panel, points only
        (points_ax,) = figs["points.png"].axes
        assert points_ax.get_title().startswith("Points")
        assert not any("actions" in ax.get_title() for ax in figs["points.png"].axes)
        # endings: the bars fill their panels (they were a thin bar in an empty panel)
        how_ax, ko_ax = figs["endings.png"].axes
        assert how_ax.get_title() == "How hands end"
        assert _bar_cover(how_ax) > 0.4 and _bar_cover(ko_ax) > 0.15
    finally:
        for fig in figs.values():
            plt.close(fig)


def test_points_plot_reads_past_the_spike_and_keeps_medians_apart() -> None:
    import matplotlib.pyplot as plt

    # Three variants whose medians may coincide: each is named in the legend with its value
    # and marked at its own height.
    result = run_simulation(
        [BotSpec("greedy")],
        GameSetup.make(4, seed=3, options={"scoring_enabled": True}),
        20,
        compare=("mercy_threshold", [20, 25, 30]),
        jobs=1,
    )
    figs = dict(figures(result))
    try:
        (ax,) = figs["points.png"].axes
        # one last-standing spike no longer flattens the rest: the share axis is logarithmic
        assert ax.get_yscale() == "log"
        labels = [t.get_text() for t in ax.get_legend().texts]
        summary = result.summary()["variants"]
        assert len(labels) == 3
        for text, variant in zip(labels, summary, strict=True):
            assert text.endswith(f"median {variant['points']['median']:g}"), text
        marks = [line for line in ax.lines if line.get_marker() == "v"]
        assert len(marks) == 3
        assert len({float(m.get_ydata()[0]) for m in marks}) == 3  # stepped, never on top
        turns_ax, drawn_ax = figs["hand_length.png"].axes
        for hand_ax in (turns_ax, drawn_ax):
            assert len([ln for ln in hand_ax.lines if ln.get_marker() == "v"]) == 3
    finally:
        for fig in figs.values():
            plt.close(fig)
