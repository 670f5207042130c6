"""One learner's table: the single-table API that ``NoMercy-v0`` and its vector env play.

:class:`LearnerTable` holds a game with one learning seat and bots from the registry in the
others: :meth:`~LearnerTable.reset` deals (and lets the bots play up to the learner's first
decision), :meth:`~LearnerTable.step` plays the learner's id and the bots' replies and writes
the learner's observation and mask into the caller's buffers (a row of a batch, or the single
env's own), returning the reward and the episode's flags. :class:`nomercy.rl.NoMercyEnv` is
one table with Gymnasium's API around it; :class:`nomercy.rl.vector_env.NoMercyVectorEnv`
steps many, the tables whose opponents all pick at random in one compiled call
(:func:`nomercy.encoding.fast.advance_tables`) and the others through :meth:`step`, so both
play the same games for the same seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.utils import seeding

from nomercy.bots.base import Bot, OutOfTurnBot
from nomercy.bots.driver import view_mode
from nomercy.bots.random_bot import RandomBot
from nomercy.bots.registry import make_bot
from nomercy.core.actions import Action
from nomercy.core.dealing import DEAL_VERSION
from nomercy.core.game import Game, new_game
from nomercy.core.ids import ID_KIND, K_CATCH, K_UNO
from nomercy.encoding.actions import PASS_ID
from nomercy.encoding.fast import LearnerCore, TableObserver
from nomercy.encoding.observations import ObservationEncoder
from nomercy.rl._common import (
    IllegalActionIdError,
    as_int,
    check_env_deal_version,
    check_illegal_mode,
    check_illegal_reward,
    check_learner_seat,
    check_max_steps,
    check_out_of_turn,
    check_reward,
    draw_game_seed,
    end_rewards,
    explain_illegal,
    hand_rewards,
    make_ruleset,
    mask_of_ids,
    next_decider,
    outcome_info,
)

__all__ = ["LearnerTable", "Step"]

#: What :meth:`LearnerTable.step` returns: ``(reward, terminated, truncated, why)``, ``why``
#: the reason an illegal id was refused in ``"penalize"`` mode (else ``None``).
Step = tuple[float, bool, bool, str | None]


class LearnerTable:
    """One learner against ``len(opponents)`` bots (2-6 seats in all): the arguments are
    :class:`nomercy.rl.NoMercyEnv`'s that concern the game (``opponents``, ``preset``,
    ``options``, ``learner_seat``, ``illegal_action``, ``illegal_reward``, ``max_steps``,
    ``out_of_turn``, ``reward``, ``points_scale``, ``knockout_bonus``, ``deal_version``),
    checked here.

    The learner's observation is the raw vector (:data:`~nomercy.encoding.OBS_SIZE` float32
    entries, unscaled) and its mask an ``int8`` row of ``NUM_ACTIONS`` entries, both written
    into buffers the caller owns (``memoryview`` s: ``batch[i].data``, or cheaper to write,
    :func:`~nomercy.encoding.fast.int32_view` of an observation row and
    :func:`~nomercy.encoding.fast.mask_view` of a mask row). :attr:`game`
    runs with ``record_events`` off unless a bot reads the history or per-hand rewards need
    the events (docs/rl.md, "Speed").
    """

    def __init__(
        self,
        opponents: Sequence[str] = ("random",),
        *,
        preset: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        learner_seat: int | None = 0,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        max_steps: int | None = None,
        out_of_turn: str = "to_act",
        reward: str = "win_loss",
        points_scale: float = 100.0,
        knockout_bonus: float = 0.0,
        deal_version: int = DEAL_VERSION,
    ) -> None:
        #: The deal version of every game this table deals (docs/notation.md, "Deal
        #: versions"), checked before anything else is built.
        self.deal_version = check_env_deal_version(deal_version)
        self.reward = check_reward(reward, points_scale, knockout_bonus)
        self.points_scale = float(points_scale)
        self.knockout_bonus = float(knockout_bonus)
        if isinstance(opponents, str):
            opponents = [opponents]
        self.opponents = list(opponents)
        n = len(self.opponents) + 1
        self.rules = make_ruleset(preset, options, n)
        # Fail now on an unknown name (the error lists the valid ones). Bots that read the
        # history need the engine's events (the log); the others play on the fast path.
        probes = [make_bot(name) for name in self.opponents]
        full_view = any(view_mode(bot) == "full" for bot in probes)
        all_random = all(type(bot) is RandomBot for bot in probes)
        self.n = n
        self.learner_seat = check_learner_seat(learner_seat, n)
        self.illegal_action = check_illegal_mode(illegal_action)
        self.illegal_reward = check_illegal_reward(illegal_reward)
        self.max_steps = check_max_steps(max_steps)
        self.out_of_turn = check_out_of_turn(out_of_turn)
        #: The encoder whose layout, bounds and spaces the observations follow.
        self.encoder = ObservationEncoder(self.rules, n)
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self._declined: set[int] = set()
        self._bots: dict[int, Bot] = {}
        self._random: dict[int, bool] = {}  # seat -> a RandomBot (it picks among ids)
        self._pool: list[RandomBot] = []  # a fast table's opponents, re-seeded per episode
        self._seated: list[int] = []  # the seats of _pool's bots (in _bots, core.choosers)
        self._history = full_view
        self._offered = False  # the learner's decision is an offered out-of-turn one
        self._per_hand = self.reward == "points" and self.rules.scoring_enabled
        self._hand_reward = 0.0  # the learner's per-hand points since its last step
        self.observer = TableObserver(self.rules, n, events=self._per_hand or full_view)
        #: The compiled state and step (:class:`~nomercy.encoding.fast.LearnerCore`).
        self.core = core = LearnerCore(self.observer)
        core.max_steps = self.max_steps or 0
        # Its step plays tables whose bots all pick among ids, one seat acting at a time.
        self._fast = all_random and self.out_of_turn == "to_act" and not self._per_hand

    # ------------------------------------------------------------------ state
    @property
    def game(self) -> Game | None:
        """The game (``None`` before the first :meth:`reset`)."""
        return self.core.game

    @property
    def seat(self) -> int:
        """The learner's seat in this episode."""
        return self.core.seat

    @property
    def legal(self) -> list[int]:
        """The learner's legal ids now (empty once the episode is over); on an offered
        out-of-turn decision ``PASS_ID`` lets the chance go."""
        return self.core.legal

    @property
    def bots(self) -> dict[int, Bot]:
        """The bots of this episode by seat (each seeded from :attr:`np_random`). A table
        whose opponents are all ``random`` keeps its :class:`RandomBot` s from one episode
        to the next, reseeded (:meth:`RandomBot.reseed`); other bots are made anew."""
        return self._bots

    @property
    def game_steps(self) -> int:
        """The game's steps this episode (every seat's)."""
        return self.core.game_steps

    def require_game(self) -> Game:
        """The game, or a clear error before the first :meth:`reset`."""
        game = self.core.game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return game

    # ------------------------------------------------------------------ playing
    def reset(self, seed: int | None = None) -> None:
        """Deal a new game and let the bots play until the learner is to act.

        ``seed`` seeds the table's generator (:attr:`np_random`, as Gymnasium's
        ``Env.reset`` does); ``None`` goes on with it (a fresh one the first time). The
        learner's seat (if drawn), the bots' seeds and the game's seed come from it, in
        that order, so a seed always deals the same episode (under :attr:`deal_version`)."""
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        rng = self.np_random
        core = self.core
        n = self.n
        while True:
            seat = self.learner_seat if self.learner_seat is not None else int(rng.integers(0, n))
            core.seat = seat
            others = [s for s in range(n) if s != seat]
            if self._fast:
                self._reseed_random_bots(others, rng)
            else:
                self._bots = {
                    s: make_bot(name, seed=int(rng.integers(0, 2**31)))
                    for s, name in zip(others, self.opponents, strict=True)
                }
                self._random = {s: type(bot) is RandomBot for s, bot in self._bots.items()}
                core.choosers = [None] * n
            game = new_game(
                n,
                rules=self.rules,
                seed=draw_game_seed(rng),
                deal_version=self.deal_version,
            )
            self._declined = set()
            if self._fast:  # the bots' moves in compiled code, as advance() plays them
                self._offered = False
                live = core.start(game)
            else:
                core.game = game
                self.observer.start(game)
                core.steps = 0
                core.game_steps = 0
                self._play_bots()
                live = not game.is_over and not game.out[seat]
            if live:  # a game the bots finish before the learner's first turn: a new deal
                break
        core.fast = self._fast

    def step(self, action: object, out: memoryview, mask: memoryview) -> Step:
        """Play the learner's ``action`` id, then the bots until the learner is to act
        again, and write its observation into ``out`` and its mask into ``mask``.

        Returns ``(reward, terminated, truncated, why)``: ``why`` is the reason an illegal id
        was refused in ``"penalize"`` mode (the game unchanged, ``illegal_reward`` the
        reward), else ``None``.

        Raises:
            IllegalActionIdError: with ``illegal_action="raise"``, an id not legal now
                (nothing changed).
            RuntimeError: the episode is over (call :meth:`reset`).
        """
        core = self.core
        game = self.require_game()
        if game.is_over or game.out[core.seat]:
            raise RuntimeError("the episode is over: call reset()")
        found = as_int(action)
        if found is None or found not in core.legal:
            why = explain_illegal(game, core.seat, action, f"seat {core.seat}")
            if self.illegal_action == "raise":
                raise IllegalActionIdError(why)
            core.steps += 1  # an illegal step counts towards max_steps
            truncated = self.max_steps is not None and core.steps >= self.max_steps
            if truncated:
                core.fast = False  # ended: advance_tables leaves it to be reset
            self.write(out, mask)
            return self.illegal_reward, False, truncated, why
        if core.fast:
            if core.advance(found, out, mask):
                return 0.0, False, False, None  # the common case: all written
            return self.settle(self.observer.out_before, out, mask)
        out_before = sum(game.out)
        self._hand_reward = 0.0
        if self._offered and found == PASS_ID:  # lets the out-of-turn chance go
            self._declined.add(core.seat)
            core.game_steps += 1
        else:
            self._apply(found, core.seat)
        core.steps += 1
        self._play_bots()
        return self.settle(out_before, out, mask)

    def settle(self, out_before: int, out: memoryview, mask: memoryview) -> Step:
        """After a move: the learner's reward and flags (``out_before``: how many seats were
        out before it), its observation and mask written. The vector env calls it for the
        tables its compiled step left something to settle."""
        core = self.core
        game = self.require_game()
        seat = core.seat
        terminated = game.is_over or game.out[seat]
        reward = 0.0
        if self.knockout_bonus and not game.out[seat] and not self.rules.scoring_enabled:
            reward += self.knockout_bonus * (sum(game.out) - out_before)
        if self._per_hand:  # a match with reward="points": each hand's points as it ends
            reward += self._hand_reward
            if game.out[seat] and not game.is_over:
                reward -= 1.0  # the learner's episode ends at its knock-out
        elif game.out[seat]:  # knocked out (NM-33): −1 in either scheme
            reward -= 1.0
        elif game.is_over:
            reward += end_rewards(game, self.reward, self.points_scale)[seat]
        truncated = not terminated and self.max_steps is not None and core.steps >= self.max_steps
        if terminated or truncated:
            # An ended episode (a truncated game may go on) is not advanced by the batch
            # step (advance_tables): the vector env resets it; reset() makes it fast again.
            core.fast = False
        self.write(out, mask)
        return reward, terminated, truncated, None

    def write(self, out: memoryview, mask: memoryview) -> None:
        """Write the learner's observation into ``out`` and its mask into ``mask``."""
        core = self.core
        self.observer.write_row(self.require_game(), core.seat, core.legal, out, mask)

    def observation(self) -> npt.NDArray[np.float32]:
        """The learner's observation vector now, a new array (raw, unscaled)."""
        return self.observer.vector(self.require_game(), self.core.seat)

    def mask(self) -> npt.NDArray[np.int8]:
        """The learner's mask of legal ids now, a new ``int8`` array."""
        return mask_of_ids(self.core.legal)

    def info(self, final: bool = False) -> dict[str, Any]:
        """``{"seat": ...}``, plus the outcome when the episode ends (``final``:
        :func:`~nomercy.rl._common.outcome_info`)."""
        info: dict[str, Any] = {"seat": self.core.seat}
        if final:
            info.update(outcome_info(self.require_game(), self.core.game_steps))
        return info

    def explain(self, action: object, who: str) -> str | None:
        """Why ``action`` is not legal for the learner now (``who`` names it in the
        message), or ``None`` if it is."""
        found = as_int(action)
        if found is not None and found in self.core.legal:
            return None
        return explain_illegal(self.require_game(), self.core.seat, action, who)

    # ------------------------------------------------------------------ internals
    def _reseed_random_bots(self, others: list[int], rng: np.random.Generator) -> None:
        """Give the opponents at ``others`` (all ``random``, a :attr:`_fast` table) this
        episode's seeds, drawn from ``rng`` in seat order as ``make_bot`` would take them.

        The table's :class:`RandomBot` s are made once and re-seeded in place: a bot's state
        is its generator alone (:meth:`RandomBot.reseed`), so they make the same choices as
        new ones would, without building a bot per episode."""
        bots = self._pool
        if not bots:
            bots = self._pool = [RandomBot() for _ in self.opponents]
        for bot in bots:
            bot.reseed(int(rng.integers(0, 2**31)))
        if self._seated != others:  # the bots' seats (the first episode, a drawn seat)
            self._seated = others
            self._bots = dict(zip(others, bots, strict=True))
            self._random = dict.fromkeys(others, True)
            choosers: list[Callable[[list[int]], int] | None] = [None] * self.n
            for s, random_bot in zip(others, bots, strict=True):
                # The same generator calls as choose_action (RandomBot.id_chooser).
                choosers[s] = random_bot.id_chooser()
            self.core.choosers = choosers

    def _apply(self, aid: int, seat: int) -> None:
        game = self.require_game()
        if self._per_hand:
            events = self.observer.step_events(game, aid, seat)
            per_hand = hand_rewards(events, self.n, self.points_scale)
            if per_hand is not None:
                self._hand_reward += per_hand[self.core.seat]
        else:
            self.observer.step(game, aid, seat)
        self.core.game_steps += 1
        if self._declined:
            kind = ID_KIND[aid]
            if kind != K_UNO and kind != K_CATCH:
                self._declined.clear()  # an in-turn action or a jump-in: new chances for all

    def _play_bots(self) -> None:
        game = self.require_game()
        core = self.core
        seat = core.seat
        offered = self.out_of_turn == "offered"
        decider = -1
        history = self._history
        random_bot = self._random
        while not game.is_over and not game.out[seat]:
            turn = game.turn
            assert turn is not None
            decider = next_decider(game, True, self._declined) if offered else turn
            if decider == seat:
                break
            bot = self._bots[decider]
            if decider == turn and random_bot[decider]:
                # A RandomBot picks uniformly from any list: its ids, in legal_actions'
                # order, give the choice it would make among the actions.
                self._apply(bot.choose_action(None, game.legal_ids(decider)), decider)  # type: ignore[arg-type]
                continue
            legal = game.legal_actions(decider)
            action: Action | None
            if decider == turn:
                action = bot.choose_action(game.view(decider, history=history), legal)
            elif isinstance(bot, OutOfTurnBot):
                action = bot.choose_out_of_turn(game.view(decider, history=history), legal)
            else:
                action = None  # a bot without out-of-turn play lets every chance go
            if action is None:
                self._declined.add(decider)
                continue
            try:
                index = legal.index(action)
            except ValueError:
                raise RuntimeError(f"bot {bot.name!r} chose illegal {action}") from None
            self._apply(game.legal_ids(decider)[index], decider)
        if not game.is_over and not game.out[seat]:
            core.legal = game.legal_ids(seat)
            self._offered = decider != game.turn
            if self._offered:
                core.legal.append(PASS_ID)
        else:
            core.legal = []
            self._offered = False
