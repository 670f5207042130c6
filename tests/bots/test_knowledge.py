"""What a seat infers from its view: unseen cards and the colours opponents lack."""

from __future__ import annotations

from collections import Counter

from botkit import json_view

from nomercy import Card, Game, new_game
from nomercy.bots import read_view
from nomercy.bots.determinize import redealer_for
from nomercy.bots.knowledge import view_gaps
from nomercy.core.cards import Colour
from nomercy.core.legality import is_playable


def test_unseen_is_the_deck_minus_what_the_seat_has_seen() -> None:
    g = new_game(4, seed=5)
    seat = g.to_act
    assert seat is not None
    k = read_view(json_view(g, seat))
    hidden: Counter[Card] = Counter(g.draw_pile)
    for s, hand in enumerate(g.hands):
        if s != seat:
            hidden.update(hand)
    assert k.unseen == hidden


def lacking_game() -> Game:
    """P1 draws on a red top and shows it holds no red and no wild (NM-9); P2 plays Y9."""
    g = Game.from_position(
        {
            "players": [
                {"hand": ["R8", "B2", "Y+2", "Y7", "Y0", "G7"]},
                {"hand": ["G1", "G2", "G3", "B6"]},
                {"hand": ["Y5", "Y9", "Y7", "Y8"]},
            ],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["B1", "B9", "G4", "G5", "Y1", "Y2", "G9", "R9"],
        }
    )
    g.apply("play R8")
    g.apply("draw")  # P1: Y1, Y2, G9, then R9, which it must play
    g.apply("play R9")
    g.apply("play Y9")
    assert g.to_act == 0
    return g


def test_nm9_a_draw_shows_the_active_colour_and_wilds_are_missing() -> None:
    k = read_view(json_view(lacking_game(), 0))
    assert k.lacks[1] == {Colour.RED} and k.lacks_wild == {1}
    assert k.lacks[0] == set() and k.lacks[2] == set()
    assert k.colour is Colour.YELLOW


def test_nm17_an_absorbed_penalty_ends_the_gap() -> None:
    g = lacking_game()
    g.apply("play Y+2")
    g.apply("draw")  # P1 absorbs two cards nobody saw
    assert read_view(json_view(g, 0)).lacks[1] == set()


def test_nm31_the_gap_moves_with_the_hand_in_a_swap() -> None:
    g = lacking_game()
    g.apply("play Y7 1")
    k = read_view(json_view(g, 2))
    assert k.lacks[0] == {Colour.RED} and k.lacks[1] == set()
    assert k.lacks_wild == {0}


def test_nm29_the_gap_moves_with_the_hand_in_a_zero_pass() -> None:
    g = lacking_game()
    g.apply("play Y0")  # clockwise: P1's hand goes to P2
    k = read_view(json_view(g, 0))
    assert k.lacks[2] == {Colour.RED} and k.lacks[1] == set()


def test_a_view_without_a_voluntary_draw_rule_infers_nothing() -> None:
    g = Game.from_position(
        {
            "rules": {"preset": "no-mercy", "options": {"voluntary_draw": "draw_one_may_pass"}},
            "players": [{"hand": ["R8", "B2"]}, {"hand": ["R1", "G2"]}],
            "turn": 1,
            "discard": ["R5"],
            "draw_pile": ["G1", "G3"],
        }
    )
    g.apply("draw")  # P1 could have played R1: the draw says nothing about red
    assert read_view(json_view(g, 0)).lacks[1] == set()


def classic_draw_game(pile: list[str]) -> Game:
    """Classic heads-up: P0 plays R8 and P1, on a red top, draws B9 and cannot play it."""
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["R8", "G8", "B2"]}, {"hand": ["G1", "B6", "Y3"]}],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["B9", *pile],
        }
    )
    g.apply("play R8")
    g.apply("draw")  # B9: not playable, the turn passes (CL-5)
    assert g.to_act == 0 and g.phase == "play"
    return g


def test_cl5_a_classic_draw_is_read_as_forced() -> None:
    # CL-5 allows a voluntary draw, but the search reads a turn's draw as forced: P1 held no
    # red and no wild, and the card it drew and kept was not playable either.
    view = json_view(classic_draw_game(["G4"]), 0)
    gaps = view_gaps(view)
    assert gaps.lacks[1] == {Colour.RED} and gaps.no_wild == {1}
    # The heuristic reads the core's gaps, which take no classic draw as forced.
    assert read_view(view).lacks[1] == set()


def test_cl5_a_drawn_card_that_stays_ends_the_older_gaps() -> None:
    # P1 draws R1 on green and keeps it: only the new gap holds (the kept card is red).
    g = classic_draw_game(["R1"])
    g.apply("play G8")
    g.apply("draw")
    assert g.to_act == 0 and Card("R1") in g.hands[1]
    assert view_gaps(json_view(g, 0)).lacks[1] == {Colour.GREEN}


def test_cl5_a_drawn_card_played_at_once_keeps_the_gaps() -> None:
    # P1 draws G4 on green and plays it: its hand is what it was, with no red and no green.
    g = classic_draw_game(["G4"])
    g.apply("play G8")
    g.apply("draw")
    g.apply("play G4")
    assert g.to_act == 0
    assert view_gaps(json_view(g, 0)).lacks[1] == {Colour.RED, Colour.GREEN}


def test_cl5_a_playable_drawn_card_still_to_decide_stands_apart_from_the_gap() -> None:
    # The gaps describe P1's hand apart from the card it drew; the deals give it that card
    # apart too, as the first unseen card it may play (core.redeal.Redealer).
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["R8", "B2", "G7"]}, {"hand": ["G1", "B6", "Y3"]}],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["R1", "G4", "Y2", "B9"],
        }
    )
    g.apply("play R8")
    g.apply("draw")  # R1: playable, P1 decides whether to play it (CL-5)
    assert g.to_act == 1 and g.phase == "play_drawn"
    gaps = view_gaps(json_view(g, 0))
    assert gaps.lacks[1] == {Colour.RED} and gaps.no_wild == {1}
    redealer = redealer_for(json_view(g, 0))
    for seed in range(20):
        deal = redealer.sample(seed)
        assert deal.drawn is not None and deal.drawn in deal.hands[1]
        assert is_playable(deal, deal.drawn)
        assert not any(c.colour is Colour.RED for c in deal.hands[1] if c is not deal.drawn)
    g.apply("play R1")  # played at once: P1's hand is what it was, without red
    assert view_gaps(json_view(g, 0)).lacks[1] == {Colour.RED}
