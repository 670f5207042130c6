"""A native vector env for ``NoMercy-v0``: N tables stepped per call into preallocated arrays.

Registered as ``NoMercy-v0``'s ``vector_entry_point``, so ``gymnasium.make_vec("NoMercy-v0",
num_envs=N)`` builds it (``vectorization_mode="sync"`` or ``"async"`` still give Gymnasium's
own vector envs over N single envs). Each table is a :class:`~nomercy.rl.table.LearnerTable`,
the single-table API ``NoMercy-v0`` plays too, with no env or wrapper around it: the tables'
observation vectors are written straight into the rows of one ``(num_envs, OBS_SIZE)`` array
and their masks into one ``int8`` array, rewards and flags into arrays allocated once. The
tables whose opponents all pick at random advance in one compiled call
(:func:`nomercy.encoding.fast.advance_tables`); Python settles only the tables with something
to report (a reward, an end, an illegal id) and those with other bots. The options are the
single env's (opponent bots, rewards, observation formats, illegal-action modes,
``max_steps``), passed as keyword arguments, plus ``autoreset_mode`` (docs/rl.md, "Vector
envs").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nomercy.encoding.actions import NUM_ACTIONS
from nomercy.encoding.fast import advance_tables, int32_view, mask_view
from nomercy.encoding.observations import OBS_SIZE
from nomercy.rl._common import (
    IllegalActionIdError,
    LegalMultiDiscrete,
    check_flat_bounds,
    check_obs_format,
    check_seed,
    observation_format,
)
from nomercy.rl.table import LearnerTable, Step

__all__ = ["NoMercyVectorEnv"]


def _first(item: tuple[int, Step]) -> int:
    return item[0]


class NoMercyVectorEnv(VectorEnv):
    """``num_envs`` tables of ``NoMercy-v0`` (:class:`~nomercy.rl.table.LearnerTable`),
    stepped together.

    Args:
        num_envs: the number of tables.
        autoreset_mode: as Gymnasium's vector envs: ``NEXT_STEP`` (default: the step after
            an episode ends resets that table and ignores its action), ``SAME_STEP`` (the
            table is reset in the step that ends it; its last observation and info are in
            ``info["final_obs"]`` / ``info["final_info"]``) or ``DISABLED`` (reset ended
            tables yourself with ``reset(options={"reset_mask": mask})``).
        copy: return copies (default) or the arrays themselves, which the next call
            overwrites: the observations, the masks in the infos, rewards and flags.
        obs_format, flat_bounds: as :class:`~nomercy.rl.NoMercyEnv`.
        **table_kwargs: every table's other :class:`~nomercy.rl.NoMercyEnv` arguments
            (``opponents``, ``preset``, ``options``, ``reward``, ``max_steps``,
            ``deal_version``, ...); ``max_episode_steps`` is taken as ``max_steps``. Every
            table deals with ``deal_version`` at every reset and autoreset.

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
        obs_format: str = "dict",
        flat_bounds: str = "fixed",
        **table_kwargs: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if table_kwargs.pop("render_mode", None) is not None:
            raise ValueError("the vector env does not render: render a single NoMercy-v0 env")
        steps = table_kwargs.pop("max_episode_steps", None)
        if steps is not None and table_kwargs.get("max_steps") is None:
            table_kwargs["max_steps"] = steps
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            valid = ", ".join(m.value for m in AutoresetMode)
            raise ValueError(
                f"autoreset_mode must be one of {valid}, not {autoreset_mode!r}"
            ) from None
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.obs_format = check_obs_format(obs_format)
        self.flat_bounds = check_flat_bounds(flat_bounds)
        #: The tables (:class:`~nomercy.rl.table.LearnerTable`), one per sub-env.
        self.tables = [LearnerTable(**table_kwargs) for _ in range(num_envs)]
        first = self.tables[0]
        #: The deal version every table deals with (``deal_version``; 1 by default).
        self.deal_version = first.deal_version
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = None
        self._flat = obs_format == "flat"
        self._raise = first.illegal_action == "raise"
        self.single_observation_space, self._scale = observation_format(
            first.encoder, obs_format, flat_bounds
        )
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        # sample() without a mask draws a legal id per table (LegalMultiDiscrete).
        self.action_space = LegalMultiDiscrete(NUM_ACTIONS, num_envs, self.action_masks)
        # The tables write their raw vectors and masks into rows of these arrays; the flat
        # format's scaled vectors go to a new array per step (copy) or to _vectors.
        self._raw = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self._vectors = np.zeros_like(self._raw) if self._flat else self._raw
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self._raw_rows = [int32_view(row) for row in self._raw]  # write()'s cheaper target
        self._mask_rows = [mask_view(row) for row in self._masks]
        self._cores = [table.core for table in self.tables]
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._shape = (num_envs,)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=np.bool_)
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        # The tables whose episode ended in the last step, to reset (NEXT_STEP) or that
        # must be reset (DISABLED) before they step again.
        self._ended: set[int] = set()

    def __getstate__(self) -> dict[str, Any]:
        # Memoryviews do not pickle: the rows are taken again of the restored arrays.
        state = self.__dict__.copy()
        del state["_raw_rows"], state["_mask_rows"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._raw_rows = [int32_view(row) for row in self._raw]
        self._mask_rows = [mask_view(row) for row in self._masks]
        self.action_space = LegalMultiDiscrete(NUM_ACTIONS, self.num_envs, self.action_masks)

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
            mask = self._all
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
        for i in np.flatnonzero(mask).tolist():
            self._deal(i, seeds[i])
            self._terminations[i] = self._truncations[i] = False
            self._ended.discard(i)
        return self._batch(), self._infos(mask)

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
        if ids.shape != self._shape:
            raise ValueError(f"actions must have shape ({self.num_envs},), not {ids.shape}")
        if ids.dtype.kind not in "iu":  # np.issubdtype(..., np.integer), ~20 times cheaper
            raise ValueError(f"actions must be integer ids, not an array of {ids.dtype}")
        mode = self.autoreset_mode
        ended = self._ended
        if ended and mode is AutoresetMode.DISABLED:
            raise RuntimeError(
                f"table {min(ended)} has ended: reset it (options={{'reset_mask': ...}}) first"
            )
        actions_list: list[int] = ids.tolist()
        if self._raise:
            self._check_legal(actions_list)
        if self.copy:  # new arrays: the copies asked for, without a copy
            rewards = np.zeros(self.num_envs)
            terminations = np.zeros(self.num_envs, dtype=np.bool_)
            truncations = np.zeros(self.num_envs, dtype=np.bool_)
        else:
            rewards, terminations, truncations = (
                self._rewards,
                self._terminations,
                self._truncations,
            )
            rewards.fill(0.0)
            terminations.fill(False)
            truncations.fill(False)
        # The compiled step: every table whose random opponents let it advance unremarked
        # is written there; the others are settled or stepped here.
        untouched: list[int] = []
        settle = advance_tables(
            self._cores, actions_list, self._raw_rows, self._mask_rows, untouched
        )
        reports: list[tuple[int, Step]] = []
        for i in settle:
            table = self.tables[i]
            out_before = table.observer.out_before
            reports.append((i, table.settle(out_before, self._raw_rows[i], self._mask_rows[i])))
        resetting = ended if mode is AutoresetMode.NEXT_STEP else ()
        self._ended = set()
        for i in untouched:
            if i in resetting:
                self._deal(i)  # NEXT_STEP: this step only resets the table
            else:
                table = self.tables[i]
                moved = table.step(actions_list[i], self._raw_rows[i], self._mask_rows[i])
                reports.append((i, moved))
        # Reported first: a same-step autoreset deals again, and the infos show the new deal.
        extra = self._report(reports, rewards, terminations, truncations) if reports else None
        infos = self._infos(self._all)
        if extra:
            self._merge_infos(infos, extra)
        return self._batch(), rewards, terminations, truncations, infos

    def action_masks(self) -> npt.NDArray[np.int8]:
        """Every table's mask of legal ids now, ``(num_envs, NUM_ACTIONS)``."""
        return self._masks.copy()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the tables live in this process."""

    # ------------------------------------------------------------------ internals
    def _check_legal(self, actions: list[int]) -> None:
        """In ``illegal_action="raise"`` mode, refuse a batch with an illegal id before any
        table moves (naming the table), so no table's step is lost to another's error."""
        for i, (table, action) in enumerate(zip(self.tables, actions, strict=True)):
            if i not in self._ended:
                why = table.explain(action, f"table {i}, seat {table.seat}")
                if why is not None:
                    raise IllegalActionIdError(why)

    def _deal(self, i: int, seed: int | None = None) -> None:
        """Deal table ``i`` a new game and write its first observation and mask."""
        table = self.tables[i]
        table.reset(seed)
        table.write(self._raw_rows[i], self._mask_rows[i])
        self._seats[i] = table.seat

    def _report(
        self,
        reports: list[tuple[int, Step]],
        rewards: npt.NDArray[np.float64],
        terminations: npt.NDArray[np.bool_],
        truncations: npt.NDArray[np.bool_],
    ) -> list[tuple[int, dict[str, Any]]]:
        """The tables' step outcomes into the arrays; returns, in table order, the infos
        beyond seat and mask (the outcome at an end, the reason of an illegal id). An ended
        table is dealt again now (``SAME_STEP``) or at its next step."""
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        extra: list[tuple[int, dict[str, Any]]] = []
        for i, (reward, terminated, truncated, why) in sorted(reports, key=_first):
            rewards[i] = reward
            ended = terminated or truncated
            if not ended and why is None:
                continue
            terminations[i] = terminated
            truncations[i] = truncated
            info = self.tables[i].info(ended)
            if why is not None:
                info["illegal_action"] = True
                info["reason"] = why
            if ended and same_step:
                if self._flat:
                    info["action_mask"] = self._masks[i].copy()
                extra.append((i, {"final_obs": self._row(i), "final_info": info}))
                self._deal(i)
            else:
                # Its seat and mask are in the infos already, as every table's (_infos).
                del info["seat"]
                extra.append((i, info))
                if ended:
                    self._ended.add(i)
        return extra

    def _merge_infos(self, infos: dict[str, Any], items: list[tuple[int, dict[str, Any]]]) -> None:
        """Gymnasium's ``VectorEnv._add_info`` for several tables at once (the same arrays,
        dtypes and ``_key`` masks; ``items`` in table order), one array per key."""
        n = self.num_envs
        keys: dict[str, None] = {}  # every key, in the order the tables first give it
        for _, info in items:
            keys.update(dict.fromkeys(info))
        for key in keys:
            present = [(i, info[key]) for i, info in items if key in info]
            first = present[0][1]
            array: Any
            if key == "final_obs":
                array = infos.get(key)
                if array is None:
                    array = np.empty(n, dtype=object)  # every item None
                for i, value in present:
                    array[i] = value
            elif isinstance(first, dict):
                array = infos.get(key, {})
                self._merge_infos(array, present)
            else:
                array = infos.get(key)
                if array is None:
                    if type(first) in (int, float, bool) or isinstance(first, np.number):
                        array = np.zeros(n, dtype=type(first))
                    elif isinstance(first, np.ndarray):
                        array = np.zeros((n, *first.shape), dtype=first.dtype)
                    else:
                        array = np.empty(n, dtype=object)  # every item None
                for i, value in present:
                    array[i] = value
            rows = infos.get(f"_{key}")
            if rows is None:
                rows = np.zeros(n, dtype=np.bool_)
            for i, _ in present:
                rows[i] = True
            infos[key], infos[f"_{key}"] = array, rows

    def _row(self, i: int) -> Any:
        """Table ``i``'s observation now, as the single env returns it (a new array)."""
        if self._flat:
            return np.multiply(self._raw[i], self._scale)
        return {"observation": self._raw[i].copy(), "action_mask": self._masks[i].copy()}

    def _infos(self, rows: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """The infos every table has after a step or reset (its seat; with flat observations
        its mask), for the tables of ``rows``."""
        infos: dict[str, Any] = {"seat": self._seats.copy(), "_seat": rows.copy()}
        if self._flat:
            infos["action_mask"] = self._masks.copy() if self.copy else self._masks
            infos["_action_mask"] = rows.copy()
        return infos

    def _batch(self) -> Any:
        if self._flat:
            if self.copy:  # one pass: the scaled copy is the copy asked for
                return np.multiply(self._raw, self._scale)
            return np.multiply(self._raw, self._scale, out=self._vectors)
        if self.copy:
            return {"observation": self._raw.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._raw, "action_mask": self._masks}
