"""Play one game of a tournament or a simulation and keep what the statistics need.

:func:`play_game` is the unit of work every backend runs: it builds the game and the bots from
seeds derived from the run's master seed and the game's index (:mod:`nomercy.arena.seeds`),
plays the game with the lean :class:`~nomercy.bots.driver.Driver`, and reads the engine's
events (``Event.kind`` / ``Event.data``) into one :class:`HandStats` per hand. The result is
small and picklable, so worker processes and Ray tasks send back only that.

What is counted, per hand:

- **actions**: every applied action, out-of-turn UNO calls and catches included;
- **turns**: actions that start a player's go: a play, a draw (or taking a penalty), a pass or
  a classic challenge taken in the ``play`` or ``stack_or_absorb`` phase (classic jump-ins
  included). Follow-up choices (a wild's colour, playing the drawn card, a Discard All choice,
  the Roulette victim's colour) and UNO calls and catches belong to the turn they are part of;
- **cards drawn**: every card that entered a hand from the draw pile: voluntary draws
  (``draw``), penalties taken (``absorb``), UNO catches (``catch``), classic challenges
  (``challenge``) and Colour Roulette reveals (``reveal``);
- **stacks**: the total of every penalty taken (``absorb``'s ``total``: the pending stack,
  even when the Mercy rule stopped the draw early, A15), and the biggest pending total built
  (``stack``), whether it was taken or not;
- **knock-outs** (``knockout``) in order, how the hand ended and its points (``hand_end``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.arena.seeds import bot_seed, game_seed
from nomercy.bots.base import Bot
from nomercy.bots.driver import Driver
from nomercy.bots.registry import bot_factory, make_bot
from nomercy.core.actions import Challenge, Draw, Pass, Play
from nomercy.core.events import Event
from nomercy.core.game import Game, Phase, new_game

__all__ = [
    "BotSpec",
    "GameResult",
    "GameSetup",
    "HandStats",
    "finishing_ranks",
    "parse_bot_spec",
    "play_game",
]

#: A safety stop: a game still running after this many actions is an error (real games end
#: after a few hundred).
MAX_ACTIONS = 100_000

_TURN_ACTIONS = frozenset({Play, Draw, Pass, Challenge})
#: Event kinds that put cards from the draw pile into a hand, and carry a ``count``.
_DRAW_KINDS = frozenset({"draw", "absorb", "catch", "challenge", "reveal"})
_WATCHED = _DRAW_KINDS | {
    "deal",
    "stack",
    "knockout",
    "hand_end",
    "reshuffle",
    "uno",
    "swap",
    "pass_hands",
}


# ---------------------------------------------------------------------- bots
@dataclass(frozen=True, slots=True)
class BotSpec:
    """A registry bot name with keyword parameters, e.g. ``ismcts:iterations=200``."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        """The spec as written on the command line (``name`` or ``name:k=v:k2=v2``;
        ``policy:module:attr`` for a policy)."""
        params = [f"{k}={_show(v)}" for k, v in self.params if not self._target(k)]
        target = [str(v) for k, v in self.params if self._target(k)]
        return ":".join([self.name, *target, *params])

    def _target(self, key: str) -> bool:
        return self.name == "policy" and key == "target"

    def build(self, seed: int) -> Bot:
        """A new bot with ``seed``.

        Raises:
            ValueError: an unknown bot name, or parameters the bot does not take.
        """
        try:
            return make_bot(self.name, seed=seed, **dict(self.params))
        except TypeError as exc:
            raise ValueError(f"bot {self.label!r}: bad parameters ({exc})") from None


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_bot_spec(text: str) -> BotSpec:
    """Parse ``name`` or ``name:key=value:key2=value2`` (values: int, float, true/false, text),
    or ``policy:module:attr[:key=value...]``, a trained policy (docs/rl.md).

    >>> parse_bot_spec("ismcts:iterations=200").params
    (('iterations', 200),)

    Raises:
        ValueError: an empty name, an unknown bot, or a parameter without ``=``.
    """
    name, *parts = text.strip().split(":")
    name = name.strip()
    if not name:
        raise ValueError(f"bot spec {text!r} has no bot name")
    bot_factory(name)  # an unknown or uninstalled bot fails here, with what to do
    params: list[tuple[str, Any]] = []
    if name == "policy":
        if len(parts) < 2 or "=" in parts[0] or "=" in parts[1]:
            raise ValueError(f"bot spec {text!r}: a policy is policy:MODULE:ATTR")
        params.append(("target", f"{parts[0].strip()}:{parts[1].strip()}"))
        parts = parts[2:]
    for part in parts:
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"bot spec {text!r}: parameter {part!r} needs KEY=VALUE")
        if key == "seed":
            raise ValueError(f"bot spec {text!r}: the seed is derived per game, not a parameter")
        params.append((key, _parse_value(value.strip())))
    return BotSpec(name, tuple(params))


# ---------------------------------------------------------------------- setup and results
@dataclass(frozen=True, slots=True)
class GameSetup:
    """The rules every game of a run shares: seats, preset, options and the master seed."""

    players: int
    preset: str = "no-mercy"
    options: tuple[tuple[str, Any], ...] = ()
    seed: int = 0
    max_actions: int = MAX_ACTIONS

    @classmethod
    def make(
        cls,
        players: int,
        preset: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        max_actions: int = MAX_ACTIONS,
    ) -> GameSetup:
        """A setup with ``options`` given as a mapping."""
        return cls(players, preset, tuple(sorted((options or {}).items())), seed, max_actions)

    def new_game(self, index: int) -> Game:
        """Game ``index`` of the run, dealt with its derived seed."""
        return new_game(
            self.players,
            rules=self.preset,
            options=dict(self.options),
            seed=game_seed(self.seed, index),
        )


@dataclass(slots=True)
class HandStats:
    """What happened in one hand (see the module docstring for what each count means)."""

    hand: int
    dealer: int
    winner: int = -1
    how: str = ""
    turns: int = 0
    actions: int = 0
    cards_drawn: int = 0
    draws: int = 0
    knockouts: list[int] = field(default_factory=list)
    knockout_steps: list[int] = field(default_factory=list)
    stacks: list[int] = field(default_factory=list)
    max_pending: int = 0
    points: int = 0
    catches: int = 0
    uno_calls: int = 0
    reshuffles: int = 0
    swaps: int = 0
    rotations: int = 0

    def order(self, seat: int, players: int) -> int:
        """``seat``'s place in the play order of this hand: 0 plays first, the dealer last."""
        return (seat - self.dealer - 1) % players


