"""Classic deal priors read from what players show: wilds kept for last, the named colour."""

from __future__ import annotations

import random

import pytest
from botkit import json_view

from nomercy import Card, Game, new_game
from nomercy.bots import make_bot, next_action
from nomercy.bots.determinize import KEEPS_WILDS, search_sampler
from nomercy.bots.knowledge import Choice, colour_counts, play_hints
from nomercy.core.cards import Colour

RED, GREEN = Colour.RED, Colour.GREEN


def wild_game(p1: list[str], pile: list[str], p0: list[str] | None = None) -> Game:
    """Classic heads-up: on a red 5, P1 plays a Wild naming green; P0 is to act."""
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": p0 or ["R8", "G8", "B2", "Y4", "Y5"]}, {"hand": ["W", *p1]}],
            "turn": 1,
            "discard": ["R5"],
            "draw_pile": [*pile, "Y1", "Y2", "B1", "B8", "G6", "R6", "R2", "R3", "R4"],
        }
    )
    g.apply("play W G")
    assert g.to_act == 0
    return g


def test_a_wild_shows_the_colour_it_covered_and_the_colour_it_named() -> None:
    g = wild_game(["G1", "G2", "G3", "B6", "Y3"], [])
    hints = play_hints(json_view(g, 0))
    assert hints.lacks == {1: {RED}}
    assert hints.ranks == {1: {5}}  # no 5 either: it would have played it
    assert hints.named == {1: (GREEN, 1)}  # its hand after the wild: played[1:] and now
    assert hints.played == {1: [Card("W")]} and hints.choices == {}
    # A seat's own wilds are no hints for itself.
    assert play_hints(json_view(g, 1)).lacks == {}
    assert play_hints(json_view(g, 1)).named == {}


def test_a_drawn_card_played_at_once_keeps_the_hints_a_kept_one_ends_them() -> None:
    for drawn, kept in (("G4", False), ("Y9", True)):
        # P0 plays G8, P1 plays G1, P0 draws B7 (not playable), P1 draws ``drawn``.
        g = wild_game(["G1", "G2", "G3", "B6", "Y3"], ["B7", drawn])
        g.apply("play G8")
        g.apply("play G1")
        hints = play_hints(json_view(g, 0))
        assert hints.named == {1: (GREEN, 1)}  # its hand then: the cards now and G1
        assert hints.played == {1: [Card("W"), Card("G1")]}
        assert hints.choices == {1: [Choice(GREEN, 8, 1)]}  # G1 on G8, with W played before
        g.apply("draw")
        assert g.to_act == 1
        g.apply("draw")
        if kept:
            assert g.to_act == 0  # Y9 is not playable: the turn passed, P1 keeps it
            hints = play_hints(json_view(g, 0))
            assert hints.lacks == {} and hints.named == {}
            assert hints.ranks == {1: {1}}  # it could not match G1's number, nor can Y9
        else:
            assert g.phase == "play_drawn"
            g.apply("play G4")
            hints = play_hints(json_view(g, 0))
            assert hints.lacks == {1: {RED}}
            assert hints.ranks == {1: {1, 5}}
            assert hints.named == {1: (GREEN, 1)}
            assert hints.played == {1: [Card("W"), Card("G1")]}  # G4 was not in the hand


def test_a_card_of_the_covered_colour_ends_that_hint_and_a_penalty_ends_all() -> None:
    # P1 played its Wild although it held R1: once it plays R1 the red hint is gone.
    g = wild_game(["R1", "G2", "G3", "B6", "Y3"], [], p0=["G1", "G+2", "B2", "Y4", "Y5"])
    g.apply("play G1")
    g.apply("play R1")
    hints = play_hints(json_view(g, 0))
    assert hints.lacks == {}
    assert hints.named == {1: (GREEN, 1)}
    assert hints.played == {1: [Card("W"), Card("R1")]}
    # A penalty brings P1 cards nobody saw.
    g = wild_game(["G1", "G2", "G3", "B6", "Y3"], [], p0=["G+2", "B2", "Y4", "Y5"])
    g.apply("play G+2")
    assert (g.phase, g.to_act) == ("stack_or_absorb", 1)
    g.apply("draw")  # P1 takes the 2 cards (CL-6)
    assert g.to_act == 0
    hints = play_hints(json_view(g, 0))
    assert hints.lacks == {} and hints.named == {}


