"""A move's consequences and the reason drawing is refused, from a seat's view only."""

from __future__ import annotations

import doctest
from typing import Any

from nomercy import Card, Game, PlayerView
from nomercy.core.actions import parse_action
from nomercy.tables import advice
from nomercy.tables.advice import advice_for, consequences, draw_refusal


def view_of(position: dict[str, Any], seat: int = 0) -> tuple[Game, PlayerView]:
    game = Game.from_position(position)
    return game, game.view(seat)


def texts(notation: str, view: PlayerView) -> list[str]:
    return [a.text for a in consequences(parse_action(notation, view.seat), view)]


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(advice).failed == 0


def test_nm24_two_players_wild_reverse_four_targets_its_player() -> None:
    _, view = view_of(
        {
            "players": [{"hand": ["WR+4", "W+6", "R1"]}, {"hand": ["Y1"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    (warning,) = texts("play WR+4 R", view)  # a +6 left to stack: no knock-out warning
    assert warning == "you become the target of its 4-card penalty unless you stack again [NM-24]"


def test_a28_opponent_option_gives_no_self_target_warning() -> None:
    _, view = view_of(
        {
            "players": [{"hand": ["WR+4", "R1"]}, {"hand": ["Y1", "Y2"]}],
            "turn": 0,
            "discard": ["R3", "R+2"],
            "pending": {"total": 2, "last": 2},
            "rules": {"preset": "no-mercy", "options": {"wrd4_two_player_in_stack": "opponent"}},
        }
    )
    assert texts("play WR+4 R", view) == []


def test_nm24_three_players_names_who_the_reversed_penalty_hits() -> None:
    _, view = view_of(
        {
            "players": [{"hand": ["WR+4", "R1"]}, {"hand": ["Y1", "Y2"]}, {"hand": ["B1"]}],
            "turn": 0,
            "discard": ["R3", "R+2"],
            "pending": {"total": 2, "last": 2},
        }
    )
    assert texts("play WR+4 G", view) == [
        "play reverses: P2 (before you) becomes the target of 6 [NM-24]"
    ]


def test_a29_a_knocked_out_seat_leaves_two_players_and_the_engine_aims_at_its_player() -> None:
    # Three seats, one knocked out (NM-33): the two-player rules apply (A29 "active"), so the
    # engine aims an opening Wild Reverse +4 at its own player; with A29 "initial" it does
    # not, and the target is the one other seat, both before and after: nothing to warn of.
    players = [{"hand": ["WR+4", "R1"]}, {"hand": ["Y1", "Y2"]}, {"hand": [], "out": True}]
    position: dict[str, Any] = {"players": players, "turn": 0, "discard": ["R3"]}
    _, view = view_of(position)
    assert texts("play WR+4 G", view) == [
        "you become the target of its 4-card penalty unless you stack again [NM-24]"
    ]
    position["rules"] = {"preset": "no-mercy", "options": {"two_player_basis": "initial"}}
    _, view = view_of(position)
    assert view.penalty_target(Card("WR+4")) == 1
    assert texts("play WR+4 G", view) == []


def test_nm29_zero_pass_and_nm27_discard_all() -> None:
    _, view = view_of(
        {
            "players": [
                {"hand": ["R0", "RDA", "R3", "R4", "G1"]},
                {"hand": ["Y1", "Y2"]},
                {"hand": ["B1", "B2", "B3", "B4", "B5", "B6"]},
            ],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    assert texts("play R0", view) == ["this 0 passes every hand on: you get P2's 6 cards [NM-29]"]
    assert texts("play RDA", view) == [
        "you also discard your 3 other red cards; their effects do not apply [NM-27]"
    ]
    assert texts("play R3", view) == []


def test_nm33_drawing_at_24_cards_knocks_out() -> None:
    hand = [f"B{n}" for n in range(1, 10)] * 2 + ["G1", "G2", "G3", "G4", "G5", "G6"]
    _, view = view_of(
        {"players": [{"hand": hand}, {"hand": ["Y1", "Y2"]}], "turn": 0, "discard": ["R5"]}
    )
    assert len(hand) == 24
    assert texts("draw", view) == [
        "one more card reaches the 25-card Mercy limit: drawing knocks you out [NM-33]"
    ]


def test_the_last_card_has_no_consequences_and_classic_has_no_mercy() -> None:
    _, view = view_of(
        {"players": [{"hand": ["WR+4"]}, {"hand": ["Y1", "Y2"]}], "turn": 0, "discard": ["R5"]}
    )
    assert texts("play WR+4 R", view) == []
    game, view = view_of(
        {
            "rules": "classic",
            "players": [{"hand": [f"B{n}" for n in range(1, 10)] * 2}, {"hand": ["Y1", "Y2"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    assert game.rules.preset == "classic"
    assert advice_for(game.legal_actions(0), view) == {}


def test_draw_refusal_names_the_rule() -> None:
    game, view = view_of(
        {"players": [{"hand": ["R1", "G2"]}, {"hand": ["Y1", "Y2"]}], "turn": 0, "discard": ["R5"]}
    )
    refusal = draw_refusal(view, game.legal_actions(0))
    assert refusal is not None and refusal.kind == "must_play"
    assert refusal.rules == ("NM-8", "A03")
    _, other = view_of(
        {"players": [{"hand": ["R1", "G2"]}, {"hand": ["Y1", "Y2"]}], "turn": 1, "discard": ["R5"]}
    )
    refusal = draw_refusal(other, game.legal_actions(0)[:1])
    assert refusal is not None and refusal.text == "it is P1's turn, not yours"
    assert draw_refusal(view, [parse_action("draw", 0)]) is None


def test_nm29_a_zero_that_brings_one_card_says_card_not_cards() -> None:
    _, view = view_of(
        {
            "players": [{"hand": ["R0", "G1"]}, {"hand": ["Y1", "Y2"]}, {"hand": ["B1"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    assert texts("play R0", view) == ["this 0 passes every hand on: you get P2's only card [NM-29]"]


def _classic_wild_four_on(seed: int) -> tuple[Game, int]:
    """A classic game played by first legal actions until a Wild +4 waits for an answer."""
    from nomercy import new_game

    game = new_game(2, rules="classic", seed=seed)
    while not game.view(game.to_act).wd4_challengeable:
        game.apply(str(game.legal_actions(game.to_act)[0]))
    return game, game.to_act


def test_cl8_a_challenge_warns_that_failing_costs_two_more() -> None:
    game, seat = _classic_wild_four_on(30)
    view = game.view(seat)
    assert view.pending is not None and view.pending.total == 4
    (warning,) = consequences(parse_action("challenge", seat), view)
    assert warning.kind == "challenge_fails"
    assert warning.text == "if the challenge fails you draw 6 cards instead of 4 [CL-8]"
    assert warning.data == {"cost": 6, "total": 4}
    # Taking the 4 has no consequence to warn about in classic (no Mercy limit).
    assert texts("draw", view) == []
