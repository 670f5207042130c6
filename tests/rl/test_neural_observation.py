"""The ``neural`` bot's input equals the RL environment's: for the same game moment, the
observation the bot builds from the seat's view is the env's flat observation with
``opp_void`` left out, and its action ids are the env's (docs/neural.md)."""

from __future__ import annotations

import numpy as np
import pytest

import nomercy.rl as rl
from nomercy.bots.neural_bot import NeuralBot
from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE, VIEW_KEEP, action_id
from nomercy.encoding.actions import action_to_id


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_bot_observation_equals_the_env_observation(preset: str, players: int) -> None:
    rng = np.random.default_rng(players)
    bot = NeuralBot()
    checked = 0
    game = 0
    while checked < 150:  # whole games, each capped at 300 steps
        game += 1
        env = rl.env(num_players=players, preset=preset, obs_format="flat", flat_bounds="rules")
        env.reset(seed=100 * players + game)
        for agent in env.agent_iter(max_iter=300):
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            g = env.game
            seat = int(agent.split("_")[1])
            # The bot's input from the seat's view (with or without history) is exactly the
            # env's flat observation with opp_void (tracked from events) left out.
            expected = obs * VIEW_KEEP
            assert np.array_equal(bot.observe(g.view(seat, history=False)), expected)
            if checked % 7 == 0:
                assert np.array_equal(bot.observe(g.view(seat)), expected)
            for a in g.legal_actions(seat):
                assert action_id(a, players) == action_to_id(a, seat, players)
            env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            checked += 1


def test_feature_layout_matches_the_env() -> None:
    assert (OBS_SIZE, NUM_ACTIONS) == (rl.OBS_SIZE, rl.NUM_ACTIONS)
    assert VIEW_KEEP[rl.OBS_LAYOUT["opp_void"]].sum() == 0
    assert VIEW_KEEP.sum() == OBS_SIZE - 20
