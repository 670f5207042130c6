"""Reinforcement-learning environments for No Mercy and classic play (docs/rl.md).

Needs the ``rl`` extra: ``pip install 'uno-no-mercy[rl]'`` (numpy, gymnasium, pettingzoo).

- the action ids and observations are :mod:`nomercy.encoding.actions` and
  :mod:`nomercy.encoding.observations` (below the bots too, so the ``neural`` bot shares
  them); the package exports the names an environment's user needs most (``NUM_ACTIONS``,
  ``action_mask``, ``OBS_SIZE``, ``ObservationEncoder``, ...);
- :func:`env` / :class:`raw_env`: the PettingZoo AEC environment, every seat an agent;
- :class:`NoMercyEnv`: a Gymnasium environment, one learning seat against registered bots
  (registered as ``NoMercy-v0``);
- :func:`parallel_env`: the AEC env through PettingZoo's ``turn_based_aec_to_parallel``;
- :class:`SelfPlayEnv`: one learner seat against snapshots of itself or bots, every seat's
  reward credited to that seat (registered as ``NoMercySelfPlay-v0``);
- :func:`as_policy` / :func:`evaluate`: a callable, SB3 model or torch module as a policy
  ``(obs, mask) -> id``, and its win rate against bots with a Wilson interval.
"""

from __future__ import annotations

try:
    import gymnasium as _gymnasium  # noqa: F401
    import numpy as _numpy  # noqa: F401
    import pettingzoo as _pettingzoo  # noqa: F401
except ImportError as _exc:  # pragma: no cover - depends on the install
    raise ImportError(
        f"nomercy.rl needs the rl extra ({_exc.name} is missing): pip install 'uno-no-mercy[rl]'"
    ) from _exc

from nomercy.core.errors import ActionIdError
from nomercy.encoding.actions import (
    ACTION_SPACE_VERSION,
    MAX_PLAYERS,
    NUM_ACTIONS,
    action_mask,
    action_name,
    action_to_id,
    id_to_action,
    legal_ids,
)
from nomercy.encoding.observations import OBS_LAYOUT, OBS_SIZE, ObservationEncoder, PublicTracker
from nomercy.rl._common import IllegalActionIdError
from nomercy.rl.gymnasium_env import NoMercyEnv
from nomercy.rl.pettingzoo_env import env, parallel_env, raw_env
from nomercy.rl.policies import PolicyFn, as_policy, evaluate
from nomercy.rl.selfplay_env import SelfPlayEnv

__all__ = [
    "ACTION_SPACE_VERSION",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "ActionIdError",
    "IllegalActionIdError",
    "NoMercyEnv",
    "ObservationEncoder",
    "PolicyFn",
    "PublicTracker",
    "SelfPlayEnv",
    "action_mask",
    "action_name",
    "action_to_id",
    "as_policy",
    "env",
    "evaluate",
    "id_to_action",
    "legal_ids",
    "parallel_env",
    "raw_env",
]


def _register() -> None:
    """Register ``NoMercy-v0`` and ``NoMercySelfPlay-v0`` with Gymnasium (once).

    Without Gymnasium's ``OrderEnforcing`` and ``PassiveEnvChecker`` wrappers, so
    ``gym.make("NoMercy-v0").action_masks()`` works (Gymnasium 1.x wrappers forward no
    attributes): the envs refuse to step or render before ``reset()`` themselves, and the
    suite runs ``check_env`` on them (tests/rl/test_rl_checkers.py).
    ``gym.make(..., disable_env_checker=False)`` still adds the checker.
    """
    from gymnasium.envs.registration import register, registry

    if "NoMercy-v0" not in registry:
        register(
            id="NoMercy-v0",
            entry_point="nomercy.rl.gymnasium_env:NoMercyEnv",
            vector_entry_point="nomercy.rl.vector_env:NoMercyVectorEnv",
            order_enforce=False,
            disable_env_checker=True,
        )
    if "NoMercySelfPlay-v0" not in registry:
        register(
            id="NoMercySelfPlay-v0",
            entry_point="nomercy.rl.selfplay_env:SelfPlayEnv",
            order_enforce=False,
            disable_env_checker=True,
        )


_register()
