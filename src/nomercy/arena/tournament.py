"""Tournaments: bots play seat-rotated games; win rates with Wilson intervals and ratings.

**Line-ups.** With ``k`` bots and ``P`` seats, game ``i`` seats the line-up
``lineups(bots, P)[i % len]``. The line-ups are the ``k`` rotations of the bot list laid
cyclically over the seats (seat ``s`` of rotation ``j`` holds bot ``(j + s) mod k``), followed,
when ``k >= 3``, by the ``k`` rotations of the reversed list. Within each rotation block every
bot sits in every seat exactly once, so a number of games that is a multiple of the block
length (``k``, or ``2k`` with three bots or more) seats every bot in every seat equally often;
the reversed block also lets every bot play both before and after every other. With more seats
than bots a bot holds several seats of a game (``a b c a`` with three bots and four seats);
with fewer seats than bots, every game leaves some bots out, in turn. A bot may be listed
more than once: it then holds that many places of the rotation (one standing over them all).

**Seeds.** Game ``i`` is dealt with ``game_seed(seed, i)`` and the bot in seat ``s`` gets
``bot_seed(seed, i, s)`` (:mod:`nomercy.core.seeds`), so results do not depend on ``jobs``
or the backend.

**Ratings.** openskill's Plackett-Luce model (Weng and Lin 2011), starting every bot at
``mu = 25``, ``sigma = 25/3``, updated once per game in game-index order from every seat's
finishing rank (:func:`nomercy.arena.runner.finishing_ranks`: the winner first; then the
players still in, fewer cards left first; then the knocked-out players, the later knock-out
first; ties share a rank). Each seat is a team of one. A bot holding several seats of a game
enters the update once per seat with the same prior rating; its new rating is the mean of
the copies' updated ``mu`` and ``sigma``. The ``ordinal`` is ``mu - 3 sigma``, a conservative
skill estimate; standings are sorted by it.

**Win rates.** Per seat played: a bot holding two seats of a game plays two "seats"; the
Wilson interval is the 95% score interval of wins over seats.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.arena.parallel import Progress, chunk_games, default_jobs, run_chunks
from nomercy.arena.runner import BotSpec, GameResult, GameSetup
from nomercy.core.stats import wilson_interval

__all__ = [
    "SCHEMA",
    "Standing",
    "TournamentResult",
    "lineups",
    "rate_games",
    "run_tournament",
]

#: The ``schema`` field of the JSON report.
SCHEMA = "nomercy.tournament/1"

#: The columns of the CSV report (one row per bot).
CSV_FIELDS = (
    "place",
    "bot",
    "games",
    "seats",
    "wins",
    "win_rate",
    "win_ci_low",
    "win_ci_high",
    "mean_rank",
    "mu",
    "sigma",
    "ordinal",
)


def lineups(bots: Sequence[BotSpec], players: int) -> list[tuple[BotSpec, ...]]:
    """The seat-rotation line-ups of a tournament (see the module docstring).

    >>> [" ".join(b.name for b in lineup) for lineup in lineups(
    ...     [BotSpec("a"), BotSpec("b"), BotSpec("c")], 4)]
    ['a b c a', 'b c a b', 'c a b c', 'c b a c', 'b a c b', 'a c b a']

    A bot listed more than once holds that many places in the rotation (``neural,heuristic,
    heuristic,heuristic`` at four seats: one ``neural`` against three ``heuristic`` in every
    game, ``neural`` in every seat in turn); its standing is one line over all its seats.

    >>> [" ".join(b.name for b in lineup) for lineup in lineups(
    ...     [BotSpec("n"), BotSpec("h"), BotSpec("h")], 3)][:3]
    ['n h h', 'h h n', 'h n h']

    Raises:
        ValueError: fewer than two different bots, or fewer than two players.
    """
    if len({b.label for b in bots}) < 2:
        raise ValueError(
            f"a tournament needs at least two different bots, got {[b.label for b in bots]}"
        )
    if players < 2:
        raise ValueError(f"a game needs at least 2 players, got {players}")
    k = len(bots)
    orders = [list(bots)]
    if k >= 3:
        orders.append(list(reversed(bots)))
    return [tuple(order[(j + s) % k] for s in range(players)) for order in orders for j in range(k)]


@dataclass
class Standing:
    """One bot's line in the standings."""

    bot: str
    games: int = 0
    seats: int = 0
    wins: int = 0
    rank_sum: int = 0
    mu: float = 0.0
    sigma: float = 0.0
    by_seat: list[list[int]] = field(default_factory=list)  # [seats played, wins] per seat

    @property
    def win_rate(self) -> float:
        """Wins per seat played."""
        return self.wins / self.seats if self.seats else 0.0

    @property
    def win_ci(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.seats)

    @property
    def mean_rank(self) -> float:
        """The mean finishing rank over the seats played (1 is best)."""
        return self.rank_sum / self.seats if self.seats else 0.0

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: the rating a bot is 99.7% sure to exceed."""
        return self.mu - 3 * self.sigma

    def to_json(self, place: int) -> dict[str, Any]:
        """The JSON form of this standing."""
        low, high = self.win_ci
        return {
            "place": place,
            "bot": self.bot,
            "games": self.games,
            "seats": self.seats,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_ci": [low, high],
            "mean_rank": self.mean_rank,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "by_seat": [
                {"seat": s, "seats": played, "wins": won}
                for s, (played, won) in enumerate(self.by_seat)
            ],
        }


def rate_games(
    labels: Sequence[str], games: Sequence[GameResult]
) -> dict[str, tuple[float, float]]:
    """openskill Plackett-Luce ratings ``(mu, sigma)`` after ``games``, in their given order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    for game in games:
        teams = [[ratings[label]] for label in game.lineup]
        updated = model.rate(teams, ranks=[float(r) for r in game.ranks])
        new: dict[str, list[tuple[float, float]]] = {}
        for label, team in zip(game.lineup, updated, strict=True):
            new.setdefault(label, []).append((team[0].mu, team[0].sigma))
        for label, values in new.items():
            rating = ratings[label]
            rating.mu = sum(mu for mu, _ in values) / len(values)
            rating.sigma = sum(sigma for _, sigma in values) / len(values)
    return {label: (r.mu, r.sigma) for label, r in ratings.items()}


