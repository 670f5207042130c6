"""Bad input to the RL environments: a clear error naming the problem, nothing changed; and
ids in the forms the envs' own action spaces contain (numpy integers, 0-d arrays) taken."""

from __future__ import annotations

import math

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

import nomercy.rl  # noqa: E402  (registers NoMercy-v0)
from nomercy.rl import IllegalActionIdError  # noqa: E402
from nomercy.rl.pettingzoo_env import env as aec_env  # noqa: E402
from nomercy.rl.pettingzoo_env import raw_env  # noqa: E402


def _legal(mask: object) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)]


def test_a_legal_id_as_a_0d_array_or_numpy_integer_is_taken() -> None:
    for form in (np.array, np.int64, np.int32):
        env = gym.make("NoMercy-v0", obs_format="flat")
        _, info = env.reset(seed=987654321)
        aid = _legal(info["action_mask"])[0]
        assert env.action_space.contains(np.array(aid))
        twin = gym.make("NoMercy-v0", obs_format="flat")
        twin.reset(seed=987654321)
        got = env.step(form(aid))
        want = twin.step(aid)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:4] == want[1:4]


@pytest.mark.parametrize("bad", [0.0, False, "0", np.array([0, 1]), np.array(0.0)])
def test_an_id_that_is_not_an_integer_is_refused_for_its_type(bad: object) -> None:
    env = gym.make("NoMercy-v0", illegal_action="raise")
    env.reset(seed=3)
    game = env.unwrapped.game
    before = game.to_position()
    with pytest.raises(IllegalActionIdError, match="is not an action id: an integer"):
        env.step(bad)
    assert game.to_position() == before
    # The default ("penalize") refuses it too, saying why, and changes nothing.
    env = gym.make("NoMercy-v0")
    env.reset(seed=3)
    game = env.unwrapped.game
    before = game.to_position()
    *_, info = env.step(bad)
    assert info["illegal_action"] and "is not an action id: an integer" in info["reason"]
    assert game.to_position() == before
    aec = raw_env(num_players=2)
    aec.reset(seed=3)
    with pytest.raises(IllegalActionIdError, match="is not an action id: an integer"):
        aec.step(bad)


def test_the_aec_env_takes_a_0d_array_id() -> None:
    env, twin = raw_env(num_players=2), raw_env(num_players=2)
    env.reset(seed=2**40)
    twin.reset(seed=2**40)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            twin.step(None)
            continue
        aid = _legal(obs["action_mask"])[0]
        env.step(np.array(aid))
        twin.step(aid)
        assert env.game.to_position() == twin.game.to_position()


def test_the_aec_env_says_when_it_is_not_playing() -> None:
    for make in (raw_env, aec_env):
        env = make(num_players=2)
        with pytest.raises(RuntimeError, match="call reset"):
            env.step(0)
        with pytest.raises(RuntimeError, match="call reset"):
            env.last()
        with pytest.raises(RuntimeError, match="call reset"):
            next(iter(env.agent_iter()))
    env = raw_env(num_players=2)
    env.reset(seed=1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _legal(obs["action_mask"])[0])
    with pytest.raises(RuntimeError, match="every agent is done"):
        env.step(0)


@pytest.mark.parametrize("seed", [1.5, "7", True])
def test_a_seed_that_is_not_an_integer_is_refused(seed: object) -> None:
    env = raw_env(num_players=2)
    with pytest.raises(TypeError, match="seed must be an integer"):
        env.reset(seed=seed)  # type: ignore[arg-type]
    vec = gym.make_vec("NoMercy-v0", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(TypeError, match="seed must be an integer"):
        vec.reset(seed=seed)


def test_numpy_integer_seeds_and_seats_are_read_as_ints() -> None:
    env = raw_env(num_players=2)
    env.reset(seed=np.int64(5))
    twin = raw_env(num_players=2)
    twin.reset(seed=5)
    assert env.game.to_position() == twin.game.to_position()
    vec = gym.make_vec("NoMercy-v0", num_envs=2, vectorization_mode="vector_entry_point")
    obs, _ = vec.reset(seed=np.int64(5))
    again, _ = vec.reset(seed=5)
    np.testing.assert_array_equal(obs["observation"], again["observation"])
    assert gym.make("NoMercy-v0", learner_seat=np.int64(1)).unwrapped.learner_seat == 1


@pytest.mark.parametrize("reward", [math.nan, math.inf, "x"])
def test_a_penalty_that_is_not_a_finite_number_is_refused(reward: object) -> None:
    with pytest.raises(ValueError, match="illegal_reward must be a finite number"):
        gym.make("NoMercy-v0", illegal_action="penalize", illegal_reward=reward)
    with pytest.raises(ValueError, match="illegal_reward must be a finite number"):
        raw_env(num_players=2, illegal_action="penalize", illegal_reward=reward)  # type: ignore[arg-type]


def test_render_before_reset_says_to_reset() -> None:
    env = gym.make("NoMercy-v0", render_mode="ansi")
    with pytest.raises(RuntimeError, match="call reset\\(\\) before using the environment"):
        env.unwrapped.render()


def test_the_vector_env_refuses_a_batch_with_an_illegal_id_before_any_table_moves() -> None:
    vec = gym.make_vec(
        "NoMercy-v0",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        obs_format="flat",
        illegal_action="raise",
    )
    _, info = vec.reset(seed=11)
    masks = info["action_mask"]
    actions = np.array([_legal(m)[0] for m in masks])
    illegal = next(i for i in range(469) if not masks[3][i])
    before = [env.game.to_position() for env in vec.unwrapped.tables]
    bad = actions.copy()
    bad[3] = illegal
    with pytest.raises(IllegalActionIdError, match=r"^table 3, seat"):
        vec.step(bad)
    assert [env.game.to_position() for env in vec.unwrapped.tables] == before
    with pytest.raises(ValueError, match="integer ids, not an array of float64"):
        vec.step(actions.astype(float))
    assert [env.game.to_position() for env in vec.unwrapped.tables] == before
    vec.step(actions)  # the legal batch still plays


def test_engine_refusals_name_the_problem() -> None:
    game = nomercy.new_game(2, seed=3)
    before = game.to_position()
    aid = game.legal_ids()[0]
    with pytest.raises(nomercy.ActionIdError, match="is not a Python int"):
        game.step(np.int64(aid))
    assert game.to_position() == before
    game.step(aid)  # the same id as an int is taken