@dataclass(slots=True)
class GameResult:
    """One finished game: its seats, winner, finishing ranks and per-hand statistics."""

    index: int
    seed: int
    lineup: tuple[str, ...]
    winner: int
    ranks: tuple[int, ...]
    actions: int
    turns: int
    scores: tuple[int, ...]
    cards_left: tuple[int, ...]
    hands: list[HandStats]


class _Tracker:
    """Reads events into HandStats; one hand is open between a deal and its hand_end.

    ``actions`` and ``turns`` are the game's running counts, set by the game loop before it
    feeds an action's events; a hand's counts are their differences at its deal and its end.
    """

    __slots__ = ("_start", "actions", "current", "hands", "turns")

    def __init__(self) -> None:
        self.hands: list[HandStats] = []
        self.current: HandStats | None = None
        self.actions = self.turns = 0
        self._start = (0, 0)

    def close(self) -> None:
        """Set the open hand's action and turn counts from the running totals."""
        hand = self.current
        if hand is not None:
            hand.actions = self.actions - self._start[0]
            hand.turns = self.turns - self._start[1]

    def feed(self, event: Event) -> None:
        """Account one event whose kind is in ``_WATCHED``."""
        kind = event.kind
        data = event.data
        hand = self.current
        if kind == "deal":
            self.close()
            hand = self.current = HandStats(int(data["hand_number"]), int(data["dealer"]))
            self.hands.append(hand)
            self._start = (self.actions, self.turns)
            return
        if hand is None:  # pragma: no cover - the engine always deals first
            return
        if kind in _DRAW_KINDS:
            count = int(data.get("count", 0))
            hand.cards_drawn += count
            if kind == "draw":
                hand.draws += 1
            elif kind == "absorb":
                hand.stacks.append(int(data.get("total", count)))
            elif kind == "catch":
                hand.catches += 1
        elif kind == "stack":
            total = int(data["total"])
            if total > hand.max_pending:
                hand.max_pending = total
        elif kind == "knockout":
            assert event.seat is not None
            hand.knockouts.append(event.seat)
            hand.knockout_steps.append(self.actions)
        elif kind == "hand_end":
            hand.winner = int(data["winner"])
            hand.how = str(data["how"])
            hand.points = int(data.get("points", 0))
            self.close()
        elif kind == "reshuffle":
            hand.reshuffles += 1
        elif kind == "uno":
            hand.uno_calls += 1
        elif kind == "swap":
            hand.swaps += 1
        elif kind == "pass_hands":
            hand.rotations += 1


