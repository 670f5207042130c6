"""``puct``: information-set search guided by a policy-value network (docs/puct.md).

The search is ``ismcts``'s (:mod:`nomercy.bots.ismcts_bot`): one tree over the searching
seat's information set, a fresh determinization of the unseen cards per iteration
(:func:`~nomercy.bots.determinize.search_sampler`), tree edges keyed by seat and action id,
the same candidates at the root and the same pruning below it, all on the engine's id path.
What changes is how the tree grows, as in AlphaZero:

- **Leaves are evaluated by the network** (:mod:`nomercy.bots.pvnet`) instead of being
  rolled out: the seat to act at the leaf observes the determinized game from its own seat
  only (:class:`~nomercy.encoding.fast.TableObserver`: its hand and the public facts, the
  same vector the network was trained on), and the value head's chances for every seat are
  backed up. ``rollout_mix`` blends in a heuristic rollout from the leaf (0: none).
- **Selection is PUCT**: ``Q + c_puct * P * sqrt(N) / (1 + n)``, with ``P`` the policy
  head's prior of the action at the node (computed once, from the first deal that reached
  it; an action that deal could not take gets the uniform prior), ``N`` the node's visits,
  ``n`` the child's, and an unvisited child valued at the node's own network value.

The most visited root action is played, as by ``ismcts``; UNO calls, catches and jump-ins
are the heuristic's, as there. The budget is a number of iterations (deterministic for a
seed), a time, or both.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from nomercy.bots.determinize import search_sampler
from nomercy.bots.inference import Evidence, PlayReader, deal_weights
from nomercy.bots.ismcts_bot import ISMCTSBot, _Node, most_visited
from nomercy.bots.neural_features import OBS_SIZE, FeatureEncoder
from nomercy.bots.playouts import decision, playout, rewards, rule_constants
from nomercy.bots.pvnet import PVNet, load_pvnet
from nomercy.core.actions import Action
from nomercy.core.game import Game
from nomercy.core.ids import NUM_IDS, action_id
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView
from nomercy.encoding.fast import TableObserver

__all__ = ["DEFAULT_ITERATIONS", "PUCTBot", "PolicyNetBot"]

#: The iteration budget when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 250


class _PNode(_Node):
    """A tree node with the network's priors of its actions and its value for the seat to
    act (the first-play urgency of its unvisited children)."""

    __slots__ = ("fpu", "priors")

    def __init__(self) -> None:
        super().__init__()
        self.priors: dict[int, float] | None = None
        self.fpu = 0.0


class PUCTBot(ISMCTSBot):
    """ISMCTS with a policy-value network's priors and leaf values (module docstring).

    Args:
        seed: seeds the bot's generator (deals and rollouts).
        iterations: search iterations per decision (default :data:`DEFAULT_ITERATIONS`
            without a ``time_limit``).
        time_limit: seconds of search per decision, or ``None``.
        c_puct: the exploration constant.
        rollout_mix: the weight of a heuristic rollout in a leaf's value (0 to 1).
        rollout_depth: the rollout's length when ``rollout_mix`` is above 0.
        weights: a weights file or a :class:`~nomercy.bots.pvnet.PVNet`; ``None`` loads the
            shipped ``puct.npz``.
        max_time: a wall-clock cap per decision, only as a safety net (``None``: the search
            bot's ``SAFETY_TIME``).
        infer: deals weighed per decision by the opponents' decisions
            (:mod:`nomercy.bots.inference`); the search draws its deals from them by
            weight. 0: no inference, every iteration a fresh deal.
        prior_temp: the priors' temperature (each to the power ``1 / prior_temp``,
            renormalised): above 1 flatter, below 1 sharper.
        fpu_reduction: taken off a node's network value for its unvisited children.

    Raises:
        ValueError: a budget, constant or weight out of range (as :class:`ISMCTSBot`), a
            negative ``c_puct``, a ``rollout_mix`` outside 0-1, a ``prior_temp`` not above 0
            or a negative ``infer``.
    """

    name = "puct"

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        c_puct: float = 1.5,
        rollout_mix: float = 0.0,
        rollout_depth: int = 12,
        weights: str | Path | PVNet | None = None,
        max_time: float | None = None,
        infer: int = 0,
        prior_temp: float = 1.0,
        fpu_reduction: float = 0.0,
    ) -> None:
        if iterations is None and time_limit is None:
            iterations = DEFAULT_ITERATIONS
        super().__init__(
            seed,
            iterations=iterations,
            time_limit=time_limit,
            rollout_depth=rollout_depth,
            max_time=max_time,
        )
        if not c_puct >= 0:
            raise ValueError(f"c_puct must be non-negative, not {c_puct}")
        if not 0.0 <= rollout_mix <= 1.0:
            raise ValueError(f"rollout_mix must be between 0 and 1, not {rollout_mix}")
        if not prior_temp > 0:
            raise ValueError(f"prior_temp must be positive, not {prior_temp}")
        self.prior_temp = prior_temp
        self.fpu_reduction = fpu_reduction
        if isinstance(infer, bool) or not isinstance(infer, int) or infer < 0:
            raise ValueError(f"infer must be a whole number of at least 0, not {infer!r}")
        self.c_puct = c_puct
        self.rollout_mix = rollout_mix
        self.infer = infer
        self._reader = PlayReader()
        self._evidence: list[Evidence] = []
        self.net = weights if isinstance(weights, PVNet) else load_pvnet(weights)
        self._observers: dict[tuple[RuleSet, int], tuple[TableObserver, np.ndarray]] = {}

    def __repr__(self) -> str:
        budget = f"iterations={self.iterations}"
        if self.time_limit is not None:
            budget += f", time_limit={self.time_limit}"
        return f"PUCTBot(seed={self.seed}, {budget})"

    def _weighed(
        self, view: PlayerView, sample: Callable[[random.Random], Game]
    ) -> Callable[[random.Random], Game]:
        """``infer`` deals of ``sample``, drawn again by their weight under the evidence."""
        rng = self._rng
        deals = [sample(rng) for _ in range(self.infer)]
        observer, scale = self._observer(view.rules, len(view.players))
        buffer = np.empty(OBS_SIZE, dtype=np.float32)
        weights = deal_weights(deals, self._evidence, self.net, observer, scale, buffer)
        cumulative = list(itertools.accumulate(weights))
        total = cumulative[-1]
        last = len(deals) - 1

        def weighed(rng: random.Random) -> Game:
            at = bisect.bisect_right(cumulative, rng.random() * total)
            return deals[min(at, last)].search_copy()

        return weighed

    def _observer(self, rules: RuleSet, n: int) -> tuple[TableObserver, np.ndarray]:
        key = (rules, n)
        found = self._observers.get(key)
        if found is None:
            # Never started: its colour-gap flags stay 0, as in the network's input.
            found = self._observers[key] = (TableObserver(rules, n), FeatureEncoder(rules, n).scale)
        return found

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """As :meth:`ISMCTSBot.choose_action`, reading the opponents' decisions first when
        ``infer`` is on."""
        if not self.infer:
            return super().choose_action(view, legal)
        self._evidence = self._reader.read(view)
        action = super().choose_action(view, legal)
        self._reader.acted(view, action)
        self._evidence = []  # root_statistics (the coach) searches without it
        return action

    def _search(self, view: PlayerView, candidates: list[Action]) -> Action:  # noqa: PLR0915 (measured in tests/test_complexity.py)
        rng = self._rng
        sample = search_sampler(view, self.priors)
        if self._evidence:
            sample = self._weighed(view, sample)
        root = _PNode()
        self._last_root = root  # kept for root_statistics
        budget = self.max_time if self.time_limit is None else min(self.max_time, self.time_limit)
        deadline = time.perf_counter() + budget
        iterations = self.iterations if self.iterations is not None else 1 << 62
        clock = time.perf_counter
        c = self.c_puct
        sharpen = 1.0 / self.prior_temp
        reduction = self.fpu_reduction
        mix = self.rollout_mix
        depth = self.rollout_depth
        net = self.net
        evaluate = net.evaluate
        sqrt = math.sqrt
        one = self._one
        buffer = np.empty(OBS_SIZE, dtype=np.float32)
        out = buffer.data
        n = 0
        mercy, zero = 0, False
        root_ids: list[int] = []
        observer: TableObserver | None = None
        scale = buffer  # the observer's scale, set with it
        for iteration in range(iterations):
            if iteration and clock() > deadline:
                break
            game = sample(rng)
            game.record_events = False
            if not n:
                n = self._last_n = game.n
                root_ids = [action_id(a, n) for a in candidates]
                mercy, zero = rule_constants(game)
                observer, scale = self._observer(game.rules, n)
            assert observer is not None
            path: list[tuple[_PNode, int]] = []
            node = root
            first = True
            while True:
                if game.is_over:
                    values = rewards(game)
                    break
                seat, actions = decision(game, not first, one)
                if seat < 0:
                    continue  # an automatic UNO call was applied
                if first:
                    actions = root_ids
                    first = False
                base = seat * NUM_IDS
                priors = node.priors
                if priors is None:
                    # A leaf: the network reads the seat's own observation of this deal.
                    observer.write(game, seat, out)
                    buffer *= scale
                    ps, wins = evaluate(buffer, actions, n)
                    if sharpen != 1.0:
                        ps = [p**sharpen for p in ps]
                        mass = sum(ps)
                        ps = [p / mass for p in ps]
                    node.priors = dict(zip([base + a for a in actions], ps, strict=True))
                    node.fpu = wins[0] - reduction
                    # A knocked-out seat cannot win the hand (NM-33): its value is 0, whatever
                    # the network reads into its observation.
                    gone = game.out
                    values = [0.0 if gone[s] else wins[(s - seat) % n] for s in range(n)]
                    if mix:
                        rolled = playout(game, rng, depth, True, mercy, zero)
                        values = [
                            (1 - mix) * v + mix * r for v, r in zip(values, rolled, strict=True)
                        ]
                    break
                children = node.children
                uniform = 1.0 / len(actions)
                scale_u = c * sqrt(node.visits + 1)
                fpu = node.fpu
                best = -1e9
                action = actions[0]
                for a in actions:
                    k = base + a
                    child = children.get(k)
                    prior = priors.get(k, uniform)
                    if child is None or not child.visits:
                        score = fpu + scale_u * prior
                    else:
                        score = child.reward / child.visits + scale_u * prior / (1 + child.visits)
                    if score > best:
                        best, action = score, a
                key = base + action
                nxt = children.get(key)
                if nxt is None:
                    nxt = children[key] = _PNode()
                game.step(action, seat)
                path.append((nxt, seat))  # type: ignore[arg-type]
                node = nxt  # type: ignore[assignment]
            root.visits += 1
            for child, seat in path:
                child.visits += 1
                child.reward += values[seat]
            self.last_iterations = iteration + 1
        return most_visited(root, candidates, n)


class PolicyNetBot(ISMCTSBot):
    """``neural``: the network's policy alone, without search, the fast bot for RL opponents
    and phones (it replaced the masked-PPO policy, now ``neural-ppo``, by beating it; issue 29).

    It considers the actions ``puct`` searches at its root (:meth:`search_candidates`: one
    way to play each card, the UNO call with the play) and plays the one with the largest
    prior; UNO calls, catches and jump-ins are the heuristic's (as ``ismcts``'s).
    Deterministic: the seed changes nothing.

    Args:
        seed: kept for the bot protocol.
        weights: a weights file or a :class:`~nomercy.bots.pvnet.PVNet`; ``None`` loads the
            shipped ``puct.npz``.
    """

    name = "neural"

    def __init__(self, seed: int = 0, *, weights: str | Path | PVNet | None = None) -> None:
        super().__init__(seed, iterations=1)
        self.net = weights if isinstance(weights, PVNet) else load_pvnet(weights)
        self._encoders: dict[tuple[RuleSet, int], FeatureEncoder] = {}

    def __repr__(self) -> str:
        return f"PolicyNetBot(seed={self.seed})"

    def _search(self, view: PlayerView, candidates: list[Action]) -> Action:
        n = len(view.players)
        key = (view.rules, n)
        encoder = self._encoders.get(key)
        if encoder is None:
            encoder = self._encoders[key] = FeatureEncoder(*key)
        ids = [action_id(a, n) for a in candidates]
        priors, _ = self.net.evaluate(encoder.encode(view), ids, n)
        self.last_iterations = 1  # one evaluation: a decision, not a forced move
        best = max(range(len(ids)), key=priors.__getitem__)  # the first on a tie
        return candidates[best]
