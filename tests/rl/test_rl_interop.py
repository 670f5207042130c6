"""The environments with the tools RL users already have: PettingZoo's converters and tests,
SuperSuit, Gymnasium's wrappers and vector envs (docs/rl.md)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import nomercy.rl as rl

# A low Mercy threshold knocks seats out within a few turns (NM-33), so that 3+ seat games
# have agents terminated mid-game.
KNOCKOUTS = {"mercy_threshold": 12}
ENGINES = ("kernel", "reference")


def _masked_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_observe_is_unchanged_across_a_dead_agents_step(players: int, engine: str) -> None:
    # The mask belongs to the seat to act, not to agent_selection: while a knocked-out agent
    # waits for its step(None), the seat to act already sees its mask, and nothing changes.
    env = rl.env(num_players=players, options=KNOCKOUTS, engine=engine)
    dead_steps = 0
    for seed in range(4):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter(5000):
            _, _, term, trunc, _ = env.last()
            if not (term or trunc):
                env.step(_masked_choice(rng, env.observe(agent)["action_mask"]))
                continue
            live = [a for a in env.agents if not (env.terminations[a] or env.truncations[a])]
            before = {a: env.observe(a) for a in live}
            if live:
                to_act = [a for a in live if before[a]["action_mask"].any()]
                assert len(to_act) == 1, to_act  # exactly one seat may act, the one to act
            env.step(None)
            dead_steps += 1
            for a in live:
                after = env.observe(a)
                np.testing.assert_array_equal(after["observation"], before[a]["observation"])
                np.testing.assert_array_equal(after["action_mask"], before[a]["action_mask"])
    assert dead_steps > players  # knock-outs happened mid-game, not only at the end


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_masked_random_play_through_turn_based_aec_to_parallel(players: int, engine: str) -> None:
    par = turn_based_aec_to_parallel(rl.env(num_players=players, options=KNOCKOUTS, engine=engine))
    knocked_mid_game = 0
    for seed in range(4):
        obs, _ = par.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while par.agents:
            # Every live agent gets an action, sampled from its own mask (as PettingZoo's
            # parallel_api_test does); only the agent to act has a non-zero one.
            actions = {
                a: _masked_choice(rng, obs[a]["action_mask"]) if obs[a]["action_mask"].any() else 0
                for a in par.agents
            }
            assert sum(obs[a]["action_mask"].any() for a in par.agents) == 1
            obs, _, terms, _, _ = par.step(actions)
            if par.agents and any(terms.values()):
                knocked_mid_game += 1
        game = par.unwrapped.game
        assert game is not None and game.is_over
    assert knocked_mid_game > 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_parallel_api_test_through_turn_based_aec_to_parallel(players: int, engine: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # parallel_api_test reports problems as warnings
        par = turn_based_aec_to_parallel(
            rl.env(num_players=players, options=KNOCKOUTS, engine=engine)
        )
        parallel_api_test(par, num_cycles=1000)  # it seeds its own first reset (0)
