"""A native vector env for ``NoMercy-v0``: N tables stepped per call into preallocated arrays.

Registered as ``NoMercy-v0``'s ``vector_entry_point``, so ``gymnasium.make_vec("NoMercy-v0",
num_envs=N)`` builds it (``vectorization_mode="sync"`` or ``"async"`` still give Gymnasium's
own vector envs over N single envs). Each table is a :class:`NoMercyEnv` played directly,
without the wrappers ``gym.make`` adds or its per-step observation and info: the tables'
observation vectors are written by their :class:`~nomercy.encoding.fast.TableObserver`
straight into one ``(num_envs, OBS_SIZE)`` array, their masks into one ``int8`` array, and
rewards and flags into arrays allocated once; infos are arrays built once per step, with
the per-table outcome only for the tables whose episode ended. The options are the single
env's (opponent bots, rewards, observation formats, illegal-action modes, ``max_steps``),
passed as keyword arguments, plus ``autoreset_mode`` (docs/rl.md, "Vector envs").
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nomercy.encoding.actions import NUM_ACTIONS
from nomercy.encoding.observations import OBS_SIZE
from nomercy.rl._common import (
    IllegalActionIdError,
    LegalMultiDiscrete,
    check_seed,
    explain_illegal,
)
from nomercy.rl.gymnasium_env import NoMercyEnv

__all__ = ["NoMercyVectorEnv"]


class NoMercyVectorEnv(VectorEnv):
    """``num_envs`` tables of :class:`NoMercyEnv`, stepped together.

    Args:
        num_envs: the number of tables.
        autoreset_mode: as Gymnasium's vector envs: ``NEXT_STEP`` (default: the step after
            an episode ends resets that table and ignores its action), ``SAME_STEP`` (the
            table is reset in the step that ends it; its last observation and info are in
            ``info["final_obs"]`` / ``info["final_info"]``) or ``DISABLED`` (reset ended
            tables yourself with ``reset(options={"reset_mask": mask})``).
        copy: return copies of the observation arrays (default) or the arrays themselves,
            which the next call overwrites.
        **env_kwargs: every table's :class:`NoMercyEnv` arguments (``opponents``,
            ``preset``, ``options``, ``obs_format``, ``reward``, ``max_steps``, ...);
            ``max_episode_steps`` is taken as ``max_steps``.

    Observations are the single env's, batched: a ``(num_envs, OBS_SIZE)`` array for
    ``obs_format="flat"`` (the masks in ``info["action_mask"]`` and :meth:`action_masks`), a
    dict of ``(num_envs, ...)`` arrays otherwise. Actions: one id per table;
    ``action_space.sample()`` without a mask draws a legal one for every table
    (:class:`~nomercy.rl._common.LegalMultiDiscrete`).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (read by Gymnasium)

    def __init__(
        self,
        num_envs: int = 1,
        *,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        **env_kwargs: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if env_kwargs.get("render_mode") is not None:
            raise ValueError("the vector env does not render: render a single NoMercy-v0 env")
        env_kwargs.pop("render_mode", None)
        steps = env_kwargs.pop("max_episode_steps", None)
        if steps is not None and env_kwargs.get("max_steps") is None:
            env_kwargs["max_steps"] = steps
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            valid = ", ".join(m.value for m in AutoresetMode)
            raise ValueError(
                f"autoreset_mode must be one of {valid}, not {autoreset_mode!r}"
            ) from None
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.envs = [NoMercyEnv(**env_kwargs) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = None
        self._flat = first.obs_format == "flat"
        self.single_observation_space = first.observation_space
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        # sample() without a mask draws a legal id per table (LegalMultiDiscrete).
        self.action_space = LegalMultiDiscrete(NUM_ACTIONS, num_envs, self.action_masks)
        self._raw = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        # The flat format's scaled vectors have their own array; the dict format's are raw.
        self._vectors = np.zeros_like(self._raw) if self._flat else self._raw
        self._scale = first._scale
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self._raw_rows = [row.data for row in self._raw]
        self._mask_rows = [row.data for row in self._masks]
        self._no_mask = memoryview(bytes(NUM_ACTIONS)).cast("b")
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._all.setflags(write=False)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=np.bool_)
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every table (or those of ``options["reset_mask"]``); ``seed`` an int gives
        table ``i`` the seed ``seed + i``, a list one seed per table."""
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim):
            seeds = [check_seed(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(
                    f"{len(seeds)} seeds given for num_envs={self.num_envs}: one per table"
                )
        else:
            base = check_seed(seed)  # an int or a numpy integer; a float or a str is refused
            assert base is not None
            seeds = [base + i for i in range(self.num_envs)]
        options = dict(options) if options else {}
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
        elif (
            not isinstance(mask, np.ndarray)
            or mask.dtype != np.bool_
            or mask.shape != (self.num_envs,)
            or not mask.any()
        ):
            raise ValueError(
                f"options['reset_mask'] must be a bool array of shape ({self.num_envs},) with "
                "at least one True"
            )
        rows = list(map(int, np.flatnonzero(mask)))
        for i in rows:
            self.envs[i]._deal(seeds[i])
            self._write(i)
            self._terminations[i] = self._truncations[i] = self._autoreset[i] = False
        infos = self._infos(self._all if len(rows) == self.num_envs else mask)
        return self._batch(), infos

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Any, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        """Play one id per table (ignored for a table being reset, in ``NEXT_STEP`` mode).

        Raises:
            ValueError: ``actions`` is not one integer id per table.
            IllegalActionIdError: with ``illegal_action="raise"``, an id its table may not
                take now (the message names the table); no table has moved.
            RuntimeError: with ``autoreset_mode=DISABLED``, a table has ended and was not
                reset.
        """
        ids = np.asarray(actions)
        if ids.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {ids.shape}")
        if not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"actions must be integer ids, not an array of {ids.dtype}")
        mode = self.autoreset_mode
        resetting = self._autoreset.tolist()
        if mode is AutoresetMode.DISABLED and any(resetting):
            i = resetting.index(True)
            raise RuntimeError(
                f"table {i} has ended: reset it (options={{'reset_mask': ...}}) first"
            )
        actions_list: list[int] = ids.tolist()
        self._check_legal(actions_list, resetting)
        same_step = mode is AutoresetMode.SAME_STEP
        rewards = [0.0] * self.num_envs
        terminations = [False] * self.num_envs
        truncations = [False] * self.num_envs
        extra: list[tuple[int, dict[str, Any]]] = []  # the infos beyond seat and mask
        for i, (env, action) in enumerate(zip(self.envs, actions_list, strict=True)):
            if resetting[i]:
                env._deal()  # NEXT_STEP: this step only resets the table
            else:
                why = None
                if env._all_random and action in env._legal:
                    moved = env._advance_written(action, self._raw_rows[i], self._mask_rows[i])
                    if moved is None:
                        continue  # the common case: no reward, the row is written
                    reward, terminated, truncated = moved
                else:
                    reward, terminated, truncated, why = env._advance(action)
                rewards[i] = reward
                if terminated or truncated or why is not None:
                    info = env._info(terminated or truncated)
                    if why is not None:
                        info["illegal_action"] = True
                        info["reason"] = why
                    if same_step and (terminated or truncated):
                        final = {"final_obs": env._observe(), "final_info": info}
                        extra.append((i, final))
                        env._deal()
                    else:
                        extra.append((i, info))
                    terminations[i] = terminated
                    truncations[i] = truncated
            self._write(i)
        self._rewards[:] = rewards
        self._terminations[:] = terminations
        self._truncations[:] = truncations
        infos = self._infos(self._all)
        for i, info in extra:
            infos = self._add_info(infos, info, i)
        if not same_step:
            np.logical_or(self._terminations, self._truncations, out=self._autoreset)
        return (
            self._batch(),
            self._rewards.copy(),
            self._terminations.copy(),
            self._truncations.copy(),
            infos,
        )

    def action_masks(self) -> npt.NDArray[np.int8]:
        """Every table's mask of legal ids now, ``(num_envs, NUM_ACTIONS)``."""
        return self._masks.copy()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the tables live in this process."""

    # ------------------------------------------------------------------ internals
    def _check_legal(self, actions: list[int], resetting: list[bool]) -> None:
        """In ``illegal_action="raise"`` mode, refuse a batch with an illegal id before any
        table moves (naming the table), so no table's step is lost to another's error."""
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            if env.illegal_action == "raise" and not resetting[i] and action not in env._legal:
                game = env.game
                assert game is not None
                why = explain_illegal(game, env.seat, action, f"table {i}, seat {env.seat}")
                raise IllegalActionIdError(why)

    def _write(self, i: int) -> None:
        """Table ``i``'s learner observation and mask into row ``i`` of the arrays."""
        env = self.envs[i]
        game = env.game
        assert game is not None
        env._observer.write(game, env.seat, self._raw_rows[i])
        row = self._mask_rows[i]
        row[:] = self._no_mask
        for a in env._legal:
            row[a] = 1
        self._seats[i] = env.seat

    def _infos(self, rows: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """The infos every table has after a step or reset (its seat; with flat observations
        its mask), for the tables of ``rows``."""
        infos: dict[str, Any] = {"seat": self._seats.copy(), "_seat": rows.copy()}
        if self._flat:
            infos["action_mask"] = self._masks.copy()
            infos["_action_mask"] = rows.copy()
        return infos

    def _batch(self) -> Any:
        if self._flat:
            np.multiply(self._raw, self._scale, out=self._vectors)
            return self._vectors.copy() if self.copy else self._vectors
        batch = {"observation": self._vectors, "action_mask": self._masks}
        return deepcopy(batch) if self.copy else batch
