"""The native vector env (``NoMercy-v0``'s vector entry point) steps as Gymnasium's own."""

from __future__ import annotations

from typing import Any

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

import nomercy.rl  # noqa: E402,F401 (registers NoMercy-v0)
from nomercy.rl.vector_env import NoMercyVectorEnv  # noqa: E402

_CONFIGS = [
    {"opponents": ["random"], "obs_format": "flat"},
    {"opponents": ["greedy", "random"], "obs_format": "dict"},
    {"opponents": ["random"], "preset": "classic", "obs_format": "flat", "max_steps": 30},
    {"opponents": ["heuristic"], "reward": "points", "options": {"scoring_enabled": True}},
    # Four seats of random opponents: knock-outs mid-game, with a bonus for each.
    {"opponents": ["random"] * 3, "obs_format": "flat", "knockout_bonus": 0.25},
]


def _masks(obs: Any, info: dict[str, Any]) -> Any:
    return obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("k", range(len(_CONFIGS)))
def test_the_native_vector_env_steps_as_sync_vector_env(mode: AutoresetMode, k: int) -> None:
    kwargs = _CONFIGS[k]
    native = gym.make_vec("NoMercy-v0", num_envs=4, autoreset_mode=mode, **kwargs)
    assert isinstance(native, NoMercyVectorEnv)  # the vector entry point is the default
    sync = gym.make_vec(
        "NoMercy-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **kwargs,
    )
    assert isinstance(sync, SyncVectorEnv)
    assert native.observation_space == sync.observation_space
    obs_n, info_n = native.reset(seed=7)
    obs_s, info_s = sync.reset(seed=7)
    _same(obs_n, obs_s)
    rng = np.random.default_rng(k)
    ended = 0
    for _ in range(300):
        masks = _masks(obs_s, info_s)
        np.testing.assert_array_equal(native.action_masks(), masks)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs_n, rew_n, term_n, trunc_n, info_n = native.step(actions)
        obs_s, rew_s, term_s, trunc_s, info_s = sync.step(actions)
        _same(obs_n, obs_s)
        np.testing.assert_array_equal(rew_n, rew_s)
        np.testing.assert_array_equal(term_n, term_s)
        np.testing.assert_array_equal(trunc_n, trunc_s)
        assert info_n.keys() == info_s.keys()
        for key in ("seat", "winner", "episode_steps", "_final_obs"):
            if key in info_s:
                np.testing.assert_array_equal(info_n[key], info_s[key])
        ended += int((term_n | trunc_n).sum())
    assert ended >= 4  # episodes ended and the tables went on
    native.close()
    sync.close()


def test_disabled_autoreset_asks_for_a_reset_of_ended_tables() -> None:
    envs = NoMercyVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED, opponents=["random"])
    envs.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(2000):
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, term, trunc, _ = envs.step(actions)
        done = term | trunc
        if done.any():
            with pytest.raises(RuntimeError, match="reset it"):
                envs.step(actions)
            envs.reset(options={"reset_mask": done})
            assert envs.action_masks()[done].any(axis=1).all()
            break
    else:
        pytest.fail("no episode ended")


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        NoMercyVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        NoMercyVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="render"):
        NoMercyVectorEnv(2, render_mode="rgb_array")
    with pytest.raises(ValueError, match=r"unknown bot|nobody"):
        NoMercyVectorEnv(2, opponents=["nobody"])
    envs = NoMercyVectorEnv(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match="seeds"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.zeros(2, dtype=np.bool_)})


def test_arrays_are_reused_only_when_asked() -> None:
    copying = NoMercyVectorEnv(2, obs_format="flat")
    first, _ = copying.reset(seed=3)
    second, _ = copying.reset(seed=4)
    assert first is not second
    sharing = NoMercyVectorEnv(2, obs_format="flat", copy=False)
    first, _ = sharing.reset(seed=3)
    second, _ = sharing.reset(seed=4)
    assert first is second  # preallocated once, overwritten in place


def test_a_copied_or_pickled_vector_env_steps_as_the_original() -> None:
    import copy
    import pickle

    envs = NoMercyVectorEnv(3, opponents=["random"], obs_format="flat")
    envs.reset(seed=0)
    for clone in (copy.deepcopy(envs), pickle.loads(pickle.dumps(envs))):
        twin = copy.deepcopy(envs)
        for _ in range(40):
            actions = clone.action_space.sample()  # legal ids, from the clone's own masks
            got, want = clone.step(actions), twin.step(actions)
            for a, b in zip(got[:4], want[:4], strict=True):
                np.testing.assert_array_equal(a, b)
