"""The rlcard-rule bot: RLCard's uno-rule-v1 agent on our classic preset, from its view only."""

from __future__ import annotations

import importlib.util
import random
import sys

import numpy as np
import pytest
from botkit import json_view, play_checked, reshuffle_secrets

from nomercy import Game, new_game
from nomercy.bots import BOTS, bot_names, make_bot, next_action, play_out
from nomercy.bots.registry import OPTIONAL_BOTS
from nomercy.bots.rlcard_rule import RLCardRuleBot, rlcard_card, rlcard_state
from nomercy.core.cards import parse_card


def test_rlcard_rule_is_built_by_name_and_plays_legal_classic_games() -> None:
    # A tournament anchor: make_bot builds it, the apps (BOTS) do not offer it.
    assert "rlcard-rule" not in BOTS and "rlcard-rule" in bot_names()
    for seed in range(4):
        g = new_game(2, rules="classic", seed=seed)
        play_checked(g, [make_bot("rlcard-rule", seed=seed), make_bot("heuristic", seed=1)])
        assert g.is_over


def test_rlcard_rule_refuses_no_mercy() -> None:
    g = new_game(2, seed=1)
    bot = RLCardRuleBot(seed=1)
    seat = g.to_act
    assert seat is not None
    with pytest.raises(ValueError, match="classic"):
        bot.choose_action(json_view(g, seat), g.legal_actions())


def test_card_strings_are_rlcards() -> None:
    assert rlcard_card(parse_card("R5")) == "r-5"
    assert rlcard_card(parse_card("GS")) == "g-skip"
    assert rlcard_card(parse_card("BR")) == "b-reverse"
    assert rlcard_card(parse_card("Y+2")) == "y-draw_2"
    assert rlcard_card(parse_card("W"), "G") == "g-wild"
    assert rlcard_card(parse_card("W+4"), "B") == "b-wild_draw_4"
    with pytest.raises(ValueError, match="classic"):
        rlcard_card(parse_card("W+10"))


def test_the_agent_sees_its_hand_the_target_and_rlcards_legal_actions() -> None:
    # Our classic rules let it draw with a playable card (CL-5) and offer a Wild +4 beside
    # other plays (challengeable, CL-8); RLCard offers neither, so neither reaches the agent.
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["R1", "W+4", "W", "G7"]}, {"hand": ["B2", "B3"]}],
            "turn": 0,
            "discard": ["Y2", "R5"],
        }
    )
    raw, actions = rlcard_state(json_view(g, 0), g.legal_actions())
    assert raw["hand"] == ["r-1", "r-wild_draw_4", "r-wild", "g-7"]
    assert raw["target"] == "r-5"
    assert raw["played_cards"] == ["y-2", "r-5"]
    assert raw["num_cards"] == [4, 2]
    assert actions == ["r-1", "r-wild", "y-wild", "g-wild", "b-wild"]
    assert "draw" in [str(a) for a in g.legal_actions()]
    # Only a Wild +4 playable: it is offered; nothing playable: draw.
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["W+4", "G7"]}, {"hand": ["B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    assert rlcard_state(json_view(g, 0), g.legal_actions())[1] == [
        "r-wild_draw_4",
        "y-wild_draw_4",
        "g-wild_draw_4",
        "b-wild_draw_4",
    ]
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["G7"]}, {"hand": ["B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
            "uno_window": [],
        }
    )
    assert rlcard_state(json_view(g, 0), g.legal_actions())[1] == ["draw"]


def test_a_wild_on_top_shows_in_its_named_colour() -> None:
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["R1", "W"]}, {"hand": ["B2", "B3", "G1"]}],
            "turn": 0,
            "discard": ["R5"],
            "uno_window": [],
        }
    )
    g.apply("play W G uno")
    assert rlcard_state(json_view(g, 1), g.legal_actions())[0]["target"] == "g-wild"


def test_rlcard_rule_plays_its_wild_draw_four_in_its_strongest_colour() -> None:
    # uno-rule-v1 plays a Wild +4 whenever offered, naming the colour it holds most of.
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["W+4", "G7", "G8", "B1"]}, {"hand": ["B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    action = RLCardRuleBot(seed=3).choose_action(json_view(g, 0), g.legal_actions())
    assert str(action) == "play W+4 G"


def test_rlcard_rule_never_reads_hidden_state() -> None:
    rng = random.Random(4)
    checked = 0
    for seed in range(3):
        g = new_game(2, rules="classic", seed=200 + seed)
        drivers = [make_bot("heuristic", seed=s) for s in range(2)]
        while not g.is_over:
            seat = g.to_act
            assert seat is not None
            legal = g.legal_actions(seat)
            if len(legal) > 1:
                twin = reshuffle_secrets(g, seat, rng)
                a = RLCardRuleBot(seed=9).choose_action(json_view(g, seat), legal)
                b = RLCardRuleBot(seed=9).choose_action(
                    json_view(twin, seat), twin.legal_actions(seat)
                )
                assert a == b
                checked += 1
            g.apply(next_action(g, drivers))
    assert checked >= 20


def test_rlcard_rule_is_deterministic_per_seed_and_leaves_numpy_alone() -> None:
    def history(seed: int) -> list[str]:
        g = new_game(2, rules="classic", seed=77)
        play_out(g, [RLCardRuleBot(seed=seed), make_bot("random", seed=1)])
        return [str(a) for a in g.history]

    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first = history(5)
    assert (np.random.get_state()[1] == before).all()
    assert history(5) == first
    assert any(history(s) != first for s in range(6, 12))


def test_a_missing_rlcard_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "rlcard-rule" in OPTIONAL_BOTS
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert "rlcard-rule" not in bot_names()
    with pytest.raises(ValueError, match=r"needs the rlcard package.*pip install"):
        make_bot("rlcard-rule", seed=1)
    monkeypatch.setitem(sys.modules, "rlcard.models.uno_rule_models", None)
    with pytest.raises(ImportError, match="pip install"):
        RLCardRuleBot(seed=1)
