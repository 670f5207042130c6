"""ISMCTS: single-observer information-set Monte Carlo tree search (Cowling et al. 2012).

One tree is grown over the searching seat's information set. Each iteration:

1. **Determinize**: deal the cards this seat has not seen into the places it cannot see,
   consistently with its view. Once per decision the bot builds a game from its view alone
   (:meth:`Game.from_view <nomercy.core.game.Game.from_view>`) and its seat's
   :class:`~nomercy.core.redeal.Redealer`; each iteration then takes
   ``redealer.sample(rng)``, a real :class:`~nomercy.core.game.Game` (a copy of the
   view's game with the unseen cards re-dealt, see :mod:`nomercy.core.redeal`). On classic
   rules the deals read a turn's draw as forced (:func:`~nomercy.bots.knowledge.view_gaps`),
   and when the seat may challenge a Wild +4 (CL-8) a share
   :data:`~nomercy.bots.determinize.HONEST_WD4` of them deal the accused an honest hand.
2. **Select**: walk down the tree through the actions that are legal in this determinization,
   picking by UCB1 with availability counts (a child's exploration term uses how often it was
   *available*, not its parent's visits). Every seat's decisions are tree nodes; each node's
   statistics are from the point of view of the seat that chose the action leading to it.
3. **Expand** one untried legal action.
4. **Roll out** with a cheap version of the heuristic bot that acts on the determinized game
   directly (``rollout="heuristic"``, :func:`_policy_action`: shed many cards, keep Draw
   Cards for defence unless the victim holds no answer in this deal, knock out when it
   can, swap only for a smaller hand, answer a stack with the smallest Draw Card), or with
   the older greedy policy (``rollout="greedy"``: a random playable card), up to
   ``rollout_depth`` actions; an unfinished game is scored by hand sizes and Mercy
   distances (a softmax over a per-seat strength).
5. **Back-propagate** the result: 1 to the winner of the hand, 0 to the others (a seat
   knocked out by the Mercy rule, NM-33, has lost).

Below the root the search runs on the engine's id path (:mod:`nomercy.core.ids`): tree edges
are keyed by the acting seat and the action's id (:func:`_edge`), determinized games are
stepped with ``Game.step(id, seat)`` with events off, and the rollout policies
(:data:`ROLLOUTS`) choose among ``Game.legal_ids(seat)``; no action or event object is built
there. The search draws from its generator exactly as it did on action objects, so a seed
makes the same choices.

The budget is a number of iterations (``iterations``; a decision is then deterministic
given the seed), a time per decision (``time_limit``), or both (whichever runs out first);
``max_time`` is only a safety net. A decision with one sensible action returns at once.
UNO calls and catches (NM-37) are never searched: the bot always calls and always catches.
Plays that differ only by the UNO call keep the call (the other is dominated).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from nomercy.bots.determinize import PRIORS, search_sampler
from nomercy.bots.heuristic_bot import HeuristicBot
from nomercy.bots.knowledge import rules_of
from nomercy.core.actions import Action, CallUno, Catch, Play
from nomercy.core.cards import COLOURS, Card, Colour, Kind
from nomercy.core.game import Game, Phase
from nomercy.core.ids import (
    DRAW_ID,
    ID_CARD,
    ID_COLOUR,
    ID_KIND,
    ID_REL,
    ID_UNO,
    K_CATCH,
    K_COLOUR,
    K_DRAW,
    K_PLAY,
    NUM_IDS,
    PASS_ID,
    UNO_ID,
    action_id,
)

__all__ = ["CLASSIC_ITERATIONS", "DEFAULT_ITERATIONS", "ROLLOUTS", "ActionStats", "ISMCTSBot"]

#: The iteration budget when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 400
#: The same on classic rules, whose iterations cost about half as much (108 cards, no
#: stacks); 400 there already clears the classic anchor (docs/ladder.md).
CLASSIC_ITERATIONS = 400


class ActionStats(NamedTuple):
    """One root action's search statistics (:meth:`ISMCTSBot.root_statistics`).

    ``mean`` is the action's mean reward for the searching seat: its estimated chance to win
    the hand after taking the action (0.0 when ``visits`` is 0).
    """

    action: Action
    visits: int
    mean: float


class _Node:
    """Statistics of one action in the tree, from the view of the seat that took it.

    Children are keyed by :func:`_edge`: the acting seat and the action's id (ids are
    relative to their seat, and the seat to act at a node may differ between deals).
    """

    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 0


class ISMCTSBot:
    """Information-set MCTS over sampled determinizations (see the module docstring).

    Args:
        seed: seeds the bot's private generator (determinizations and rollouts).
        iterations: search iterations per decision; ``None`` (the default) means
            :data:`DEFAULT_ITERATIONS` (:data:`CLASSIC_ITERATIONS` on classic rules)
            without a ``time_limit`` and no cap with one. A budget of iterations alone
            makes every decision deterministic for the seed.
        time_limit: seconds of search per decision (wall clock), or ``None``. With both
            budgets the search stops at whichever comes first. A timed search depends on
            the machine's speed, so it is not reproducible.
        exploration: the UCB1 constant ``c`` in ``mean + c * sqrt(ln(avail) / visits)``.
        rollout_depth: actions a rollout plays before the position is scored.
        rollout: the rollout policy, a name in :data:`ROLLOUTS`.
        variants: ``"one"``: each card is searched with one way to play it (the heuristic's
            colour, swap target and UNO call at the root, the rollout policy's below);
            ``"all"``: every legal variant is a separate branch.
        priors: the classic deal priors, a name in
            :data:`~nomercy.bots.determinize.PRIORS` (see
            :func:`~nomercy.bots.determinize.search_sampler`); No Mercy deals use none.
        max_time: a wall-clock cap in seconds per decision, only as a safety net.

    Raises:
        ValueError: an iteration count below 1 or not a whole number, a time limit that is
            not a positive finite number, a negative exploration constant or rollout depth,
            an unknown rollout policy, ``variants`` or ``priors`` value, or a ``max_time``
            that is not positive.

    >>> from nomercy import new_game
    >>> g = new_game(2, seed=4)
    >>> bot = ISMCTSBot(seed=1, iterations=20)
    >>> bot.choose_action(g.view(g.to_act), g.legal_actions()) in g.legal_actions()
    True
    """

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        exploration: float = 0.7,
        rollout_depth: int = 12,
        rollout: str = "heuristic",
        variants: str = "one",
        priors: str = "choices",
        max_time: float = 5.0,
    ) -> None:
        if iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
        ):
            raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
        if time_limit is not None and (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, int | float)
            or not 0 < time_limit < math.inf
        ):
            raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
        # Neither budget given: the default, which depends on the rules of each view.
        self._default_budget = iterations is None and time_limit is None
        if self._default_budget:
            iterations = DEFAULT_ITERATIONS
        if exploration < 0:
            raise ValueError(f"exploration must be non-negative, not {exploration}")
        if rollout_depth < 0:
            raise ValueError(f"rollout_depth must be non-negative, not {rollout_depth}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, not {rollout!r}")
        if variants not in ("one", "all"):
            raise ValueError(f"variants must be 'one' or 'all', not {variants!r}")
        if priors not in PRIORS:
            raise ValueError(f"priors must be one of {', '.join(PRIORS)}, not {priors!r}")
        if max_time <= 0:
            raise ValueError(f"max_time must be positive, not {max_time}")
        self.seed = seed
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.rollout_depth = rollout_depth
        self.rollout = rollout
        self.variants = variants
        self._one = variants == "one"
        self.priors = priors
        self.max_time = max_time
        self._policy = ROLLOUTS[rollout]
        self._rng = random.Random(seed)
        self._fallback = HeuristicBot(seed)
        #: Iterations run by the last search (0 when the decision was forced).
        self.last_iterations = 0
        self._last_root = _Node()
        self._last_n = 0  # seats of the last searched table (root edges: _edge)

    def __repr__(self) -> str:
        budget = f"iterations={self.iterations}"
        if self.time_limit is not None:
            budget += f", time_limit={self.time_limit}"
        return f"ISMCTSBot(seed={self.seed}, {budget})"

    # ------------------------------------------------------------------ protocol
    def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """Search from ``view`` and return the most visited legal action."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        self.last_iterations = 0
        urgent = self.choose_out_of_turn(view, [a for a in legal if not _is_jump(a)])
        if urgent is not None:
            return urgent
        candidates = self.search_candidates(legal, view)
        if len(candidates) == 1:
            return candidates[0]
        return self._search(view, candidates)

    def choose_out_of_turn(self, view: dict[str, Any], legal: list[Action]) -> Action | None:
        """Call UNO and catch like the heuristic bot (NM-37); jump in with a number (C04)."""
        return self._fallback.choose_out_of_turn(view, legal)

    def search_candidates(
        self, legal: list[Action], view: dict[str, Any] | None = None
    ) -> list[Action]:
        """The in-turn actions a search considers: no jump-ins, UNO calls or catches (the bot
        makes those without searching), a play that could call UNO only with the call (the
        one without is dominated), and with ``variants="one"`` and the seat's ``view`` one
        way to play each card (the heuristic's colour and target): what
        :meth:`choose_action` searches."""
        candidates = _prune([a for a in legal if not _is_jump(a) and not isinstance(a, CallUno)])
        if view is not None and self.variants == "one" and len(candidates) > 1:
            candidates = self._fallback.one_per_card(view, candidates)
        return candidates

    def root_statistics(self, view: dict[str, Any], candidates: list[Action]) -> list[ActionStats]:
        """Search from ``view`` (the seat to act) over ``candidates`` with this bot's budget
        and return each candidate's visits and mean reward at the root, in ``candidates``'
        order. ``choose_action`` would take the most visited (ties: the better mean).

        ``candidates`` must be in-turn actions legal for the view's seat now, e.g.
        :meth:`search_candidates` of its legal actions and the view. Used by the coach
        (:mod:`nomercy.tables.coach`) for its estimates.

        Raises:
            ValueError: no candidates.
        """
        if not candidates:
            raise ValueError("root_statistics needs at least one candidate action")
        self.last_iterations = 0
        self._search(view, candidates)
        root = self._last_root
        n = self._last_n
        out = []
        for action in candidates:
            child = root.children.get(_edge(action, n))
            if child is None or not child.visits:
                out.append(ActionStats(action, 0, 0.0))
            else:
                out.append(ActionStats(action, child.visits, child.reward / child.visits))
        return out

    # ------------------------------------------------------------------ search
    def _search(self, view: dict[str, Any], candidates: list[Action]) -> Action:
        rng = self._rng
        # The bot sees only the view: the games it searches are dealt from it, with the
        # priors of determinize.search_sampler (CL-8's honest Wild +4, classic wilds).
        sample = search_sampler(view, self.priors)
        root = self._last_root = _Node()  # kept for root_statistics
        budget = self.max_time if self.time_limit is None else min(self.max_time, self.time_limit)
        deadline = time.perf_counter() + budget
        c = self.exploration
        log = math.log
        sqrt = math.sqrt
        iterations = self.iterations if self.iterations is not None else 1 << 62
        if self._default_budget and rules_of(view).is_classic:
            iterations = CLASSIC_ITERATIONS
        clock = time.perf_counter
        one = self._one
        rollout = self._rollout
        mercy = 0  # the rules' constants for the rollouts (_rule_constants), read once
        zero = False
        n = 0
        root_ids: list[int] = []
        for iteration in range(iterations):
            if iteration and clock() > deadline:
                break
            game = sample(rng)
            game.record_events = False  # nobody reads a simulated game's events
            if not n:  # the root's candidates as ids, once (every deal has the view's seats)
                n = self._last_n = game.n
                root_ids = [action_id(a, n) for a in candidates]
                mercy, zero = _rule_constants(game)
            path: list[tuple[_Node, int]] = []
            node = root
            first = True
            while not game.is_over:
                # At the root the candidates are searched: no pruning to throw away.
                seat, actions = _decision(game, prune=not first, one=one)
                if seat < 0:
                    continue  # an automatic UNO call was applied
                if first:
                    actions = root_ids  # the determinization agrees with the view here
                    first = False
                children = node.children
                base = seat * NUM_IDS
                untried: list[int] = []
                kids: list[_Node] = []
                for a in actions:
                    child = children.get(base + a)
                    if child is None:
                        untried.append(a)
                    else:
                        child.avail += 1
                        kids.append(child)
                if untried:
                    action = untried[rng.randrange(len(untried))]
                    child = children[base + action] = _Node()
                    child.avail = 1
                    game.step(action, seat)
                    path.append((child, seat))
                    break
                best = -1.0
                action = actions[0]
                node = kids[0]
                for a, ch in zip(actions, kids, strict=True):
                    score = ch.reward / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                    if score > best:
                        best, action, node = score, a, ch
                game.step(action, seat)
                path.append((node, seat))
            rewards = rollout(game, rng, mercy, zero)
            for child, seat in path:
                child.visits += 1
                child.reward += rewards[seat]
            self.last_iterations = iteration + 1
        best_action = candidates[0]
        best_key = (-1, -1.0)
        for candidate in candidates:
            child = root.children.get(_edge(candidate, n))
            if child is None or not child.visits:
                continue
            key = (child.visits, child.reward / child.visits)
            if key > best_key:
                best_key, best_action = key, candidate
        return best_action

    def _rollout(self, game: Game, rng: random.Random, mercy: int, zero: bool) -> list[float]:
        """Play on with the rollout policy; the reward of each seat.

        :func:`_decision` without pruning, inlined: this loop is most of a search's time.
        The heuristic policy is called past its forced case (:func:`_policy_action`, also
        inlined) with the rules' constants read once per search (:func:`_rule_constants`).
        """
        steps = 0
        depth = self.rollout_depth
        policy = self._policy
        heuristic = policy is _policy_action
        step = game.step
        legal_ids = game.legal_ids
        cards_of = _ID_CARD
        while steps < depth and not game.is_over:
            seat = game.turn
            assert seat is not None
            hands = game.hands
            called = game.uno_called
            if len(hands[seat]) == 1 and not called[seat]:
                step(UNO_ID, seat)  # NM-37: the bots in a search always call
                continue
            legal = legal_ids(seat)
            window = game.uno_window
            if window and any(s != seat and not called[s] and len(hands[s]) == 1 for s in window):
                for s in window:
                    if s != seat and not called[s] and len(hands[s]) == 1:
                        step(UNO_ID, s)  # a seat that forgot to call calls now
                        break
                continue
            if not heuristic:
                step(policy(game, seat, legal, rng), seat)
            elif len(legal) == 1 and (legal[0] == DRAW_ID or cards_of[legal[0]] is not None):
                step(legal[0], seat)  # forced: a draw or one play
            else:
                step(_heuristic(game, seat, legal, rng, mercy, zero), seat)
            steps += 1
        return _rewards(game)


def _edge(action: Action, n: int) -> int:
    """The tree key of ``action`` at an ``n``-seat table: its seat and its id."""
    return action.seat * NUM_IDS + action_id(action, n)


# ---------------------------------------------------------------------- game helpers
# The search plays on the engine's id path (nomercy.core.ids): an action is an int relative
# to the seat taking it, decoded by these tables.
_ID_KIND = ID_KIND
_ID_CARD = ID_CARD
_ID_COLOUR = ID_COLOUR
_ID_REL = ID_REL
_ID_UNO = ID_UNO
_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
_K_DISCARD_ALL = Kind.DISCARD_ALL
_K_WILD_REVERSE_DRAW_FOUR = Kind.WILD_REVERSE_DRAW_FOUR
_K_SKIP = Kind.SKIP
_K_REVERSE = Kind.REVERSE
_K_SKIP_EVERYONE = Kind.SKIP_EVERYONE
_K_WILD_COLOUR_ROULETTE = Kind.WILD_COLOUR_ROULETTE
_K_WILD = Kind.WILD


def _is_jump(action: Action) -> bool:
    return isinstance(action, Play) and action.jump


def _prune(actions: list[Action]) -> list[Action]:
    """Drop catches and plays dominated by the same play with the UNO call (the root's
    action objects; :func:`_prune_ids` is the same rule on the ids of the search)."""
    with_uno = {(a.card, a.colour, a.target) for a in actions if isinstance(a, Play) and a.uno}
    out: list[Action] = []
    for a in actions:
        if isinstance(a, Catch):
            continue
        if isinstance(a, Play) and not a.uno and (a.card, a.colour, a.target) in with_uno:
            continue
        out.append(a)
    return out or list(actions)


def _prune_ids(legal: list[int]) -> list[int]:
    """:func:`_prune` on ids: a play's UNO-calling twin is its id + 1 (nomercy.core.ids)."""
    kinds = _ID_KIND
    uno = _ID_UNO
    calls: list[int] | None = None
    for a in legal:
        if uno[a]:
            calls = [a for a in legal if uno[a]]
            break
    if calls is None:
        for a in legal:
            if kinds[a] == K_CATCH:
                return [a for a in legal if kinds[a] != K_CATCH] or list(legal)
        return legal
    out: list[int] = []
    for a in legal:
        kind = kinds[a]
        if kind == K_CATCH:
            continue
        if kind == K_PLAY and not uno[a] and a + 1 in calls:
            continue
        out.append(a)
    return out or list(legal)


def _decision(game: Game, *, prune: bool = True, one: bool = False) -> tuple[int, list[int]]:
    """The seat to act and its searchable action ids; (-1, []) after an automatic UNO call."""
    seat = game.turn
    assert seat is not None
    hands = game.hands
    called = game.uno_called
    if len(hands[seat]) == 1 and not called[seat]:
        # The UNO call is legal exactly then (NM-37): call without reading the legal ids.
        game.step(UNO_ID, seat)
        return -1, []
    legal = game.legal_ids(seat)
    for s in game.uno_window:
        if s != seat and not called[s] and len(hands[s]) == 1:
            # A seat that forgot to call (only at the root of a determinization): it calls
            # now, as the bots in this search always do.
            game.step(UNO_ID, s)
            return -1, []
    if not prune:
        return seat, legal
    actions = _prune_ids(legal)
    return seat, _one_per_card(game, seat, actions) if one else actions


def _one_per_card(game: Game, seat: int, actions: list[int]) -> list[int]:
    """``actions`` with each card's plays cut to one (:func:`_variant`'s colour and target).

    A card's plays are adjacent in ``Game.legal_ids`` (each card once, then its variants;
    tests/bots/test_ismcts_bot.py checks it), so each run of one card's plays becomes the
    one chosen, in its place.
    """
    cards = _ID_CARD
    size = len(actions)
    i = 0
    out: list[int] = []
    fav: Colour | None = None  # the favourite colour, read once for all the wilds
    while i < size:
        a = actions[i]
        card = cards[a]
        j = i + 1
        if card is not None:  # a play: the run of its card's plays
            while j < size and cards[actions[j]] is card:
                j += 1
            if j - i > 1:
                hands = game.hands
                if card.is_wild:
                    if fav is None:
                        fav = _favourite(hands[seat])
                    a = _pick(hands, seat, game.n, actions[i:j], fav)
                else:
                    a = _pick(hands, seat, game.n, actions[i:j], None)
        out.append(a)
        i = j
    return out


def _favourite(hand: list[Card]) -> Colour:
    """The colour ``hand`` holds most (the first of COLOURS on a tie)."""
    colours = [card.colour for card in hand]
    best = COLOURS[0]
    most = colours.count(best)
    for colour in _OTHER_COLOURS:
        count = colours.count(colour)
        if count > most:
            best, most = colour, count
    return best


_OTHER_COLOURS = COLOURS[1:]


def _rollout_action(game: Game, seat: int, actions: list[int], rng: random.Random) -> int:
    """A fast greedy policy on the full game: stack, shed, favourite colour, small swaps."""
    cards_of = _ID_CARD
    plays = [a for a in actions if cards_of[a] is not None]  # a card: a play
    if not plays:
        kinds = _ID_KIND
        colours = [a for a in actions if kinds[a] == K_COLOUR]
        if colours:
            favourite = _favourite(game.hands[seat])
            return next((a for a in colours if _ID_COLOUR[a] is favourite), colours[0])
        for a in actions:
            if kinds[a] == K_DRAW:
                return a
        return actions[rng.randrange(len(actions))]
    # One card at random among the distinct playable cards, then a sensible variant.
    cards = list(dict.fromkeys([cards_of[a] for a in plays]))
    if len(cards) > 1 and game.n - sum(game.out) == 2:
        # NM-24: with two players a Wild Reverse +4 comes back to its own player.
        cards = [
            c for c in cards if c is not None and c.kind is not _K_WILD_REVERSE_DRAW_FOUR
        ] or cards
    card = cards[rng.randrange(len(cards))]
    return _variant(game, seat, [a for a in plays if cards_of[a] is card])


# How much a rollout player values keeping a Draw Card of each value for defence (the
# heuristic bot's _KEEP, in its "cards shed" units).
_ROLL_KEEP = {2: 15.0, 4: 25.0, 6: 40.0, 10: 55.0}

# What _heuristic reads of a played card, by action id (no Card attribute per play): the
# card's draw value, points / 25, colour, whether it is wild, the value of
# keeping it (_ROLL_KEEP, wilds 1.5x) and its kind for the scoring below (_C_*).
_C_OTHER, _C_DISCARD_ALL, _C_WRD4, _C_SKIP, _C_REVERSE, _C_SKIP_EVERYONE = range(6)
_C_ROULETTE, _C_WILD, _C_SEVEN, _C_ZERO = range(6, 10)
_KIND_CODE = {
    Kind.DISCARD_ALL: _C_DISCARD_ALL,
    Kind.WILD_REVERSE_DRAW_FOUR: _C_WRD4,
    Kind.SKIP: _C_SKIP,
    Kind.REVERSE: _C_REVERSE,
    Kind.SKIP_EVERYONE: _C_SKIP_EVERYONE,
    Kind.WILD_COLOUR_ROULETTE: _C_ROULETTE,
    Kind.WILD: _C_WILD,
}


def _card_code(card: Card | None) -> int:
    if card is None:
        return _C_OTHER
    if card.number == 7:
        return _C_SEVEN
    if card.number == 0:
        return _C_ZERO
    return _KIND_CODE.get(card.kind, _C_OTHER)


_P_VALUE = [0 if c is None else c.draw_value for c in ID_CARD]
_P_BASE = [0.0 if c is None else c.points / 25.0 for c in ID_CARD]
_P_COLOUR = [None if c is None else c.colour for c in ID_CARD]
_P_KEEP = [
    0.0 if c is None else _ROLL_KEEP.get(c.draw_value, 10.0) * (1.5 if c.is_wild else 1.0)
    for c in ID_CARD
]
_P_CODE = [_card_code(c) for c in ID_CARD]
_STACK_OR_ABSORB = Phase.STACK_OR_ABSORB
_PLAY = Phase.PLAY


def _policy_action(game: Game, seat: int, actions: list[int], rng: random.Random) -> int:
    """A cheap version of the heuristic bot on the determinized game (the default rollout).

    It reads the sampled game directly, so a rollout seat knows whether its victim holds an
    answer in this deal (a property of the sample, not of the real game). Per distinct card:
    shed many cards, keep Draw Cards for defence unless the victim cannot answer (two
    players: the attacker plays again), knock out when it can (NM-33), swap only for a
    smaller hand (NM-29, NM-31), avoid a self-targeted Wild Reverse +4 (NM-24), keep plain
    wilds for colour changes; facing a stack, answer with the smallest Draw Card (NM-18).
    """
    if len(actions) == 1 and (actions[0] == DRAW_ID or _ID_CARD[actions[0]] is not None):
        # Forced (a draw, one play): what the scoring below returns, without it. Anything
        # else alone goes to _rollout_action, which draws from ``rng`` for it.
        return actions[0]
    mercy, zero = _rule_constants(game)
    return _heuristic(game, seat, actions, rng, mercy, zero)


def _rule_constants(game: Game) -> tuple[int, bool]:
    """What :func:`_heuristic` reads of the rules: the Mercy limit (NM-33; huge when off) and
    whether a 0 passes the hands (NM-29, classic C04)."""
    rules = game.rules
    mercy = rules.mercy_threshold if rules.mercy_enabled else 1 << 20
    return mercy, not rules.is_classic or rules.classic_seven_zero


def _heuristic(
    game: Game, seat: int, actions: list[int], rng: random.Random, mercy: int, zero: bool
) -> int:
    """:func:`_policy_action` past its forced case, given :func:`_rule_constants`.

    It relies on the engine listing each card's plays together (``Game.legal_ids``: each
    card once, in hand order, then its variants), as tests/bots/test_ismcts_bot.py checks.
    """
    cards_of = _ID_CARD
    hands = game.hands
    hand = hands[seat]
    n = game.n
    out = game.out
    two = n - sum(out) == 2
    phase = game.phase
    stacking = phase is _STACK_OR_ABSORB
    # The next seat each way (Game.next_seat, inlined).
    d = game.direction
    nxt = (seat + d) % n
    while out[nxt]:
        nxt = (nxt + d) % n
    prev = (seat - d) % n
    while out[prev]:
        prev = (prev - d) % n
    pending = game.pending_total if stacking else 0
    best_card: Card | None = None
    best = -1e9
    last: Card | None = None
    first = -1  # the first play
    size = len(hand)
    colours: list[Colour | None] | None = None  # the hand's colours, read once when needed
    answers: dict[int, int] = {}  # a victim's highest Draw Card value (NM-18)
    for a in actions:
        card = cards_of[a]
        # Not a play (no card), or another variant of the card just scored.
        if card is None or card is last:
            continue
        if first < 0:
            first = a
        last = card
        code = _P_CODE[a]
        colour = _P_COLOUR[a]
        shed = 1
        if code == _C_DISCARD_ALL and phase is _PLAY:
            if colours is None:
                colours = [c.colour for c in hand]
            shed = colours.count(colour)
        rest = size - shed
        if rest <= 0:
            return _variant(game, seat, [v for v in actions if cards_of[v] is card])
        value = _P_VALUE[a]
        if stacking:
            if not value:
                score = 0.5  # A07: a Skip or Reverse deflects without a Draw Card's cost
            elif code == _C_WRD4 and two:
                score = -1.0 - value if _follows(hand, card) else -1e6
            else:
                victim = prev if code == _C_WRD4 else nxt
                score = -float(value)  # answer with the smallest Draw Card
                if pending + value >= mercy - len(hands[victim]):
                    score += 100.0
            if score > best:
                best, best_card = score, card
            continue
        score = 10.0 * shed + _P_BASE[a]
        if colour is not None:
            if colours is None:
                colours = [c.colour for c in hand]
            score += 2.0 * colours.count(colour)
        if value:
            keep = _P_KEEP[a]
            if code == _C_WRD4 and two:
                score += -keep + (2.0 if _follows(hand, card) else -40.0)
            else:
                victim = prev if code == _C_WRD4 else nxt
                vsize = len(hands[victim])
                if value >= mercy - vsize:
                    score += 100.0
                else:
                    top = answers.get(victim)
                    if top is None:
                        top = 0
                        for c in hands[victim]:
                            if c.draw_value > top:
                                top = c.draw_value
                        answers[victim] = top
                    if top < value:  # the victim holds no Draw Card of at least this value
                        threat = (8 - vsize) / 7 if vsize < 8 else 0.0
                        score += value + (10.0 if two else 0.0) + 12.0 * threat
                score -= keep
        elif code == _C_SKIP or code == _C_REVERSE or code == _C_SKIP_EVERYONE:
            if two or code == _C_SKIP_EVERYONE:
                assert card is not None
                kind = card.kind
                again = False
                for c in hand:
                    if c is not card and (c.is_wild or c.colour is colour or c.kind is kind):
                        again = True
                        break
                score += 6.0 if again else 1.0
            elif code == _C_SKIP:
                vsize = len(hands[nxt])
                score += 6.0 * ((8 - vsize) / 7 if vsize < 8 else 0.0)
        elif code == _C_ROULETTE:
            vsize = len(hands[nxt])
            score += (14.0 if two else 4.0) + 12.0 * ((8 - vsize) / 7 if vsize < 8 else 0.0) - 6.0
        elif code == _C_WILD:
            score -= 8.0
        elif code == _C_SEVEN:
            if _ID_REL[a]:
                rels = _ID_REL
                smallest = 1 << 20
                for v in actions:
                    if cards_of[v] is card and rels[v]:
                        other = len(hands[(seat + rels[v]) % n])
                        if other < smallest:
                            smallest = other
                score += 10.0 * (rest - smallest)
        elif code == _C_ZERO and zero:
            score += 10.0 * (rest - len(hands[prev]))
        if score > best:
            best, best_card = score, card
    if first < 0:
        return _rollout_action(game, seat, actions, rng)  # no play
    if best_card is None or (stacking and best <= -1e5):
        for other in actions:  # stacking with nothing worth it: take the penalty
            if other == DRAW_ID:
                return other
        if best_card is None:
            return first
    if phase is not _PLAY and best < -1.0:
        for other in actions:
            if other == PASS_ID:
                return other  # NM-9: keep a drawn card not worth playing
    return _variant(game, seat, [v for v in actions if cards_of[v] is best_card])


def _follows(hand: list[Card], card: Card) -> bool:
    """Whether ``hand`` holds another Draw Card of 4 or more than ``card`` (NM-24: with two
    players a Wild Reverse +4 comes back, and its player must follow it up)."""
    for c in hand:  # noqa: SIM110 (a loop: no generator per call)
        if c.draw_value >= 4 and c is not card:
            return True
    return False


def _threat(size: int) -> float:
    """How close a hand of ``size`` cards is to emptying: 0 (far) to 1 (one card)."""
    return max(0.0, (8 - size) / 7)


def _variant(game: Game, seat: int, variants: list[int]) -> int:
    """Among plays of one card: the favourite colour of the rest, the smallest hand, UNO."""
    if len(variants) == 1:
        return variants[0]
    card = _ID_CARD[variants[0]]
    assert card is not None
    hands = game.hands
    # A wild has no colour, so the favourite of the rest of the hand is the hand's.
    fav = _favourite(hands[seat]) if card.is_wild else None
    return _pick(hands, seat, game.n, variants, fav)


def _pick(
    hands: list[list[Card]], seat: int, n: int, variants: list[int], fav: Colour | None
) -> int:
    """:func:`_variant` given the favourite colour (``None`` for a coloured card).

    Ranked by the tuple (names ``fav``, minus the target's hand size, calls UNO), packed
    into one int: ``1024 * names_fav - 2 * size + uno`` (a hand holds fewer than 256 cards).
    """
    colours = _ID_COLOUR
    rels = _ID_REL
    unos = _ID_UNO
    best = variants[0]
    best_key = -(1 << 30)
    for a in variants:
        rel = rels[a]
        key = (1024 if colours[a] is fav else 0) + unos[a]
        if rel:
            key -= 2 * len(hands[(seat + rel) % n])
        if key > best_key:
            best_key, best = key, a
    return best


#: Rollout policies by name, on the id path: ``policy(game, seat, ids, rng)`` returns one of
#: ``ids`` (``game.legal_ids(seat)``): ``heuristic`` (:func:`_policy_action`, the default)
#: and ``greedy`` (:func:`_rollout_action`, a random playable card with a sensible variant).
ROLLOUTS: dict[str, Callable[[Game, int, list[int], random.Random], int]] = {
    "heuristic": _policy_action,
    "greedy": _rollout_action,
}


def _rewards(game: Game) -> list[float]:
    """1 to the winner, 0 to the others; an unfinished game is scored by hand strength."""
    n = game.n
    if game.is_over:
        winner = game.winner if game.winner is not None else game.hand_winner
        return [1.0 if s == winner else 0.0 for s in range(n)]
    rules = game.rules
    mercy = rules.mercy_enabled
    threshold = rules.mercy_threshold
    exp = math.exp
    out = game.out
    hands = game.hands
    strengths = [0.0] * n
    for s in range(n):
        if out[s]:
            continue
        size = len(hands[s])
        value = -0.35 * size
        if mercy:
            distance = threshold - size
            value -= 3.0 / (distance if distance > 1 else 1)
        strengths[s] = exp(value)
    total = sum(strengths)
    return [x / total for x in strengths]
