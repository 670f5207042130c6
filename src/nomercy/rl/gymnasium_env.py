"""Gymnasium environment: one learning seat against bots from the registry (docs/rl.md).

Registered as ``NoMercy-v0``: ``gymnasium.make("NoMercy-v0", opponents=["greedy", "random"])``
(after ``import nomercy.rl``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from nomercy.core.dealing import DEAL_VERSION
from nomercy.core.game import Game
from nomercy.encoding.actions import NUM_ACTIONS
from nomercy.encoding.fast import int32_view, mask_view
from nomercy.encoding.observations import OBS_SIZE
from nomercy.rl._common import (
    LegalDiscrete,
    check_flat_bounds,
    check_obs_format,
    check_render_mode,
    observation_format,
    render,
)
from nomercy.rl.table import LearnerTable

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
        deal_version: the generator of every deal's shuffles, as :func:`nomercy.new_game`
            (docs/notation.md, "Deal versions"): 1 (default: a seed deals the episodes it
            always has) or 2 (cheaper deals compiled: docs/rl.md, "Speed").
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
        deal_version: int = DEAL_VERSION,
    ) -> None:
        #: The table this env plays (the single-table API the vector env shares).
        self.table = table = LearnerTable(
            opponents,
            preset=preset,
            options=options,
            learner_seat=learner_seat,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            max_steps=max_steps,
            out_of_turn=out_of_turn,
            reward=reward,
            points_scale=points_scale,
            knockout_bonus=knockout_bonus,
            deal_version=deal_version,
        )
        self.rules = table.rules
        self.deal_version = table.deal_version
        self.n = table.n
        self.opponents = table.opponents
        self.reward = table.reward
        self.points_scale = table.points_scale
        self.knockout_bonus = table.knockout_bonus
        self.learner_seat = table.learner_seat
        self.illegal_action = table.illegal_action
        self.illegal_reward = table.illegal_reward
        self.max_steps = table.max_steps
        self.out_of_turn = table.out_of_turn
        self.render_mode = check_render_mode(render_mode)
        self.obs_format = check_obs_format(obs_format)
        self.flat_bounds = check_flat_bounds(flat_bounds)
        self._flat = obs_format == "flat"
        self.observation_space, self._scale = observation_format(
            table.encoder, obs_format, flat_bounds
        )
        self.action_space: spaces.Space[Any] = LegalDiscrete(NUM_ACTIONS, self.action_masks)
        # The table writes the learner's raw vector and mask here; step() hands out copies.
        self._row = np.zeros(OBS_SIZE, dtype=np.float32)
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._row_view = int32_view(self._row)  # write()'s cheaper target
        self._mask_view = mask_view(self._mask)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickling and deepcopy make the action space a plain Discrete: re-attach the mask;
        # memoryviews do not pickle: take them of the restored arrays.
        state["_row_view"] = int32_view(state["_row"])
        state["_mask_view"] = mask_view(state["_mask"])
        self.__dict__.update(state)
        self.action_space = LegalDiscrete(NUM_ACTIONS, self.action_masks)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_row_view"], state["_mask_view"]
        return state

    # ------------------------------------------------------------------ state
    @property
    def game(self) -> Game | None:
        """The game (``None`` before the first :meth:`reset`)."""
        return self.table.game

    @property
    def seat(self) -> int:
        """The learner's seat in this episode."""
        return self.table.seat

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game and let the bots play until the learner is to act."""
        table = self.table
        # One generator: the env's (Gymnasium's np_random, which a caller may set) is the
        # table's, which seeds it as Env.reset(seed=seed) would.
        table.np_random = self._np_random
        table.reset(seed)
        self._np_random, self._np_random_seed = table.np_random, table.np_random_seed
        table.write(self._row_view, self._mask_view)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action`` id, then the bots until the learner is to act again."""
        reward, terminated, truncated, why = self.table.step(
            action, self._row_view, self._mask_view
        )
        if why is not None:
            info = self._info(truncated)
            info["illegal_action"] = True
            info["reason"] = why
            return self._observe(), reward, terminated, truncated, info
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info(terminated or truncated)

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal-action mask of the learner now (for maskable algorithms)."""
        return self._mask.copy()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The learner's view: text for ``"ansi"``, printed for ``"human"`` (returns
        ``None``), a picture for ``"rgb_array"``; ``None`` without a render mode."""
        if self.render_mode is None:
            return None
        table = self.table
        return render(table.require_game().view(table.seat, history=False), self.render_mode)

    # ------------------------------------------------------------------ internals
    def _observe(self) -> Obs:
        if self._flat:
            return np.multiply(self._row, self._scale)
        return {"observation": self._row.copy(), "action_mask": self._mask.copy()}

    def _info(self, final: bool = False) -> dict[str, Any]:
        """``{"seat": ...}``, plus ``"action_mask"`` with ``obs_format="flat"``, plus the
        outcome when the episode ends (``final``)."""
        info = self.table.info(final)
        if self._flat:
            info["action_mask"] = self._mask.copy()
        return info
