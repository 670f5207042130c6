"""The four readings docs/RULES.md §3.1 states (R1-R4), pinned on rigged positions."""

from __future__ import annotations

from typing import Any

from nomercy import Game, new_game


def game(position: dict[str, Any], **options: Any) -> Game:
    return Game.from_position({**position, "rules": {"preset": "no-mercy", "options": options}})


def legal(g: Game) -> list[str]:
    assert g.to_act is not None
    return [str(a) for a in g.legal_actions(g.to_act)]


def test_r1_a16_ex29_a_last_seven_with_resolve_effects_wins_for_nobody() -> None:
    g = game(
        {
            "players": [{"hand": ["R7"]}, {"hand": ["Y1", "Y2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R1"],
        },
        last_card_effect="resolve_effects",
    )
    g.apply("play R7 1")
    # P0 took P1's two cards; P1 holds P0's empty hand and has not won; play goes on with P1.
    assert [len(h) for h in g.hands] == [2, 0, 3]
    assert not g.is_over and g.winner is None
    assert g.to_act == 1
    assert legal(g) == ["draw"]  # no card: P1 draws (NM-9)


def test_r2_a34_wild_draw_restriction_does_not_restrict_a_stack_answer() -> None:
    hand = {"players": [{"hand": ["W+6", "R3", "B9"]}, {"hand": ["Y1", "Y2"]}], "turn": 0}
    opening = game({**hand, "discard": ["R5"]}, wild_draw_restriction=True)
    assert legal(opening) == ["play R3"]  # holding red: the Wild +6 may not open
    stack = game(
        {**hand, "discard": ["R5", "R+2"], "pending": {"total": 2, "last": 2}},
        wild_draw_restriction=True,
    )
    assert "play W+6 R" in legal(stack)  # but it answers the +2 all the same (NM-18)


def test_r3_cl3_classic_without_start_effects_flips_until_a_number() -> None:
    rules = {"preset": "classic", "options": {"start_card_effects": False}}
    g = new_game(3, rules=rules, seed=2)
    texts = [e.text for e in g.opening_events]
    assert (
        "green +2 is not a number card: its effect is ignored and the next card is flipped "
        "on top [NM-4]" in texts
    )
    assert g.discard[-1].code == "Y4" and g.colour is not None and g.colour.value == "Y"
    assert g.view(g.to_act).pending is None  # the buried +2 made nobody draw


def test_r4_a07_skip_and_reverse_deflect_but_skip_everyone_does_not() -> None:
    g = game(
        {
            "players": [{"hand": ["RSE", "RS", "RR", "B9"]}, {"hand": ["Y1"]}, {"hand": ["G1"]}],
            "turn": 0,
            "discard": ["R5", "R+2"],
            "pending": {"total": 2, "last": 2},
        },
        stack_deflection="skip_reverse_deflect",
    )
    assert legal(g) == ["play RS", "play RR", "draw"]


def test_r4_a07_a_skip_passes_the_penalty_on_and_a_reverse_sends_it_back() -> None:
    position = {
        "players": [
            {"hand": ["RS", "RR", "B9"]},
            {"hand": ["Y1"]},
            {"hand": ["G1"]},
            {"hand": ["G2"]},
        ],
        "turn": 0,
        "discard": ["R5", "R+2"],
        "pending": {"total": 2, "last": 2},
    }
    for card, target in (("RS", 1), ("RR", 3)):
        g = game(position, stack_deflection="skip_reverse_deflect")
        g.apply(f"play {card}")
        assert g.to_act == target
        assert g.view(target).pending.total == 2  # type: ignore[union-attr]
