"""Classic UNO (RULES.md §5): the worked examples CX-01…CX-08, CL-* rules and C* options.

Every scenario is an exact position built with ``Game.from_position`` and driven by notation.
Seats are numbered clockwise; draw piles are listed top first.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

import nomercy
from nomercy import Game, IllegalActionError, Kind, Phase
from nomercy.core.base import Wd4
from nomercy.core.legality import wd4_played


def classic(
    hands: list[list[str]],
    *,
    discard: list[str],
    draw_pile: list[str] | None = None,
    turn: int = 0,
    options: dict[str, Any] | None = None,
    **extra: Any,
) -> Game:
    """A classic position; unlisted deck cards go under the listed draw pile."""
    position: dict[str, Any] = {
        "rules": {"preset": "classic", "options": options or {}},
        "players": [{"name": f"P{i}", "hand": hand} for i, hand in enumerate(hands)],
        "turn": turn,
        "discard": discard,
        "draw_pile": draw_pile or [],
        **extra,
    }
    return Game.from_position(position)


def sizes(g: Game) -> list[int]:
    return [len(h) for h in g.hands]


def codes(cards: list[nomercy.Card]) -> list[str]:
    return [c.code for c in cards]


def legal(g: Game, seat: int | None = None) -> set[str]:
    return {str(a) for a in g.legal_actions(seat)}


def assert_illegal(g: Game, action: str, rule: str | None = None) -> None:
    before = g.to_position()
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    if rule is not None:
        assert info.value.rule == rule, str(info.value)
    assert not g.is_legal(action)
    assert g.to_position() == before


# ---------------------------------------------------------------------------------- CX-01


def test_cx01a_wd4_legal_holding_same_number_other_colour() -> None:
    # Top red 5, active red; {blue 5, green 2, WD4}: no red card, so the WD4 is honest (CL-4).
    g = classic([["B5", "G2", "W+4"], ["Y1", "Y2"], ["G7", "G8"]], discard=["R5"])
    assert "play W+4 B" in legal(g)
    g.apply("play W+4 B")
    assert g.phase is Phase.STACK_OR_ABSORB
    assert g.to_act == 1
    assert legal(g) == {"draw", "challenge"}
    assert g.view(1).wd4_challengeable is True


def test_cx01a_wd4_legal_even_with_restriction_enforced_without_challenge() -> None:
    # §6.2: with wd4_challenge off the restriction is checked at play time; no red here.
    g = classic(
        [["B5", "G2", "W+4"], ["Y1", "Y2"], ["G7", "G8"]],
        discard=["R5"],
        options={"wd4_challenge": False},
    )
    assert "play W+4 B" in legal(g)
    g.apply("play W+4 B")
    assert legal(g) == {"draw"}


def test_cx01b_wd4_bluff_is_a_legal_action() -> None:
    # {red 1, WD4} on red 5: the WD4 is a bluff, offered as a legal action (CL-4).
    g = classic([["R1", "W+4"], ["Y1", "Y2"], ["G7", "G8"]], discard=["R5"])
    assert {"play R1", "play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"} <= legal(g)
    g.apply("play W+4 G")
    assert "challenge" in legal(g)


def test_cx01b_wd4_bluff_caught_by_challenge() -> None:
    g = classic(
        [["R1", "W+4", "B3"], ["Y1", "Y2"], ["G7", "G8"]],
        discard=["R5"],
        draw_pile=["Y5", "Y6", "Y7", "Y8", "Y9", "B9"],
    )
    g.apply("play W+4 G")
    events = g.apply("challenge")
    assert any(e.kind == "challenge" and "succeeds" in e.text for e in events)
    assert sizes(g) == [6, 2, 2]
    assert codes(g.hands[0])[-4:] == ["Y5", "Y6", "Y7", "Y8"]


def test_cx01b_wd4_bluff_illegal_when_challenge_off() -> None:
    # §6.2: without the challenge, a WD4 is legal only without a card of the active colour.
    g = classic(
        [["R1", "W+4"], ["Y1", "Y2"], ["G7", "G8"]],
        discard=["R5"],
        options={"wd4_challenge": False},
    )
    assert not any(a.startswith("play W+4") for a in legal(g))
    assert_illegal(g, "play W+4 G", "CL-4")


def test_c02_wd4_restriction_tests_the_named_colour_not_the_wild() -> None:
    # C02: after a Wild naming blue, the active colour is blue: holding red does not matter.
    g = classic(
        [["R1", "W+4", "Y3"], ["Y1", "Y2"], ["G7", "G8"]],
        discard=["W"],
        colour="B",
        options={"wd4_challenge": False},
    )
    assert "play W+4 G" in legal(g)
    g2 = classic(
        [["B1", "W+4", "Y3"], ["Y1", "Y2"], ["G7", "G8"]],
        discard=["W"],
        colour="B",
        options={"wd4_challenge": False},
    )
    assert "play W+4 G" not in legal(g2)


# ---------------------------------------------------------------------------------- CX-02


def _cx02(p0: list[str], **options: Any) -> Game:
    g = classic(
        [p0, ["Y1", "Y2", "G3"], ["G7", "G8", "Y9"]],
        discard=["R5"],
        draw_pile=["Y5", "Y6", "Y7", "Y8", "G4", "G6", "B1", "B2"],
        options=options,
    )
    g.apply("play W+4 B")
    assert g.to_act == 1
    return g


def test_cx02a_guilty_wd4_challenger_draws_nothing() -> None:
    g = _cx02(["W+4", "R1", "G9"])
    p1_before = codes(g.hands[1])
    g.apply("challenge")
    # P0 held red (the colour active before the WD4): P0 draws 4, P1 draws 0 (CL-8).
    assert sizes(g) == [6, 3, 3]
    assert codes(g.hands[0]) == ["R1", "G9", "Y5", "Y6", "Y7", "Y8"]
    assert codes(g.hands[1]) == p1_before
    # C01 default: P1 takes a normal turn on blue, the colour the WD4 named.
    assert g.to_act == 1
    assert g.phase is Phase.PLAY
    assert g.pending is None
    assert g.colour is nomercy.Colour.BLUE
    assert g.top.code == "W+4"


def test_cx02a_challenger_sees_the_challenged_hand() -> None:
    g = _cx02(["W+4", "R1", "G9"])
    g.apply("challenge")
    # CL-8: the challenged player shows their hand to the challenger (only).
    assert sorted(c.code for c in g.view(1).known[0]) == ["G9", "R1"]
    assert 0 not in g.view(2).known


def test_cx02b_innocent_wd4_challenger_draws_six_and_loses_turn() -> None:
    g = _cx02(["W+4", "G1", "G9"])
    g.apply("challenge")
    assert sizes(g) == [2, 9, 3]
    assert codes(g.hands[1])[3:] == ["Y5", "Y6", "Y7", "Y8", "G4", "G6"]
    assert g.to_act == 2
    assert g.phase is Phase.PLAY
    assert g.pending is None
    assert g.colour is nomercy.Colour.BLUE


def test_cl08_a_wild_in_hand_is_no_card_of_the_active_colour() -> None:
    # CL-8: only a card of the active colour (red here) makes the Wild +4 guilty; a wild has
    # no colour, so a second Wild +4 and a Wild in hand leave the play honest.
    g = _cx02(["W+4", "W+4", "W", "G9"])
    assert g.wd4 is not None and g.wd4.guilty is False
    g.apply("challenge")
    assert sizes(g) == [3, 9, 3]
    assert g.to_act == 2


def test_cl08_one_reading_of_the_guilt() -> None:
    # The play and a re-deal both record the guilt through legality.wd4_played: no active
    # colour (none to hold) is never guilty, a wild never counts as the colour.
    g = classic([["W+4", "W", "R1"], ["Y1"], ["G7"]], discard=["R5"], draw_pile=["B1", "B2"])
    assert wd4_played(g, 0, nomercy.Colour.RED).guilty is True
    assert wd4_played(g, 0, nomercy.Colour.BLUE).guilty is False
    assert wd4_played(g, 0, None) == Wd4(0, False, None)


def test_cx02_accepting_the_wd4_draws_four_and_skips() -> None:
    g = _cx02(["W+4", "R1", "G9"])
    g.apply("draw")
    assert sizes(g) == [2, 7, 3]
    assert g.to_act == 2
    assert g.pending is None


def test_cl08_only_the_victim_may_challenge_and_only_before_drawing() -> None:
    g = _cx02(["W+4", "R1", "G9"])
    assert_illegal(g, "2:challenge")
    assert "challenge" not in legal(g, 2)
    g.apply("draw")
    assert_illegal(g, "challenge", "CL-8")
    assert_illegal(g, "1:challenge")


def test_cl08_no_challenge_on_draw_two() -> None:
    g = classic([["R+2", "R1", "B1"], ["Y1", "Y2"], ["G7", "G8"]], discard=["R5"])
    g.apply("play R+2")
    assert legal(g) == {"draw"}
    assert_illegal(g, "challenge", "CL-8")


def test_c01_challenger_skipped_option() -> None:
    g = _cx02(["W+4", "R1", "G9"], challenge_success_turn="challenger_skipped")
    g.apply("challenge")
    assert sizes(g) == [6, 3, 3]
    assert g.to_act == 2
    assert g.colour is nomercy.Colour.BLUE


def test_c02_challenge_guilt_tests_the_colour_a_wild_named() -> None:
    # Top Wild naming blue: P0 holds red but no blue, so the WD4 is honest (C02, CL-8).
    g = classic(
        [["W+4", "R1", "R2"], ["Y1", "Y2", "G3"], ["G7", "G8"]],
        discard=["W"],
        colour="B",
        draw_pile=["Y5", "Y6", "Y7", "Y8", "G4", "G6"],
    )
    g.apply("play W+4 G")
    g.apply("challenge")
    assert sizes(g) == [2, 9, 2]
    assert g.to_act == 2


def test_cl12_two_player_failed_challenge_returns_to_player() -> None:
    g = classic(
        [["W+4", "G1", "G9"], ["Y1", "Y2"]],
        discard=["R5"],
        draw_pile=["Y5", "Y6", "Y7", "Y8", "G4", "G6"],
    )
    g.apply("play W+4 B")
    g.apply("challenge")
    assert sizes(g) == [2, 8]
    assert g.to_act == 0


def test_cl12_two_player_successful_challenge_challenger_plays() -> None:
    g = classic(
        [["W+4", "R1", "G9"], ["Y1", "Y2"]],
        discard=["R5"],
        draw_pile=["Y5", "Y6", "Y7", "Y8", "G4", "G6"],
    )
    g.apply("play W+4 B")
    g.apply("challenge")
    assert sizes(g) == [6, 2]
    assert g.to_act == 1


def test_cl06_wild_may_name_the_current_colour() -> None:
    g = classic([["W", "R1", "G9"], ["Y1", "Y2"], ["G7"]], discard=["R5"])
    assert {"play W R", "play W Y", "play W G", "play W B"} <= legal(g)
    assert_illegal(g, "play W", "NM-14")
    g.apply("play W R")
    assert g.colour is nomercy.Colour.RED
    assert g.to_act == 1


def test_cl10_last_card_penalty_cannot_be_stacked_even_with_house_stacking() -> None:
    g = classic(
        [["R+2"], ["B+2", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "W", "B1", "B2"],
        options={"classic_stacking": True},
    )
    g.apply("play R+2")
    assert g.is_over
    assert codes(g.hands[1]) == ["B+2", "B9", "G3", "W"]
    assert g.scores[0] == (20 + 9 + 3 + 50) + (20 + 4)


# ---------------------------------------------------------------------------------- CX-03


def _find_start(kind: Kind, players: int = 4, **options: Any) -> Game:
    for seed in range(3000):
        g = nomercy.new_game(players, rules="classic", seed=seed, options=options or None)
        if g.top.kind is kind:
            return g
    raise AssertionError(f"no seed below 3000 starts with {kind}")


def test_cx03_number_start_card_no_effect() -> None:
    g = _find_start(Kind.NUMBER)
    d = g.dealer
    assert g.to_act == (d + 1) % 4
    assert g.direction == 1
    assert sizes(g) == [7, 7, 7, 7]
    assert len(g.discard) == 1


def test_cx03_draw_two_start_card() -> None:
    g = _find_start(Kind.DRAW_TWO)
    d = g.dealer
    first = (d + 1) % 4
    # Seat left of the dealer draws 2 (hand 9) and is skipped; the next seat plays, clockwise.
    assert len(g.hands[first]) == 9
    assert sum(sizes(g)) == 30
    assert g.to_act == (d + 2) % 4
    assert g.direction == 1
    assert g.phase is Phase.PLAY
    assert g.pending is None
    assert len(g.discard) == 1


def test_cx03_reverse_start_card() -> None:
    g = _find_start(Kind.REVERSE)
    d = g.dealer
    assert g.to_act == d
    assert g.direction == -1
    assert g.next_seat(d) == (d - 1) % 4
    assert sizes(g) == [7, 7, 7, 7]
    # After the dealer's play, the seat to the dealer's right acts.
    g.apply(next(a for a in g.legal_actions() if isinstance(a, nomercy.Draw)))
    if g.phase is Phase.PLAY_DRAWN:
        g.apply("pass")
    assert g.to_act == (d - 1) % 4


def test_cx03_skip_start_card() -> None:
    g = _find_start(Kind.SKIP)
    d = g.dealer
    assert g.to_act == (d + 2) % 4
    assert g.direction == 1
    assert sizes(g) == [7, 7, 7, 7]


def test_cx03_wild_start_card() -> None:
    g = _find_start(Kind.WILD)
    d = g.dealer
    first = (d + 1) % 4
    assert g.phase is Phase.CHOOSE_COLOUR
    assert g.to_act == first
    assert legal(g) == {"colour R", "colour Y", "colour G", "colour B"}
    assert_illegal(g, "draw")
    g.apply("colour G")
    assert g.colour is nomercy.Colour.GREEN
    assert g.phase is Phase.PLAY
    assert g.to_act == first
    assert sizes(g) == [7, 7, 7, 7]


def test_cx03_wild_draw_four_never_starts() -> None:
    returned = 0
    for seed in range(1500):
        g = nomercy.new_game(4, rules="classic", seed=seed)
        assert g.top.code != "W+4", seed
        assert len(g.discard) == 1
        assert sum(sizes(g)) + len(g.discard) + len(g.draw_pile) == 108
        texts = [e.text for e in g.opening_events if e.kind == "start_card"]
        if any("Wild +4" in t for t in texts):
            returned += 1
            back = [t for t in texts if "Wild +4" in t]
            assert all("back" in t and "CL-3" in t for t in back), back
            assert (
                g.draw_pile.count(nomercy.Card("W+4"))
                + sum(h.count(nomercy.Card("W+4")) for h in g.hands)
                == 4
            )
    assert returned > 0  # about 1 in 27 deals turn one up first


def test_c05_two_player_reverse_start_card_dealer_plays_first() -> None:
    g = _find_start(Kind.REVERSE, players=2)
    assert g.to_act == g.dealer


@pytest.mark.parametrize("kind", [Kind.DRAW_TWO, Kind.SKIP])
def test_cx03_two_player_draw_two_or_skip_start_card_dealer_plays_first(kind: Kind) -> None:
    g = _find_start(kind, players=2)
    d = g.dealer
    assert g.to_act == d
    assert len(g.hands[1 - d]) == (9 if kind is Kind.DRAW_TWO else 7)
    assert len(g.hands[d]) == 7


def test_cx03_start_card_effects_off() -> None:
    # CL-3 switched off: no start card has an effect (whatever it is or how it is handled).
    for seed in range(200):
        g = nomercy.new_game(4, rules="classic", seed=seed, options={"start_card_effects": False})
        assert g.to_act == (g.dealer + 1) % 4
        assert g.direction == 1
        assert g.phase is Phase.PLAY
        assert sizes(g) == [7, 7, 7, 7]


# ---------------------------------------------------------------------------------- CX-04/05


def _cx04(last: str) -> Game:
    return classic(
        [[last], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "W", "B1", "B2"],
    )


def test_cx04_last_card_draw_two_applied_and_scored() -> None:
    g = _cx04("R+2")
    events = g.apply("play R+2")
    assert codes(g.hands[1]) == ["Y5", "B9", "G3", "W"]
    assert codes(g.hands[2]) == ["GS", "Y4"]
    assert g.is_over
    assert g.winner == 0
    assert g.scores == [91, 0, 0]
    end = next(e for e in events if e.kind == "hand_end")
    assert end.data["points"] == 91


def test_cx04_last_card_wd4_applied_and_scored() -> None:
    g = classic(
        [["W+4"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "W", "B1", "B2", "B3"],
    )
    g.apply("play W+4")
    assert codes(g.hands[1]) == ["Y5", "B9", "G3", "W", "B1", "B2"]
    assert g.is_over
    assert g.scores[0] == (5 + 9 + 3 + 50 + 1 + 2) + (20 + 4)


@pytest.mark.parametrize("last", ["RS", "RR"])
def test_cx05_last_card_skip_or_reverse_does_nothing(last: str) -> None:
    g = _cx04(last)
    g.apply(f"play {last}")
    assert sizes(g) == [0, 2, 2]
    assert g.is_over
    assert g.winner == 0
    assert g.scores == [38, 0, 0]


# ---------------------------------------------------------------------------------- CX-06…08


def test_cx06_two_player_draw_two_returns_to_player() -> None:
    g = classic([["R+2", "R1", "G2"], ["Y5", "B9"]], discard=["R3"])
    g.apply("play R+2")
    assert g.to_act == 1
    g.apply("draw")
    assert sizes(g) == [2, 4]
    assert g.to_act == 0


def test_cl12_two_player_wd4_returns_to_player() -> None:
    g = classic([["W+4", "Y1", "G2"], ["Y5", "B9"]], discard=["R3"])
    g.apply("play W+4 G")
    g.apply("draw")
    assert sizes(g) == [2, 6]
    assert g.to_act == 0
    assert g.colour is nomercy.Colour.GREEN


def test_cx07_no_stacking() -> None:
    g = classic(
        [["R+2", "R1", "G2"], ["R+2", "Y5", "B9"], ["B+2", "Y4", "G9"]],
        discard=["R3"],
        draw_pile=["G3", "G4", "G5", "G6"],
    )
    g.apply("play R+2")
    assert g.to_act == 1
    # P1 cannot answer with a Draw Two (CL-7).
    assert legal(g) == {"draw"}
    assert_illegal(g, "play R+2", "CL-7")
    g.apply("draw")
    assert sizes(g) == [2, 5, 3]
    assert g.to_act == 2
    # P2's blue Draw Two on the absorbed red Draw Two is a symbol match, a new penalty of 2.
    assert "play B+2" in legal(g)
    g.apply("play B+2")
    assert g.pending is not None and g.pending.total == 2
    assert g.to_act == 0
    g.apply("draw")
    assert sizes(g) == [4, 5, 2]
    assert g.to_act == 1


def test_cl07_wd4_on_pending_draw_two_not_allowed() -> None:
    g = classic([["R+2", "R1"], ["W+4", "Y5"], ["G7"]], discard=["R3"])
    g.apply("play R+2")
    assert_illegal(g, "play W+4 B", "CL-7")


def test_c04_classic_stacking_makes_draw_two_on_pending_draw_two_legal() -> None:
    g = classic(
        [["R+2", "R1", "G2"], ["B+2", "Y5", "B9"], ["Y4", "G9"]],
        discard=["R3"],
        draw_pile=["G3", "G4", "G5", "G6", "G7"],
        options={"classic_stacking": True},
    )
    g.apply("play R+2")
    assert "play B+2" in legal(g)
    g.apply("play B+2")
    assert g.to_act == 2
    assert g.pending is not None and g.pending.total == 4
    g.apply("draw")
    assert sizes(g) == [2, 2, 6]
    assert g.to_act == 0


def test_cx08_two_player_reverse_plays_again() -> None:
    g = classic([["RR", "R1", "G2"], ["Y5", "B9"]], discard=["R3"])
    g.apply("play RR")
    assert g.to_act == 0
    assert sizes(g) == [2, 2]


def test_cl12_two_player_skip_plays_again() -> None:
    g = classic([["RS", "R1", "G2"], ["Y5", "B9"]], discard=["R3"])
    g.apply("play RS")
    assert g.to_act == 0
    assert sizes(g) == [2, 2]


def test_cl12_two_player_rules_off_reverse_passes_turn() -> None:
    g = classic(
        [["RR", "R1", "G2"], ["Y5", "B9"]], discard=["R3"], options={"two_player_rules": False}
    )
    g.apply("play RR")
    assert g.to_act == 1
    assert g.direction == -1


# ---------------------------------------------------------------------------------- CL-5/6


def test_cl06_reverse_with_three_players() -> None:
    g = classic([["RR", "R1"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"])
    g.apply("play RR")
    assert g.direction == -1
    assert g.to_act == 2


def test_cl06_skip_skipped_player_draws_nothing() -> None:
    g = classic([["RS", "R1"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"])
    g.apply("play RS")
    assert g.to_act == 2
    assert sizes(g) == [1, 2, 2]


def test_cl05_no_playable_card_draws_one_unplayable_turn_passes() -> None:
    g = classic([["G1", "Y2"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"], draw_pile=["B7", "R8"])
    assert legal(g) == {"draw"}
    g.apply("draw")
    assert codes(g.hands[0]) == ["G1", "Y2", "B7"]
    assert g.to_act == 1
    assert g.phase is Phase.PLAY


def test_cl05_drawn_playable_card_may_be_played() -> None:
    g = classic([["G1", "Y2"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"], draw_pile=["R7", "R8"])
    g.apply("draw")
    assert g.phase is Phase.PLAY_DRAWN
    assert g.to_act == 0
    assert legal(g) == {"play R7", "pass"}
    g.apply("play R7")
    assert g.top.code == "R7"
    assert g.to_act == 1


def test_c03_drawn_playable_card_may_be_kept() -> None:
    g = classic([["G1", "Y2"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"], draw_pile=["R7", "R8"])
    g.apply("draw")
    g.apply("pass")
    assert codes(g.hands[0]) == ["G1", "Y2", "R7"]
    assert g.to_act == 1
    assert g.top.code == "R3"


def test_c03_forced_drawn_card_play() -> None:
    g = classic(
        [["G1", "Y2"], ["Y5", "B9"], ["G4", "G9"]],
        discard=["R3"],
        draw_pile=["R7", "R8"],
        options={"classic_drawn_card_play": "forced"},
    )
    g.apply("draw")
    assert legal(g) == {"play R7"}
    assert_illegal(g, "pass")


def test_cl05_decline_playable_card_then_only_drawn_card_may_be_played() -> None:
    g = classic([["R1", "Y2"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"], draw_pile=["B3", "R8"])
    assert "draw" in legal(g)
    g.apply("draw")
    assert g.phase is Phase.PLAY_DRAWN
    assert legal(g) == {"play B3", "pass"}
    assert_illegal(g, "play R1")


def test_c04_draw_until_playable_house_rule() -> None:
    g = classic(
        [["G1", "Y2"], ["Y5", "B9"], ["G4", "G9"]],
        discard=["R3"],
        draw_pile=["B7", "Y8", "R8", "B1"],
        options={"classic_draw_until_playable": True},
    )
    g.apply("draw")
    assert codes(g.hands[0]) == ["G1", "Y2", "B7", "Y8", "R8"]
    assert g.phase is Phase.PLAY_DRAWN
    assert "play R8" in legal(g)


def test_cl11_empty_draw_pile_reshuffles_discard_except_top() -> None:
    g = classic(
        [["G1", "Y2"], ["Y5", "B9"], ["G4", "G9"]],
        discard=["B3", "Y3", "G3", "R3"],
        draw_pile=[],
        fill="none",
    )
    g.apply("draw")
    assert codes(g.discard) == ["R3"]
    assert len(g.hands[0]) == 3
    assert len(g.draw_pile) == 2
    assert sorted(codes(g.draw_pile) + codes(g.hands[0][2:])) == ["B3", "G3", "Y3"]


# ---------------------------------------------------------------------------------- CL-9 UNO


def test_cl09_uno_not_called_caught_draws_two() -> None:
    g = classic(
        [["R1", "R2"], ["Y5", "B9"], ["G4", "G9"]],
        discard=["R3"],
        draw_pile=["B1", "B2", "B4"],
    )
    g.apply("play R1")
    assert "2:catch 0" in legal(g, 2)
    assert "1:catch 0" in legal(g, 1)
    g.apply("2:catch 0")
    assert codes(g.hands[0]) == ["R2", "B1", "B2"]
    assert_illegal(g, "1:catch 0")


def test_cl09_uno_called_with_play_cannot_be_caught() -> None:
    g = classic([["R1", "R2"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"])
    assert "play R1 uno" in legal(g)
    g.apply("play R1 uno")
    assert "2:catch 0" not in legal(g, 2)
    assert_illegal(g, "2:catch 0", "NM-37")


def test_cl09_late_uno_call_before_catch() -> None:
    g = classic([["R1", "R2"], ["Y5", "B9"], ["G4", "G9"]], discard=["R3"])
    g.apply("play R1")
    g.apply("0:uno")
    assert_illegal(g, "2:catch 0")
    assert sizes(g) == [1, 2, 2]


def test_cl09_catch_window_closes_when_next_player_begins() -> None:
    g = classic(
        [["R1", "R2"], ["Y5", "B9"], ["G4", "G9"]],
        discard=["R3"],
        draw_pile=["B1", "B2", "B4"],
    )
    g.apply("play R1")
    g.apply("draw")  # P1 begins their turn
    assert_illegal(g, "2:catch 0", "NM-37")
    assert len(g.hands[0]) == 1


def test_cl09_uno_penalty_option() -> None:
    g = classic(
        [["R1", "R2"], ["Y5", "B9"], ["G4", "G9"]],
        discard=["R3"],
        draw_pile=["B1", "B2", "B4", "B5", "B6"],
        options={"uno_penalty_cards": 4},
    )
    g.apply("play R1")
    g.apply("1:catch 0")
    assert len(g.hands[0]) == 5


# ---------------------------------------------------------------------------------- CL-13


def test_cl13_winner_collects_and_match_to_500() -> None:
    g = classic(
        [["R+2"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "W", "B1", "B2"],
        scores=[450, 0, 0],
        options={"scoring_enabled": True},
    )
    events = g.apply("play R+2")
    assert g.is_over
    assert g.winner == 0
    assert g.scores == [541, 0, 0]
    assert any(e.kind == "match_end" for e in events)


def test_cl13_match_continues_below_target() -> None:
    g = classic(
        [["R+2"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "W", "B1", "B2"],
        options={"scoring_enabled": True},
    )
    g.apply("play R+2")
    assert not g.is_over
    assert g.scores == [91, 0, 0]
    assert g.view(0).hand_number == 2
    assert g.winner is None
    assert sum(sizes(g)) + len(g.discard) + len(g.draw_pile) == g.total_cards == 108


def test_c06_lowest_wins_scoring() -> None:
    # Each player adds their own card points; at the target the lowest total wins (CL-13).
    g = classic(
        [["R1"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        scores=[40, 480, 10],
        options={"scoring_enabled": True, "classic_scoring": "lowest_wins"},
    )
    g.apply("play R1")
    assert g.scores == [40, 494, 34]
    assert not g.is_over  # nobody has reached 500
    g2 = classic(
        [["R1"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        scores=[40, 490, 10],
        options={"scoring_enabled": True, "classic_scoring": "lowest_wins"},
    )
    g2.apply("play R1")
    assert g2.scores == [40, 504, 34]
    assert g2.is_over
    assert g2.winner == 2


# ---------------------------------------------------------------------------------- C08


def test_c08_default_winning_wd4_cannot_be_challenged() -> None:
    g = classic(
        [["W+4"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "G4", "G5", "G6", "G7"],
    )
    assert "play W+4" in legal(g)
    g.apply("play W+4")
    assert g.is_over
    assert g.winner == 0
    assert len(g.hands[1]) == 6
    assert g.scores[0] == (5 + 9 + 3 + 4 + 5 + 6) + (20 + 4)


def test_c08_challenge_on_winning_card_option_challenge_fails() -> None:
    g = classic(
        [["W+4"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "G4", "G5", "G6", "G1", "G2", "B1"],
        options={"challenge_on_winning_card": True},
    )
    g.apply("play W+4 B")
    assert not g.is_over
    assert g.to_act == 1
    assert "challenge" in legal(g)
    g.apply("challenge")
    # A lone WD4 is always honest: the challenger draws 6 and the round is scored.
    assert len(g.hands[1]) == 8
    assert g.is_over
    assert g.winner == 0
    assert g.scores[0] == (5 + 9 + 3 + 4 + 5 + 6 + 1 + 2) + (20 + 4)


def test_c08_challenge_on_winning_card_option_accept() -> None:
    g = classic(
        [["W+4"], ["Y5", "B9"], ["GS", "Y4"]],
        discard=["R3"],
        draw_pile=["G3", "G4", "G5", "G6", "G1", "G2", "B1"],
        options={"challenge_on_winning_card": True},
    )
    g.apply("play W+4 B")
    assert legal(g) == {"draw", "challenge"}
    g.apply("draw")
    assert len(g.hands[1]) == 6
    assert g.is_over
    assert g.winner == 0


# ---------------------------------------------------------------------------------- C04


def test_c04_seven_zero_off_by_default() -> None:
    g = classic([["R7", "G1"], ["Y5", "B9", "B1"], ["G4", "G9"]], discard=["R3"])
    assert "play R7" in legal(g)
    assert_illegal(g, "play R7 2")
    g.apply("play R7")
    assert sizes(g) == [1, 3, 2]


def test_c04_classic_seven_zero_seven_swaps() -> None:
    g = classic(
        [["R7", "G1"], ["Y5", "B9", "B1"], ["G4", "G9"]],
        discard=["R3"],
        options={"classic_seven_zero": True},
    )
    assert {"play R7 1", "play R7 2"} <= legal(g)
    assert "play R7" not in legal(g)
    g.apply("play R7 1")
    assert codes(g.hands[0]) == ["Y5", "B9", "B1"]
    assert codes(g.hands[1]) == ["G1"]
    assert g.to_act == 1


def test_c04_classic_seven_zero_zero_passes_hands() -> None:
    g = classic(
        [["R0", "G1"], ["Y5", "B9", "B1"], ["G4", "G9", "Y1", "Y2"]],
        discard=["R3"],
        options={"classic_seven_zero": True},
    )
    g.apply("play R0")
    # Clockwise: each hand goes to the next seat; P0 receives P2's hand.
    assert codes(g.hands[1]) == ["G1"]
    assert codes(g.hands[2]) == ["Y5", "B9", "B1"]
    assert codes(g.hands[0]) == ["G4", "G9", "Y1", "Y2"]
    assert g.to_act == 1


def test_c04_jump_in_off_by_default() -> None:
    g = classic([["G1", "G2"], ["Y5", "B9"], ["R5", "G9"]], discard=["R5"])
    assert "2:play R5" not in legal(g, 2)
    assert_illegal(g, "2:play R5", "NM-7")


def test_c04_classic_jump_in_identical_card() -> None:
    g = classic(
        [["G1", "G2"], ["Y5", "B9"], ["R5", "G9", "B5", "R6"]],
        discard=["R5"],
        options={"classic_jump_in": True},
    )
    assert "2:play R5" in legal(g, 2)
    assert "2:play B5" not in legal(g, 2)
    assert_illegal(g, "2:play B5", "C04")
    assert_illegal(g, "2:play R6", "C04")
    g.apply("2:play R5")
    assert codes(g.hands[2]) == ["G9", "B5", "R6"]
    assert g.top.code == "R5"
    # Play continues from the jumper: the next seat after P2 is P0.
    assert g.to_act == 0


def test_c04_jump_in_not_during_pending_penalty() -> None:
    g = classic(
        [["R+2", "G2"], ["Y5", "B9"], ["R+2", "G9"]],
        discard=["R3"],
        options={"classic_jump_in": True},
    )
    g.apply("play R+2")
    assert "2:play R+2" not in legal(g, 2)


# ---------------------------------------------------------------------------------- misc


@pytest.mark.parametrize(
    ("hand", "top", "colour", "playable"),
    [
        (["B5"], "R5", None, True),  # same number
        (["R9"], "R5", None, True),  # same colour
        (["G9"], "R5", None, False),
        (["BS"], "RS", None, True),  # same symbol
        (["B+2"], "R+2", None, True),
        (["W"], "R5", None, True),  # a Wild is always playable
        (["R1"], "W", "B", False),  # a Wild's named colour is the active one
        (["B1"], "W", "B", True),
    ],
)
def test_cl04_matching(hand: list[str], top: str, colour: str | None, playable: bool) -> None:
    extra = {"colour": colour} if colour else {}
    g = classic([[*hand, "Y7"], ["Y5"], ["G4"]], discard=[top], **extra)
    is_legal: Callable[[str], bool] = g.is_legal
    card = hand[0]
    plays = [a for a in legal(g) if a.split()[:2] == ["play", card]]
    assert bool(plays) is playable
    if not playable:
        assert not is_legal(f"play {card}")


def test_c04_classic_voluntary_draw_until_playable_option() -> None:
    """A03 values apply to classic too: a player with a playable card draws until playable."""
    g = Game.from_position(
        {
            "rules": {"preset": "classic", "options": {"voluntary_draw": "draw_until_playable"}},
            "players": [
                {"name": "P0", "hand": ["R1", "G2"]},
                {"name": "P1", "hand": ["B1", "B2"]},
            ],
            "turn": 0,
            "discard": ["R4"],
            "draw_pile": ["B5", "R7"],
        }
    )
    g.apply("draw")
    assert len(g.hands[0]) == 4 and g.drawn is not None and g.drawn.code == "R7"


@pytest.mark.parametrize("house_rules", [False, True])
def test_cl_classic_events_cite_classic_rules_only(house_rules: bool) -> None:
    # Classic cites CL-/C- ids, never a No Mercy rule (NM-*) or ambiguity (A*), including the
    # texts it shares with No Mercy (deal, UNO, catches, reshuffles, the C04 house rules).
    options = (
        {
            "classic_stacking": True,
            "classic_seven_zero": True,
            "classic_draw_until_playable": True,
            "classic_jump_in": True,
        }
        if house_rules
        else {}
    )
    cited: set[str] = set()
    for seed in range(40):
        g = nomercy.new_game(4, rules="classic", options=options, seed=seed)
        rng = random.Random(seed)
        events = list(g.opening_events)
        while not g.is_over:
            acts = g.legal_actions()
            if rng.random() < 0.3:
                acts = [a for s in range(g.n) for a in g.legal_actions(s)]
            events += g.apply(rng.choice(acts))
        for e in events:
            cited.update(re.findall(r"\b(?:NM|CL)-\d+|\b[AC]\d\d\b", e.text + e.public_text))
    assert not {i for i in cited if i.startswith(("NM-", "A"))}, sorted(cited)
    assert {"CL-2", "CL-9", "CL-10"} <= cited
    if house_rules:
        assert "C04" in cited
