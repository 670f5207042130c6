"""The determinization sampler: every sampled game agrees with what the seat has seen."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from botkit import json_view, reshuffle_secrets

from nomercy import Card, Game, new_game
from nomercy.bots import make_bot, next_action, read_view, sample_game, sample_position
from nomercy.bots.determinize import honest_redealer_for


def all_cards(g: Game) -> Counter[Card]:
    cards: Counter[Card] = Counter(g.discard)
    cards.update(g.draw_pile)
    cards.update(g.set_aside)
    for hand in g.hands:
        cards.update(hand)
    return cards


def decision_points(
    players: int, preset: str, options: dict[str, Any], seed: int, every: int = 3
) -> list[tuple[Game, int]]:
    """Copies of a bot game at every ``every``-th decision, with the seat to act."""
    g = new_game(players, rules=preset, options=options, seed=seed)
    bots = [make_bot("heuristic" if s % 2 else "random", seed=s) for s in range(players)]
    found: list[tuple[Game, int]] = []
    while not g.is_over and len(g.history) < 400:
        seat = g.to_act
        assert seat is not None
        if len(g.history) % every == 0:
            found.append((g.copy(), seat))
        g.apply(next_action(g, bots))
    return found


GAMES = [
    (2, "no-mercy", {}, 1),
    (4, "no-mercy", {}, 2),
    (6, "no-mercy", {"discard_all_mode": "optional_subset"}, 3),
    (3, "no-mercy", {"roulette_chooser": "player", "wild_colour_timing": "on_resolution"}, 4),
    (3, "classic", {}, 5),
    (4, "classic", {"classic_seven_zero": True, "classic_stacking": True}, 6),
]


@pytest.mark.parametrize(("players", "preset", "options", "seed"), GAMES)
def test_a_sample_agrees_with_the_view(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    points = decision_points(players, preset, options, seed)
    assert len(points) > 5
    for g, seat in points:
        view = json_view(g, seat)
        d = sample_game(view, rng)
        assert d.hands[seat] == g.hands[seat]  # exactly the viewer's hand, in order
        assert [len(h) for h in d.hands] == [len(h) for h in g.hands]
        assert d.discard == g.discard
        assert len(d.draw_pile) == len(g.draw_pile) and len(d.set_aside) == len(g.set_aside)
        assert all_cards(d) == all_cards(g)  # the same deck, every card somewhere
        assert d.total_cards == g.total_cards
        assert (d.to_act, d.phase, d.colour, d.direction, d.pending, d.out, d.uno_called) == (
            g.to_act,
            g.phase,
            g.colour,
            g.direction,
            g.pending,
            g.out,
            g.uno_called,
        )
        for s, cards in view.known.items():  # cards the seat knows others hold stay there
            assert not Counter(cards) - Counter(d.hands[s])
        assert d.legal_actions(seat) == g.legal_actions(seat)
        # The determinized game plays on to the end.
        bots = [make_bot("greedy", seed=s) for s in range(g.n)]
        while not d.is_over and len(d.history) < 300:
            d.apply(next_action(d, bots))


def test_a_sample_never_uses_hidden_state() -> None:
    rng = random.Random(3)
    for g, seat in decision_points(4, "no-mercy", {}, 9, every=4):
        twin = reshuffle_secrets(g, seat, rng)
        a = sample_position(json_view(g, seat), random.Random(5))
        b = sample_position(json_view(twin, seat), random.Random(5))
        assert a == b


def test_samples_vary_and_respect_the_rng() -> None:
    g = new_game(3, seed=12)
    seat = g.to_act
    assert seat is not None
    view = json_view(g, seat)
    first = sample_position(view, random.Random(1))
    assert first == sample_position(view, random.Random(1))
    others = {
        tuple(sample_position(view, random.Random(k))["players"][(seat + 1) % 3]["hand"])
        for k in range(10)
    }
    assert len(others) > 1


def test_a_player_who_drew_is_dealt_no_card_of_the_colour_it_lacked() -> None:
    # P1 draws on a red top (NM-9): it held no red and no wild, and the cards it drew
    # before the playable one were not red or wild either.
    g = Game.from_position(
        {
            "players": [
                {"hand": ["R8", "B2", "B3", "G7"]},
                {"hand": ["G1", "G2", "G3", "B6"]},
                {"hand": ["Y5", "Y9", "Y7"]},
            ],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["Y1", "Y2", "G9", "R9"],
        }
    )
    g.apply("play R8")
    g.apply("draw")
    g.apply("play R9")
    g.apply("play Y9")
    view = json_view(g, 0)
    knowledge = read_view(view)
    assert knowledge.lacks[1] == {Card("R5").colour} and 1 in knowledge.lacks_wild
    rng = random.Random(4)
    for _ in range(50):
        d = sample_game(view, rng, knowledge)
        assert all(c.colour is not None and c.colour.value != "R" for c in d.hands[1])


def test_the_sampler_rejects_a_spectator_view() -> None:
    g = new_game(2, seed=1)
    with pytest.raises(ValueError, match="spectator"):
        sample_position(g.view(None), random.Random(1))


def _classic_wild_four_on_blue() -> Game:
    """Classic, three seats: P1 has just played a Wild +4 (naming green) on blue while holding
    two blue cards; P2 may challenge it (CL-8)."""
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [
                {"hand": ["R1", "R2", "R3", "G4"]},
                {"hand": ["W+4", "B2", "B3"]},
                {"hand": ["Y5", "Y6"]},
            ],
            "turn": 1,
            "discard": ["B5"],
        }
    )
    g.apply("play W+4 G")
    return g


def test_a_classic_wild_four_gets_the_guilty_flag_of_the_sampled_hand() -> None:
    g = _classic_wild_four_on_blue()
    view = json_view(g, 2)
    assert view.wd4_play is not None  # who played it and on what colour, not whether honestly
    assert "guilty" not in view.to_json()["wd4_play"]
    rng = random.Random(2)
    for _ in range(20):
        pos = sample_position(view, rng)
        blue = any(Card(c).colour is Card("B1").colour for c in pos["players"][1]["hand"])
        assert pos["wd4"]["guilty"] is blue


def test_cl8_honest_deals_give_the_accused_no_card_of_the_colour() -> None:
    # P1 plays a Wild +4 on blue; P2 may challenge (CL-8). The honest deals (the prior
    # HONEST_WD4 of a search) never give P1 a blue card, so the Wild +4 is never guilty.
    g = _classic_wild_four_on_blue()
    view = json_view(g, 2)
    honest = honest_redealer_for(view)
    assert honest is not None
    assert Card("B1").colour in honest.gaps.lacks[1]
    rng = random.Random(3)
    for _ in range(30):
        d = honest.sample(rng)
        assert all(c.colour is not Card("B1").colour for c in d.hands[1])
        assert d.wd4 is not None and d.wd4.guilty is False
    # Nobody else may challenge, and without a pending Wild +4 there is nothing to judge.
    assert honest_redealer_for(json_view(g, 1)) is None
    assert honest_redealer_for(json_view(new_game(2, rules="classic", seed=1), 0)) is None


def test_cl5_classic_deals_give_a_player_who_drew_no_card_of_the_colour() -> None:
    # Classic heads-up: P1 draws B9 on red and keeps it; the search reads the draw as forced.
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["R8", "G8", "B2"]}, {"hand": ["G1", "B6", "Y3"]}],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["B9", "G4", "R1", "R2", "W"],
        }
    )
    g.apply("play R8")
    g.apply("draw")
    assert g.to_act == 0
    rng = random.Random(5)
    for _ in range(30):
        hand = sample_game(json_view(g, 0), rng).hands[1]
        assert len(hand) == 4
        assert all(c.colour is not None and c.colour is not Card("R1").colour for c in hand)
