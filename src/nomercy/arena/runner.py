"""Play one game of a tournament or a simulation and keep what the statistics need.

:func:`play_game` is the unit of work every backend runs: it builds the game and the bots from
seeds derived from the run's master seed and the game's index (:mod:`nomercy.core.seeds`),
plays the game and turns the statistics the engine keeps per hand
(:class:`~nomercy.core.tally.Tally`, ``Game.hand_tallies``) into one :class:`HandStats` per
hand. The result is small and picklable, so worker processes and Ray tasks send back only
that.

The game runs on the engine's fast path: events are off unless a bot reads the event history
(``view_mode`` ``"full"``, :mod:`nomercy.bots.driver`), and seats whose bot picks by ids
(``random``: ``legal_ids`` and the same uniform choice it makes among the actions) step ids;
the other bots play through the :class:`~nomercy.bots.driver.Driver`. When every seat picks
by ids the whole game is one call into compiled code (:func:`nomercy.bots.fastplay.play_ids`,
built with the core), and a line-up of ``random`` bots alone skips the other bots' set-up.
The same seeds give the same games and the same statistics either way
(``tests/arena/test_tally_stats.py`` checks them against a reading of the events,
``tests/arena/test_fastplay.py`` the simulator's output against the Python bot path).

What is counted, per hand (the rules each count cites are in :mod:`nomercy.core.tally`):

- **actions**: every applied action, out-of-turn UNO calls and catches included;
- **turns**: actions that start a player's go: a play, a draw (or taking a penalty), a pass or
  a classic challenge taken in the ``play`` or ``stack_or_absorb`` phase (classic jump-ins
  included). Follow-up choices (a wild's colour, playing the drawn card, a Discard All choice,
  the Roulette victim's colour) and UNO calls and catches belong to the turn they are part of;
- **cards drawn**: every card that entered a hand from the draw pile: voluntary draws
  (``draws``), penalties taken, UNO catches, classic challenges and Colour Roulette reveals;
- **stacks**: the total of every penalty taken (the pending stack, even when the Mercy rule
  stopped the draw early, A15), and the biggest pending total built, whether it was taken or
  not;
- **knock-outs** in order (with the game's action count at each), how the hand ended and its
  points; UNO calls, catches, reshuffles, 7-swaps and 0-rotations.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from nomercy.bots.base import Bot
from nomercy.bots.driver import Driver, view_mode
from nomercy.bots.fastplay import play_ids
from nomercy.bots.random_bot import RandomBot
from nomercy.bots.registry import bot_factory
from nomercy.bots.spec import BotSpec, for_table, parse_bot_spec
from nomercy.core.dealing import DEAL_VERSION
from nomercy.core.game import Game, Phase, new_game
from nomercy.core.rules import RuleSet, make_rules
from nomercy.core.seeds import bot_seeds, game_seed
from nomercy.core.tally import Tally

__all__ = [
    "BotSpec",
    "GameResult",
    "GameSetup",
    "HandStats",
    "finishing_ranks",
    "hand_stats",
    "parse_bot_spec",
    "play_game",
]

#: How a bot picks among a seat's legal ids (``Game.legal_ids``): returns one of them.
IdChooser = Callable[[list[int]], int]

#: A safety stop: a game still running after this many actions is an error (real games end
#: after a few hundred).
MAX_ACTIONS = 100_000


# ---------------------------------------------------------------------- setup and results
@dataclass(frozen=True, slots=True)
class GameSetup:
    """The rules every game of a run shares: seats, preset, options and the master seed.

    ``deal_games``: how many consecutive games share a deal (game ``i`` is dealt from
    ``game_seed(seed, i // deal_games)``); 1 by default, the number of seats for the paired
    deals of a sequential test (:mod:`nomercy.arena.sprt`). ``deal_version``: the shuffles'
    generator (``new_game``; docs/notation.md, "Deal versions"), which the reports name.
    """

    players: int
    preset: str = "no-mercy"
    options: tuple[tuple[str, Any], ...] = ()
    seed: int = 0
    max_actions: int = MAX_ACTIONS
    deal_games: int = 1
    deal_version: int = DEAL_VERSION

    @classmethod
    def make(
        cls,
        players: int,
        preset: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        max_actions: int = MAX_ACTIONS,
        deal_version: int = DEAL_VERSION,
    ) -> GameSetup:
        """A setup with ``options`` given as a mapping."""
        options_items = tuple(sorted((options or {}).items()))
        return cls(players, preset, options_items, seed, max_actions, deal_version=deal_version)

    def rules(self) -> RuleSet:
        """The rule set of every game of the run (built once per preset and options).

        Raises:
            RuleSetError: an unknown preset, option or value.
        """
        key = (self.preset, self.options)
        try:
            found = _RULES.get(key)
        except TypeError:  # an unhashable option value (deck_counts): no caching
            return make_rules(self.preset, dict(self.options))
        if found is None:
            if len(_RULES) >= 256:
                _RULES.clear()
            found = _RULES[key] = make_rules(self.preset, dict(self.options))
        return found

    def new_game(self, index: int) -> Game:
        """Game ``index`` of the run, dealt with its derived seed (its deal's: ``deal_games``)."""
        deal = index // self.deal_games
        return new_game(
            self.players,
            rules=self.rules(),
            seed=game_seed(self.seed, deal),
            deal_version=self.deal_version,
        )


#: Rule sets by (preset, options): checking the options costs more than a deal.
_RULES: dict[tuple[str, tuple[tuple[str, Any], ...]], RuleSet] = {}


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
                keys.append((1, len(game.hand_of(s))))
    ordered = sorted(keys)
    # 1 + the number of keys strictly smaller: equal keys share a rank.
    return tuple(1 + bisect.bisect_left(ordered, key) for key in keys)


def _id_chooser(bot: Bot) -> IdChooser | None:
    """How ``bot`` picks among legal ids, or ``None`` if it needs the object path.

    A bot picks by ids if it has ``id_chooser() -> (legal_ids -> id)`` (one bound call per
    decision, e.g. :class:`~nomercy.bots.random_bot.RandomBot`'s generator's ``choice``) or
    ``choose_id(legal_ids) -> id``. Legal ids come in the order of the legal actions, so such
    a bot makes the very choices it makes among the actions: the same seeds play the same
    games (``tests/arena/test_tally_stats.py``). An id method counts only where the class
    that defines ``choose_action`` defines it too: a subclass that changes ``choose_action``
    (and not the id methods) plays on the object path.
    """
    names: set[str] = set()
    for klass in type(bot).__mro__:
        if "choose_action" in vars(klass):
            names = set(vars(klass))
            break
    if "id_chooser" in names:
        return cast("IdChooser", bot.id_chooser())  # type: ignore[attr-defined]
    if "choose_id" in names:
        return cast("IdChooser", bot.choose_id)  # type: ignore[attr-defined]
    return None


#: Line-up labels by line-up (a run has a few line-ups and plays each many times).
_LABELS: dict[tuple[BotSpec, ...], tuple[str, ...]] = {}


def _labels(lineup: tuple[BotSpec, ...]) -> tuple[str, ...]:
    labels = _LABELS.get(lineup)
    if labels is None:
        if len(_LABELS) >= 256:  # a long-lived process with many line-ups: start again
            _LABELS.clear()
        labels = _LABELS[lineup] = tuple(spec.label for spec in lineup)
    return labels


def hand_stats(tally: Tally) -> HandStats:
    """The :class:`HandStats` of a hand's :class:`~nomercy.core.tally.Tally` (its record)."""
    # Positional (HandStats' field order): keyword arguments cost twice as much, per hand.
    return HandStats(
        tally.hand,
        tally.dealer,
        tally.winner,
        tally.how,
        tally.turns,
        tally.actions,
        tally.cards_drawn,
        tally.draws,
        list(tally.knockouts),
        list(tally.knockout_steps),
        list(tally.stacks),
        tally.max_pending,
        tally.points,
        tally.catches,
        tally.uno_calls,
        tally.reshuffles,
        tally.swaps,
        tally.rotations,
    )


def play_game(setup: GameSetup, lineup: Sequence[BotSpec], index: int) -> GameResult:
    """Play game ``index`` of a run with ``lineup`` (one bot spec per seat) to the end.

    Raises:
        RuntimeError: the game did not end within ``setup.max_actions`` actions, or a bot
            chose an illegal action.
        ValueError: a bot cannot be built.
    """
    game = setup.new_game(index)
    seeds = bot_seeds(setup.seed, index, len(lineup))
    limit = setup.max_actions
    if all(not spec.params and bot_factory(spec.name) is RandomBot for spec in lineup):
        # Random bots alone (the simulator's usual line-up): their choosers straight from the
        # bots, none of the other bots' set-up, the game on ids in compiled code.
        game.record_events = False
        _play_ids(game, cast("list[IdChooser]", RandomBot.id_choosers(seeds)), limit, index)
        return _result(game, lineup, index)
    # ``best`` is the strongest bot at this table (nomercy.bots.registry.BEST_AT).
    bots = [
        for_table(spec, setup.preset, setup.players).build(seed)
        for spec, seed in zip(lineup, seeds, strict=True)
    ]
    # Bots that follow the public events as the RL environments do (policy bots: their
    # observation's opp_void, docs/rl.md) are told each action's.
    observers = [bot for bot in bots if callable(getattr(bot, "observe_public", None))]
    # Events only when a bot reads them (the statistics come from game.tally).
    game.record_events = bool(observers) or any(view_mode(bot) == "full" for bot in bots)
    choosers = [_id_chooser(bot) for bot in bots]
    # What isinstance(bot, OutOfTurnBot) checks (as the Driver does), without its cost.
    oot = any(callable(getattr(bot, "choose_out_of_turn", None)) for bot in bots)
    if observers:
        _play_observed(game, bots, choosers, oot, observers, limit, index)
    elif None not in choosers and not oot:
        _play_ids(game, cast("list[IdChooser]", choosers), limit, index)
    else:
        _play_mixed(game, bots, choosers, oot, limit, index)
    return _result(game, lineup, index)


def _result(game: Game, lineup: Sequence[BotSpec], index: int) -> GameResult:
    """The :class:`GameResult` of finished game ``index``."""
    hands = [hand_stats(t) for t in game.hand_tallies]
    last = game.hand_tallies[-1]
    return GameResult(
        index=index,
        seed=game.seed,
        lineup=_labels(tuple(lineup)),
        winner=-1 if game.winner is None else game.winner,
        ranks=finishing_ranks(game, hands[-1]),
        actions=last.before + last.actions,
        turns=sum(h.turns for h in hands),
        scores=tuple(game.scores),
        cards_left=tuple(len(h) for h in game.hands),
        hands=hands,
    )


def _play_ids(game: Game, choosers: list[IdChooser], limit: int, index: int) -> None:
    """Every seat picks by ids and none acts out of turn: the seat to act picks its id, in
    compiled code (:func:`nomercy.bots.fastplay.play_ids`)."""
    if not play_ids(game, choosers, limit):
        raise RuntimeError(f"game {index} did not end within {limit} actions")


def _play_observed(
    game: Game,
    bots: list[Bot],
    choosers: list[IdChooser | None],
    oot: bool,
    observers: list[Any],
    limit: int,
    index: int,
) -> None:
    """:func:`_play_mixed`, telling each of ``observers`` the deal and then every action's
    public facts: its events, the active colour and the phase before it, the phase after
    (what :class:`~nomercy.encoding.observations.PublicTracker` reads; each event is read in
    its public form, ``event.for_seat(None)``)."""
    for bot in observers:
        bot.start_public(game.rules, game.n, game.opening_events, game.phase._value_)
    next_action = Driver(bots).next_action
    possible = game.out_of_turn_possible
    over = Phase.OVER
    for _ in itertools.repeat(None, limit):
        if game.phase is over:
            return
        colour = game.colour
        phase = game.phase._value_
        start = len(game.log)
        choose = choosers[game.turn]  # type: ignore[index]  # not over: an int
        if choose is not None and not (oot and possible()):
            game.step(choose(game.legal_ids()))
        else:
            game.apply(next_action(game))
        events = game.log[start:]
        before = colour._value_ if colour is not None else None
        for bot in observers:
            bot.observe_public(events, colour=before, phase=phase, next_phase=game.phase._value_)
    if game.phase is not over:
        raise RuntimeError(f"game {index} did not end within {limit} actions")


def _play_mixed(
    game: Game,
    bots: list[Bot],
    choosers: list[IdChooser | None],
    oot: bool,
    limit: int,
    index: int,
) -> None:
    """Seats that pick by ids do so whenever the driver would ask only them (they are to
    act, and no bot that acts out of turn, ``oot``, may do so now); every other decision
    goes through the :class:`~nomercy.bots.driver.Driver`, which offers each bot what it
    offered before."""
    next_action = Driver(bots).next_action
    apply = game.apply
    step = game.step
    legal_ids = game.legal_ids
    possible = game.out_of_turn_possible
    over = Phase.OVER
    for _ in itertools.repeat(None, limit):
        if game.phase is over:
            return
        choose = choosers[game.turn]  # type: ignore[index]  # not over: an int
        if choose is not None and not (oot and possible()):
            step(choose(legal_ids()))
        else:
            apply(next_action(game))
    if game.phase is not over:
        raise RuntimeError(f"game {index} did not end within {limit} actions")