def finishing_ranks(game: Game, last_hand: HandStats) -> tuple[int, ...]:
    """Each seat's finishing rank (1 is best; equal places share a rank, ``1 2 2 4``).

    A single hand: the winner first; then the players still in, fewer cards left first; then
    the knocked-out players, the later knock-out first (two knocked out by the same action
    tie). A match (``scoring_enabled``): the match winner first, then by score (highest first;
    classic ``lowest_wins``: lowest first).
    """
    n = game.n
    winner = game.winner
    keys: list[tuple[int, int]] = []
    if game.rules.scoring_enabled:
        sign = 1 if game.rules.is_classic and game.rules.classic_scoring == "lowest_wins" else -1
        for s in range(n):
            keys.append((0, 0) if s == winner else (1, sign * game.scores[s]))
    else:
        step_of = dict(zip(last_hand.knockouts, last_hand.knockout_steps, strict=True))
        for s in range(n):
            if s == winner:
                keys.append((0, 0))
            elif s in step_of:
                keys.append((2, -step_of[s]))
            else:
                keys.append((1, len(game.hands[s])))
    return tuple(1 + sum(other < key for other in keys) for key in keys)


def play_game(setup: GameSetup, lineup: Sequence[BotSpec], index: int) -> GameResult:
    """Play game ``index`` of a run with ``lineup`` (one bot spec per seat) to the end.

    Raises:
        RuntimeError: the game did not end within ``setup.max_actions`` actions, or a bot
            chose an illegal action.
        ValueError: a bot cannot be built.
    """
    game = setup.new_game(index)
    bots = [spec.build(bot_seed(setup.seed, index, s)) for s, spec in enumerate(lineup)]
    tracker = _Tracker()
    feed = tracker.feed
    watched = _WATCHED
    for event in game.opening_events:
        if event.kind in watched:
            feed(event)
    next_action = Driver(bots).next_action
    apply = game.apply
    limit = setup.max_actions
    over = Phase.OVER
    # Identity tests: hashing an enum member (a set lookup) costs a Python-level call.
    play, stack = Phase.PLAY, Phase.STACK_OR_ABSORB
    turn_actions = _TURN_ACTIONS
    actions = turns = 0
    while (phase := game.phase) is not over:
        if actions >= limit:
            raise RuntimeError(f"game {index} did not end within {limit} actions")
        action = next_action(game)
        if (phase is play or phase is stack) and type(action) in turn_actions:
            turns += 1
        actions += 1
        for event in apply(action):
            if event.kind in watched:
                tracker.actions = actions
                tracker.turns = turns
                feed(event)
    tracker.actions = actions
    tracker.turns = turns
    tracker.close()
    return GameResult(
        index=index,
        seed=game.seed,
        lineup=tuple(spec.label for spec in lineup),
        winner=-1 if game.winner is None else game.winner,
        ranks=finishing_ranks(game, tracker.hands[-1]),
        actions=actions,
        turns=turns,
        scores=tuple(game.scores),
        cards_left=tuple(len(h) for h in game.hands),
        hands=tracker.hands,
    )
