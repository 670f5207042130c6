"""``puct`` and ``neural`` (its network's policy alone): the network's format, its input,
legal play, hidden information, determinism (docs/puct.md)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from botkit import OPTION_SETS, json_view, play_checked, reshuffle_secrets

from nomercy import new_game
from nomercy.bots import make_bot
from nomercy.bots.driver import next_action, play_out
from nomercy.bots.neural_bot import NeuralBot
from nomercy.bots.neural_features import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    FeatureEncoder,
    action_id,
)
from nomercy.bots.puct_bot import PolicyNetBot, PUCTBot
from nomercy.bots.pvnet import PVNet, load_pvnet
from nomercy.encoding.fast import TableObserver

DATA = Path(__file__).resolve().parents[2] / "src/nomercy/bots/data"


def _random_net(seed: int, widths: tuple[int, ...] = (32, 16)) -> PVNet:
    rng = np.random.default_rng(seed)
    hidden = []
    width = OBS_SIZE
    for w in widths:
        hidden.append((rng.normal(0, 0.2, (width, w)).astype(np.float32), rng.normal(0, 0.1, w)))
        width = w
    pi = (rng.normal(0, 0.5, (width, NUM_ACTIONS)).astype(np.float32), np.zeros(NUM_ACTIONS))
    v = (rng.normal(0, 0.5, (width, MAX_PLAYERS)).astype(np.float32), np.zeros(MAX_PLAYERS))
    return PVNet(hidden, pi, v, {"test": True})  # type: ignore[arg-type]


def test_shipped_weights_load_and_fit_the_input() -> None:
    net = load_pvnet()
    assert net.hidden[0][0].shape[0] == OBS_SIZE
    assert net.policy_rows.shape == (NUM_ACTIONS, net.hidden[-1][0].shape[1])
    assert net.value[0].shape[1] == MAX_PLAYERS
    assert net.meta["format"] == 1


def test_weights_round_trip(tmp_path: Path) -> None:
    net = _random_net(1)
    net.save(tmp_path / "w.npz")
    again = load_pvnet(tmp_path / "w.npz")
    obs = np.random.default_rng(2).random(OBS_SIZE).astype(np.float32)
    assert np.allclose(net.logits(obs), again.logits(obs))
    assert again.meta["test"] is True


def test_bad_weights_are_refused(tmp_path: Path) -> None:
    net = _random_net(1)
    with pytest.raises(ValueError, match="do not fit"):
        PVNet(net.hidden, (net.policy_rows, net.policy_bias), (net.policy_rows.T, net.policy_bias))
    with pytest.raises(ValueError, match="at least one hidden layer"):
        PVNet([], (net.policy_rows.T, net.policy_bias), net.value)
    path = tmp_path / "other.npz"
    np.savez(path, meta=np.array('{"format": 1}'))
    with pytest.raises(ValueError, match="not a puct weights file"):
        load_pvnet(path)


def test_one_position_evaluation_equals_the_batch_heads() -> None:
    # evaluate() takes shortcuts (sparse first layer, both heads in one product): the
    # figures must be the heads' own.
    net = _random_net(3)
    rng = np.random.default_rng(4)
    for n in range(2, MAX_PLAYERS + 1):
        obs = (rng.random(OBS_SIZE) < 0.1).astype(np.float32) * rng.random(OBS_SIZE).astype(
            np.float32
        )
        ids = sorted(rng.choice(NUM_ACTIONS, size=5, replace=False).tolist())
        priors, wins = net.evaluate(obs, ids, n)
        logits = net.logits(obs)[ids]
        expected = np.exp(logits - logits.max())
        assert np.allclose(priors, expected / expected.sum(), atol=1e-5)
        assert np.allclose(wins, net.win_chances(net.body(obs), n), atol=1e-5)
        assert len(wins) == n and abs(sum(wins) - 1) < 1e-5


def test_leaf_observation_is_the_views_encoding() -> None:
    # The search observes its deals through a TableObserver that never follows a game: the
    # vector (scaled) must be exactly the one the network was trained on, FeatureEncoder's
    # encoding of that seat's view.
    rng = random.Random(5)
    checked = 0
    for preset in ("no-mercy", "classic"):
        for seed in range(6):
            g = new_game(2 + seed % 4, rules=preset, seed=seed)
            observer = TableObserver(g.rules, g.n)
            encoder = FeatureEncoder(g.rules, g.n)
            bots = [make_bot("greedy", seed=s) for s in range(g.n)]
            while not g.is_over:
                seat = rng.randrange(g.n)
                out = np.empty(OBS_SIZE, dtype=np.float32)
                observer.write(g, seat, out.data)
                assert np.array_equal(out * encoder.scale, encoder.encode(g.view(seat)))
                checked += 1
                g.apply(next_action(g, bots))
    assert checked > 500


@pytest.mark.parametrize("name", ["puct", "neural"])
def test_plays_only_legal_actions_in_every_option_set(name: str) -> None:
    for preset, options in OPTION_SETS:
        for seed in range(2):
            g = new_game(2 + 2 * seed, rules={"preset": preset, "options": options}, seed=seed)
            params = {"iterations": 12} if name == "puct" else {}
            bots = [
                make_bot(name, seed=s, **params) if s % 2 else make_bot("random", seed=s)
                for s in range(g.n)
            ]
            play_checked(g, bots, limit=300)
            assert g.is_over or len(g.history) >= 300


def test_puct_is_deterministic_for_a_seed_and_uses_its_budget() -> None:
    def history(bot_seed: int) -> list[str]:
        g = new_game(2, seed=33)
        play_out(g, [PUCTBot(seed=bot_seed, iterations=15), make_bot("heuristic", seed=1)])
        return [str(a) for a in g.history]

    assert history(4) == history(4)
    bot = PUCTBot(seed=1, iterations=40)
    g = new_game(3, seed=8)
    while len(bot.search_candidates(g.legal_actions(), g.view(g.to_act))) < 2:
        g.apply(next_action(g, [make_bot("heuristic")] * 3))
    bot.choose_action(g.view(g.to_act), g.legal_actions())
    assert bot.last_iterations == 40
    stats = bot.root_statistics(g.view(g.to_act), bot.search_candidates(g.legal_actions()))
    assert sum(s.visits for s in stats) == 40 - 1  # the first iteration evaluates the root
    assert all(0.0 <= s.mean <= 1.0 for s in stats)


@pytest.mark.parametrize("name", ["puct", "neural"])
def test_never_reads_hidden_state(name: str) -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(3):
        g = new_game(2 + seed, seed=100 + seed)
        drivers = [make_bot("heuristic", seed=s) for s in range(g.n)]
        while not g.is_over and checked < 10 * (seed + 1):
            seat = g.to_act
            assert seat is not None
            legal = g.legal_actions(seat)
            if len(legal) > 1 and len(g.history) % 2 == 0:
                twin = reshuffle_secrets(g, seat, rng)
                params = {"iterations": 25} if name == "puct" else {}
                a = make_bot(name, seed=9, **params).choose_action(json_view(g, seat), legal)
                b = make_bot(name, seed=9, **params).choose_action(
                    json_view(twin, seat), twin.legal_actions(seat)
                )
                assert a == b
                checked += 1
            g.apply(next_action(g, drivers))
    assert checked >= 10


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="c_puct"):
        PUCTBot(c_puct=-1)
    with pytest.raises(ValueError, match="rollout_mix"):
        PUCTBot(rollout_mix=1.5)
    with pytest.raises(ValueError, match="iterations"):
        PUCTBot(iterations=0)
    with pytest.raises(ValueError, match="prior_temp"):
        PUCTBot(prior_temp=0)


def test_policy_bot_takes_the_largest_prior() -> None:
    bot = PolicyNetBot()
    seen = 0
    for seed in range(20, 30):
        g = new_game(2 + seed % 2, seed=seed)
        encoder = FeatureEncoder(g.rules, g.n)
        while not g.is_over:
            seat = g.to_act
            assert seat is not None
            view = g.view(seat)
            legal = g.legal_actions(seat)
            candidates = bot.search_candidates(legal, view)
            if len(candidates) > 1:
                logits = bot.net.logits(encoder.encode(view))
                ids = [action_id(a, g.n) for a in candidates]
                assert bot.choose_action(view, legal) == candidates[int(np.argmax(logits[ids]))]
                seen += 1
            g.apply(next_action(g, [make_bot("heuristic")] * g.n))
    assert seen >= 20


def test_neural_plays_the_policy_and_still_reads_a_ppo_file(tmp_path: Path) -> None:
    # Issue 29: the policy alone replaced the masked-PPO policy as ``neural``; a PPO weights
    # file given as ``weights`` still plays as before, and the former name still builds it.
    assert isinstance(make_bot("neural"), PolicyNetBot)
    assert make_bot("neural").name == make_bot("puct-policy").name == "neural"
    bot = make_bot("neural", weights=str(DATA / "neural.npz"))
    assert isinstance(bot, NeuralBot) and bot.name == "neural-ppo"
    assert isinstance(make_bot("neural", weights=DATA / "puct.npz"), PolicyNetBot)
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    (tmp_path / "text.npz").write_text("not weights")
    for name in ("other.npz", "text.npz"):
        with pytest.raises(ValueError, match="not a weights file"):
            make_bot("neural", weights=tmp_path / name)
    with pytest.raises(FileNotFoundError):
        make_bot("neural", weights=tmp_path / "missing.npz")
