"""The PettingZoo AEC environment: API test, seed test, rewards, illegal actions, render."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import nomercy.rl as rl
from nomercy.rl import IllegalActionIdError, action_mask, raw_env

# api_test warns that a dict observation is "not a NumPy array" and suggests a Box space:
# both are the documented {"observation", "action_mask"} convention.
API_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent")


def _api_test(env: raw_env, cycles: int) -> None:
    with warnings.catch_warnings():
        for text in API_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        api_test(env, num_cycles=cycles)


@pytest.mark.parametrize(
    ("players", "preset", "options"),
    [
        (2, "no-mercy", {}),
        (3, "no-mercy", {"mercy_threshold": 12}),
        (6, "no-mercy", {}),
        (2, "classic", {}),
        (4, "classic", {"classic_jump_in": True, "wd4_challenge": True}),
    ],
)
def test_api_test(players: int, preset: str, options: dict[str, object]) -> None:
    _api_test(rl.env(num_players=players, preset=preset, options=options), 400)


@pytest.mark.parametrize("out_of_turn", ["to_act", "offered"])
def test_seed_test(out_of_turn: str) -> None:
    with warnings.catch_warnings():
        for text in API_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        seed_test(lambda: rl.env(num_players=3, out_of_turn=out_of_turn), num_cycles=300)


def _play(env: raw_env, seed: int, rng: random.Random) -> tuple[list[int], dict[str, float]]:
    env.reset(seed=seed)
    actions: list[int] = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(10_000):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        ids = np.flatnonzero(obs["action_mask"])
        action = int(ids[rng.randrange(len(ids))])
        actions.append(action)
        env.step(action)
    return actions, totals


def test_reset_with_a_seed_is_deterministic() -> None:
    a = _play(raw_env(num_players=4), 12, random.Random(1))
    b = _play(raw_env(num_players=4), 12, random.Random(1))
    assert a == b
    env = raw_env(num_players=4)
    env.reset(seed=12)
    first = env.observe(env.agent_selection)["observation"]
    env.reset(seed=13)
    env.reset(seed=12)
    np.testing.assert_array_equal(first, env.observe(env.agent_selection)["observation"])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_rewards_winner_plus_one_others_minus_one(players: int) -> None:
    rng = random.Random(players)
    knocked = 0
    for seed in range(15):
        env = raw_env(num_players=players)
        _, totals = _play(env, seed, rng)
        game = env.game
        assert game is not None and game.is_over
        assert env.agents == []
        for s, agent in enumerate(env.possible_agents):
            assert totals[agent] == (1.0 if s == game.winner else -1.0)
            knocked += game.out[s]
    if players > 2:
        assert knocked > 0  # knocked-out agents were terminated with -1 above


def test_mask_is_the_engines_legal_actions_for_the_agent_to_act() -> None:
    env = raw_env(num_players=5, preset="classic")
    rng = random.Random(4)
    env.reset(seed=4)
    for agent in env.agent_iter(3000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.game
        assert game is not None
        seat = env.possible_agents.index(agent)
        assert seat == game.to_act
        expected = action_mask(game.legal_actions(seat), seat, game.n)
        np.testing.assert_array_equal(obs["action_mask"], expected)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        ids = np.flatnonzero(obs["action_mask"])
        env.step(int(ids[rng.randrange(len(ids))]))


def test_illegal_action_raises_naming_the_id_and_the_reason() -> None:
    env = raw_env(num_players=2)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[-1])
    expected = rf"player_0: action id {illegal} \(jump-in W\+4 B uno, i.e. '0:play W\+4 B uno'\)"
    with pytest.raises(IllegalActionIdError, match=expected + ".*does not hold W\\+4 \\[NM-7\\]"):
        env.step(illegal)
    with pytest.raises(IllegalActionIdError, match=r"outside 0\.\.468"):
        env.step(469)
    with pytest.raises(IllegalActionIdError, match="not an action id"):
        env.step("draw")  # type: ignore[arg-type]
    # Nothing changed: the same agent acts with the same mask.
    np.testing.assert_array_equal(env.observe(env.agent_selection)["action_mask"], mask)


def test_penalize_mode_replays_the_turn() -> None:
    env = raw_env(num_players=3, illegal_action="penalize", illegal_reward=-0.25)
    env.reset(seed=2)
    agent = env.agent_selection
    before = env.observe(agent)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.agent_selection == agent
    obs, reward, term, trunc, info = env.last()
    assert reward == -0.25 and not term and not trunc
    assert info["illegal_action"] is True and "illegal" in info["reason"]
    np.testing.assert_array_equal(obs["observation"], before["observation"])
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    env.step(legal)
    assert env.infos[agent] == {}


def test_constructor_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="2-6 players"):
        raw_env(num_players=7)
    with pytest.raises(ValueError, match="illegal_action"):
        raw_env(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="video")
    with pytest.raises(ValueError, match=r"no_such_option"):
        raw_env(options={"no_such_option": 1})
    with pytest.raises(RuntimeError, match="reset"):
        raw_env().observe("player_0")


def test_max_steps_truncates_everyone() -> None:
    env = raw_env(num_players=3, max_steps=5)
    actions, _ = _play(env, 0, random.Random(0))
    assert len(actions) == 5


def test_render_ansi() -> None:
    env = raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str)
    assert "top " in text and "seat 2" in text
    assert raw_env().render() is None


@pytest.mark.parametrize(
    ("players", "preset", "options"),
    [(4, "no-mercy", {}), (3, "classic", {"classic_jump_in": True})],
)
def test_api_test_with_offered_out_of_turn_actions(
    players: int, preset: str, options: dict[str, object]
) -> None:
    _api_test(
        rl.env(num_players=players, preset=preset, options=options, out_of_turn="offered"), 400
    )


def test_offered_mode_offers_catches_and_jump_ins_to_other_seats() -> None:
    from nomercy.core.actions import Catch, Play
    from nomercy.encoding.actions import PASS_ID, legal_ids

    seen: set[str] = set()
    for seed in range(40):
        env = raw_env(
            num_players=4,
            preset="classic",
            options={"classic_jump_in": True},
            out_of_turn="offered",
        )
        rng = random.Random(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter(5000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            game = env.game
            assert game is not None
            seat = env.possible_agents.index(agent)
            expected = set(legal_ids(game.legal_actions(seat), seat, game.n))
            if seat != game.to_act:
                expected.add(PASS_ID)  # "let the chance go"
                seen.add("offered")
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected
            ids = sorted(expected)
            action = ids[rng.randrange(len(ids))]
            if seat != game.to_act and action != PASS_ID:
                taken = legal_ids(game.legal_actions(seat), seat, game.n)[action]
                if isinstance(taken, Catch):
                    seen.add("catch by another seat")
                if isinstance(taken, Play) and taken.jump:
                    seen.add("jump-in")
            env.step(action)
    assert {"offered", "catch by another seat", "jump-in"} <= seen, seen


def test_default_mode_never_offers_other_seats() -> None:
    env = raw_env(num_players=4, preset="classic", options={"classic_jump_in": True})
    rng = random.Random(0)
    env.reset(seed=0)
    for agent in env.agent_iter(3000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.game
        assert game is not None
        assert env.possible_agents.index(agent) == game.to_act
        ids = np.flatnonzero(obs["action_mask"])
        env.step(int(ids[rng.randrange(len(ids))]))


@pytest.mark.parametrize("out_of_turn", ["to_act", "offered"])
def test_a_copy_mid_game_plays_on_like_the_original_and_alone(out_of_turn: str) -> None:
    # The decider and its ids live in the compiled TurnCore: a pickled or deep-copied env
    # carries them with its own game, and stepping the copy leaves the original alone.
    import copy
    import pickle

    def play(env: raw_env, moves: int, rng: random.Random) -> list[tuple[str, bytes]]:
        seen = []
        for agent in env.agent_iter(moves):
            obs, _, term, trunc, _ = env.last()
            seen.append((agent, obs["observation"].tobytes() + obs["action_mask"].tobytes()))
            if term or trunc:
                env.step(None)
                continue
            ids = np.flatnonzero(obs["action_mask"])
            env.step(int(ids[rng.randrange(len(ids))]))
        return seen

    env = rl.env(num_players=3, out_of_turn=out_of_turn)
    env.reset(seed=11)
    play(env, 15, random.Random(1))
    before = (env.agent_selection, env.game.to_position() if env.game else None)
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.game is not env.game and clone._core.game is clone.game
        ours = play(clone, 200, random.Random(2))
        assert (env.agent_selection, env.game.to_position() if env.game else None) == before
        twin = copy.deepcopy(env)
        assert play(twin, 200, random.Random(2)) == ours
