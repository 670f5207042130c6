"""The environments with the tools RL users already have: PettingZoo's converters and tests,
SuperSuit, Gymnasium's wrappers and vector envs (docs/rl.md)."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import nomercy.rl as rl
from nomercy.encoding.observations import fixed_flat_scale

# A low Mercy threshold knocks seats out within a few turns (NM-33), so that 3+ seat games
# have agents terminated mid-game.
KNOCKOUTS = {"mercy_threshold": 12}


def _masked_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_observe_is_unchanged_across_a_dead_agents_step(players: int) -> None:
    # The mask belongs to the seat to act, not to agent_selection: while a knocked-out agent
    # waits for its step(None), the seat to act already sees its mask, and nothing changes.
    env = rl.env(num_players=players, options=KNOCKOUTS)
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


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_masked_random_play_through_turn_based_aec_to_parallel(players: int) -> None:
    par = turn_based_aec_to_parallel(rl.env(num_players=players, options=KNOCKOUTS))
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


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_parallel_api_test_through_turn_based_aec_to_parallel(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # parallel_api_test reports problems as warnings
        par = turn_based_aec_to_parallel(rl.env(num_players=players, options=KNOCKOUTS))
        parallel_api_test(par, num_cycles=1000)  # it seeds its own first reset (0)


# ---------------------------------------------------------------------------- render modes
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_pettingzoo_render_test(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: rl.env(num_players=players, render_mode=render_mode))
    assert "top " in capsys.readouterr().out  # "human" printed the text


@pytest.mark.parametrize("make", ["aec", "gym"])
def test_human_prints_what_ansi_returns(make: str, capsys: pytest.CaptureFixture[str]) -> None:
    def build(mode: str) -> Any:
        if make == "aec":
            env = rl.env(num_players=3, render_mode=mode)
            env.reset(seed=5)
            return env
        env = rl.NoMercyEnv(["random", "random"], render_mode=mode)
        env.reset(seed=5)
        return env

    human, ansi = build("human"), build("ansi")
    assert capsys.readouterr().out == ansi.render()  # reset() printed the view
    assert human.render() is None
    assert capsys.readouterr().out == ansi.render()
    if make == "gym":
        action = int(np.flatnonzero(human.action_masks())[0])
        human.step(action)
        ansi.step(action)
        assert capsys.readouterr().out == ansi.render()  # step() printed it too


def test_rgb_array_shows_the_view_and_hides_the_rest() -> None:
    from nomercy.rl._common import render_rgb

    env = rl.env(num_players=4, options=KNOCKOUTS, render_mode="rgb_array")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    shapes = set()
    saw_out = False
    for agent in env.agent_iter(3000):
        image = env.render()
        assert isinstance(image, np.ndarray) and image.dtype == np.uint8
        shapes.add(image.shape)
        game = env.game
        assert game is not None
        if not game.is_over:
            view = game.view(game.to_act, history=False)
            np.testing.assert_array_equal(image, render_rgb(view))
            saw_out |= any(game.out)
            # The acting seat's cards in their colours, the others' as backs only.
            hand = [c.code for c in view.hand]
            for p in view.players:
                cells = _cells(image, p.seat)
                if p.out:
                    assert cells == []
                elif p.seat == view.seat:
                    assert cells == [_colour_of(code) for code in hand][:60]
                else:
                    assert cells == ["hidden"] * min(p.hand_size, 60)
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _masked_choice(rng, env.observe(agent)["action_mask"]))
    assert shapes == {(30 + 4 * 14 + 4, 382, 3)}  # the size depends on the seat count only
    assert saw_out


def _colour_of(code: str) -> str:
    return {"R": "R", "Y": "Y", "G": "G", "B": "B", "W": "W"}[code[0]]


def _cells(image: np.ndarray, seat: int) -> list[str]:
    """The card cells drawn in ``seat``'s row, left to right, by what they show."""
    from nomercy.rl import _common as c

    names = {rgb: name for name, rgb in c._RGB.items()} | {c._HIDDEN: "hidden"}
    y = c._HEADER_H + seat * c._ROW_H + 1
    out = []
    for k in range(c._MAX_CELLS):
        x = c._MARGIN + 8 + k * c._CELL_W
        rgb = tuple(int(v) for v in image[y, x])
        if rgb not in names:
            break
        out.append(names[rgb])
    return out


