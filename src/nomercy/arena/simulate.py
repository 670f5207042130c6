"""The rule-statistics simulator: play many hands and describe them.

:func:`run_simulation` plays ``games`` games per *variant* (the base rules, or one variant per
value of a ``compare`` option) and keeps one row per hand (:data:`CSV_FIELDS`). Every variant
plays the same game indices, hence the same deals and bot seeds (common random numbers: the
variants differ by the option only, which makes their differences sharper).

Seats are described by their **order** in the hand's play order: order 1 plays first (the
dealer's left, NM-3) and order ``P`` is the dealer, who plays last in the first round. The
summary (:meth:`SimulationResult.summary`) holds, per variant: hand length in turns and in
actions, cards drawn, how hands end (``empty hand`` or ``last standing`` after knock-outs,
NM-34/NM-38), knock-outs per hand, win rate and knock-out rate by order with 95% Wilson
intervals, the penalties taken (stack totals, NM-17) and points per hand (NM-40).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nomercy.arena.parallel import Progress, chunk_games, default_jobs, run_chunks
from nomercy.arena.runner import BotSpec, GameResult, GameSetup, HandStats
from nomercy.core.stats import distribution, summarize, wilson_interval

__all__ = ["CSV_FIELDS", "SCHEMA", "SimulationResult", "Variant", "run_simulation"]

#: The ``schema`` field of the JSON summary.
SCHEMA = "nomercy.simulation/1"

#: The columns of hands.csv, one row per hand.
CSV_FIELDS = (
    "variant",
    "game",
    "game_seed",
    "hand",
    "players",
    "dealer",
    "winner",
    "winner_order",
    "how",
    "turns",
    "actions",
    "cards_drawn",
    "draws",
    "knockouts",
    "knocked_out_orders",
    "penalties_taken",
    "biggest_penalty_taken",
    "penalty_totals",
    "biggest_stack_built",
    "points",
    "uno_calls",
    "catches",
    "reshuffles",
    "swaps",
    "rotations",
)


@dataclass
class Variant:
    """One rule variant of a simulation and the games it played."""

    label: str
    setup: GameSetup
    games: list[GameResult]

    def hands(self) -> list[tuple[GameResult, HandStats]]:
        """Every finished hand with its game, in game order."""
        return [(g, h) for g in self.games for h in g.hands if h.winner >= 0]


@dataclass
class SimulationResult:
    """A finished simulation: its bots, the compared option (if any) and every variant."""

    bots: list[BotSpec]
    players: int
    seed: int
    games: int
    compare: str | None
    variants: list[Variant]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per hand, keyed by :data:`CSV_FIELDS`."""
        out = []
        n = self.players
        for variant in self.variants:
            for game, hand in variant.hands():
                stacks = hand.stacks
                out.append(
                    {
                        "variant": variant.label,
                        "game": game.index,
                        "game_seed": game.seed,
                        "hand": hand.hand,
                        "players": n,
                        "dealer": hand.dealer,
                        "winner": hand.winner,
                        "winner_order": hand.order(hand.winner, n) + 1,
                        "how": hand.how,
                        "turns": hand.turns,
                        "actions": hand.actions,
                        "cards_drawn": hand.cards_drawn,
                        "draws": hand.draws,
                        "knockouts": len(hand.knockouts),
                        "knocked_out_orders": ";".join(
                            str(hand.order(s, n) + 1) for s in hand.knockouts
                        ),
                        "penalties_taken": len(stacks),
                        "biggest_penalty_taken": max(stacks, default=0),
                        "penalty_totals": ";".join(str(t) for t in stacks),
                        "biggest_stack_built": hand.max_pending,
                        "points": hand.points,
                        "uno_calls": hand.uno_calls,
                        "catches": hand.catches,
                        "reshuffles": hand.reshuffles,
                        "swaps": hand.swaps,
                        "rotations": hand.rotations,
                    }
                )
        return out

    def to_csv(self) -> str:
        """hands.csv: one row per hand (columns :data:`CSV_FIELDS`)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows())
        return buffer.getvalue()

    def summary(self) -> dict[str, Any]:
        """The JSON summary (``schema`` :data:`SCHEMA`)."""
        first = self.variants[0].setup
        return {
            "schema": SCHEMA,
            "config": {
                "games": self.games,
                "players": self.players,
                "bots": [b.label for b in self.bots],
                "seed": self.seed,
                "deal_version": first.deal_version,
                "preset": first.preset,
                "options": {
                    k: v for k, v in first.options if self.compare is None or k != self.compare
                },
                "compare": self.compare,
                "order": "order 1 plays first (the dealer's left); order P is the dealer",
            },
            "variants": [self._variant_summary(v) for v in self.variants],
        }

    def _variant_summary(self, variant: Variant) -> dict[str, Any]:
        n = self.players
        hands = [h for _, h in variant.hands()]
        count = len(hands)
        endings = Counter(h.how for h in hands)
        wins = Counter(h.order(h.winner, n) for h in hands)
        knocked = Counter(h.order(s, n) for h in hands for s in h.knockouts)
        stacks = [t for h in hands for t in h.stacks]
        by_order = []
        for order in range(n):
            win_low, win_high = wilson_interval(wins[order], count)
            ko_low, ko_high = wilson_interval(knocked[order], count)
            by_order.append(
                {
                    "order": order + 1,
                    "hands": count,
                    "wins": wins[order],
                    "win_rate": wins[order] / count if count else 0.0,
                    "win_ci": [win_low, win_high],
                    "knockouts": knocked[order],
                    "knockout_rate": knocked[order] / count if count else 0.0,
                    "knockout_ci": [ko_low, ko_high],
                }
            )
        return {
            "label": variant.label,
            "options": dict(variant.setup.options),
            "games": len(variant.games),
            "hands": count,
            "turns": summarize(h.turns for h in hands),
            "actions": summarize(h.actions for h in hands),
            "cards_drawn": summarize(h.cards_drawn for h in hands),
            "points": summarize(h.points for h in hands),
            "endings": {
                how: {"hands": endings[how], "share": endings[how] / count if count else 0.0}
                for how in ("empty hand", "last standing")
            },
            "knockouts_per_hand": {
                **summarize(len(h.knockouts) for h in hands),
                "distribution": distribution(len(h.knockouts) for h in hands),
            },
            "by_order": by_order,
            "penalties_taken": {
                **summarize(stacks),
                "per_hand": len(stacks) / count if count else 0.0,
                "distribution": distribution(stacks),
            },
            "biggest_stack_built": summarize(h.max_pending for h in hands),
            "uno_calls_per_hand": sum(h.uno_calls for h in hands) / count if count else 0.0,
            "catches_per_hand": sum(h.catches for h in hands) / count if count else 0.0,
            "reshuffles_per_hand": sum(h.reshuffles for h in hands) / count if count else 0.0,
        }


def run_simulation(
    bots: Sequence[BotSpec],
    setup: GameSetup,
    games: int,
    *,
    compare: tuple[str, Sequence[Any]] | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
) -> SimulationResult:
    """Play ``games`` games per variant and keep per-hand statistics.

    Args:
        bots: one bot spec per seat, or one for every seat.
        setup: players, rules and the master seed (the base variant).
        compare: ``(option, values)``: one variant per value, the option set on top of
            ``setup.options``; ``None``: the base rules only.
        jobs, backend, address, progress: as for
            :func:`~nomercy.arena.tournament.run_tournament`.

    Raises:
        ValueError: bots that do not fit the seats, bad games, jobs or backend.
        ArenaError: a game failed.
    """
    seats = list(bots) * setup.players if len(bots) == 1 else list(bots)
    if len(seats) != setup.players:
        raise ValueError(f"{len(seats)} bots for {setup.players} players")
    if compare is None:
        variants = [("base", setup)]
    else:
        name, values = compare
        base = {k: v for k, v in setup.options if k != name}
        variants = [
            (
                f"{name}={_show(value)}",
                GameSetup.make(
                    setup.players,
                    setup.preset,
                    {**base, name: value},
                    setup.seed,
                    setup.max_actions,
                    deal_version=setup.deal_version,
                ),
            )
            for value in values
        ]
    workers = jobs or default_jobs()
    lineup = (tuple(seats),)
    chunks = []
    owners = []
    for i, (_, variant_setup) in enumerate(variants):
        for chunk in chunk_games(
            variant_setup, lineup, games, workers if backend == "local" else 8
        ):
            chunks.append(chunk)
            owners.append(i)
    played: list[list[GameResult]] = [[] for _ in variants]
    results = run_chunks(chunks, jobs=workers, backend=backend, address=address, progress=progress)
    for owner, chunk_results in zip(owners, results, strict=True):
        played[owner].extend(chunk_results)
    return SimulationResult(
        bots=seats,
        players=setup.players,
        seed=setup.seed,
        games=games,
        compare=None if compare is None else compare[0],
        variants=[
            Variant(label, variant_setup, games_played)
            for (label, variant_setup), games_played in zip(variants, played, strict=True)
        ],
    )


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
