"""Sequential probability ratio tests on paired deals: is a candidate bot stronger?

Engine developers accept or reject a change by a sequential test (fishtest, for Stockfish):
games are played until the evidence decides between two hypotheses, so a clear change is
decided in few games and a marginal one gets as many as it needs (up to a cap).

**Pairs.** A *pair* is one deal played ``P`` times at a ``P``-seat table, the candidate in
seat ``j`` of the ``j``-th game and the baseline bot in every other seat: heads-up, the same
deal with the seats swapped (fishtest's game pair, the same opening with colours reversed).
Every game of pair ``k`` is dealt from ``game_seed(seed, k)`` (the same deck order and
dealer, A38), and game ``g = k P + j`` seats its bots with ``bot_seed(seed, g, s)``. The
pair's **score** is the candidate's wins over the ``P`` games divided by ``P``: one of
``0, 1/P, ..., 1``. Its expectation is the candidate's win rate per game; a bot no stronger
than the baseline scores ``1/P`` (par). Pairing removes most of the luck of the deal from
the score's variance (a deal good for seat 0 is played by both bots from seat 0).

**Hypotheses.** ``H0: s = s0`` against ``H1: s = s1`` on the expected pair score ``s``,
given directly (``p0``, ``p1``) or as Elo differences: a bot ``elo`` points stronger than
each of ``P - 1`` equal opponents wins ``r / (r + P - 1)`` of the games with
``r = 10^(elo / 400)`` (Bradley-Terry / Plackett-Luce for the winner; heads-up, the logistic
Elo curve ``1 / (1 + 10^(-elo / 400))`` fishtest uses).

**The statistic.** The pair scores are a multinomial over the ``P + 1`` values ``a_i = i/P``
with unknown probabilities. As fishtest does (the generalized SPRT of Van den Bergh's
``LLRcalc.py``, github.com/vdbergh/pentanomial, used by fishtest's ``stat_util.py``; theory:
Li, Liu and Ying, "Generalized sequential probability ratio test for separate families of
hypotheses", Sequential Analysis 33, 2014), the log-likelihood ratio compares the most likely
multinomial under each hypothesis:

    p_i(s) = phat_i / (1 + x (a_i - s)),  x solving  sum_i phat_i (a_i - s) / (1 + x (a_i - s)) = 0

(the maximum-likelihood distribution with mean ``s``; ``phat`` the observed frequencies, a
count of zero taken as ``1e-3``, as fishtest regularises), and

    LLR = sum_i n_i log(p_i(s1) / p_i(s0)).

With two outcomes (one game per "pair") ``p(s)`` is ``(1 - s, s)`` and this is exactly
Wald's binomial SPRT; for small ``s1 - s0`` it approaches the normal approximation
``N (s1 - s0)(2 mean - s0 - s1) / (2 var)`` (``LLRcalc.LLR_alt2``, :func:`llr_normal`), which
the tests check. The test stops when ``LLR >= log((1 - beta) / alpha)`` (H1 accepted) or
``LLR <= log(beta / (1 - alpha))`` (H0 accepted), Wald's bounds, after the pair that crosses
(pairs are judged one by one in index order, so the decision does not depend on ``jobs``
or the batch size), or when the game cap is reached (no decision).

**Interval.** The score's 95% interval is ``mean +- 1.96 sd / sqrt(pairs)`` over the pair
scores (the pair, not the game, is the independent unit).

**Resuming.** :func:`run_sprt` calls ``checkpoint`` with the :class:`SprtState` after every
batch; its JSON form (``schema`` :data:`SCHEMA`) holds the configuration and every pair's
wins, and a run given that state continues where it stopped and ends as the uninterrupted run
would.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.arena.parallel import Chunk, Progress, default_jobs, run_chunks
from nomercy.arena.runner import BotSpec, GameSetup
from nomercy.core.stats import Z95

__all__ = [
    "SCHEMA",
    "SprtConfig",
    "SprtState",
    "SprtStatus",
    "elo_to_score",
    "judge",
    "llr",
    "llr_normal",
    "mle_expected",
    "pair_lineups",
    "run_sprt",
    "score_to_elo",
    "sprt_bounds",
    "status_from_counts",
    "status_of",
]

#: The ``schema`` field of a saved SPRT state.
SCHEMA = "nomercy.sprt/1"

#: What a count of zero is taken as (fishtest's ``LLRcalc.regularize``): the maximum-likelihood
#: distribution under a hypothesis then always exists.
_EPSILON = 1e-3


def elo_to_score(elo: float, players: int) -> float:
    """The expected win rate of a bot ``elo`` points stronger than each of ``players - 1``
    equal opponents: ``r / (r + players - 1)``, ``r = 10^(elo/400)``.

    >>> round(elo_to_score(0, 4), 4), round(elo_to_score(400, 2), 4)
    (0.25, 0.9091)
    """
    r = math.pow(10.0, elo / 400.0)
    return r / (r + players - 1)


def score_to_elo(score: float, players: int) -> float:
    """The inverse of :func:`elo_to_score` (``-inf`` or ``inf`` at 0 or 1).

    >>> round(score_to_elo(0.25, 4), 6)
    0.0
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score * (players - 1) / (1.0 - score))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: accept H0 at or below the first, H1 at or above the second.

    >>> [round(b, 6) for b in sprt_bounds(0.05, 0.05)]
    [-2.944439, 2.944439]
    """
    if not (0.0 < alpha < 0.5 and 0.0 < beta < 0.5):
        raise ValueError(f"alpha and beta must be in (0, 0.5), got {alpha} and {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def mle_expected(freqs: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution over ``values`` nearest to ``freqs`` (maximum likelihood) whose mean
    is ``s``: ``freqs_i / (1 + x (values_i - s))`` (the module docstring).

    ``freqs`` must be positive (regularised) and sum to 1; ``s`` strictly between the
    smallest and largest value.

    >>> [round(p, 6) for p in mle_expected([0.4, 0.6], [0.0, 1.0], 0.5)]
    [0.5, 0.5]

    Raises:
        ValueError: ``s`` outside the open range of ``values``, or a frequency not positive.
    """
    low, high = min(values), max(values)
    if not low < s < high:
        raise ValueError(f"the score {s} must lie strictly between {low} and {high}")
    if any(f <= 0.0 for f in freqs):
        raise ValueError("the frequencies must be positive (regularise zero counts)")
    d = [v - s for v in values]

    # Solve secular(x) = sum_i f_i d_i / (1 + x d_i) = 0, decreasing in x on the interval
    # where every 1 + x d_i > 0, (-1/max d, -1/min d), which holds 0: Newton's method from 0,
    # kept inside a shrinking bracket (a step leaving it bisects instead).
    lo, hi = -1.0 / max(d), -1.0 / min(d)
    x = 0.0
    for _ in range(200):
        value = slope = 0.0
        for f, di in zip(freqs, d, strict=True):
            t = di / (1.0 + x * di)
            value += f * t
            slope -= f * t * t
        step = x - value / slope  # slope < 0: every f_i > 0 and some d_i != 0
        if abs(step - x) <= 1e-14 * max(1.0, abs(x)):
            x = step
            break
        if value > 0.0:
            lo = x
        else:
            hi = x
        x = step if lo < step < hi else (lo + hi) / 2.0
    p = [f / (1.0 + x * di) for f, di in zip(freqs, d, strict=True)]
    total = sum(p)
    return [pi / total for pi in p]