def test_gymnasium_check_env_with_each_render_mode() -> None:
    from gymnasium.utils.env_checker import check_env

    for mode in ("ansi", "rgb_array"):
        env = gym.make(
            "NoMercy-v0",
            opponents=["random", "greedy"],
            illegal_action="penalize",
            render_mode=mode,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)


def test_gym_make_with_rgb_array_as_sb3_make_vec_env_does() -> None:
    # SB3's make_vec_env("NoMercy-v0", n_envs=4) calls gym.make(id, render_mode="rgb_array");
    # this is that call without SB3 (the SB3 test itself is in test_rl_recipes.py).
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gym.make warns about an undeclared render mode
        envs = gym.vector.SyncVectorEnv(
            [lambda: gym.make("NoMercy-v0", render_mode="rgb_array") for _ in range(4)]
        )
        envs.reset(seed=0)
        frames = envs.render()
    assert frames is not None and len(frames) == 4
    assert all(f.shape == (30 + 2 * 14 + 4, 382, 3) for f in frames)


# ---------------------------------------------------------------------------- flat observations
@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_flat_observation_is_the_scaled_vector_with_masks_in_infos(players: int) -> None:
    bounds = ("fixed", "rules")[players % 2]
    flat = rl.env(num_players=players, options=KNOCKOUTS, obs_format="flat", flat_bounds=bounds)
    ref = rl.env(num_players=players, options=KNOCKOUTS)
    space = flat.observation_space("player_0")
    assert isinstance(space, gym.spaces.Box) and space.shape == (rl.OBS_SIZE,)
    assert space.low.min() >= -1.0 and space.high.max() <= 1.0
    scale = 1.0 / np.maximum(np.abs(ref._encoder.low), np.abs(ref._encoder.high))
    if bounds == "fixed":
        scale = fixed_flat_scale()
    for seed in range(3):
        flat.reset(seed=seed)
        ref.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in flat.agent_iter(5000):
            assert agent == ref.agent_selection
            obs, reward, term, trunc, info = flat.last()
            want, *rest = ref.last()
            assert (reward, term, trunc) == tuple(rest[:3])
            assert isinstance(obs, np.ndarray) and space.contains(obs)
            np.testing.assert_allclose(obs, want["observation"] * scale, rtol=1e-6)
            for a in flat.agents:  # every agent's info holds its current mask
                np.testing.assert_array_equal(
                    flat.infos[a]["action_mask"], ref.observe(a)["action_mask"]
                )
                np.testing.assert_array_equal(flat.action_mask(a), ref.observe(a)["action_mask"])
            action = None if term or trunc else _masked_choice(rng, info["action_mask"])
            flat.step(action)
            ref.step(action)
        assert ref.agents == []


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_api_and_seed_tests_with_flat_observations(players: int) -> None:
    # api_test and seed_test sample their actions with info["action_mask"] here.
    def make() -> rl.raw_env:
        return rl.env(num_players=players, options=KNOCKOUTS, obs_format="flat")

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(make(), num_cycles=300)
        seed_test(make, num_cycles=300)