def _deals(priors: str, seed: int, count: int = 400) -> list[Game]:
    g = wild_game(["G1", "G2", "G3", "B6", "Y3"], [])
    sample = search_sampler(json_view(g, 0), priors)
    rng = random.Random(seed)
    return [sample(rng) for _ in range(count)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_deals_keep_the_covered_colour_out_of_the_wild_players_hand(seed: int) -> None:
    def red_share(deals: list[Game]) -> float:
        return sum(any(c.colour is RED for c in d.hands[1]) for d in deals) / len(deals)

    uniform = red_share(_deals("none", seed))
    assert uniform > 0.6  # five unseen cards out of 101, 23 of them red
    for priors in ("wilds", "ranks", "named", "choices"):
        # Only the deals outside the prior (1 - KEEPS_WILDS of them) may hold red.
        assert red_share(_deals(priors, seed)) < (1 - KEEPS_WILDS) * uniform + 0.08


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_deals_keep_the_unmatched_rank_out_of_the_wild_players_hand(seed: int) -> None:
    def five_share(deals: list[Game]) -> float:
        return sum(any(c.number == 5 for c in d.hands[1]) for d in deals) / len(deals)

    uniform = five_share(_deals("wilds", seed))
    assert uniform > 0.2  # 7 unseen 5s among 101 cards
    for priors in ("ranks", "named", "choices"):
        # Outside the prior only, and when PRIOR_TRIES deals in a row hold a 5 (rarely).
        assert five_share(_deals(priors, seed)) < (1 - KEEPS_WILDS) * uniform + 0.04


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_deals_make_the_named_colour_the_most_held(seed: int) -> None:
    def named_share(deals: list[Game]) -> float:
        most = 0
        for d in deals:
            counts = colour_counts(d.hands[1])
            most += counts[GREEN] >= max(counts.values())
        return most / len(deals)

    without, tilted = named_share(_deals("wilds", seed)), named_share(_deals("named", seed))
    # A soft prior (NAMED_DOUBT): about 45% of deals agree without it, about 59% with it.
    assert tilted > without + 0.08
    assert tilted > 0.52


def test_no_mercy_deals_use_no_play_priors() -> None:
    # No Mercy wilds have other uses (stacks, Roulette): its deals are the view's alone.
    checked = 0
    for seed in range(8, 20):
        g = new_game(2, seed=seed)
        bots = [make_bot("heuristic", seed=s) for s in range(2)]
        while not g.is_over and checked < 30:
            seat = g.to_act
            assert seat is not None
            view = json_view(g, seat)
            a, b = search_sampler(view, "choices"), search_sampler(view, "none")
            assert a(random.Random(4)).to_position() == b(random.Random(4)).to_position()
            checked += 1
            g.apply(next_action(g, bots))
    assert checked == 30


def test_search_sampler_rejects_unknown_priors() -> None:
    g = wild_game(["G1"], [])
    with pytest.raises(
        ValueError, match="priors must be one of none, wilds, ranks, named, choices"
    ):
        search_sampler(json_view(g, 0), "some")
    with pytest.raises(
        ValueError, match="priors must be one of none, wilds, ranks, named, choices"
    ):
        make_bot("ismcts", seed=1, priors="some")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_deals_weigh_a_colour_change_against_the_old_colour(seed: int) -> None:
    # On a red 5 P1 plays G5 although any red card would have done: each red card it held
    # would have made that choice less likely (one in as many playable cards).
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [
                {"hand": ["R8", "G8", "B2", "Y4", "Y5"]},
                {"hand": ["G5", "G1", "B6", "Y3", "B3"]},
            ],
            "turn": 1,
            "discard": ["R5"],
            "draw_pile": ["Y1", "Y2", "B1", "B8", "G6", "R6", "R2", "R3", "R4"],
        }
    )
    g.apply("play G5")
    view = json_view(g, 0)
    assert play_hints(view).choices == {1: [Choice(RED, 5, 0)]}

    def red_share(priors: str) -> float:
        sample = search_sampler(view, priors)
        rng = random.Random(seed)
        deals = [sample(rng) for _ in range(400)]
        return sum(any(c.colour is RED for c in d.hands[1]) for d in deals) / 400

    uniform, weighed = red_share("named"), red_share("choices")
    assert uniform > 0.55  # four unseen cards out of 101, 23 of them red
    assert weighed < uniform - 0.07
