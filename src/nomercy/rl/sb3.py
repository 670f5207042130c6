"""Stable-Baselines3 adapter: the native vector env as an SB3 ``VecEnv`` (docs/rl.md, "SB3").

>>> from nomercy.rl.sb3 import NoMercySB3VecEnv
>>> venv = NoMercySB3VecEnv(8, opponents=["random"], obs_format="flat")  # doctest: +SKIP
>>> from sb3_contrib import MaskablePPO                                   # doctest: +SKIP
>>> MaskablePPO("MlpPolicy", venv).learn(10_000)                          # doctest: +SKIP

It wraps a :class:`~nomercy.rl.vector_env.NoMercyVectorEnv` (same-step autoreset), so the N
tables step on the fast path, and speaks SB3's protocol: ``reset()`` gives the observations,
``step_wait()`` ``(obs, rewards, dones, infos)`` with one info dict per table, an ended
table's last observation in ``infos[i]["terminal_observation"]`` and
``infos[i]["TimeLimit.truncated"]`` for a ``max_steps`` cut; ``env_method("action_masks")``
gives each table's mask (what ``sb3_contrib``'s ``MaskablePPO`` asks for). When SB3 is
installed the class is an SB3 ``VecEnv``; without it, the same protocol on a plain class (so
its logic runs where SB3 and torch are not installed).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode

from nomercy.rl.vector_env import NoMercyVectorEnv


def _sb3_vec_env() -> Any:
    """SB3's ``VecEnv`` class, or ``object`` without SB3. Imported by name, so that mypy
    sees the same (``Any``) with SB3 installed and without (a user may have neither)."""
    try:
        module = importlib.import_module("stable_baselines3.common.vec_env.base_vec_env")
    except ImportError:  # pragma: no cover - depends on the install
        return object
    return module.VecEnv


_VecEnv: Any = _sb3_vec_env()
#: Whether stable-baselines3 is installed (the adapter is then an SB3 ``VecEnv``).
HAVE_SB3: bool = _VecEnv is not object

__all__ = ["HAVE_SB3", "NoMercySB3VecEnv"]


class NoMercySB3VecEnv(_VecEnv):  # type: ignore[misc]
    """``num_envs`` tables of ``NoMercy-v0`` as one SB3 ``VecEnv``.

    Args:
        num_envs: tables.
        **env_kwargs: every table's :class:`~nomercy.rl.gymnasium_env.NoMercyEnv`
            arguments (``opponents``, ``preset``, ``options``, ``obs_format``, ``reward``,
            ``max_steps``, ...). ``obs_format="flat"`` suits SB3's ``MlpPolicy``; the
            ``"dict"`` format gives SB3 a ``Dict`` space (``MultiInputPolicy``).
    """

    def __init__(self, num_envs: int, **env_kwargs: Any) -> None:
        self.venv = NoMercyVectorEnv(
            num_envs, autoreset_mode=AutoresetMode.SAME_STEP, copy=True, **env_kwargs
        )
        observation_space = self.venv.single_observation_space
        action_space = self.venv.single_action_space
        if HAVE_SB3:
            super().__init__(num_envs, observation_space, action_space)
        else:
            self.num_envs = num_envs
            self.observation_space = observation_space
            self.action_space = action_space
        self._actions: npt.NDArray[np.int64] | None = None
        self._seed: int | None = None

    # ------------------------------------------------------------------ VecEnv protocol
    def reset(self) -> Any:
        """Deal every table; the observations (seeded by the last :meth:`seed`, if any)."""
        obs, _ = self.venv.reset(seed=self._seed)
        self._seed = None
        return obs

    def step_async(self, actions: npt.ArrayLike) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(
        self,
    ) -> tuple[Any, npt.NDArray[np.float32], npt.NDArray[np.bool_], list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        finals = info.get("final_info")
        final_obs = info.get("final_obs")
        for i in np.flatnonzero(dones).tolist():
            last = _unbatch(finals, i) if finals is not None else {}
            last.pop("action_mask", None)
            assert final_obs is not None
            last["terminal_observation"] = final_obs[i]
            last["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            infos[i] = last
        if "illegal_action" in info:
            for i in np.flatnonzero(info["_illegal_action"]).tolist():
                infos[i]["illegal_action"] = True
                infos[i]["reason"] = info["reason"][i]
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next :meth:`reset` (table ``i`` gets ``seed + i``)."""
        self._seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Every table's legal-action mask, ``(num_envs, NUM_ACTIONS)`` booleans."""
        return self.venv.action_masks().astype(np.bool_)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """Each table's attribute (of its :class:`~nomercy.rl.table.LearnerTable`), and the
        two SB3 asks of every env as a single env has them: ``render_mode`` (the vector
        env's: the tables do not render; ``VecEnv.__init__`` reads it) and ``action_masks``
        (a method giving the table's mask; ``MaskablePPO`` checks it with ``has_attr``)."""
        chosen = self._indices(indices)
        if attr_name == "render_mode":
            return [self.venv.render_mode for _ in chosen]
        if attr_name == "action_masks":
            tables = self.venv.tables
            return [lambda t=tables[i]: t.mask().astype(np.bool_) for i in chosen]
        return [getattr(self.venv.tables[i], attr_name) for i in chosen]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for i in self._indices(indices):
            setattr(self.venv.tables[i], attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call a method of each table (its ``LearnerTable``); ``"action_masks"`` reads the
        batch's masks."""
        chosen = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        return [
            getattr(self.venv.tables[i], method_name)(*method_args, **method_kwargs) for i in chosen
        ]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[None]:
        return [None] * self.num_envs

    def _indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _unbatch(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Table ``i``'s entries of Gymnasium's batched infos (``key`` arrays with ``_key``
    masks), as plain values."""
    out: dict[str, Any] = {}
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        present = infos.get(f"_{key}")
        if present is not None and not present[i]:
            continue
        item = value[i] if not isinstance(value, dict) else _unbatch(value, i)
        out[key] = item.item() if isinstance(item, np.generic) else item
    return out
