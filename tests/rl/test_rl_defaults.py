"""Every official checker on every environment exactly as it comes: no argument changed
(issue 48, docs/rl.md "Checkers").

PettingZoo's ``api_test``, ``seed_test``, ``render_test``, ``max_cycles_test``, ``state_test``,
``parallel_api_test`` and ``parallel_seed_test`` on ``nomercy.rl.env()`` and
``nomercy.rl.parallel_env()``; Gymnasium's ``check_env`` on ``NoMercyEnv()``,
``SelfPlayEnv()`` and both through ``gym.make``; for the vector env (Gymnasium 1.x has no
``check_env`` for vector envs) Gymnasium's ``check_environments_match`` against its own
``SyncVectorEnv``, the batched spaces' checks, and blind ``action_space.sample()`` play.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import env_checker, passive_env_checker
from gymnasium.utils.env_match import check_environments_match
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

import nomercy.rl as rl


@pytest.fixture
def strict() -> Iterator[None]:
    """Every warning is an error, but for two remarks about the env's chosen forms."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The Dict observation is the documented format (PettingZoo's classic games warn too).
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        # check_env on an env built without gym.make cannot try the other render modes; the
        # gym.make envs below give it a spec, and it tries them there.
        warnings.filterwarnings("ignore", message=".*not having a spec")
        yield


def test_pettingzoo_checkers_pass_on_the_defaults(
    strict: None, capsys: pytest.CaptureFixture[str]
) -> None:
    api_test(rl.env(), num_cycles=200)
    seed_test(rl.env, num_cycles=200)
    render_test(rl.env)
    state_test(rl.env(), rl.parallel_env(), num_cycles=50)
    parallel_api_test(rl.parallel_env(), num_cycles=200)
    parallel_seed_test(rl.parallel_env, num_cycles=200)
    capsys.readouterr()  # render_test's "human" mode printed views


@pytest.mark.parametrize("seed", range(6))
def test_max_cycles_test_passes_on_the_defaults(strict: None, seed: int) -> None:
    # nomercy.rl itself is the module the test reads (env(max_cycles=...) and
    # parallel_env(max_cycles=...)). The test resets without a seed, which draws a deal from
    # the env's generator: each env is seeded first so the run is reproducible (unseeded,
    # ~3% of deals end within 4 cycles by the rules, e.g. a Colour Roulette knock-out, NM-30,
    # NM-33, and the test assumes the game outlasts them).
    def seeded(make: Any) -> Any:
        def build(max_cycles: int) -> Any:
            env = make(max_cycles=max_cycles)
            env.reset(seed=seed)
            return env

        return build

    max_cycles_test(types.SimpleNamespace(env=seeded(rl.env), parallel_env=seeded(rl.parallel_env)))


def test_max_cycles_counts_cycles_of_every_live_agent() -> None:
    env = rl.env(max_cycles=3, num_players=3)
    env.reset(seed=1)
    counts = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        counts[agent] += 1
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample())
    assert counts == dict.fromkeys(env.possible_agents, 4)  # 3 cycles, then the final step
    with pytest.raises(ValueError, match="max_cycles must be a positive integer"):
        rl.env(max_cycles=0)
    with pytest.raises(ValueError, match="not both"):
        rl.parallel_env(max_cycles=3, max_steps=3)
    assert type(rl.env()) is rl.raw_env  # without max_cycles: the turn-based env itself


GYM_ENVS = {
    "NoMercyEnv()": rl.NoMercyEnv,
    "SelfPlayEnv()": rl.SelfPlayEnv,
    'gym.make("NoMercy-v0")': lambda: gym.make("NoMercy-v0"),
    'gym.make("NoMercySelfPlay-v0")': lambda: gym.make("NoMercySelfPlay-v0"),
}


@pytest.mark.parametrize("name", list(GYM_ENVS))
@pytest.mark.parametrize("seed", range(8))
def test_gymnasium_check_env_passes_on_the_defaults(
    strict: None, name: str, seed: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # check_step_determinism samples its id in whatever state the env is left in, then
    # resets to seed 123: each seed here leaves a different state before the whole check.
    env = GYM_ENVS[name]()
    env.reset(seed=seed)
    env_checker.check_env(env)
    capsys.readouterr()  # the "human" render mode, which check_env tries, printed views


def test_gym_make_gives_action_masks_directly() -> None:
    env = gym.make("NoMercy-v0")
    obs, _ = env.reset(seed=0)
    np.testing.assert_array_equal(env.action_masks(), obs["action_mask"])
    selfplay = gym.make("NoMercySelfPlay-v0")
    _, info = selfplay.reset(seed=0)
    np.testing.assert_array_equal(selfplay.action_masks(), info["action_mask"])
    with pytest.raises(RuntimeError, match="reset"):
        gym.make("NoMercy-v0").step(0)  # order is enforced by the env itself


def test_the_vector_env_passes_gymnasiums_checks_on_the_defaults(strict: None) -> None:
    native = gym.make_vec("NoMercy-v0", num_envs=1)
    assert type(native).__name__ == "NoMercyVectorEnv"
    passive_env_checker.check_action_space(native.single_action_space)
    passive_env_checker.check_observation_space(native.single_observation_space)
    # Stepped with native.action_space.sample() (legal ids), its observations, rewards,
    # flags and infos are those of Gymnasium's SyncVectorEnv over the same env.
    sync = gym.make_vec("NoMercy-v0", num_envs=1, vectorization_mode="sync")
    check_environments_match(native, sync, num_steps=400, seed=3)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
@pytest.mark.parametrize("illegal_action", [None, "raise"])
def test_the_vector_envs_blind_sample_is_legal(mode: str, illegal_action: str | None) -> None:
    kwargs: dict[str, Any] = {"autoreset_mode": gym.vector.AutoresetMode[mode]}
    if illegal_action is not None:
        kwargs["illegal_action"] = illegal_action
    envs = gym.make_vec("NoMercy-v0", num_envs=4, **kwargs)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    ended = 0
    for _ in range(1500):
        masks = envs.action_masks()
        actions = envs.action_space.sample()
        live = masks.any(axis=1)
        assert masks[np.arange(4), actions][live].all()
        _, _, terminated, truncated, info = envs.step(actions)
        assert "illegal_action" not in info
        ended += int(np.sum(terminated | truncated))
    assert ended > 10
    import pickle

    # Pickled on its own (e.g. in a saved model) the space is a plain MultiDiscrete.
    space = pickle.loads(pickle.dumps(envs.action_space))
    assert type(space) is gym.spaces.MultiDiscrete and space == envs.action_space
