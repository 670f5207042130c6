"""The SB3 VecEnv adapter: SB3's step protocol over the native vector env.

The protocol is checked without SB3 (the adapter is then a plain class with the same
methods); with SB3 (and sb3-contrib) installed, a short MaskablePPO run uses it too.
"""

from __future__ import annotations

import numpy as np
import pytest
from trainkit import needs

from nomercy.rl.sb3 import HAVE_SB3, NoMercySB3VecEnv
from nomercy.rl.vector_env import NoMercyVectorEnv


def test_the_adapter_speaks_the_vec_env_protocol() -> None:
    venv = NoMercySB3VecEnv(3, opponents=["random"], obs_format="flat", max_steps=12)
    same = NoMercyVectorEnv(
        3, autoreset_mode="SameStep", opponents=["random"], obs_format="flat", max_steps=12
    )
    venv.seed(4)
    obs = venv.reset()
    ref, info = same.reset(seed=4)
    np.testing.assert_array_equal(obs, ref)
    rng = np.random.default_rng(0)
    ended = truncated_seen = 0
    for _ in range(200):
        masks = venv.env_method("action_masks")
        assert len(masks) == 3 and masks[0].dtype == np.bool_
        np.testing.assert_array_equal(np.stack(masks), info["action_mask"].astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        venv.step_async(actions)
        obs, rewards, dones, infos = venv.step_wait()
        ref, ref_rewards, term, trunc, info = same.step(actions)
        np.testing.assert_array_equal(obs, ref)
        np.testing.assert_array_equal(rewards, ref_rewards.astype(np.float32))
        np.testing.assert_array_equal(dones, term | trunc)
        assert isinstance(infos, list) and len(infos) == 3
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(infos[i]["terminal_observation"], info["final_obs"][i])
            assert infos[i]["TimeLimit.truncated"] == bool(trunc[i] and not term[i])
            assert isinstance(infos[i]["episode_steps"], int)
            ended += 1
            truncated_seen += infos[i]["TimeLimit.truncated"]
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert ended > 3 and truncated_seen > 0
    assert venv.get_attr("seat") == [env.seat for env in venv.venv.tables]
    # SB3's VecEnv.__init__ reads every table's render_mode (a warning, an error here, if
    # missing): the tables do not render.
    assert venv.get_attr("render_mode") == [None] * 3 and venv.get_attr("render_mode", 1) == [None]
    # MaskablePPO asks has_attr("action_masks") (SB3's: get_attr does not raise) first.
    masks = venv.get_attr("action_masks", [0, 2])
    np.testing.assert_array_equal([m() for m in masks], venv.action_masks()[[0, 2]])
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    assert venv.env_is_wrapped(object) == [False] * 3
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()


def test_maskable_ppo_learns_on_the_adapter() -> None:
    needs("stable_baselines3")
    assert HAVE_SB3  # the adapter found SB3 at import
    contrib = needs("sb3_contrib")
    from stable_baselines3.common.vec_env import VecEnv

    venv = NoMercySB3VecEnv(4, opponents=["random"], obs_format="flat")
    assert isinstance(venv, VecEnv)
    model = contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=0, verbose=0)
    model.learn(256)
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks())
    assert venv.action_masks()[np.arange(4), actions].all()
