"""ISMCTS: single-observer information-set Monte Carlo tree search (Cowling et al. 2012).

One tree is grown over the searching seat's information set. Each iteration:

1. **Determinize**: deal the cards this seat has not seen into the places it cannot see,
   consistently with its view. Once per decision the bot builds a game from its view alone
   (:meth:`Game.from_view <nomercy.core.game.Game.from_view>`) and its seat's
   :class:`~nomercy.core.redeal.Redealer`; each iteration then takes
   ``redealer.sample_for_search(rng)``, a real :class:`~nomercy.core.game.Game` (a copy of
   the view's game with the unseen cards re-dealt and events off, see
   :mod:`nomercy.core.redeal`). On classic rules the deals read a turn's draw as forced
   (:func:`~nomercy.bots.knowledge.view_gaps`),
   and when the seat may challenge a Wild +4 (CL-8) a share
   :data:`~nomercy.bots.determinize.HONEST_WD4` of them deal the accused an honest hand.
2. **Select**: walk down the tree through the actions that are legal in this determinization,
   picking by UCB1 with availability counts (a child's exploration term uses how often it was
   *available*, not its parent's visits). Every seat's decisions are tree nodes; each node's
   statistics are from the point of view of the seat that chose the action leading to it.
3. **Expand** one untried legal action.
4. **Roll out** with a cheap version of the heuristic bot that acts on the determinized game
   directly (``rollout="heuristic"``, :func:`~nomercy.bots.playouts.heuristic_action`: shed
   many cards, keep Draw Cards for defence unless the victim holds no answer in this deal,
   knock out when it can, swap only for a smaller hand, answer a stack with the smallest
   Draw Card), or with
   the older greedy policy (``rollout="greedy"``: a random playable card), up to
   ``rollout_depth`` actions; an unfinished game is scored by hand sizes and Mercy
   distances (a softmax over a per-seat strength).
5. **Back-propagate** the result: 1 to the winner of the hand, 0 to the others (a seat
   knocked out by the Mercy rule, NM-33, has lost).

Below the root the search runs on the engine's id path (:mod:`nomercy.core.ids`): tree edges
are keyed by the acting seat and the action's id (:func:`_edge`), determinized games are
stepped with ``Game.step(id, seat)`` with events off, and the rollout policies
(:data:`ROLLOUTS`) choose among ``Game.legal_ids(seat)``; no action or event object is built
there. The rollouts and the tree's pruning run in :mod:`nomercy.bots.playouts`, compiled with
the engine. The search draws from its generator exactly as it did on action objects, so a
seed makes the same choices.

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
from typing import NamedTuple

from nomercy.bots.determinize import PRIORS, search_sampler
from nomercy.bots.heuristic_bot import HeuristicBot
from nomercy.bots.playouts import (
    decision,
    greedy_action,
    heuristic_action,
    playout,
    rule_constants,
)
from nomercy.core.actions import Action, CallUno, Catch, Play
from nomercy.core.dealing import randbelow
from nomercy.core.game import Game
from nomercy.core.ids import NUM_IDS, action_id
from nomercy.core.views import PlayerView

__all__ = [
    "CLASSIC_ITERATIONS",
    "DEFAULT_ITERATIONS",
    "ROLLOUTS",
    "SAFETY_TIME",
    "ActionStats",
    "ISMCTSBot",
]

#: The wall-clock cap per decision when ``max_time`` is not given: a safety net against a
#: runaway search, never the budget (the test suite raises it, so that a loaded machine cannot
#: cut a search of fixed iterations short and change its choice).
SAFETY_TIME = 5.0

#: The iteration budget when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 400
#: The same on classic rules, where 400 already clears the classic anchor (docs/ladder.md);
#: a classic iteration costs more than a No Mercy one with the deal priors (six deals).
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
        max_time: a wall-clock cap in seconds per decision, only as a safety net
            (``None``: :data:`SAFETY_TIME`).

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
        max_time: float | None = None,
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
        if max_time is None:
            max_time = SAFETY_TIME
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
        self._heuristic = rollout == "heuristic"
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
    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
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

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        """Call UNO and catch like the heuristic bot (NM-37); jump in with a number (C04)."""
        return self._fallback.choose_out_of_turn(view, legal)

    def search_candidates(
        self, legal: list[Action], view: PlayerView | None = None
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

    def root_statistics(self, view: PlayerView, candidates: list[Action]) -> list[ActionStats]:
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

    def root_visits(self) -> dict[int, tuple[int, float]]:
        """The last search's root actions by the seat's own action id (:mod:`nomercy.core.ids`)
        with their visits and mean reward; empty when the last decision was not searched.
        Self-play training reads these as targets (:mod:`nomercy.rl.puct_data`)."""
        if not self.last_iterations:
            return {}
        return {
            key % NUM_IDS: (child.visits, child.reward / child.visits if child.visits else 0.0)
            for key, child in self._last_root.children.items()
        }

    # ------------------------------------------------------------------ search
    def _search(self, view: PlayerView, candidates: list[Action]) -> Action:
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
        if self._default_budget and view.rules.is_classic:
            iterations = CLASSIC_ITERATIONS
        clock = time.perf_counter
        one = self._one
        rollout = self._rollout
        mercy = 0  # the rules' constants for the rollouts (playout.rule_constants), read once
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
                mercy, zero = rule_constants(game)
            path: list[tuple[_Node, int]] = []
            node = root
            first = True
            while not game.is_over:
                # At the root the candidates are searched: no pruning to throw away.
                seat, actions = decision(game, not first, one)
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
                    action = untried[randbelow(rng, len(untried))]
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
        return most_visited(root, candidates, n)

    def _rollout(self, game: Game, rng: random.Random, mercy: int, zero: bool) -> list[float]:
        """Play on with the rollout policy (:func:`~nomercy.bots.playouts.playout`); the
        reward of each seat."""
        return playout(game, rng, self.rollout_depth, self._heuristic, mercy, zero)


def most_visited(root: _Node, candidates: list[Action], n: int) -> Action:
    """The candidate whose root child has the most visits (ties: the better mean reward,
    then the first); the first candidate when none was visited."""
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


def _edge(action: Action, n: int) -> int:
    """The tree key of ``action`` at an ``n``-seat table: its seat and its id."""
    return action.seat * NUM_IDS + action_id(action, n)


# ---------------------------------------------------------------------- game helpers
def _is_jump(action: Action) -> bool:
    return isinstance(action, Play) and action.jump


def _prune(actions: list[Action]) -> list[Action]:
    """Drop catches and plays dominated by the same play with the UNO call (the root's
    action objects; :func:`~nomercy.bots.playouts.prune_ids` is the same rule on the ids of
    the search)."""
    with_uno = {(a.card, a.colour, a.target) for a in actions if isinstance(a, Play) and a.uno}
    out: list[Action] = []
    for a in actions:
        if isinstance(a, Catch):
            continue
        if isinstance(a, Play) and not a.uno and (a.card, a.colour, a.target) in with_uno:
            continue
        out.append(a)
    return out or list(actions)


#: Rollout policies by name, on the id path: ``policy(game, seat, ids, rng)`` returns one of
#: ``ids`` (``game.legal_ids(seat)``): ``heuristic``
#: (:func:`~nomercy.bots.playouts.heuristic_action`, the default) and ``greedy``
#: (:func:`~nomercy.bots.playouts.greedy_action`, a random playable card with a sensible
#: variant). Both live in the compiled core (:mod:`nomercy.bots.playouts`).
ROLLOUTS: dict[str, Callable[[Game, int, list[int], random.Random], int]] = {
    "heuristic": heuristic_action,
    "greedy": greedy_action,
}