def _regularised(counts: Sequence[int]) -> list[float]:
    return [float(c) if c > 0 else _EPSILON for c in counts]


def llr(counts: Sequence[int], values: Sequence[float], s0: float, s1: float) -> float:
    """The generalized SPRT's log-likelihood ratio of ``H1: mean = s1`` over ``H0: mean = s0``
    for ``counts[i]`` observations of ``values[i]`` (the module docstring).

    >>> round(llr([40, 60], [0.0, 1.0], 0.5, 0.55), 5)  # Wald's binomial: 60 ln 1.1 + 40 ln .9
    1.50419
    """
    n = _regularised(counts)
    total = sum(n)
    freqs = [c / total for c in n]
    p0 = mle_expected(freqs, values, s0)
    p1 = mle_expected(freqs, values, s1)
    return sum(c * math.log(b / a) for c, a, b in zip(n, p0, p1, strict=True))


def llr_normal(counts: Sequence[int], values: Sequence[float], s0: float, s1: float) -> float:
    """The normal approximation ``N (s1 - s0)(2 mean - s0 - s1) / (2 var)`` of :func:`llr`
    (fishtest's ``LLR_alt2``), on the regularised counts.

    Raises:
        ValueError: every observation the same (no variance).
    """
    n = _regularised(counts)
    total = sum(n)
    mean = sum(c * v for c, v in zip(n, values, strict=True)) / total
    var = sum(c * (v - mean) ** 2 for c, v in zip(n, values, strict=True)) / total
    if var <= 0.0:
        raise ValueError("no variance in the observations")
    return total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class SprtConfig:
    """What an SPRT run tests: the candidate against the baseline at one table.

    ``s0``/``s1`` are the hypotheses on the candidate's expected win rate per game (the pair
    score); ``elo0``/``elo1`` record the Elo form they came from, if any.
    """

    candidate: str
    baseline: str
    players: int
    preset: str
    options: tuple[tuple[str, Any], ...]
    seed: int
    s0: float
    s1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 20_000
    elo0: float | None = None
    elo1: float | None = None

    def __post_init__(self) -> None:
        if self.players < 2:
            raise ValueError(f"a game needs at least 2 players, got {self.players}")
        if self.candidate == self.baseline:
            raise ValueError(f"the candidate and the baseline are both {self.candidate!r}")
        if not (0.0 < self.s0 < 1.0 and 0.0 < self.s1 < 1.0) or self.s0 == self.s1:
            raise ValueError(f"need two different win rates in (0, 1), got {self.s0}, {self.s1}")
        sprt_bounds(self.alpha, self.beta)  # checks alpha and beta
        if self.max_games < self.players:
            raise ValueError(
                f"the game cap {self.max_games} is less than one pair ({self.players} games)"
            )

    @property
    def values(self) -> list[float]:
        """The possible pair scores ``0, 1/P, ..., 1``."""
        return [i / self.players for i in range(self.players + 1)]

    @property
    def max_pairs(self) -> int:
        """The pair cap (``max_games // players``)."""
        return self.max_games // self.players

    def to_json(self) -> dict[str, Any]:
        """The JSON form (also what a resumed run must match)."""
        return {
            "candidate": self.candidate,
            "baseline": self.baseline,
            "players": self.players,
            "preset": self.preset,
            "options": {k: v for k, v in self.options},
            "seed": self.seed,
            "s0": self.s0,
            "s1": self.s1,
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "max_games": self.max_games,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SprtConfig:
        """Read :meth:`to_json`'s form.

        Raises:
            ValueError: a missing or bad field.
        """
        try:
            return cls(
                candidate=str(data["candidate"]),
                baseline=str(data["baseline"]),
                players=int(data["players"]),
                preset=str(data["preset"]),
                options=tuple(sorted(dict(data["options"]).items())),
                seed=int(data["seed"]),
                s0=float(data["s0"]),
                s1=float(data["s1"]),
                alpha=float(data["alpha"]),
                beta=float(data["beta"]),
                max_games=int(data["max_games"]),
                elo0=None if data.get("elo0") is None else float(data["elo0"]),
                elo1=None if data.get("elo1") is None else float(data["elo1"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not an SPRT configuration: {exc}") from None


@dataclass(frozen=True)
class SprtStatus:
    """Where a test stands after some pairs."""

    pairs: int
    games: int
    wins: int
    counts: tuple[int, ...]  # pairs per score i/P
    llr: float
    lower: float
    upper: float
    score: float
    score_ci: tuple[float, float]
    decision: str  # "H0", "H1", "cap" (the game cap, undecided) or "continue"

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "pairs": self.pairs,
            "games": self.games,
            "wins": self.wins,
            "pair_scores": list(self.counts),
            "llr": self.llr,
            "bounds": [self.lower, self.upper],
            "score": self.score,
            "score_ci": list(self.score_ci),
            "decision": self.decision,
        }


def status_of(config: SprtConfig, pair_wins: Sequence[int]) -> SprtStatus:
    """The test's status after the pairs whose candidate wins are ``pair_wins``."""
    counts = [0] * (config.players + 1)
    for w in pair_wins:
        counts[w] += 1
    return status_from_counts(config, counts)


def status_from_counts(config: SprtConfig, counts: Sequence[int]) -> SprtStatus:
    """The test's status after ``counts[i]`` pairs in which the candidate won ``i`` games."""
    players = config.players
    n = sum(counts)
    lower, upper = sprt_bounds(config.alpha, config.beta)
    value = llr(counts, config.values, config.s0, config.s1) if n else 0.0
    wins = sum(i * c for i, c in enumerate(counts))
    mean = wins / (n * players) if n else 0.0
    if n > 1:
        var = sum(c * (i / players - mean) ** 2 for i, c in enumerate(counts)) / (n - 1)
        half = Z95 * math.sqrt(var / n)
        ci = (max(0.0, mean - half), min(1.0, mean + half))
    else:
        ci = (0.0, 1.0)
    if n and value >= upper:
        decision = "H1"
    elif n and value <= lower:
        decision = "H0"
    elif n >= config.max_pairs:
        decision = "cap"
    else:
        decision = "continue"
    return SprtStatus(n, n * players, wins, tuple(counts), value, lower, upper, mean, ci, decision)


@dataclass
class SprtState:
    """A run's configuration, every pair's candidate wins (in pair order) and the LLR after
    each batch: all a resumed run needs."""

    config: SprtConfig
    pair_wins: list[int] = field(default_factory=list)
    history: list[tuple[int, float]] = field(default_factory=list)  # (pairs, llr) per batch

    def status(self) -> SprtStatus:
        """Where the test stands."""
        return status_of(self.config, self.pair_wins)

    def to_json(self) -> dict[str, Any]:
        """The saved form (``schema`` :data:`SCHEMA`)."""
        return {
            "schema": SCHEMA,
            "config": self.config.to_json(),
            "status": self.status().to_json(),
            "history": [list(h) for h in self.history],
            "pair_wins": list(self.pair_wins),
        }

    @classmethod
    def from_json(cls, data: Any) -> SprtState:
        """Read a saved state.

        Raises:
            ValueError: not a state of this schema, or pair wins out of range.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError(f"not a saved SPRT state (schema {SCHEMA!r})")
        config = SprtConfig.from_json(data.get("config") or {})
        wins = data.get("pair_wins")
        if not isinstance(wins, list) or not all(
            isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= config.players
            for w in wins
        ):
            raise ValueError(f"pair_wins must be a list of integers 0..{config.players}")
        history = [(int(p), float(v)) for p, v in data.get("history", [])]
        return cls(config, list(wins), history)


def pair_lineups(candidate: BotSpec, baseline: BotSpec, players: int) -> list[tuple[BotSpec, ...]]:
    """The ``players`` line-ups of a pair: the candidate in seat ``j`` of the ``j``-th.

    >>> [" ".join(b.name for b in l) for l in pair_lineups(BotSpec("a"), BotSpec("b"), 3)]
    ['a b b', 'b a b', 'b b a']
    """
    return [
        tuple(candidate if s == j else baseline for s in range(players)) for j in range(players)
    ]


def judge(state: SprtState, new_pairs: Iterable[int]) -> SprtStatus:
    """Add pairs one by one (in pair order) until the test decides or reaches its cap;
    the status after the last pair added."""
    config = state.config
    counts = [0] * (config.players + 1)
    for w in state.pair_wins:
        counts[w] += 1
    status = status_from_counts(config, counts)
    for wins in new_pairs:
        if status.decision != "continue":
            break
        if not 0 <= wins <= config.players:
            raise ValueError(f"a pair's wins must be 0..{config.players}, got {wins}")
        state.pair_wins.append(wins)
        counts[wins] += 1
        status = status_from_counts(config, counts)
    return status


def run_sprt(
    candidate: BotSpec,
    baseline: BotSpec,
    state: SprtState,
    *,
    batch: int | None = None,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
    checkpoint: Callable[[SprtState], None] | None = None,
) -> SprtStatus:
    """Play pairs in batches until the test decides or reaches its cap, from ``state``
    (a new one, or a saved one to resume); ``state`` is updated in place.

    Args:
        candidate, baseline: the bots (their labels must be the config's).
        state: the configuration and the pairs already played.
        batch: pairs per batch (default: four per worker, at least 8).
        jobs, backend, address: as for tournaments.
        progress: called with the number of games finished, as they finish.
        checkpoint: called with ``state`` after every batch (to save it).

    Raises:
        ValueError: bots that are not the config's, or bad run arguments.
        ArenaError: a game failed.
    """
    config = state.config
    if (candidate.label, baseline.label) != (config.candidate, config.baseline):
        raise ValueError(
            f"the bots {candidate.label!r}, {baseline.label!r} are not the state's "
            f"{config.candidate!r}, {config.baseline!r}"
        )
    players = config.players
    setup = GameSetup(players, config.preset, config.options, config.seed, deal_games=players)
    lineups = tuple(pair_lineups(candidate, baseline, players))
    workers = jobs or default_jobs()
    per_batch = batch if batch is not None else max(8, 4 * workers)
    if per_batch < 1:
        raise ValueError(f"the batch must be at least 1 pair, got {per_batch}")
    while state.status().decision == "continue":
        first = len(state.pair_wins)
        last = min(first + per_batch, config.max_pairs)
        # One chunk per pair: game g = k P + j is pair k's game with the candidate in seat j.
        chunks = [Chunk(setup, lineups, k * players, (k + 1) * players) for k in range(first, last)]
        results = run_chunks(
            chunks, jobs=workers, backend=backend, address=address, progress=progress
        )
        pairs = [
            sum(1 for game in chunk if game.winner == game.index % players) for chunk in results
        ]
        status = judge(state, pairs)
        state.history.append((status.pairs, status.llr))
        if checkpoint is not None:
            checkpoint(state)
    return state.status()
