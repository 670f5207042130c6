"""Batched self-play: N tables in which every seat is a learner (docs/rl.md, "Batched self-play").

The PettingZoo AEC env's semantics (:class:`nomercy.rl.raw_env`, ``out_of_turn="to_act"``)
for N tables at once, into preallocated arrays: at every step each table's seat to act (its
*agent*) takes one action id, and every seat of every table receives its reward. A table
whose game ends is dealt again in the same step (its outcome is in the infos), so every call
gives every table a decision to take.

>>> import numpy as np
>>> from nomercy.rl.batched import SelfPlayVectorEnv
>>> envs = SelfPlayVectorEnv(4, num_players=3)
>>> obs, masks, agents = envs.reset(seed=0)
>>> obs.shape, masks.shape, agents.shape
((4, 706), (4, 469), (4,))
>>> rng = np.random.default_rng(0)
>>> actions = [rng.choice(np.flatnonzero(m)) for m in masks]
>>> obs, masks, agents, rewards, terminated, truncated, infos = envs.step(actions)
>>> rewards.shape
(4, 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy.core.dealing import DEAL_VERSION
from nomercy.core.game import Game, new_game
from nomercy.encoding.actions import NUM_ACTIONS
from nomercy.encoding.fast import TableObserver
from nomercy.encoding.observations import OBS_SIZE, ObservationEncoder, flat_scale
from nomercy.rl._common import (
    IllegalActionIdError,
    check_env_deal_version,
    check_flat_bounds,
    check_max_steps,
    check_obs_format,
    check_reward,
    draw_game_seed,
    end_rewards,
    explain_illegal,
    flat_observation_space,
    hand_rewards,
    make_ruleset,
    observation_space,
    outcome_info,
)

__all__ = ["SelfPlayVectorEnv"]


class SelfPlayVectorEnv:
    """``num_envs`` tables of ``num_players`` learners, stepped together.

    Args:
        num_envs: tables.
        num_players, preset, options: each table's seats and rules (2-6 seats).
        reward, points_scale, knockout_bonus, max_steps: as :class:`nomercy.rl.raw_env`.
        obs_format: ``"flat"`` (default): the observations scaled by ``flat_bounds`` (a
            ``Box`` in [-1, 1]); ``"dict"``: the raw vectors (the AEC env's
            ``"observation"``).
        flat_bounds: ``"fixed"`` (default) or ``"rules"``.
        copy: return copies of the arrays (default) or the arrays themselves, which the next
            call overwrites.
        deal_version: the generator of every deal's shuffles, as :class:`nomercy.rl.raw_env`
            (1 by default); every table deals with it at every reset and autoreset.

    Per table, the game, its seeds and the rewards are those of a ``raw_env`` reset with
    the same seed and played with the same ids (a test compares them). Only the seat to act
    decides (out-of-turn actions are taken in turn, as ``out_of_turn="to_act"``), so the
    masks are those of the agents, one row per table.
    """

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        *,
        preset: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        reward: str = "win_loss",
        points_scale: float = 100.0,
        knockout_bonus: float = 0.0,
        max_steps: int | None = None,
        obs_format: str = "flat",
        flat_bounds: str = "fixed",
        copy: bool = True,
        deal_version: int = DEAL_VERSION,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        #: The deal version of every game the tables deal (``deal_version``).
        self.deal_version = check_env_deal_version(deal_version)
        self.rules = make_ruleset(preset, options, num_players)
        self.reward = check_reward(reward, points_scale, knockout_bonus)
        self.points_scale = float(points_scale)
        self.knockout_bonus = float(knockout_bonus)
        self.max_steps = check_max_steps(max_steps)
        self.obs_format = check_obs_format(obs_format)
        self.flat_bounds = check_flat_bounds(flat_bounds)
        self.num_envs = num_envs
        self.num_players = num_players
        self.copy = copy
        encoder = ObservationEncoder(self.rules, num_players)
        self._flat = obs_format == "flat"
        self._scale = flat_scale(encoder, flat_bounds)
        #: One table's observation space (the Box of the vectors) and its mask's.
        self.single_observation_space = (
            flat_observation_space(encoder, flat_bounds)
            if self._flat
            else observation_space(encoder)["observation"]
        )
        self.single_mask_space = observation_space(encoder)["action_mask"]
        self._per_hand = reward == "points" and self.rules.scoring_enabled
        self._observers = [
            TableObserver(self.rules, num_players, events=self._per_hand) for _ in range(num_envs)
        ]
        self.games: list[Game] = []
        self._legal: list[list[int]] = [[] for _ in range(num_envs)]
        self._was_out: list[list[bool]] = [[False] * num_players for _ in range(num_envs)]
        self._steps = [0] * num_envs
        self._seed_rngs: list[np.random.Generator | None] = [None] * num_envs
        self._seed_bases: list[int | None] = [None] * num_envs
        self._raw = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self._obs = np.zeros_like(self._raw) if self._flat else self._raw
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self._agents = np.zeros(num_envs, dtype=np.int64)
        self._rewards = np.zeros((num_envs, num_players), dtype=np.float64)
        self._terminated = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._raw_rows = [row.data for row in self._raw]
        self._mask_rows = [row.data for row in self._masks]
        self._no_mask = memoryview(bytes(NUM_ACTIONS)).cast("b")

    # ------------------------------------------------------------------ API
    def reset(
        self, seed: int | Sequence[int | None] | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Deal every table: ``(observations, masks, agents)`` of the seats to act.

        ``seed`` an int gives table ``i`` the seed ``seed + i`` (its later games draw
        their seeds from it, as ``raw_env.reset(seed)`` does), a list one seed per table.
        """
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [
                None if seed is None else seed + i for i in range(self.num_envs)
            ]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(
                    f"{len(seeds)} seeds given for num_envs={self.num_envs}: one per table"
                )
        self.games = [self._deal(i, seeds[i]) for i in range(self.num_envs)]
        for i in range(self.num_envs):
            self._write(i)
        return self._out(self._obs_batch()), self._out(self._masks), self._out(self._agents)

    def step(self, actions: npt.ArrayLike) -> tuple[Any, ...]:
        """Play one id per table for its agent: ``(observations, masks, agents, rewards,
        terminated, truncated, infos)``.

        ``rewards`` is ``(num_envs, num_players)``: what each seat of each table receives for
        this step (a knock-out's −1, the end of the game's rewards, per-hand points).
        ``terminated`` / ``truncated`` mark tables whose game ended in this step (won, or
        ``max_steps`` reached); those are dealt again at once, and ``infos["outcome"]`` maps
        each of them to its outcome (:func:`nomercy.rl._common.outcome_info`).

        Raises:
            IllegalActionIdError: an id is not legal for its table's agent (the message
                names the table, the id and the engine's reason); the tables before it in
                the batch have already stepped.
        """
        ids = np.asarray(actions)
        if ids.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {ids.shape}")
        if not self.games:
            raise RuntimeError("call reset() before step()")
        rewards = self._rewards
        rewards[:] = 0.0
        self._terminated[:] = False
        self._truncated[:] = False
        outcomes: dict[int, dict[str, Any]] = {}
        n = self.num_players
        scoring = self.rules.scoring_enabled
        bonus = self.knockout_bonus
        for i, aid in enumerate(ids.tolist()):
            game = self.games[i]
            seat = game.turn
            assert seat is not None
            if type(aid) is not int or aid not in self._legal[i]:
                why = explain_illegal(game, seat, aid, f"table {i}, seat {seat}")
                raise IllegalActionIdError(why)
            observer = self._observers[i]
            if self._per_hand:
                events = observer.step_events(game, aid, seat)
                per_hand = hand_rewards(events, n, self.points_scale)
                if per_hand is not None:
                    rewards[i] += per_hand
            else:
                observer.step(game, aid, seat)
            self._steps[i] += 1
            was_out = self._was_out[i]
            out = game.out
            if not scoring and out != was_out:
                knocked = [s for s in range(n) if out[s] and not was_out[s]]
                for s in knocked:
                    was_out[s] = True
                    rewards[i, s] = -1.0
                if bonus:
                    for s in range(n):
                        if not out[s]:
                            rewards[i, s] += bonus * len(knocked)
            over = game.phase._value_ == "over"
            if over or (self.max_steps is not None and self._steps[i] >= self.max_steps):
                if over:
                    ends = (
                        [0.0] * n
                        if self._per_hand
                        else end_rewards(game, self.reward, self.points_scale)
                    )
                    for s in range(n):
                        if not was_out[s]:
                            rewards[i, s] += ends[s]
                    self._terminated[i] = True
                else:
                    self._truncated[i] = True
                outcomes[i] = outcome_info(game, self._steps[i])
                self.games[i] = self._deal(i, None)
            else:
                turn = game.turn
                assert turn is not None
                self._legal[i] = game.legal_ids(turn)
            self._write(i)
        infos: dict[str, Any] = {"outcome": outcomes}
        return (
            self._out(self._obs_batch()),
            self._out(self._masks),
            self._out(self._agents),
            self._out(rewards),
            self._out(self._terminated),
            self._out(self._truncated),
            infos,
        )

    def action_masks(self) -> npt.NDArray[np.int8]:
        """Each table's agent's mask of legal ids, ``(num_envs, NUM_ACTIONS)``."""
        return self._masks.copy()

    def observe(self, table: int, seat: int) -> npt.NDArray[np.float32]:
        """Seat ``seat``'s observation at table ``table`` now (in the observation format's
        scale), for a seat that is not to act (e.g. a critic's input)."""
        vector = self._observers[table].vector(self.games[table], seat)
        if self._flat:
            vector *= self._scale
        return vector

    # ------------------------------------------------------------------ internals
    def _deal(self, i: int, seed: int | None) -> Game:
        """A new game for table ``i``, seeded as ``raw_env.reset(seed)`` seeds its games."""
        if seed is not None:
            self._seed_rngs[i] = None
            self._seed_bases[i] = seed
            game_seed = int(seed)
        else:
            rng = self._seed_rngs[i]
            if rng is None:
                base = self._seed_bases[i]
                if base is not None and base < 0:  # numpy takes non-negative seeds only
                    base &= (1 << 128) - 1
                rng = self._seed_rngs[i] = np.random.default_rng(base)
            game_seed = draw_game_seed(rng)
        game = new_game(
            self.num_players, rules=self.rules, seed=game_seed, deal_version=self.deal_version
        )
        self._observers[i].start(game)
        self._was_out[i] = [False] * self.num_players
        self._steps[i] = 0
        turn = game.turn
        assert turn is not None
        self._legal[i] = game.legal_ids(turn)
        return game

    def _write(self, i: int) -> None:
        game = self.games[i]
        seat = game.turn
        assert seat is not None
        self._observers[i].write(game, seat, self._raw_rows[i])
        row = self._mask_rows[i]
        row[:] = self._no_mask
        for a in self._legal[i]:
            row[a] = 1
        self._agents[i] = seat

    def _obs_batch(self) -> npt.NDArray[np.float32]:
        if self._flat:
            np.multiply(self._raw, self._scale, out=self._obs)
        return self._obs

    def _out(self, array: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return array.copy() if self.copy else array
