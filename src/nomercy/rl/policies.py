"""Policies as plain functions ``(obs, mask) -> id``, and measuring them (docs/rl.md).

:func:`as_policy` turns what RL users train into one callable: a function
``(obs, mask) -> id`` as it is, a Stable-Baselines3 model or policy (PPO, MaskablePPO, ...),
or a torch module returning one logit per action id. :func:`evaluate` plays such a policy
against registry bots and reports its win rate with a Wilson interval.

Torch and SB3 are never imported here: an object is recognised by what it has (a ``predict``
and a ``policy``, a ``forward``), and torch is imported only once such an object arrives.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["Policy", "PolicyFn", "as_policy", "evaluate", "wilson"]

Obs = Any  # the env's observation: the flat vector or {"observation": ..., "action_mask": ...}


@runtime_checkable
class Policy(Protocol):
    """Anything that picks a legal id: ``policy(obs, mask) -> id`` (``mask[id] == 1``)."""

    def __call__(self, obs: Obs, mask: npt.NDArray[np.int8]) -> int: ...


class PolicyFn:
    """A policy wrapped by :func:`as_policy`: call it as ``policy(obs, mask) -> id``.

    Attributes:
        obs_format: the observation format the policy was built for (``"flat"`` or
            ``"dict"``); :func:`evaluate` and :class:`~nomercy.rl.SelfPlayEnv` give it that.
        name: a label for reports.
    """

    def __init__(
        self, fn: Callable[[Obs, npt.NDArray[np.int8]], int], obs_format: str, name: str
    ) -> None:
        self._fn = fn
        self.obs_format = obs_format
        self.name = name

    def __call__(self, obs: Obs, mask: npt.NDArray[np.int8]) -> int:
        return int(self._fn(obs, mask))

    def __repr__(self) -> str:
        return f"PolicyFn({self.name}, obs_format={self.obs_format!r})"


def _masked_pick(
    logits: npt.NDArray[Any], mask: npt.NDArray[np.int8], rng: np.random.Generator | None
) -> int:
    """The legal id with the largest logit (``rng`` None), or one sampled from the masked
    softmax."""
    legal = np.flatnonzero(mask)
    if len(legal) == 0:
        raise ValueError("the mask has no legal id: nothing to choose")
    values = np.asarray(logits, dtype=np.float64).reshape(-1)[legal]
    if rng is None:
        return int(legal[int(np.argmax(values))])
    values = values - values.max()
    p = np.exp(values)
    return int(legal[rng.choice(len(legal), p=p / p.sum())])


def _is_sb3_model(obj: Any) -> bool:
    return hasattr(obj, "predict") and hasattr(obj, "policy") and hasattr(obj, "learn")


def _is_sb3_policy(obj: Any) -> bool:
    return hasattr(obj, "get_distribution") and hasattr(obj, "obs_to_tensor")


def _is_torch_module(obj: Any) -> bool:
    try:
        import torch
    except ImportError:
        return False
    return isinstance(obj, torch.nn.Module)


def _space_format(space: Any) -> str:
    from gymnasium import spaces

    return "dict" if isinstance(space, spaces.Dict) else "flat"


def as_policy(
    policy: Any,
    *,
    deterministic: bool = True,
    seed: int | None = None,
    frozen: bool = False,
    obs_format: str | None = None,
) -> PolicyFn:
    """``policy`` as a :class:`PolicyFn` ``(obs, mask) -> id``.

    Args:
        policy: a callable ``(obs, mask) -> id`` (kept as it is; its answer is checked against
            the mask); an SB3 model (``PPO``, ``MaskablePPO``, ``DQN`` ...: anything with
            ``predict``, ``policy`` and ``learn``) or its ``.policy``; a torch module mapping a
            float tensor of shape ``(1, 706)``, the flat observation, to logits ``(1, 469)``;
            or a :class:`PolicyFn` (returned as it is unless ``frozen``).
        deterministic: play the legal id with the largest logit; ``False``: sample from the
            softmax over the legal ids (for snapshots playing opponents in self-play).
        seed: seeds the sampling.
        frozen: copy the network now, so later training does not change this policy (a
            snapshot of the learner).
        obs_format: the format a plain callable expects (default ``"flat"``); for SB3 it is
            read from the model's observation space.

    SB3 and torch policies are run on the CPU under ``torch.no_grad()``; the mask is applied to
    the logits, so a policy trained without masking still plays legal ids only.
    """
    rng = None if deterministic else np.random.default_rng(seed)
    if isinstance(policy, PolicyFn):
        return policy if not frozen else copy.deepcopy(policy)
    if _is_sb3_model(policy):
        policy = policy.policy
    if _is_sb3_policy(policy):
        return _sb3_policy(policy, rng, frozen)
    if _is_torch_module(policy):
        return _torch_policy(policy, rng, frozen)
    if callable(policy):
        fmt = obs_format or "flat"
        if fmt not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', not {obs_format!r}")
        fn = policy

        def checked(obs: Obs, mask: npt.NDArray[np.int8]) -> int:
            choice = fn(obs, mask)
            if not isinstance(choice, (int, np.integer)) or isinstance(choice, bool):
                raise TypeError(f"policy {fn!r} returned {choice!r}, not an action id")
            if not 0 <= int(choice) < len(mask) or not mask[int(choice)]:
                raise ValueError(f"policy {fn!r} chose id {int(choice)}, which the mask forbids")
            return int(choice)

        return PolicyFn(checked, fmt, getattr(policy, "__name__", type(policy).__name__))
    raise TypeError(
        f"cannot use {type(policy).__name__} as a policy: give a callable (obs, mask) -> id, "
        "an SB3 model or a torch module"
    )


def _sb3_policy(policy: Any, rng: np.random.Generator | None, frozen: bool) -> PolicyFn:
    import torch

    if frozen:
        policy = copy.deepcopy(policy).to("cpu")
    policy.set_training_mode(False)
    fmt = _space_format(policy.observation_space)

    def act(obs: Obs, mask: npt.NDArray[np.int8]) -> int:
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(tensor)
            logits = dist.distribution.logits[0].cpu().numpy()
        return _masked_pick(logits, mask, rng)

    return PolicyFn(act, fmt, type(policy).__name__)


def _torch_policy(module: Any, rng: np.random.Generator | None, frozen: bool) -> PolicyFn:
    import torch

    if frozen:
        module = copy.deepcopy(module)
    module.eval()
    params = list(module.parameters())
    device = params[0].device if params else torch.device("cpu")

    def act(obs: Obs, mask: npt.NDArray[np.int8]) -> int:
        vector = obs["observation"] if isinstance(obs, Mapping) else obs
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(vector, dtype=np.float32), device=device)[None]
            logits = module(x)
            if isinstance(logits, tuple):  # (logits, value) networks
                logits = logits[0]
            out = logits.reshape(-1).cpu().numpy()
        if out.shape != mask.shape:
            raise ValueError(
                f"the module returned {out.shape[0]} logits; the env has {mask.shape[0]} ids"
            )
        return _masked_pick(out, mask, rng)

    return PolicyFn(act, "flat", type(module).__name__)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``wins`` out of ``games`` (95% by default)."""
    if games <= 0:
        raise ValueError("need at least one game")
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return centre - half, centre + half