def test_gymnasium_flat_observation() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make("NoMercy-v0", opponents=["random", "greedy"], obs_format="flat")
    ref = gym.make("NoMercy-v0", opponents=["random", "greedy"])
    assert isinstance(env.observation_space, gym.spaces.Box)
    scale = fixed_flat_scale()
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        want, _ = ref.reset(seed=seed)
        while True:
            np.testing.assert_allclose(obs, want["observation"] * scale, rtol=1e-6)
            assert env.observation_space.contains(obs)
            np.testing.assert_array_equal(info["action_mask"], want["action_mask"])
            np.testing.assert_array_equal(
                env.get_wrapper_attr("action_masks")(), want["action_mask"]
            )
            action = int(np.flatnonzero(info["action_mask"])[seed % 2 - 1])
            obs, reward, term, trunc, info = env.step(action)
            want, ref_reward, *_ = ref.step(action)
            assert reward == ref_reward
            if term or trunc:
                assert not info["action_mask"].any()  # nothing is legal after the end
                break
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(
            gym.make(
                "NoMercy-v0", obs_format="flat", illegal_action="penalize", render_mode="ansi"
            ).unwrapped
        )
    with pytest.raises(ValueError, match="obs_format"):
        rl.NoMercyEnv(obs_format="box")
    with pytest.raises(ValueError, match="obs_format"):
        rl.env(obs_format="box")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_api_and_seed_tests_with_knockouts(players: int) -> None:
    # The Dict format (api_test samples from obs["action_mask"]); knock-outs mid-game.
    def make() -> rl.raw_env:
        return rl.env(num_players=players, options=KNOCKOUTS)

    with warnings.catch_warnings():
        # api_test suggests a Box space and a NumPy observation: the Dict is the documented
        # {"observation", "action_mask"} convention (obs_format="flat" gives the Box).
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        api_test(make(), num_cycles=300)
        seed_test(make, num_cycles=300)


# ---------------------------------------------------------------------------- SuperSuit
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_masked_random_play_through_supersuit_vector_conversion(players: int) -> None:
    import supersuit as ss  # in the dev extra: never skipped
    from supersuit.multiagent_wrappers.black_death import black_death_par

    class BlackDeath(black_death_par):  # type: ignore[misc]
        """As in docs/rl.md's recipe: ends the episode when the game ends (SuperSuit 3.11.0's
        black_death never does: it waits for every agent terminated *and* truncated)."""

        def step(self, actions: dict[str, int]) -> Any:
            obs, rewards, terms, truncs, infos = super().step(actions)
            if not self.env.agents:
                terms = dict.fromkeys(terms, True)
                self.agents.clear()
            return obs, rewards, terms, truncs, infos

    aec = rl.env(num_players=players, options=KNOCKOUTS, obs_format="flat")
    venv = ss.pettingzoo_env_to_vec_env_v1(BlackDeath(turn_based_aec_to_parallel(aec)))
    assert venv.num_envs == players
    obs, infos = venv.reset(seed=players)
    rng = np.random.default_rng(players)
    games = blacked_out = 0
    while games < 4:
        masks = [info.get("action_mask") for info in infos]
        acting = [i for i, m in enumerate(masks) if m is not None and m.any()]
        assert len(acting) == 1, acting  # the seat to act, and only it, has legal ids
        seat = acting[0]
        np.testing.assert_array_equal(masks[seat], aec.action_mask(f"player_{seat}"))
        for i, m in enumerate(masks):
            if m is None:  # a knocked-out seat: black death's zero observation
                assert aec.game is not None and aec.game.out[i]
                assert not obs[i].any()
                blacked_out += 1
        actions = np.ones(players, dtype=np.int64)  # pass: ignored for seats not to act
        actions[seat] = _masked_choice(rng, masks[seat])
        obs, _, terminated, _, infos = venv.step(actions)
        games += int(terminated.all())  # the vector env has then reset the game
    assert blacked_out > 0


def test_fixed_flat_bounds_scale_every_rule_set_alike() -> None:
    # The same count means the same input under any preset and option set ("fixed"), while
    # "rules" (the neural bot's scaling) rescales with the deck and the Mercy threshold.
    tables = [
        {"preset": "no-mercy"},
        {"preset": "no-mercy", "options": {"mercy_threshold": 12}},
        {"preset": "no-mercy", "options": {"mercy_enabled": False}},
        {"preset": "classic"},
    ]
    fixed = [rl.env(num_players=3, obs_format="flat", **t) for t in tables]
    for env in fixed:
        np.testing.assert_array_equal(env.flat_scale, fixed_flat_scale())
        space = env.observation_space("player_0")
        assert space.low.min() >= -1.0 and space.high.max() <= 1.0
    rules = [rl.env(num_players=3, obs_format="flat", flat_bounds="rules", **t) for t in tables]
    assert not np.array_equal(rules[0].flat_scale, rules[1].flat_scale)
    assert not np.array_equal(rules[0].flat_scale, rules[3].flat_scale)
    with pytest.raises(ValueError, match="flat_bounds"):
        rl.env(obs_format="flat", flat_bounds="auto")
