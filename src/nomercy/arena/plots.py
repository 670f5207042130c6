"""PNG plots of a simulation (matplotlib, Agg backend: no display needed).

:func:`write_plots` writes, into one directory:

- ``hand_length.png``: distribution of hand length in turns, and of cards drawn per hand;
- ``seat_advantage.png``: win rate and knock-out rate by play order, with 95% intervals;
- ``penalties.png``: the penalties taken (stack totals), and how big the biggest one of a
  hand gets;
- ``endings.png``: how hands end (bars per ending), and knock-outs per hand;
- ``points.png``: points scored per hand (one panel; hand length is in ``hand_length.png``).

With ``--compare`` every plot shows one colour per option value.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from nomercy.arena.simulate import SimulationResult

__all__ = ["PLOTS", "figures", "write_plots"]

#: The file names :func:`write_plots` writes.
PLOTS = (
    "hand_length.png",
    "seat_advantage.png",
    "penalties.png",
    "endings.png",
    "points.png",
)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def write_plots(result: SimulationResult, directory: Path) -> list[Path]:
    """Write every plot of :data:`PLOTS` into ``directory``; return their paths."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures(result):
        path = directory / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


#: Each plot: its drawing function, its number of panels and its size in inches.
_LAYOUT: dict[str, tuple[Any, int, tuple[float, float]]] = {}


def figures(result: SimulationResult) -> list[tuple[str, Any]]:
    """The matplotlib figures of :data:`PLOTS`, by file name (the caller closes them)."""
    plt = _pyplot()
    summary = result.summary()
    data = [
        (variant.label, [h for _, h in variant.hands()], vs)
        for variant, vs in zip(result.variants, summary["variants"], strict=True)
    ]
    colours = plt.get_cmap("tab10").colors
    title = _title(result, summary)
    out = []
    style = {"axes.spines.top": False, "axes.spines.right": False, "axes.grid": True}
    with plt.rc_context({**style, "grid.alpha": 0.3, "font.size": 10}):
        for name in PLOTS:
            draw, panels, size = _LAYOUT[name]
            fig, axes = plt.subplots(1, panels, figsize=size, layout="constrained", squeeze=False)
            draw(list(axes[0]) if panels > 1 else axes[0][0], data, colours, result.players)
            fig.suptitle(title, fontsize=10, color="#444444")
            out.append((name, fig))
    return out


def _title(result: SimulationResult, full: dict[str, Any]) -> str:
    summary = full["config"]
    bots = summary["bots"]
    who = bots[0] if len(set(bots)) == 1 else ",".join(bots)
    options = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
    return (
        f"{summary['preset']}, {result.players} players, {who} bots, "
        f"{result.games:,} games per variant, seed {result.seed}"
        + (f"; {options}" if options else "")
    )


def _label(label: str, count: int) -> str:
    return f"{'default rules' if label == 'base' else label} ({count:,} hands)"


def _median(ax: Any, value: float, colour: Any, index: int) -> None:
    """A variant's median: a dashed line and a marker on top, the markers stepped down one per
    variant, so medians that coincide (``--compare``) stay apart and countable."""
    ax.axvline(value, color=colour, linestyle="--", linewidth=1)
    ax.plot(
        [value],
        [0.97 - 0.06 * index],
        marker="v",
        markersize=7,
        color=colour,
        transform=ax.get_xaxis_transform(),
        clip_on=False,
    )


def _with_median(label: str, count: int, median: float) -> str:
    return f"{_label(label, count)}, median {median:g}"


def _step_hist(ax: Any, values: list[int], colour: Any, label: str, bins: Any) -> None:
    """A histogram whose bars are the share of ``values`` in each bin."""
    weights = [1 / len(values)] * len(values) if values else []
    ax.hist(
        values,
        bins=bins,
        weights=weights,
        histtype="step",
        linewidth=1.8,
        color=colour,
        label=label,
    )
    ax.hist(values, bins=bins, weights=weights, histtype="stepfilled", alpha=0.12, color=colour)


