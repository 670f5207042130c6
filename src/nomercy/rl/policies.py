"""Measuring a policy: :func:`evaluate` plays it against bots (docs/rl.md).

:func:`as_policy` (from :mod:`nomercy.bots.policy_bot`, where tournaments' policy bots live)
turns a callable ``(obs, mask) -> id``, an SB3 model or a torch module into one callable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nomercy.bots.policy_bot import Policy, PolicyFn, as_policy
from nomercy.core.stats import wilson_interval
from nomercy.rl.selfplay_env import SelfPlayEnv

__all__ = ["Policy", "PolicyFn", "as_policy", "evaluate"]


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
    flat_bounds: str | None = None,
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
        flat_bounds: the ``"flat"`` scaling the policy was trained with (``"fixed"`` or
            ``"rules"``); ``None`` (default): the one it carries
            (:attr:`~nomercy.bots.policy_bot.PolicyFn.flat_bounds`, ``"fixed"`` unless
            :func:`as_policy` was told otherwise).

    The policy sees the observations of the environments (the learner's seat of
    :class:`~nomercy.rl.SelfPlayEnv`), ``opp_void`` included; a tournament's
    ``policy:MODULE:ATTR`` bot sees the same ones for the same game.

    Returns:
        ``{"wins", "games", "win_rate", "low", "high", "players", "opponents", "preset",
        "mean_length", "knocked_out"}``: ``low``/``high`` bound the 95% Wilson interval;
        ``mean_length`` is the mean number of steps per game, ``knocked_out`` how many games
        ended for the policy by a Mercy knock-out.
    """
    fn = as_policy(policy, deterministic=deterministic, seed=seed, flat_bounds=flat_bounds)
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
            flat_bounds=fn.flat_bounds,
            # A policy's answer is checked against the mask (as_policy): an illegal id here
            # is a bug to report, never a step to penalise.
            illegal_action="raise",
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
    low, high = wilson_interval(wins, games)
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