def evaluate(
    policy: Any,
    *,
    opponents: str | Sequence[Any] = "random",
    players: int = 2,
    games: int = 400,
    seed: int = 0,
    preset: str = "no-mercy",
    options: Mapping[str, Any] | None = None,
    deterministic: bool = True,
) -> dict[str, Any]:
    """Play ``policy`` against ``opponents`` and report its win rate with a Wilson interval.

    Args:
        policy: anything :func:`as_policy` takes (a callable, an SB3 model, a torch module).
        opponents: one bot name (every other seat) or one entry per other seat: registry
            names, or policies (anything :func:`as_policy` takes).
        players: seats, 2-6.
        games: games to play; game ``i`` is dealt from ``seed + i`` with the policy at seat
            ``i % players``, so every seat gets its share.
        seed: the first game's seed (the bots' seeds derive from it too).
        preset, options: the rules.
        deterministic: the policy plays its largest logit (``False``: it samples).

    Returns:
        ``{"wins", "games", "win_rate", "low", "high", "players", "opponents", "preset",
        "mean_length", "knocked_out"}``: ``low``/``high`` bound the 95% Wilson interval;
        ``mean_length`` is the mean number of steps per game, ``knocked_out`` how many games
        ended for the policy by a Mercy knock-out.
    """
    from nomercy.rl.selfplay_env import SelfPlayEnv

    fn = as_policy(policy, deterministic=deterministic, seed=seed)
    if isinstance(opponents, str):
        opponents = [opponents] * (players - 1)
    opponents = list(opponents)
    if len(opponents) != players - 1:
        raise ValueError(f"{players} players need {players - 1} opponents, got {len(opponents)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, not {games!r}")
    wins = knocked = steps = 0
    envs = {
        seat: SelfPlayEnv(
            opponents,
            preset=preset,
            options=options,
            learner_seat=seat,
            obs_format=fn.obs_format,
        )
        for seat in range(players)
    }
    for i in range(games):
        env = envs[i % players]
        obs, info = env.reset(seed=seed + i)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(fn(obs, info["action_mask"]))
            done = terminated or truncated
        wins += info["winner"] == info["seat"]
        knocked += bool(info["knocked_out"][info["seat"]]) and info["winner"] != info["seat"]
        steps += info["episode_steps"]
    low, high = wilson(wins, games)
    return {
        "wins": wins,
        "games": games,
        "win_rate": wins / games,
        "low": low,
        "high": high,
        "players": players,
        "opponents": [o if isinstance(o, str) else repr(o) for o in opponents],
        "preset": preset,
        "mean_length": steps / games,
        "knocked_out": knocked,
    }
