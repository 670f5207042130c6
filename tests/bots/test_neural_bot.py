"""The ``neural-ppo`` bot (the masked-PPO policy, ``neural`` before issue 29): shipped
weights, legal full games, hidden information, determinism, and the observation it builds from
a view against the RL environment's (docs/neural.md)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from botkit import OPTION_SETS, json_view, play_checked, reshuffle_secrets  # noqa: E402

from nomercy import Game, new_game  # noqa: E402
from nomercy.bots.driver import play_out  # noqa: E402
from nomercy.bots.neural_bot import NeuralBot, Policy, load_policy  # noqa: E402
from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE, action_id  # noqa: E402
from nomercy.bots.registry import BOTS, make_bot  # noqa: E402

WEIGHTS = Path(__file__).resolve().parents[2] / "src/nomercy/bots/data/neural.npz"


def test_shipped_weights_load_and_fit_the_tables() -> None:
    policy = load_policy()
    assert policy.pi[0].shape == (policy.hidden[-1][0].shape[1], NUM_ACTIONS)
    assert policy.hidden[0][0].shape[0] == OBS_SIZE
    assert policy.meta["format"] == 1 and policy.meta["updates"] >= 0
    assert WEIGHTS.stat().st_size < 5 * 2**20  # "a few MB at most"
    # The same arrays through the file path and through the package resource.
    again = load_policy(WEIGHTS)
    for (w1, b1), (w2, b2) in zip(policy.hidden, again.hidden, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def test_a_saved_policy_loads_back(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(size=(OBS_SIZE, 8)).astype(np.float32), np.zeros(8, np.float32)),
        (rng.normal(size=(8, NUM_ACTIONS)).astype(np.float32), np.zeros(NUM_ACTIONS, np.float32)),
        (rng.normal(size=(8, 1)).astype(np.float32), np.zeros(1, np.float32)),
    ]
    Policy(layers, {"note": "tiny"}).save(tmp_path / "p.npz")
    back = load_policy(tmp_path / "p.npz")
    assert back.meta["note"] == "tiny"
    obs = rng.normal(size=OBS_SIZE).astype(np.float32)
    assert np.allclose(back.logits(obs), Policy(layers).logits(obs))


def test_bad_weights_files_get_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not a neural-bot weights file"):
        load_policy(tmp_path / "other.npz")
    with pytest.raises(ValueError, match="at least one hidden layer"):
        Policy([])


def test_registry_offers_neural_and_explains_a_missing_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "neural-ppo" in BOTS
    bot = make_bot("neural-ppo", seed=4)
    assert isinstance(bot, NeuralBot) and bot.name == "neural-ppo"
    monkeypatch.delitem(BOTS, "neural-ppo")  # as if numpy were missing
    with pytest.raises(ValueError, match=r"needs numpy: pip install 'uno-no-mercy\[neural\]'"):
        make_bot("neural-ppo")


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_full_games_on_both_presets_with_legal_moves_only(preset: str, players: int) -> None:
    for seed in range(3):
        g = new_game(players, rules=preset, seed=seed)
        bots = [
            make_bot("neural-ppo" if s % 2 == seed % 2 else "heuristic", seed=s)
            for s in range(players)
        ]
        play_checked(g, bots, limit=20_000)
        assert g.is_over


@pytest.mark.parametrize("preset,options", OPTION_SETS)
def test_legal_moves_only_under_other_rule_options(preset: str, options: dict[str, object]) -> None:
    # Options outside training (docs/neural.md): the bot must still only play legal moves.
    for seed in range(2):
        g = new_game(2 + 2 * seed, rules={"preset": preset, "options": options}, seed=seed)
        bots = [make_bot("neural-ppo" if s % 2 else "random", seed=s) for s in range(g.n)]
        play_checked(g, bots, limit=300)
        assert g.is_over or len(g.history) >= 300


def test_same_decision_when_only_hidden_cards_differ() -> None:
    rng = random.Random(11)
    bot = NeuralBot()
    checked = 0
    for seed in range(6):
        g = new_game(2 + seed % 3, seed=seed)
        others = [make_bot("heuristic", seed=s) for s in range(g.n)]
        while not g.is_over:
            seat = g.to_act
            assert seat is not None
            if len(g.history) % 2 == 0 and not g.view(seat).wd4_challengeable:
                twin = reshuffle_secrets(g, seat, rng)
                a = bot.choose_action(json_view(g, seat), g.legal_actions(seat))
                b = bot.choose_action(json_view(twin, seat), twin.legal_actions(seat))
                assert a == b
                checked += 1
            play_out_step(g, others)
    assert checked > 20


def play_out_step(g: Game, bots: list[object]) -> None:
    seat = g.to_act
    assert seat is not None
    bot = bots[seat]
    g.apply(bot.choose_action(g.view(seat), g.legal_actions(seat)))  # type: ignore[attr-defined]


def test_same_seed_same_game() -> None:
    def history(seed: int) -> list[str]:
        g = new_game(4, seed=seed)
        play_out(
            g,
            [
                make_bot(name, seed=7)
                for name in ("neural-ppo", "heuristic", "neural-ppo", "random")
            ],
        )
        return [str(a) for a in g.history]

    assert history(5) == history(5)


def test_choice_does_not_depend_on_the_order_of_the_legal_list() -> None:
    bot = NeuralBot()
    for seed in range(5):
        g = new_game(3, seed=seed)
        for _ in range(30):
            if g.is_over:
                break
            seat = g.to_act
            assert seat is not None
            legal = g.legal_actions(seat)
            view = g.view(seat, history=False)
            a = bot.choose_action(view, list(legal))
            assert bot.choose_action(view, list(reversed(legal))) == a
            g.apply(a)


def test_a_policy_that_prefers_an_id_plays_it() -> None:
    # Zero weights except one bias: the bot must play the action with that id when legal.
    g = new_game(2, seed=3)
    seat = g.to_act
    assert seat is not None
    legal = g.legal_actions(seat)
    target = legal[-1]
    width = 4
    pi_b = np.zeros(NUM_ACTIONS, np.float32)
    pi_b[action_id(target, g.n)] = 5.0
    policy = Policy(
        [
            (np.zeros((OBS_SIZE, width), np.float32), np.zeros(width, np.float32)),
            (np.zeros((width, NUM_ACTIONS), np.float32), pi_b),
            (np.zeros((width, 1), np.float32), np.zeros(1, np.float32)),
        ]
    )
    assert NeuralBot(weights=policy).choose_action(g.view(seat), legal) == target
