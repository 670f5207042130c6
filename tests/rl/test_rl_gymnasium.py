"""The Gymnasium environment: check_env, registration, opponents, illegal actions."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import nomercy.rl  # noqa: F401 (registers NoMercy-v0)
from nomercy.rl import IllegalActionIdError, NoMercyEnv, action_mask


def test_check_env_via_gym_make() -> None:
    # check_env steps with unmasked random ids, so it runs in penalize mode.
    env = gym.make(
        "NoMercy-v0",
        opponents=["random", "greedy"],
        illegal_action="penalize",
        render_mode="ansi",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_check_env_classic() -> None:
    env = gym.make("NoMercy-v0", opponents=["greedy"], preset="classic", illegal_action="penalize")
    check_env(env.unwrapped)


def _episode(env: NoMercyEnv, seed: int) -> tuple[list[int], float, int]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while True:
        ids = np.flatnonzero(obs["action_mask"])
        np.testing.assert_array_equal(obs["action_mask"], env.action_masks())
        game = env.game
        assert game is not None and game.to_act == info["seat"]
        np.testing.assert_array_equal(
            obs["action_mask"],
            action_mask(game.legal_actions(info["seat"]), info["seat"], game.n),
        )
        action = int(rng.choice(ids))
        actions.append(action)
        obs, reward, term, trunc, info = env.step(action)
        if term or trunc:
            return actions, reward, info["seat"]


def test_episodes_end_with_plus_or_minus_one_and_are_deterministic() -> None:
    env = NoMercyEnv(["greedy", "random", "greedy"], learner_seat=None)
    rewards = set()
    seats = set()
    for seed in range(20):
        actions, reward, seat = _episode(env, seed)
        again = _episode(env, seed)
        assert (actions, reward, seat) == again
        rewards.add(reward)
        seats.add(seat)
        game = env.game
        assert game is not None
        if reward == 1.0:
            assert game.winner == seat
        else:
            assert game.winner != seat or game.out[seat]
    assert rewards == {1.0, -1.0}
    assert len(seats) > 1  # learner_seat=None draws the seat


def test_every_registered_bot_can_be_an_opponent() -> None:
    from nomercy.bots.registry import BOTS

    for name in sorted(set(BOTS) - {"ismcts"}):  # ismcts searches: too slow for a unit test
        env = NoMercyEnv([name])
        _episode(env, 0)
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        NoMercyEnv(["nobody"])


def test_illegal_action_raises_and_penalize_replays() -> None:
    env = NoMercyEnv(["random"], illegal_action="raise")
    obs, _ = env.reset(seed=5)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionIdError, match=rf"action id {illegal} \("):
        env.step(illegal)
    # The default penalizes (so Gymnasium's check_env passes as the env comes) and says why.
    env = NoMercyEnv(["random"])
    env.reset(seed=5)
    _, reward, _, _, info = env.step(illegal)
    assert reward == -1.0 and info["illegal_action"] and f"action id {illegal} (" in info["reason"]
    env = NoMercyEnv(["random"], illegal_action="penalize", illegal_reward=-0.5)
    obs, _ = env.reset(seed=5)
    again, reward, term, trunc, info = env.step(illegal)
    assert (reward, term, trunc, info["illegal_action"]) == (-0.5, False, False, True)
    np.testing.assert_array_equal(again["observation"], obs["observation"])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="2-6 players"):
        NoMercyEnv(["random"] * 6)
    with pytest.raises(ValueError, match="learner_seat"):
        NoMercyEnv(["random"], learner_seat=2)
    env = NoMercyEnv(["random"])
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_offered_mode_gives_the_learner_out_of_turn_turns() -> None:
    from nomercy.core.actions import Catch, Play
    from nomercy.encoding.actions import PASS_ID, legal_ids

    check_env(
        gym.make(
            "NoMercy-v0", opponents=["greedy"], out_of_turn="offered", illegal_action="penalize"
        ).unwrapped
    )
    env = NoMercyEnv(
        ["greedy", "random", "greedy"],
        preset="classic",
        options={"classic_jump_in": True},
        out_of_turn="offered",
    )
    offered = jumps = caught = 0
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            game = env.game
            assert game is not None
            seat = info["seat"]
            expected = set(legal_ids(game.legal_actions(seat), seat, game.n))
            if seat != game.to_act:
                offered += 1
                expected.add(PASS_ID)
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected
            action = int(rng.choice(sorted(expected)))
            obs, _, term, trunc, info = env.step(action)
            if term or trunc:
                break
        # game.history: the env's game runs with events off (no log), the actions stay.
        learner = info["seat"]
        jumps += sum(isinstance(a, Play) and a.jump and a.seat == learner for a in game.history)
        caught += sum(isinstance(a, Catch) and a.seat != learner for a in game.history)
    assert offered > 0
    assert jumps > 0  # the learner jumped in out of turn (C04)
    assert caught > 0  # a greedy bot caught someone
    with pytest.raises(ValueError, match="out_of_turn"):
        NoMercyEnv(["random"], out_of_turn="never")


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_random_opponents_choose_as_random_bots_among_actions(preset: str) -> None:
    """The env lets a RandomBot pick among ids; a RandomBot given the actions picks the same."""
    from nomercy.bots.random_bot import RandomBot
    from nomercy.core.game import new_game

    env = NoMercyEnv(["random", "random"], preset=preset)
    rng = np.random.default_rng(3)
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        game = env.game
        assert game is not None
        bots = {s: RandomBot(seed=bot.seed) for s, bot in env.table.bots.items()}  # type: ignore[attr-defined]
        learner: list[int] = []
        for _ in range(200):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            learner.append(action)
            obs, _, term, trunc, _ = env.step(action)
            if term or trunc:
                break
        replay = new_game(3, rules=env.rules, seed=game.seed)
        moves = iter(learner)
        while len(replay.history) < len(game.history):
            seat = replay.to_act
            assert seat is not None
            if seat == env.seat:
                replay.step(next(moves), seat)
            else:
                replay.apply(bots[seat].choose_action(replay.view(seat), replay.legal_actions()))
        assert replay.history == game.history
