"""SelfPlayEnv credits every seat's reward to that seat; as_policy and evaluate take the
policies users train; the infos and reward options at the end of an episode (docs/rl.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from trainkit import needs

import nomercy.rl as rl
from nomercy.core.stats import wilson_interval
from nomercy.encoding.actions import DRAW_ID, PASS_ID

KNOCKOUTS = {"mercy_threshold": 12}


def _random_episode(env: rl.SelfPlayEnv, rng: np.random.Generator) -> list[tuple[float, dict]]:
    steps = []
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        steps.append((reward, info))
        done = terminated or truncated
    return steps


def test_random_self_play_rewards_are_balanced_and_reach_the_loser() -> None:
    # The learner plays uniformly at random, and so does its opponent (no snapshot yet): it
    # wins about half the games, and every game ends with +1 or -1 for it, whoever ended it.
    env = rl.SelfPlayEnv(["self"])
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    finals = []
    lost_on_their_turn = 0
    for _ in range(300):
        steps = _random_episode(env, rng)
        assert all(r == 0.0 for r, _ in steps[:-1])
        reward, info = steps[-1]
        finals.append(reward)
        assert info["winner"] >= 0 and reward == (1.0 if info["winner"] == info["seat"] else -1.0)
        lost_on_their_turn += reward == -1.0 and not info["knocked_out"][info["seat"]]
        env.reset()
    wins = sum(r > 0 for r in finals)
    assert set(finals) == {1.0, -1.0}
    assert 120 <= wins <= 180  # 300 games, p = 0.5: a 3.5-sigma band
    assert lost_on_their_turn > 5  # the other seat emptied its hand (most end by knock-out)


def test_a_knock_out_is_credited_to_the_seat_knocked_out() -> None:
    env = rl.SelfPlayEnv(["random", "random", "random"], options=KNOCKOUTS, knockout_bonus=0.25)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    learner_out = bonus_steps = 0
    for _ in range(60):
        steps = _random_episode(env, rng)
        reward, info = steps[-1]
        if info["knocked_out"][info["seat"]]:
            learner_out += 1
            assert reward <= -1.0 + 0.25 * 3  # -1, plus any bonus earned in the same step
            assert info["winner"] == -1 or info["winner"] != info["seat"]
        for r, _ in steps[:-1]:
            # Mid-game rewards are knock-out bonuses only: an attack is never punished.
            assert r >= 0.0 and r % 0.25 == 0.0
            bonus_steps += r > 0
        env.reset()
    assert learner_out > 5 and bonus_steps > 5


def test_opponents_play_snapshots_bots_and_policies_in_their_own_format() -> None:
    seen: dict[str, list[Any]] = {"flat": [], "dict": []}

    def flat_first(obs: Any, mask: np.ndarray) -> int:
        seen["flat"].append(obs)
        return int(np.flatnonzero(mask)[0])

    def dict_last(obs: Any, mask: np.ndarray) -> int:
        seen["dict"].append(obs)
        assert (obs["action_mask"] == mask).all()
        return int(np.flatnonzero(mask)[-1])

    env = rl.SelfPlayEnv(
        ["self", rl.as_policy(dict_last, obs_format="dict"), ["greedy", "heuristic"]],
        obs_format="flat",
    )
    env.reset(seed=0)
    assert env.reset(seed=0)[1]["opponents"][0] == "self (random)"
    env.add_snapshot(flat_first)
    rng = np.random.default_rng(0)
    labels = set()
    for _ in range(6):
        _, info = env.reset()
        labels.update(info["opponents"])
        _random_episode(env, rng)
    assert {"self", "dict_last"} <= labels and labels & {"greedy", "heuristic"}
    assert seen["flat"] and all(o.shape == (rl.OBS_SIZE,) for o in seen["flat"])
    assert all(np.abs(o).max() <= 1.0 for o in seen["flat"])  # the scaled vector
    assert seen["dict"] and all(set(o) == {"observation", "action_mask"} for o in seen["dict"])


def test_the_pool_keeps_the_latest_snapshots() -> None:
    env = rl.SelfPlayEnv(["self"], pool_size=2)
    env.reset(seed=0)
    for k in range(4):
        env.add_snapshot(lambda obs, mask, k=k: int(np.flatnonzero(mask)[k % 2 - 1]))
    assert len(env.snapshots) == 2
    with pytest.raises(ValueError, match="pool_size"):
        rl.SelfPlayEnv(["self"], pool_size=0)
    with pytest.raises(ValueError, match="unknown bot"):
        rl.SelfPlayEnv(["nobody"])


def _draws(obs: Any, mask: np.ndarray) -> int:
    """Draw whenever drawing is legal, else the highest legal id."""
    return DRAW_ID if mask[DRAW_ID] else int(np.flatnonzero(mask)[-1])


def _plays_a_card(obs: Any, mask: np.ndarray) -> int:
    """The highest legal id that is neither draw nor pass, else draw or pass."""
    legal = np.flatnonzero(mask)
    cards = legal[(legal != DRAW_ID) & (legal != PASS_ID)]
    return int(cards[-1] if len(cards) else legal[0])


def test_evaluate_a_callable_reproducibly_with_a_wilson_interval() -> None:
    def lowest(obs: Any, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])

    first = rl.evaluate(lowest, opponents="random", players=3, games=30, seed=5)
    again = rl.evaluate(lowest, opponents=["random", "random"], players=3, games=30, seed=5)
    assert first == again
    # The rate and its interval follow from the count (the core's Wilson interval).
    assert first["games"] == 30 and first["win_rate"] == first["wins"] / 30
    assert (first["low"], first["high"]) == wilson_interval(first["wins"], 30)
    assert first["mean_length"] > 10
    # The count is the policy's own wins (seeded games, so the same figures under any load):
    # heads-up, a policy that plays a card whenever it can beats one that draws whenever it
    # may (about 23 of 30), and the drawer loses most games to heuristic, mostly knocked out
    # by the Mercy rule (NM-33). A count of the wrong seat, constant or inverted fails one.
    strong = rl.evaluate(_plays_a_card, opponents=[_draws], games=30, seed=5)
    weak = rl.evaluate(_draws, opponents="heuristic", games=30, seed=5)
    assert strong["wins"] > 15 and weak["wins"] < 15
    assert weak["knocked_out"] > 15 and weak["knocked_out"] <= 30 - weak["wins"]
    with pytest.raises(ValueError, match="opponents"):
        rl.evaluate(lowest, opponents=["random"], players=3, games=5)
    with pytest.raises(ValueError, match="forbids"):
        rl.evaluate(lambda obs, mask: int(np.flatnonzero(mask == 0)[0]), games=1)
    with pytest.raises(TypeError, match="cannot use"):
        rl.as_policy(42)


def test_as_policy_takes_torch_modules_and_sb3_models() -> None:
    torch = needs("torch")
    torch.manual_seed(0)
    module = torch.nn.Sequential(
        torch.nn.Linear(rl.OBS_SIZE, 32), torch.nn.Tanh(), torch.nn.Linear(32, rl.NUM_ACTIONS)
    )
    result = rl.evaluate(module, opponents="random", games=10, seed=1)
    assert result["games"] == 10
    ppo = needs("stable_baselines3").PPO
    model = ppo("MlpPolicy", rl.SelfPlayEnv(["random"]), n_steps=64, batch_size=32, seed=0)
    assert rl.evaluate(model, opponents="greedy", games=6, seed=2)["games"] == 6
    # A snapshot is frozen: training the model on does not change the policy taken from it.
    snap = rl.as_policy(model, frozen=True)
    env = rl.SelfPlayEnv(["random"], learner_seat=0)
    obs, info = env.reset(seed=4)
    before = snap(obs, info["action_mask"])
    with torch.no_grad():
        for p in model.policy.parameters():
            p.add_(torch.randn_like(p))
    assert snap(obs, info["action_mask"]) == before


# ---------------------------------------------------------------------------- infos, rewards
def test_infos_at_the_end_of_an_aec_episode() -> None:
    env = rl.env(num_players=4, options=KNOCKOUTS)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    finals: dict[str, dict[str, Any]] = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = dict(info)
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.game
    assert game is not None and game.is_over
    assert set(finals) == set(env.possible_agents)
    last = [i for i in finals.values() if i["winner"] >= 0]
    assert last and all(i["winner"] == game.winner for i in last)
    assert all(i["hand_sizes"] == [len(h) for h in game.hands] for i in last)
    assert all(i["knocked_out"] == list(game.out) for i in last)
    assert all(i["episode_steps"] == env.steps for i in last)
    early = [i for i in finals.values() if i["winner"] == -1]
    assert early and all(sum(i["knocked_out"]) >= 1 for i in early)  # knocked out mid-game


def test_points_rewards_follow_the_hand_score() -> None:
    env = rl.env(num_players=3, reward="points", points_scale=50.0)
    rng = np.random.default_rng(2)
    for seed in range(6):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        game = env.game
        assert game is not None and game.winner is not None
        points, per_seat = game.hand_points(game.winner)
        for seat, agent in enumerate(env.possible_agents):
            if seat == game.winner:
                assert totals[agent] == pytest.approx(points / 50.0)
            elif game.out[seat]:
                assert totals[agent] == -1.0
            else:
                assert totals[agent] == pytest.approx(-per_seat[seat] / 50.0)
    with pytest.raises(ValueError, match="reward"):
        rl.env(reward="score")
    with pytest.raises(ValueError, match="points_scale"):
        rl.env(reward="points", points_scale=0)


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_points_rewards_in_a_match_come_with_every_hand(preset: str) -> None:
    # With scoring on, reward="points" pays each hand's points when the hand ends (the hand's
    # winner its points, the others their own card points, negative), not only at the end.
    target = 1500 if preset == "no-mercy" else 300
    options = {"scoring_enabled": True, "score_target": target}
    env = rl.env(num_players=3, preset=preset, options=options, reward="points")
    rng = np.random.default_rng(4)
    hands_paid = 0
    for seed in range(3):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        expected = [0.0, 0.0, 0.0]
        seen = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            game = env.game
            assert game is not None
            ends = [e for e in game.log[seen:] if e.kind == "hand_end"]
            seen = len(game.log)
            for e in ends:
                cards = {int(s): p for s, p in e.data["cards"].items()}
                won = e.data.get("points", sum(cards.values()))
                expected[e.data["winner"]] += won / 100.0
                for s, p in cards.items():
                    expected[s] -= p / 100.0
                hands_paid += 1
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(expected[seat])
    assert hands_paid > 4  # 3 matches, some of several hands


def test_gymnasium_points_rewards_in_a_match_come_with_every_hand() -> None:
    options = {"scoring_enabled": True, "score_target": 1500}
    env = rl.NoMercyEnv(["random", "random"], options=options, reward="points")
    rng = np.random.default_rng(6)
    mid_match = 0
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(
                int(rng.choice(np.flatnonzero(obs["action_mask"])))
            )
            total += reward
            done = terminated or truncated
            mid_match += bool(reward) and not done
        game = env.game
        assert game is not None
        expected = 0.0
        for e in game.log:
            if e.kind == "hand_end":
                cards = {int(s): p for s, p in e.data["cards"].items()}
                if e.data["winner"] == env.seat:
                    expected += e.data["points"] / 100.0
                expected -= cards.get(env.seat, 0) / 100.0
        if game.out[env.seat] and not game.is_over:
            expected -= 1.0  # its episode ended at its knock-out
        assert total == pytest.approx(expected)
    assert mid_match > 0