def _bins(values: list[int], cap_quantile: float = 0.99, width: int | None = None) -> Any:
    data = sorted(values) or [0]
    top = data[min(len(data) - 1, int(cap_quantile * len(data)))]
    step = width or max(1, (top + 40) // 40)
    return range(0, top + 2 * step, step)


def _hand_length(axes: Any, data: Any, colours: Any, players: int) -> None:
    turns_ax, drawn_ax = axes
    all_turns = [h.turns for _, hands, _ in data for h in hands]
    all_drawn = [h.cards_drawn for _, hands, _ in data for h in hands]
    turn_bins, drawn_bins = _bins(all_turns), _bins(all_drawn)
    for i, (label, hands, vs) in enumerate(data):
        colour = colours[i % len(colours)]
        turns = [h.turns for h in hands]
        drawn = [h.cards_drawn for h in hands]
        median = vs["turns"]["median"]
        _step_hist(turns_ax, turns, colour, _with_median(label, len(hands), median), turn_bins)
        _median(turns_ax, median, colour, i)
        median = vs["cards_drawn"]["median"]
        _step_hist(drawn_ax, drawn, colour, _with_median(label, len(hands), median), drawn_bins)
        _median(drawn_ax, median, colour, i)
    turns_ax.set_title("Hand length in turns (▼ median)")
    turns_ax.set_xlabel("turns per hand (plays and draws)")
    turns_ax.set_ylabel("share of hands per bar")
    drawn_ax.set_title("Cards drawn per hand, all players (▼ median)")
    drawn_ax.set_xlabel("cards drawn")
    drawn_ax.set_ylabel("share of hands per bar")
    turns_ax.legend(frameon=False)
    drawn_ax.legend(frameon=False)


def _by_order(ax: Any, data: Any, colours: Any, players: int, key: str, ci: str) -> None:
    width = 0.8 / max(1, len(data))
    for i, (label, hands, vs) in enumerate(data):
        colour = colours[i % len(colours)]
        xs = [row["order"] + (i - (len(data) - 1) / 2) * width for row in vs["by_order"]]
        ys = [row[key] for row in vs["by_order"]]
        low = [y - row[ci][0] for y, row in zip(ys, vs["by_order"], strict=True)]
        high = [row[ci][1] - y for y, row in zip(ys, vs["by_order"], strict=True)]
        ax.bar(
            xs, ys, width=width * 0.92, color=colour, alpha=0.75, label=_label(label, len(hands))
        )
        ax.errorbar(xs, ys, yerr=[low, high], fmt="none", ecolor="#222222", capsize=3, linewidth=1)
    ticks = list(range(1, players + 1))
    ax.set_xticks(ticks, [f"{t}" + (" (dealer)" if t == players else "") for t in ticks])
    ax.set_xlabel("play order (1 plays first)")


def _seat_advantage(axes: Any, data: Any, colours: Any, players: int) -> None:
    win_ax, ko_ax = axes
    _by_order(win_ax, data, colours, players, "win_rate", "win_ci")
    # The fair-share line is named in the legend, not written on the plot, where a label
    # would sit on the bars' error bars.
    win_ax.axhline(
        1 / players, color="#555555", linestyle=":", linewidth=1.2, label=f"fair share 1/{players}"
    )
    win_ax.set_title("Win rate by play order (95% Wilson intervals)")
    win_ax.set_ylabel("share of hands won")
    _by_order(ko_ax, data, colours, players, "knockout_rate", "knockout_ci")
    ko_ax.set_title("Knock-out rate by play order (Mercy rule, 95% intervals)")
    ko_ax.set_ylabel("share of hands knocked out")
    handles, labels = win_ax.get_legend_handles_labels()
    win_ax.figure.legend(
        handles, labels, loc="outside lower center", frameon=False, ncol=min(5, len(handles))
    )


def _penalties(axes: Any, data: Any, colours: Any, players: int) -> None:
    share_ax, tail_ax = axes
    width = 0.8 / max(1, len(data))
    for i, (label, hands, _) in enumerate(data):
        colour = colours[i % len(colours)]
        totals = Counter(t for h in hands for t in h.stacks)
        count = sum(totals.values()) or 1
        keys = sorted(totals)
        xs = [k + (i - (len(data) - 1) / 2) * width for k in keys]
        share_ax.bar(
            xs,
            [totals[k] / count for k in keys],
            width=width * 0.95,
            color=colour,
            alpha=0.8,
            label=_label(label, len(hands)),
        )
        biggest = sorted(max(h.stacks, default=0) for h in hands)
        top = biggest[-1] if biggest else 0
        xs2 = list(range(0, top + 1))
        n = len(biggest) or 1
        # share of hands whose biggest penalty taken is at least x
        at_least = []
        j = 0
        for x in xs2:
            while j < len(biggest) and biggest[j] < x:
                j += 1
            at_least.append((len(biggest) - j) / n)
        tail_ax.step(
            xs2,
            at_least,
            where="post",
            color=colour,
            linewidth=1.8,
            label=_label(label, len(hands)),
        )
    share_ax.set_yscale("log")
    share_ax.set_title("Penalties taken: size of the stack drawn (NM-17)")
    share_ax.set_xlabel("cards in the penalty")
    share_ax.set_ylabel("share of penalties (log scale)")
    tail_ax.set_yscale("log")
    tail_ax.set_title("Biggest penalty taken in a hand: share of hands at least x")
    tail_ax.set_xlabel("x (cards)")
    tail_ax.set_ylabel("share of hands (log scale)")
    share_ax.legend(frameon=False)


def _endings(axes: Any, data: Any, colours: Any, players: int) -> None:
    how_ax, ko_ax = axes
    width = 0.8 / max(1, len(data))
    kinds = [
        ("empty hand", "empties their hand\n(NM-38)"),
        ("last standing", "last standing\n(NM-34)"),
    ]
    for i, (label, hands, vs) in enumerate(data):
        colour = colours[i % len(colours)]
        xs = [k + (i - (len(data) - 1) / 2) * width for k in range(len(kinds))]
        shares = [vs["endings"][key]["share"] for key, _ in kinds]
        bars = how_ax.bar(
            xs, shares, width=width * 0.92, color=colour, alpha=0.8, label=_label(label, len(hands))
        )
        how_ax.bar_label(bars, labels=[f"{v:.0%}" for v in shares], fontsize=8, padding=2)
    how_ax.set_xticks(range(len(kinds)), [text for _, text in kinds])
    top = max((vs["endings"][key]["share"] for _, _, vs in data for key, _ in kinds), default=1)
    how_ax.set_ylim(0, min(1.0, top * 1.15) + 0.02)
    how_ax.set_title("How hands end")
    how_ax.set_ylabel("share of hands")
    how_ax.legend(frameon=False)
    for i, (label, hands, _) in enumerate(data):
        colour = colours[i % len(colours)]
        counts = Counter(len(h.knockouts) for h in hands)
        keys = list(range(0, players))
        xs = [k + (i - (len(data) - 1) / 2) * width for k in keys]
        shares = [counts[k] / max(1, len(hands)) for k in keys]
        bars = ko_ax.bar(
            xs,
            shares,
            width=width * 0.95,
            color=colour,
            alpha=0.8,
            label=_label(label, len(hands)),
        )
        if len(data) == 1:
            ko_ax.bar_label(bars, labels=[f"{v:.0%}" for v in shares], fontsize=8, padding=2)
    ko_ax.set_xticks(list(range(0, players)))
    ko_ax.set_title("Knock-outs per hand (Mercy rule, NM-33)")
    ko_ax.set_xlabel("players knocked out in the hand")
    ko_ax.set_ylabel("share of hands")


def _points(ax: Any, data: Any, colours: Any, players: int) -> None:
    """Points per hand only (hand length is in hand_length.png).

    The share axis is logarithmic: the hands won by the last player standing all score about
    the same knock-out bonus, and on a linear axis that one spike flattens every other bar.
    """
    all_points = [h.points for _, hands, _ in data for h in hands]
    point_bins = _bins(all_points)
    for i, (label, hands, vs) in enumerate(data):
        colour = colours[i % len(colours)]
        median = vs["points"]["median"]
        points = [h.points for h in hands]
        _step_hist(ax, points, colour, _with_median(label, len(hands), median), point_bins)
        _median(ax, median, colour, i)
    ax.set_yscale("log")
    ax.set_title("Points to the hand's winner, knock-out bonus included (NM-40; ▼ median)")
    ax.set_xlabel("points")
    ax.set_ylabel("share of hands per bar (log scale)")
    ax.legend(frameon=False)


_LAYOUT.update(
    {
        "hand_length.png": (_hand_length, 2, (12, 4.6)),
        "seat_advantage.png": (_seat_advantage, 2, (12, 4.6)),
        "penalties.png": (_penalties, 2, (12, 4.6)),
        "endings.png": (_endings, 2, (12, 4.2)),
        "points.png": (_points, 1, (8, 4.6)),
    }
)