@dataclass
class TournamentResult:
    """A finished tournament: its configuration, every game, and the standings."""

    bots: list[BotSpec]
    setup: GameSetup
    games: list[GameResult]
    standings: list[Standing]
    block: int

    @property
    def balanced(self) -> bool:
        """Whether every bot sat in every seat equally often (games a multiple of the block)."""
        return len(self.games) % self.block == 0

    def to_json(self) -> dict[str, Any]:
        """The JSON report (``schema`` :data:`SCHEMA`)."""
        setup = self.setup
        return {
            "schema": SCHEMA,
            "config": {
                "bots": [b.label for b in self.bots],
                "players": setup.players,
                "games": len(self.games),
                "seed": setup.seed,
                "deal_version": setup.deal_version,
                "preset": setup.preset,
                "options": dict(setup.options),
                "lineups": [
                    [b.label for b in lineup] for lineup in lineups(self.bots, setup.players)
                ],
                "balanced": self.balanced,
                "rating_model": "openskill PlackettLuce (mu 25, sigma 25/3); "
                "ordinal = mu - 3 sigma",
                "ranking": "winner; players still in by fewest cards; knocked out, latest first",
            },
            "standings": [s.to_json(place) for place, s in enumerate(self.standings, 1)],
            "games": [
                {
                    "index": g.index,
                    "seed": g.seed,
                    "lineup": list(g.lineup),
                    "winner": g.winner,
                    "ranks": list(g.ranks),
                    "actions": g.actions,
                    "turns": g.turns,
                    "hands": len(g.hands),
                }
                for g in self.games
            ],
        }

    def to_csv(self) -> str:
        """The standings as CSV text, one row per bot (columns :data:`CSV_FIELDS`)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_FIELDS)
        for place, s in enumerate(self.standings, 1):
            low, high = s.win_ci
            writer.writerow(
                [
                    place,
                    s.bot,
                    s.games,
                    s.seats,
                    s.wins,
                    f"{s.win_rate:.6f}",
                    f"{low:.6f}",
                    f"{high:.6f}",
                    f"{s.mean_rank:.6f}",
                    f"{s.mu:.6f}",
                    f"{s.sigma:.6f}",
                    f"{s.ordinal:.6f}",
                ]
            )
        return buffer.getvalue()


def standings(bots: Sequence[BotSpec], players: int, games: Sequence[GameResult]) -> list[Standing]:
    """Per-bot counts and ratings over ``games``, best ordinal first."""
    labels = [b.label for b in bots]
    table = {label: Standing(label, by_seat=[[0, 0] for _ in range(players)]) for label in labels}
    for game in games:
        for label in set(game.lineup):
            table[label].games += 1
        for seat, label in enumerate(game.lineup):
            row = table[label]
            row.seats += 1
            row.rank_sum += game.ranks[seat]
            row.by_seat[seat][0] += 1
            if seat == game.winner:
                row.wins += 1
                row.by_seat[seat][1] += 1
    for label, (mu, sigma) in rate_games(labels, games).items():
        table[label].mu = mu
        table[label].sigma = sigma
    return sorted(table.values(), key=lambda s: (-s.ordinal, -s.win_rate, s.bot))


def run_tournament(
    bots: Sequence[BotSpec],
    setup: GameSetup,
    games: int,
    *,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
) -> TournamentResult:
    """Play ``games`` seat-rotated games of ``bots`` and rate them.

    Args:
        bots: the bots; one listed n times holds n places of the rotation (lineups).
        setup: players, rules and the master seed.
        games: how many games (a multiple of the line-up block keeps seats balanced).
        jobs: worker processes for the local backend (default: every core).
        backend: ``"local"`` or ``"ray"`` (with ``address``).
        progress: called with the number of games finished, as they finish.

    Raises:
        ValueError: bad bots, players, games, jobs or backend.
        ArenaError: a game failed.
    """
    seats = lineups(bots, setup.players)
    workers = jobs or default_jobs()
    chunks = chunk_games(setup, seats, games, workers if backend == "local" else 8)
    results = [
        g
        for chunk in run_chunks(
            chunks, jobs=workers, backend=backend, address=address, progress=progress
        )
        for g in chunk
    ]
    return TournamentResult(
        bots=list(bots),
        setup=setup,
        games=results,
        standings=standings(bots, setup.players, results),
        block=len(seats),
    )
