"""Batched self-play: each table plays the AEC env's game, with its observations and rewards."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import nomercy.rl
from nomercy.rl import IllegalActionIdError
from nomercy.rl.batched import SelfPlayVectorEnv

_CONFIGS: list[dict[str, Any]] = [
    {"num_players": 2},
    {"num_players": 4, "preset": "classic", "max_steps": 60},
    {"num_players": 3, "reward": "points", "knockout_bonus": 0.5},
    {
        "num_players": 3,
        "reward": "points",
        "options": {"scoring_enabled": True, "score_target": 60},
    },
]


@pytest.mark.parametrize("k", range(len(_CONFIGS)))
def test_each_table_plays_the_aec_game(k: int) -> None:
    kwargs = dict(_CONFIGS[k])
    tables = 3
    batch = SelfPlayVectorEnv(tables, obs_format="flat", **kwargs)
    aecs = [nomercy.rl.raw_env(obs_format="flat", **kwargs) for _ in range(tables)]
    obs, masks, agents = batch.reset(seed=40 + k)
    for i, env in enumerate(aecs):
        env.reset(seed=40 + k + i)
    totals = np.zeros((tables, batch.num_players))
    aec_totals = np.zeros_like(totals)
    rng = np.random.default_rng(k)
    ended = 0
    for _ in range(250):
        actions = []
        for i, env in enumerate(aecs):
            while env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.step(None)  # a knocked-out agent's last step
            agent = env.agent_selection
            assert agents[i] == env._seat[agent]
            aec_obs, _, _, _, info = env.last()
            np.testing.assert_array_equal(obs[i], aec_obs)
            np.testing.assert_array_equal(masks[i], info["action_mask"])
            actions.append(int(rng.choice(np.flatnonzero(masks[i]))))
        obs, masks, agents, rewards, terminated, truncated, infos = batch.step(actions)
        totals += rewards
        for i, env in enumerate(aecs):
            env.step(actions[i])
            for s, agent in enumerate(env.possible_agents):
                aec_totals[i, s] += env.rewards.get(agent, 0.0)
            done = terminated[i] or truncated[i]
            assert done == (
                not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)
            )
            if done:
                game = env.game
                assert game is not None
                winner = game.winner if game.is_over and game.winner is not None else -1
                assert infos["outcome"][i]["winner"] == winner
                np.testing.assert_allclose(totals[i], aec_totals[i])
                ended += 1
                env.reset()
    np.testing.assert_allclose(totals, aec_totals)
    assert ended >= 2


def test_illegal_ids_and_bad_arguments_are_refused() -> None:
    batch = SelfPlayVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step([0, 0])
    _, masks, _ = batch.reset(seed=1)
    illegal = int(np.flatnonzero(masks[0] == 0)[0])
    legal = int(np.flatnonzero(masks[1])[0])
    with pytest.raises(IllegalActionIdError, match="table 0"):
        batch.step([illegal, legal])
    with pytest.raises(ValueError, match="shape"):
        batch.step([0])
    with pytest.raises(ValueError, match="num_envs"):
        SelfPlayVectorEnv(0)
    with pytest.raises(ValueError, match="seeds"):
        batch.reset(seed=[1, 2, 3])


def test_observe_gives_any_seat_its_own_view() -> None:
    batch = SelfPlayVectorEnv(2, num_players=3, obs_format="dict")
    obs, _, agents = batch.reset(seed=5)
    np.testing.assert_array_equal(batch.observe(0, int(agents[0])), obs[0])
    other = (int(agents[0]) + 1) % 3
    encoder = nomercy.rl.ObservationEncoder(batch.rules, 3)
    game = batch.games[0]
    np.testing.assert_array_equal(
        batch.observe(0, other), encoder.encode(game.view(other, history=False))
    )
