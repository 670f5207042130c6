"""Gymnasium environment: one learning seat against bots from the registry (docs/rl.md).

Registered as ``NoMercy-v0``: ``gymnasium.make("NoMercy-v0", opponents=["greedy", "random"])``
(after ``import nomercy.rl``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from nomercy.bots.base import Bot, OutOfTurnBot
from nomercy.bots.driver import view_mode
from nomercy.bots.random_bot import RandomBot
from nomercy.bots.registry import make_bot
from nomercy.core.actions import Action
from nomercy.core.game import Game, new_game
from nomercy.core.ids import ID_KIND, K_CATCH, K_UNO
from nomercy.encoding.actions import NUM_ACTIONS, PASS_ID
from nomercy.encoding.fast import TableObserver
from nomercy.encoding.observations import ObservationEncoder, flat_scale
from nomercy.rl._common import (
    IllegalActionIdError,
    LegalDiscrete,
    as_int,
    check_flat_bounds,
    check_illegal_mode,
    check_illegal_reward,
    check_learner_seat,
    check_max_steps,
    check_obs_format,
    check_out_of_turn,
    check_render_mode,
    check_reward,
    end_rewards,
    explain_illegal,
    flat_observation_space,
    hand_rewards,
    make_ruleset,
    mask_of_ids,
    next_decider,
    observation_space,
    outcome_info,
    render,
)

__all__ = ["NoMercyEnv"]

Obs = dict[str, Any] | npt.NDArray[np.float32]


class NoMercyEnv(gym.Env[Obs, np.int64]):
    """One learner against ``len(opponents)`` bots (2-6 seats in all).

    Args:
        opponents: registry names of the bots (``nomercy.bots.BOTS``: ``"random"``,
            ``"greedy"``, ...), one per opponent seat in seat order after the learner.
        preset, options: the rules (as :func:`nomercy.new_game`).
        learner_seat: the learner's seat, or ``None`` to draw it at every reset.
        illegal_action: ``"penalize"`` (default: reward ``illegal_reward``, nothing changes,
            the learner acts again; ``info["illegal_action"]`` is ``True`` and
            ``info["reason"]`` says why) or ``"raise"`` (:class:`IllegalActionIdError`).
            ``"penalize"`` is the default so that Gymnasium's ``check_env`` passes as the env
            comes: its determinism check samples an id *before* ``reset(seed=123)``, legal
            in the state it was drawn in, not necessarily in the new deal.
        max_steps: truncate after this many learner actions, illegal ones included
            (``None``: never).
        reward, points_scale, knockout_bonus: the reward scheme, as
            :class:`nomercy.rl.raw_env` (the bonus when a bot is knocked out while the
            learner is still in).
        obs_format: ``"dict"`` (default): ``{"observation": vector, "action_mask": mask}``;
            ``"flat"``: the vector alone, each entry divided by a bound (``flat_bounds``; a
            ``Box`` in [-1, 1]), for policies that take one array; the mask is then in
            ``info["action_mask"]`` and :meth:`action_masks`.
        flat_bounds: ``"fixed"`` (default) or ``"rules"``, as :class:`nomercy.rl.raw_env`.
        render_mode: ``None``; ``"ansi"``: ``render()`` returns the learner's view as text;
            ``"human"``: that text is printed after every ``reset()`` and ``step()`` (and by
            ``render()``, which returns ``None``); ``"rgb_array"``: ``render()`` returns a
            picture of that view (``uint8 (H, W, 3)``).

    Observations are ``{"observation": vector, "action_mask": int8 mask}`` as in the PettingZoo
    env, or the scaled vector alone with ``obs_format="flat"``; :meth:`action_masks` gives the
    mask alone (``gym.make("NoMercy-v0")`` returns the env itself, registered without
    wrappers; through a wrapper: ``env.get_wrapper_attr("action_masks")()``).
    Reward (``"win_loss"``): +1 when the learner wins, −1 when another seat wins or the
    learner is knocked out (the episode ends there), else 0. When the episode ends ``info``
    holds the outcome (winner, knock-outs, hand sizes, points, episode length).
    ``action_space.sample()`` without a mask draws a legal id
    (:class:`~nomercy.rl._common.LegalDiscrete`). The seat to act takes every action, its UNO
    calls and catches included; bots are asked with ``choose_action(view, legal)``. With
    ``out_of_turn="offered"``, seats with out-of-turn actions are asked first as in the
    PettingZoo env: the learner through its mask (``pass``, id 1, lets the chance go), bots
    through ``choose_out_of_turn`` (``None`` lets it go; a bot without that method never acts
    out of turn). ``self.game`` runs with ``record_events`` off unless a bot reads the history
    or per-hand rewards need the events (docs/rl.md, "Speed"): its ``log`` may stay empty,
    ``history`` holds every action.
    """

    metadata = {  # noqa: RUF012 (read by Gymnasium)
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 1,
    }

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
        render_mode: str | None = None,
        out_of_turn: str = "to_act",
        obs_format: str = "dict",
        reward: str = "win_loss",
        points_scale: float = 100.0,
        knockout_bonus: float = 0.0,
        flat_bounds: str = "fixed",
    ) -> None:
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
        self.render_mode = check_render_mode(render_mode)
        self.out_of_turn = check_out_of_turn(out_of_turn)
        self._declined: set[int] = set()
        self._encoder = ObservationEncoder(self.rules, n)
        self.obs_format = check_obs_format(obs_format)
        self._flat = obs_format == "flat"
        self.flat_bounds = check_flat_bounds(flat_bounds)
        self._scale = flat_scale(self._encoder, flat_bounds)
        self.observation_space: spaces.Space[Any] = (
            flat_observation_space(self._encoder, flat_bounds)
            if self._flat
            else observation_space(self._encoder)
        )
        self.action_space: spaces.Space[Any] = LegalDiscrete(NUM_ACTIONS, self.action_masks)
        self.game: Game | None = None
        self.seat = 0
        self._bots: dict[int, Bot] = {}
        self._random: dict[int, bool] = {}  # seat -> a RandomBot (it picks among ids)
        self._history = full_view
        self._legal: list[int] = []  # the learner's legal ids now (none: not its decision)
        self._offered = False  # the learner's decision is an offered out-of-turn one
        self._steps = 0
        self._game_steps = 0
        self._per_hand = self.reward == "points" and self.rules.scoring_enabled
        self._hand_reward = 0.0  # the learner's per-hand points since its last step
        self._observer = TableObserver(self.rules, n, events=self._per_hand or full_view)
        #: The vector env may play this table with _advance_written.
        self._all_random = all_random and self.out_of_turn == "to_act" and not self._per_hand

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickling and deepcopy make the action space a plain Discrete: re-attach the mask.
        self.__dict__.update(state)
        self.action_space = LegalDiscrete(NUM_ACTIONS, self.action_masks)

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game and let the bots play until the learner is to act."""
        self._deal(seed)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def _deal(self, seed: int | None = None) -> None:
        """:meth:`reset` without the observation and info."""
        super().reset(seed=seed)
        rng = self.np_random
        while True:
            seat = (
                self.learner_seat if self.learner_seat is not None else int(rng.integers(0, self.n))
            )
            self.seat = seat
            others = [s for s in range(self.n) if s != seat]
            self._bots = {
                s: make_bot(name, seed=int(rng.integers(0, 2**31)))
                for s, name in zip(others, self.opponents, strict=True)
            }
            self._random = {s: type(bot) is RandomBot for s, bot in self._bots.items()}
            # Every opponent's choice of an id, for _advance_written (the same generator calls
            # as choose_action: RandomBot.id_chooser).
            self._choosers: list[Callable[[list[int]], int] | None] = [None] * self.n
            if self._all_random:
                for s, bot in self._bots.items():
                    self._choosers[s] = cast(RandomBot, bot).id_chooser()
            self.game = new_game(self.n, rules=self.rules, seed=int(rng.integers(0, 2**63)))
            self._observer.start(self.game)
            self._steps = 0
            self._game_steps = 0
            self._declined = set()
            self._play_bots()
            # A game the bots finish before the learner's first turn is dealt again.
            if not self.game.is_over and not self.game.out[seat]:
                break

    def step(self, action: int | np.integer[Any]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action`` id, then the bots until the learner is to act again."""
        reward, terminated, truncated, why = self._advance(action)
        if why is not None:
            info = self._info(truncated)
            info["illegal_action"] = True
            info["reason"] = why
            return self._observe(), reward, terminated, truncated, info
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info(terminated or truncated)

    def _advance(self, action: Any) -> tuple[float, bool, bool, str | None]:
        """:meth:`step` without the observation and info: ``(reward, terminated, truncated,
        why)``, ``why`` the reason an illegal id was refused in ``"penalize"`` mode."""
        game = self._require_game()
        if game.is_over or game.out[self.seat]:
            raise RuntimeError("the episode is over: call reset()")
        found = as_int(action)
        aid = found if found is not None and found in self._legal else -1
        if aid < 0:
            why = explain_illegal(game, self.seat, action, f"seat {self.seat}")
            if self.illegal_action == "raise":
                raise IllegalActionIdError(why)
            self._steps += 1  # an illegal step counts towards max_steps
            truncated = self.max_steps is not None and self._steps >= self.max_steps
            return self.illegal_reward, False, truncated, why
        out_before = sum(game.out)
        self._hand_reward = 0.0
        if self._offered and aid == PASS_ID:  # lets the out-of-turn chance go
            self._declined.add(self.seat)
            self._game_steps += 1
        else:
            self._apply(aid, self.seat)
        self._steps += 1
        self._play_bots()
        return self._outcome(out_before)

    def _advance_written(
        self, aid: int, out: memoryview, mask: memoryview
    ) -> tuple[float, bool, bool] | None:
        """:meth:`_advance` for a legal ``aid`` when every opponent is a RandomBot and only
        the seat to act acts (``_all_random``), the table's step in the vector env: the same
        game, in one compiled call (``TableObserver.advance``). Returns ``None`` when nothing
        is to report (no reward, the episode goes on), the learner's observation and mask
        written into ``out`` and ``mask``; else ``(reward, terminated, truncated)``, nothing
        written."""
        game = self.game
        assert game is not None
        seat = self.seat
        observer = self._observer
        legal = observer.advance(game, aid, seat, self._choosers, out, mask)
        self._game_steps += observer.moves
        self._steps += 1
        if legal is not None:
            self._legal = legal
            if self.max_steps is None or self._steps < self.max_steps:
                return None
        elif game.phase._value_ != "over" and not game.out[seat]:
            self._legal = game.legal_ids(seat)  # another seat was knocked out (NM-33)
        else:
            self._legal = []
        reward, terminated, truncated, _ = self._outcome(observer.out_before)
        return reward, terminated, truncated

    def _outcome(self, out_before: int) -> tuple[float, bool, bool, None]:
        """The learner's reward and flags after its move and the bots' (``out_before``: the
        seats out before the move)."""
        game = self.game
        assert game is not None
        terminated = game.is_over or game.out[self.seat]
        reward = 0.0
        if self.knockout_bonus and not game.out[self.seat] and not self.rules.scoring_enabled:
            reward += self.knockout_bonus * (sum(game.out) - out_before)
        if self._per_hand:  # a match with reward="points": each hand's points as it ends
            reward += self._hand_reward
            if game.out[self.seat] and not game.is_over:
                reward -= 1.0  # the learner's episode ends at its knock-out
        elif game.out[self.seat]:  # knocked out (NM-33): −1 in either scheme
            reward -= 1.0
        elif game.is_over:
            reward += end_rewards(game, self.reward, self.points_scale)[self.seat]
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        return reward, terminated, truncated, None

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal-action mask of the learner now (for maskable algorithms)."""
        return mask_of_ids(self._legal)

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The learner's view: text for ``"ansi"``, printed for ``"human"`` (returns
        ``None``), a picture for ``"rgb_array"``; ``None`` without a render mode."""
        if self.render_mode is None:
            return None
        return render(self._require_game().view(self.seat, history=False), self.render_mode)

    # ------------------------------------------------------------------ internals
    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def _apply(self, aid: int, seat: int) -> None:
        game = self._require_game()
        if self._per_hand:
            events = self._observer.step_events(game, aid, seat)
            per_hand = hand_rewards(events, self.n, self.points_scale)
            if per_hand is not None:
                self._hand_reward += per_hand[self.seat]
        else:
            self._observer.step(game, aid, seat)
        self._game_steps += 1
        if self._declined:
            kind = ID_KIND[aid]
            if kind != K_UNO and kind != K_CATCH:
                self._declined.clear()  # an in-turn action or a jump-in: new chances for all

    def _play_bots(self) -> None:
        game = self._require_game()
        seat = self.seat
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
            self._legal = game.legal_ids(seat)
            self._offered = decider != game.turn
            if self._offered:
                self._legal.append(PASS_ID)
        else:
            self._legal = []
            self._offered = False

    def _observe(self) -> Obs:
        vector = self._observer.vector(self._require_game(), self.seat)
        if self._flat:
            vector *= self._scale
            return vector
        return {"observation": vector, "action_mask": mask_of_ids(self._legal)}

    def _info(self, final: bool = False) -> dict[str, Any]:
        """``{"seat": ...}``, plus ``"action_mask"`` with ``obs_format="flat"``, plus the
        outcome when the episode ends (``final``)."""
        info: dict[str, Any] = {"seat": self.seat}
        if self._flat:
            info["action_mask"] = mask_of_ids(self._legal)
        if final:
            info.update(outcome_info(self._require_game(), self._game_steps))
        return info
