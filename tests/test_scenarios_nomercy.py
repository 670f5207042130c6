"""Acceptance tests: RULES.md §4 worked examples EX-01 … EX-31 (No Mercy, default options).

Every scenario is rigged with ``Game.from_position`` (hands, discard, draw pile top first, turn,
direction, pending) and driven with action notation.  Options other than the defaults are named
in the test.  Roulette follows the seed review (API brief): ``roulette_mercy="after_reveal"`` by
default, ``"per_card"`` keeps RULES.md's original EX-19 reading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

import nomercy
from nomercy import NM168_COUNTS, Card, Colour, Event, Game, IllegalActionError, Phase, Stack

# ---------------------------------------------------------------------------- helpers


def pos(
    hands: Sequence[Sequence[str]],
    discard: Sequence[str],
    draw: Sequence[str] = (),
    turn: int = 0,
    *,
    options: dict[str, Any] | None = None,
    names: Sequence[str] | None = None,
    out: Iterable[int] = (),
    uno: Iterable[int] = (),
    **kw: Any,
) -> Game:
    """A rigged No Mercy position; unplaced deck cards go UNDER ``draw`` (fill="draw_pile")."""
    out_set, uno_set = set(out), set(uno)
    players = [
        {
            "name": names[i] if names else f"P{i}",
            "hand": list(h),
            "out": i in out_set,
            "uno": i in uno_set,
        }
        for i, h in enumerate(hands)
    ]
    position: dict[str, Any] = {
        "rules": {"preset": "no-mercy", "options": options or {}},
        "players": players,
        "turn": turn,
        "discard": list(discard),
        "draw_pile": list(draw),
        "fill": "draw_pile",
        **kw,
    }
    return Game.from_position(position)


def spare(n: int, *used: Iterable[str], ok: Callable[[Card], bool] = lambda c: True) -> list[str]:
    """``n`` card codes from the 168-card deck, not exceeding its counts given ``used``."""
    taken = Counter(code for group in used for code in group)
    result: list[str] = []
    # Walk the deck one copy per code per pass, so that hands come out varied.
    while len(result) < n:
        progress = False
        for code, count in NM168_COUNTS.items():
            if len(result) == n:
                break
            if taken[code] < count and ok(Card(code)):
                taken[code] += 1
                result.append(code)
                progress = True
        if not progress:
            raise AssertionError(f"the deck cannot supply {n} such cards")
    return result


def codes(g: Game, seat: int) -> list[str]:
    return [c.code for c in g.hands[seat]]


def sizes(g: Game) -> list[int]:
    return [len(h) for h in g.hands]


def top(g: Game) -> str:
    return g.discard[-1].code


def colour(g: Game) -> str | None:
    return g.colour.value if g.colour is not None else None


def legal(g: Game, seat: int | None = None) -> set[str]:
    return {str(a) for a in g.legal_actions(seat)}


def moves(g: Game) -> set[str]:
    """In-turn actions of the seat to act (UNO calls and catches carry an ``N:`` prefix)."""
    return {m for m in legal(g) if ":" not in m}


def played_cards(g: Game) -> set[str]:
    """Card codes the seat to act may play now."""
    return {a.card.code for a in g.legal_actions() if isinstance(a, nomercy.Play)}


def kinds(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def one(events: list[Event], kind: str) -> Event:
    found = kinds(events, kind)
    assert len(found) == 1, [(e.kind, e.text) for e in events]
    return found[0]


def assert_illegal(g: Game, action: str, rule: str) -> IllegalActionError:
    """``action`` raises IllegalActionError citing ``rule`` and leaves the game unchanged."""
    before = g.to_position()
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    assert info.value.rule == rule, str(info.value)
    assert str(info.value).endswith(f"[{rule}]"), str(info.value)
    assert g.to_position() == before
    return info.value


def not_blue_8_wild(c: Card) -> bool:
    return c.colour is not Colour.BLUE and c.number != 8 and not c.is_wild


def no_big_draw(c: Card) -> bool:
    return c.code not in ("W+6", "W+10")


# ---------------------------------------------------------------------------- EX-01 … EX-03


def test_ex01_draw_until_playable_keeps_intermediate_cards() -> None:
    hand0 = ["R1", "G4", "Y7", "R9", "G0"]
    g = pos([hand0, ["R2", "Y2"], ["B5", "G5"]], ["B8"], ["R3", "Y5", "B2"])
    pile = len(g.draw_pile)
    assert moves(g) == {"draw"}
    assert_illegal(g, "play R1", "NM-12")
    events = g.apply("draw")
    ev = one(events, "draw")
    assert "[NM-9]" in ev.text
    assert ev.data["count"] == 3
    assert g.phase is Phase.PLAY_DRAWN
    assert g.drawn is not None and g.drawn.code == "B2"
    assert g.to_act == 0
    # The drawn playable card must be played: no other card, no further draw, no pass.
    assert_illegal(g, "play R3", "NM-9")
    assert_illegal(g, "draw", "NM-9")
    assert_illegal(g, "pass", "NM-9")
    g.apply("play B2")
    assert sorted(codes(g, 0)) == sorted([*hand0, "R3", "Y5"])
    assert top(g) == "B2" and colour(g) == "B"
    assert len(g.draw_pile) == pile - 3
    assert g.to_act == 1
    assert not any(g.out)


def test_ex02_absorbed_penalty_ends_turn_without_play() -> None:
    hand1 = ["R1", "R2", "B+4", "G3", "Y5"]
    draw = ["R7", "B9", "G2", "Y8", "R5", "B1"]
    g = pos([["W+6", "G9"], hand1, ["B6", "G6"]], ["G5"], draw)
    g.apply("play W+6 R")
    assert g.pending == Stack(6, 6, (6,))
    assert g.to_act == 1 and g.phase is Phase.STACK_OR_ABSORB
    assert moves(g) == {"draw"}
    assert_illegal(g, "play B+4", "NM-18")
    assert_illegal(g, "play R1", "NM-19")
    events = g.apply("draw")
    ev = one(events, "absorb")
    assert "[NM-17]" in ev.text and ev.data["count"] == 6
    assert sorted(codes(g, 1)) == sorted(hand1 + draw)
    assert len(g.hands[1]) == 11
    assert g.pending is None
    assert top(g) == "W+6" and colour(g) == "R"
    assert g.to_act == 2
    # P1 plays nothing this turn, although red 7 and red 5 now match.
    assert_illegal(g, "1:play R7", "NM-7")


def test_ex03_threshold_is_last_value_not_total() -> None:
    target = ["W+6", "W+10", "B+4", "WR+4", "B+2", "G3"]
    hands = [["R1", "R2"], ["Y1", "Y2"], target, ["G1", "G2"]]
    g = pos(
        hands,
        ["R9", "R+4", "W+6", "W+6"],
        turn=2,
        colour="B",
        pending={"total": 16, "last": 6, "chain": [4, 6, 6]},
    )
    assert g.to_act == 2 and g.phase is Phase.STACK_OR_ABSORB
    assert played_cards(g) == {"W+6", "W+10"}
    assert "draw" in legal(g)
    assert_illegal(g, "play B+4", "NM-18")
    assert_illegal(g, "play WR+4 R", "NM-18")
    assert_illegal(g, "play B+2", "NM-18")  # matching the active blue does not help
    assert_illegal(g, "play G3", "NM-19")
    g.apply("play W+6 G")
    assert g.pending is not None
    assert (g.pending.total, g.pending.last) == (22, 6)
    assert g.to_act == 3


# ---------------------------------------------------------------------------- EX-04 … EX-08

AINO = ["R+4", "Y+2", "G1", "B2", "Y3", "G4"]
OLLI = ["W+6", "R+2", "R1", "B3", "G5", "Y6"]
SARI = ["W+6", "Y1", "R3", "B4", "G6", "Y7"]
TIMO = ["B+4", "R2", "G2", "Y2", "B5", "G8", "Y8", "R8"]
NAMES = ["Aino", "Olli", "Sari", "Timo"]


def ex04_game(timo_extra: Sequence[str] = ()) -> Game:
    return pos([AINO, OLLI, SARI, [*TIMO, *timo_extra]], ["R9"], names=NAMES)


def ex04_chain(g: Game) -> None:
    g.apply("play R+4")
    assert g.to_act == 1 and g.pending is not None and g.pending.total == 4
    g.apply("play W+6 G")
    assert g.to_act == 2 and g.pending is not None and g.pending.total == 10
    g.apply("play W+6 Y")
    assert g.to_act == 3
    assert g.pending == Stack(16, 6, (4, 6, 6))


def test_ex04_four_player_chain_absorbed_at_24() -> None:
    g = ex04_game()
    ex04_chain(g)
    assert_illegal(g, "play B+4", "NM-18")
    events = g.apply("draw")
    ev = one(events, "absorb")
    assert "[NM-17]" in ev.text
    assert "(+4 +6 +6)" in ev.text
    assert ev.data["count"] == 16
    assert sizes(g) == [5, 5, 5, 24]
    assert g.out == [False] * 4
    assert g.pending is None
    assert top(g) == "W+6" and colour(g) == "Y"
    assert g.direction == 1
    assert g.to_act == 0
    assert not kinds(events, "knockout")


def test_ex05a_exactly_25_cards_knocks_out() -> None:
    g = ex04_game(["B6"])
    ex04_chain(g)
    pile = len(g.draw_pile)
    events = g.apply("draw")
    ko = one(events, "knockout")
    assert "[NM-33" in ko.text and "NM-34]" in ko.text
    assert ko.seat == 3 and ko.data["count"] == 25
    assert g.out == [False, False, False, True]
    assert g.hands[3] == []
    assert len(g.set_aside) == 25
    assert len(g.draw_pile) == pile - 16
    assert g.pending is None
    assert g.to_act == 0
    assert not g.is_over


@pytest.mark.parametrize(("start", "knocked"), [(13, True), (12, False)])
def test_ex05b_thirteen_plus_twelve_knocks_out_twelve_stays(start: int, knocked: bool) -> None:
    victim = spare(start, ["R1", "R2", "G1", "G2", "R5", "W+6"], ok=no_big_draw)
    g = pos(
        [["R1", "R2"], victim, ["G1", "G2"]],
        ["R5", "W+6"],
        turn=1,
        colour="R",
        pending={"total": 12, "last": 6},
    )
    events = g.apply("draw")
    assert g.pending is None
    assert g.to_act == 2
    if knocked:
        assert g.out[1] and len(g.set_aside) == 25
        assert one(events, "knockout").data["count"] == 25
    else:
        assert not g.out[1] and len(g.hands[1]) == 24
        assert not kinds(events, "knockout")


def ex06_game(options: dict[str, Any] | None = None) -> tuple[Game, list[str]]:
    p0 = ["W+10", "G3", "G4"]
    p1 = ["W+10", *spare(19, ["W+10", "W+10", "G3", "G4", "R5"], ok=lambda c: c.code != "W+10")]
    p2 = spare(6, p0, p1, ["R5"], ok=lambda c: c.code != "W+10")
    draw = spare(21, p0, p1, p2, ["R5"])
    return pos([p0, p1, p2], ["R5"], draw, options=options), draw


def test_ex06_pending_not_counted_and_knockout_stops_absorb() -> None:
    g, draw = ex06_game()
    g.apply("play W+10 R")
    assert g.to_act == 1 and len(g.hands[1]) == 20
    g.apply("play W+10 B")
    assert len(g.hands[1]) == 19 and not g.out[1]
    assert g.pending is not None
    assert (g.pending.total, g.pending.last) == (20, 10)
    assert g.to_act == 2
    events = g.apply("draw")
    assert one(events, "absorb").data["count"] == 19
    assert g.out[2] and len(g.set_aside) == 25
    assert g.hands[2] == []
    # The 20th card was never drawn.
    assert g.draw_pile[0].code == draw[19]
    assert g.pending is None
    assert g.to_act == 0
    assert not g.is_over


def test_ex06_draw_full_then_knock_out_option() -> None:
    g, draw = ex06_game({"mercy_absorb": "draw_full_then_knock_out"})
    g.apply("play W+10 R")
    g.apply("play W+10 B")
    events = g.apply("draw")
    assert one(events, "absorb").data["count"] == 20
    assert g.out[2] and len(g.set_aside) == 26
    assert g.draw_pile[0].code == draw[20]
    assert g.pending is None
    assert g.to_act == 0


def ex07_game(options: dict[str, Any] | None = None) -> Game:
    a = ["R1", "R2", "Y3", "G4", "B5"]
    b = spare(13, a, ["R+2", "B+4", "W+6"], ok=no_big_draw)
    return pos(
        [a, b],
        ["R+2", "B+4", "W+6"],
        turn=1,
        colour="R",
        pending={"total": 12, "last": 6, "chain": [2, 4, 6]},
        options=options,
        names=["A", "B"],
    )


def test_ex07_knockout_leaving_one_player_ends_round() -> None:
    g = ex07_game()
    events = g.apply("draw")
    assert g.out == [False, True]
    assert g.is_over and g.winner == 0 and g.to_act is None
    assert len(g.hands[0]) == 5
    end = one(events, "hand_end")
    assert "NM-34" in end.text
    assert end.data["how"] == "last standing"
    assert g.hand_points(0) == (250, {})


def test_ex07_scoring_last_standing_scores_250() -> None:
    g = ex07_game({"scoring_enabled": True})
    events = g.apply("draw")
    end = one(events, "hand_end")
    assert end.data["winner"] == 0
    assert end.data["points"] == 250
    assert end.data["cards"] == {}
    assert g.scores == [250, 0]


def test_ex08_resolved_penalty_does_not_carry_over() -> None:
    g = ex04_game()
    ex04_chain(g)
    g.apply("draw")
    assert g.pending is None and colour(g) == "Y" and g.to_act == 0
    events = g.apply("play Y+2")
    assert "[NM-16]" in one(events, "stack").text
    assert g.pending == Stack(2, 2, (2,))
    assert g.to_act == 1
    assert "play R+2" in legal(g)  # any Draw Card, even a +2, may be stacked


# ---------------------------------------------------------------------------- EX-09 … EX-11

STACK_HAND = ["R+2", "B+4", "WR+4", "W+6", "W+10", "WCR", "GS", "GR", "GSE", "GDA", "G5"]
TOPS = {2: "Y+2", 4: "Y+4", 6: "W+6", 10: "W+10"}


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (2, {"R+2", "B+4", "WR+4", "W+6", "W+10"}),
        (4, {"B+4", "WR+4", "W+6", "W+10"}),
        (6, {"W+6", "W+10"}),
        (10, {"W+10"}),
    ],
)
def test_ex09_legal_stack_responses_by_last_value(last: int, expected: set[str]) -> None:
    g = pos(
        [["Y1", "Y2"], STACK_HAND, ["Y3", "Y4"]],
        ["Y5", TOPS[last]],
        turn=1,
        colour="Y",
        pending={"total": last, "last": last},
    )
    assert played_cards(g) == expected
    assert "draw" in legal(g)
    for code in ("WCR", "GS", "GR", "GSE", "GDA", "G5"):
        assert_illegal(g, f"play {code}", "NM-19")
    for code in {"R+2", "B+4"} - expected:
        assert_illegal(g, f"play {code}", "NM-18")


def test_ex09_s4_plus_two_cannot_answer_plus_four() -> None:
    hand1 = ["R+2", "G3", "B7"]
    g = pos([["Y1", "Y2"], hand1, ["Y3", "Y4"]], ["R5", "R+4"], turn=1, pending={"total": 4})
    assert moves(g) == {"draw"}
    assert_illegal(g, "play R+2", "NM-18")
    g.apply("draw")
    assert len(g.hands[1]) == 7
    assert g.pending is None and g.to_act == 2


def test_ex10a_plus2_plus4_plus6_totals_twelve() -> None:
    g = pos(
        [["R+2", "G+2", "R5"], ["B+4", "B6"], ["W+6", "Y6"], ["Y+4", "W+6", "G3"]],
        ["R9"],
    )
    g.apply("play R+2")
    g.apply("play B+4")
    g.apply("play W+6 G")
    assert g.to_act == 3
    assert g.pending == Stack(12, 6, (2, 4, 6))
    assert played_cards(g) == {"W+6"}
    assert_illegal(g, "play Y+4", "NM-18")
    g.apply("draw")
    assert len(g.hands[3]) == 3 + 12
    assert g.pending is None and g.to_act == 0
    # The 12 no longer circulates: a new Draw Card opens a new chain from 0 (NM-20).
    g.apply("play G+2")
    assert g.pending == Stack(2, 2, (2,))


def test_ex10b_plus4_plus6_next_draws_ten() -> None:
    g = pos([["R+4", "R5"], ["W+6", "B6"], ["Y+4", "G3"]], ["R9"])
    g.apply("play R+4")
    g.apply("play W+6 B")
    assert g.pending is not None and g.pending.total == 10
    assert_illegal(g, "play Y+4", "NM-18")
    g.apply("draw")
    assert len(g.hands[2]) == 12
    assert g.to_act == 0


def test_ex10c_plus6_plus10_next_draws_sixteen() -> None:
    g = pos([["W+6", "R5"], ["W+10", "B6"], ["W+6", "G3"]], ["R9"])
    g.apply("play W+6 R")
    g.apply("play W+10 B")
    assert g.pending == Stack(16, 10, (6, 10))
    assert_illegal(g, "play W+6 G", "NM-18")
    assert moves(g) == {"draw"}
    g.apply("draw")
    assert len(g.hands[2]) == 18
    assert g.to_act == 0


def test_ex11_skip_and_reverse_cannot_deflect() -> None:
    g = pos([["R+2", "R5"], ["RS", "RR", "GSE", "R7"], ["Y3", "Y4"]], ["R9"])
    g.apply("play R+2")
    assert g.to_act == 1
    assert moves(g) == {"draw"}
    for action in ("play RS", "play RR", "play GSE", "play R7 2"):
        assert_illegal(g, action, "NM-19")
    g.apply("draw")
    assert len(g.hands[1]) == 6
    assert g.direction == 1
    assert g.to_act == 2
    assert g.pending is None


# ---------------------------------------------------------------------------- EX-12 … EX-14


def test_ex12_discard_all_buries_same_colour_without_effects() -> None:
    hand0 = ["RDA", "R3", "R7", "RS", "R+2", "B5", "G1", "Y9", "W+6"]
    g = pos([hand0, ["Y1", "Y2"], ["G2", "G3"]], ["B4", "R4"])
    events = g.apply("play RDA")
    ev = one(events, "discard_all")
    assert "[NM-27]" in ev.text
    assert sorted(ev.data["cards"]) == sorted(["R3", "R7", "RS", "R+2"])
    assert sorted(codes(g, 0)) == sorted(["B5", "G1", "Y9", "W+6"])
    assert top(g) == "RDA"
    assert sorted(c.code for c in g.discard[-5:-1]) == sorted(["R3", "R7", "RS", "R+2"])
    assert colour(g) == "R"
    assert g.pending is None
    assert sizes(g) == [4, 2, 2]  # no 7-swap
    assert not kinds(events, "skip") and not kinds(events, "swap")
    assert g.to_act == 1


@pytest.mark.parametrize("call", [False, True])
def test_ex13_discard_all_on_discard_all_of_other_colour(call: bool) -> None:
    g = pos([["Y1", "Y2"], ["BDA", "B2", "BR", "G6"], ["G2", "G3"]], ["R5", "RDA"], turn=1)
    assert "play BDA" in legal(g)
    g.apply("play BDA uno" if call else "play BDA")
    assert codes(g, 1) == ["G6"]
    assert top(g) == "BDA" and colour(g) == "B"
    assert g.direction == 1  # the buried blue Reverse does nothing
    assert g.to_act == 2
    if call:
        assert g.to_position()["players"][1]["uno"] is True
        assert 1 not in g.uno_window
    else:
        assert 1 in g.uno_window
        assert "1:uno" in legal(g, 1)
        assert "2:catch 1" in legal(g, 2)


def test_ex14a_skip_everyone_extra_turn_must_match_new_top() -> None:
    g = pos(
        [["GSE", "R3", "B5"], ["Y1", "Y2"], ["Y3", "Y4"], ["Y5", "Y6"]],
        ["G5"],
        ["Y1", "G9"],
    )
    assert "play B5" in legal(g)
    events = g.apply("play GSE")
    assert "[NM-26]" in one(events, "skip_everyone").text
    assert g.to_act == 0
    assert top(g) == "GSE" and colour(g) == "G"
    assert g.direction == 1
    assert moves(g) == {"draw"}
    assert_illegal(g, "play B5", "NM-12")
    g.apply("draw")
    assert g.drawn is not None and g.drawn.code == "G9"
    g.apply("play G9")
    assert sorted(codes(g, 0)) == ["B5", "R3", "Y1"]
    assert g.to_act == 1


def test_ex14b_skip_everyone_then_play_matching_card() -> None:
    g = pos([["GSE", "G2", "R3"], ["Y1", "Y2"], ["Y3", "Y4"], ["Y5", "Y6"]], ["G5"])
    g.apply("play GSE")
    assert g.to_act == 0
    assert played_cards(g) == {"G2"}
    assert_illegal(g, "draw", "NM-8")
    g.apply("play G2")
    assert g.to_act == 1
    assert codes(g, 0) == ["R3"]


# ---------------------------------------------------------------------------- EX-15 … EX-18


def test_ex15_wrd4_four_players_hits_previous_seat() -> None:
    hands = [["WR+4", "G1", "G2"], ["Y1", "Y2"], ["Y3", "Y4"], ["Y5", "Y6"]]
    g = pos(hands, ["R5"], names=NAMES)
    events = g.apply("play WR+4 B")
    assert "[NM-24]" in one(events, "stack").text
    assert g.direction == -1
    assert g.pending == Stack(4, 4, (4,))
    assert g.to_act == 3  # Timo, not Olli
    assert colour(g) == "B"
    g.apply("draw")
    assert len(g.hands[3]) == 6
    assert g.to_act == 2  # Sari


def test_ex16_wrd4_continues_plus2_chain_and_sends_it_back() -> None:
    hands = [["Y1", "Y2"], ["R+2", "W+6", "R6"], ["WR+4", "Y3", "Y4"], ["Y5", "Y6"]]
    g = pos(hands, ["R5"], turn=1, names=NAMES)
    g.apply("play R+2")
    assert g.to_act == 2 and g.pending == Stack(2, 2, (2,))
    g.apply("play WR+4 G")
    assert g.direction == -1
    assert g.pending == Stack(6, 4, (2, 4))
    assert g.to_act == 1  # Olli
    events = g.apply("draw")
    assert one(events, "absorb").data["count"] == 6
    assert len(g.hands[1]) == 2 + 6
    assert g.to_act == 0  # Aino
    assert colour(g) == "G"


def test_ex16_wrd4_illegal_on_plus6() -> None:
    hands = [["Y1", "Y2"], ["R+2", "W+6", "R6"], ["WR+4", "Y3", "Y4"], ["Y5", "Y6"]]
    g = pos(hands, ["R5"], turn=1, names=NAMES)
    g.apply("play W+6 R")
    assert g.to_act == 2
    assert_illegal(g, "play WR+4 G", "NM-18")


def test_ex17_wrd4_answered_by_wrd4() -> None:
    hands = [["WR+4", "G1", "G2"], ["Y1", "Y2"], ["Y3", "Y4"], ["WR+4", "Y5", "Y6"]]
    g = pos(hands, ["R5"], names=["A", "B", "C", "D"])
    g.apply("play WR+4 R")
    assert g.direction == -1 and g.to_act == 3
    assert g.pending == Stack(4, 4, (4,))
    g.apply("play WR+4 Y")
    assert g.direction == 1
    assert g.pending == Stack(8, 4, (4, 4))
    assert g.to_act == 0
    g.apply("draw")
    assert len(g.hands[0]) == 2 + 8
    assert g.to_act == 1
    assert colour(g) == "Y"


def ex18_game() -> Game:
    p1 = ["G1", "G2", "G3", "Y4", "Y5", "B6"]
    return pos([["WR+4", "W+6", "R1", "R2", "B3"], p1], ["R5"])


def test_ex18a_two_player_wrd4_stacked_back() -> None:
    g = ex18_game()
    events = g.apply("play WR+4 R")
    assert "[NM-24]" in one(events, "stack").text
    assert g.to_act == 0
    assert g.pending == Stack(4, 4, (4,))
    assert g.phase is Phase.STACK_OR_ABSORB
    g.apply("play W+6 B")
    assert g.to_act == 1
    assert g.pending == Stack(10, 6, (4, 6))
    g.apply("draw")
    assert sizes(g) == [3, 16]
    assert g.to_act == 0
    assert g.pending is None
    assert colour(g) == "B"


def test_ex18b_two_player_wrd4_not_stacked() -> None:
    g = ex18_game()
    g.apply("play WR+4 R")
    g.apply("draw")
    assert len(g.hands[0]) == 5 - 1 + 4
    assert g.to_act == 1
    assert g.pending is None
    assert colour(g) == "R"


# ---------------------------------------------------------------------------- EX-19, EX-20

ROULETTE_DRAW = ["R8", "W+6", "Y2", "GR", "B1"]


def ex19_game(victim_size: int, options: dict[str, Any] | None = None) -> Game:
    p0 = ["WCR", "G3"]
    p2 = ["Y6", "Y7"]
    victim = spare(victim_size, p0, p2, ROULETTE_DRAW, ["R5"])
    return pos([p0, victim, p2], ["R5"], ROULETTE_DRAW, options=options)


def test_ex19_roulette_victim_names_colour_and_keeps_reveal() -> None:
    g = ex19_game(17)
    assert_illegal(g, "play WCR G", "NM-14")  # the player names nothing
    events = g.apply("play WCR")
    assert "[NM-30]" in one(events, "roulette").text
    assert g.phase is Phase.ROULETTE_COLOUR
    assert g.to_act == 1
    assert_illegal(g, "draw", "NM-30")
    events = g.apply("colour G")
    ev = one(events, "reveal")
    assert "[NM-30]" in ev.text
    assert ev.data["cards"] == ["R8", "W+6", "Y2", "GR"]
    assert len(g.hands[1]) == 21
    assert "GR" in codes(g, 1)
    assert g.direction == 1
    assert top(g) == "WCR" and colour(g) == "G"
    assert g.to_act == 2
    assert g.draw_pile[0].code == "B1"
    assert_illegal(g, "1:play GR", "NM-7")


def test_ex19_mercy_variant_after_reveal_default() -> None:
    # Seed review (API brief): all revealed cards join the hand, then one Mercy check: 26.
    g = ex19_game(22)
    g.apply("play WCR")
    events = g.apply("colour G")
    assert one(events, "reveal").data["count"] == 4
    ko = one(events, "knockout")
    assert ko.data["count"] == 26
    assert g.out[1] and len(g.set_aside) == 26
    assert g.draw_pile[0].code == "B1"
    assert g.to_act == 2
    assert not g.is_over


def test_ex19_mercy_variant_per_card_stops_at_25() -> None:
    g = ex19_game(22, {"roulette_mercy": "per_card"})
    g.apply("play WCR")
    events = g.apply("colour G")
    assert one(events, "reveal").data["cards"] == ["R8", "W+6", "Y2"]
    assert one(events, "knockout").data["count"] == 25
    assert g.out[1] and len(g.set_aside) == 25
    assert g.draw_pile[0].code == "GR"  # the green Reverse stays on the draw pile
    assert g.to_act == 2


@pytest.mark.parametrize("roulette_mercy", ["after_reveal", "per_card"])
def test_ex19_mercy_variant_end_of_action_takes_all_four(roulette_mercy: str) -> None:
    g = ex19_game(22, {"mercy_timing": "end_of_action", "roulette_mercy": roulette_mercy})
    g.apply("play WCR")
    g.apply("colour G")
    assert g.out[1] and len(g.set_aside) == 26
    assert g.draw_pile[0].code == "B1"
    assert g.to_act == 2


def test_ex20_roulette_cannot_answer_a_stack() -> None:
    g = pos(
        [["Y1", "Y2"], ["WCR", "R+2", "G3"], ["Y3", "Y4"]],
        ["R5", "R+4"],
        turn=1,
        pending={"total": 4, "last": 4},
    )
    assert moves(g) == {"draw"}
    assert_illegal(g, "play WCR", "NM-19")
    assert_illegal(g, "play R+2", "NM-18")
    g.apply("draw")
    assert len(g.hands[1]) == 7
    assert g.to_act == 2


# ---------------------------------------------------------------------------- EX-21 … EX-24


def test_ex21_seven_swaps_whole_hands() -> None:
    hand0 = ["R7", "G1", "G2", "G3", "G4", "Y1", "Y2", "Y3", "Y4", "B9"]
    hand1 = ["B1", "B2"]
    g = pos([hand0, hand1, ["Y6", "Y7", "Y8", "Y9", "G8", "G9"]], ["R3"])
    assert_illegal(g, "play R7", "NM-31")
    assert_illegal(g, "play R7 0", "NM-31")
    events = g.apply("play R7 1")
    assert "[NM-31]" in one(events, "swap").text
    assert sorted(codes(g, 0)) == sorted(hand1)
    assert sorted(codes(g, 1)) == sorted(hand0[1:])
    assert sizes(g) == [2, 9, 6]
    assert top(g) == "R7" and colour(g) == "R"
    assert g.direction == 1
    assert g.to_act == 1


EX22 = [
    ["Y0", "R1", "R2", "R3", "R4", "R5", "R6", "R7"],
    ["G1", "G2", "G3"],
    ["B1", "B2", "B3", "B4", "B5"],
    ["Y1", "Y2", "Y3", "Y4", "Y5", "Y7", "Y8", "Y9", "G9"],
]


def test_ex22_zero_passes_hands_clockwise() -> None:
    g = pos(EX22, ["Y6"], names=NAMES)
    events = g.apply("play Y0")
    assert "[NM-29]" in one(events, "pass_hands").text
    assert sorted(codes(g, 0)) == sorted(EX22[3])
    assert sorted(codes(g, 1)) == sorted(EX22[0][1:])
    assert sorted(codes(g, 2)) == sorted(EX22[1])
    assert sorted(codes(g, 3)) == sorted(EX22[2])
    assert sizes(g) == [9, 7, 3, 5]
    assert sum(sizes(g)) == 24
    assert colour(g) == "Y" and g.direction == 1
    assert g.to_act == 1


def test_ex22_zero_passes_hands_counterclockwise() -> None:
    g = pos(EX22, ["Y6"], names=NAMES, direction=-1)
    g.apply("play Y0")
    assert sorted(codes(g, 3)) == sorted(EX22[0][1:])
    assert sorted(codes(g, 2)) == sorted(EX22[3])
    assert sorted(codes(g, 1)) == sorted(EX22[2])
    assert sorted(codes(g, 0)) == sorted(EX22[1])
    assert sizes(g) == [3, 5, 9, 7]
    assert g.direction == -1
    assert g.to_act == 3


def two_player(card: str, p0_extra: Sequence[str] = ("G4", "B6"), p1_size: int = 3) -> Game:
    p0 = [card, *p0_extra]
    p1 = ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8", "Y9"][:p1_size]
    return pos([p0, p1], ["R5"])


def test_ex23a_two_player_skip_plays_again() -> None:
    g = two_player("RS")
    g.apply("play RS")
    assert g.to_act == 0 and g.direction == 1


def test_ex23b_two_player_reverse_plays_again() -> None:
    g = two_player("RR")
    events = g.apply("play RR")
    assert "[NM-25]" in one(events, "reverse").text
    assert g.direction == -1
    assert g.to_act == 0


def test_ex23c_two_player_skip_everyone_plays_again() -> None:
    g = two_player("RSE")
    g.apply("play RSE")
    assert g.to_act == 0 and g.direction == 1


def test_ex23d_two_player_zero_exchanges_hands() -> None:
    g = two_player("R0", ("G4", "B6", "G7", "B8"), 8)
    g.apply("play R0")
    assert sizes(g) == [8, 4]
    assert g.to_act == 1


def test_ex23e_two_player_seven_swaps_with_opponent() -> None:
    g = two_player("R7", ("G4", "B6", "G8", "B8"), 8)
    assert {a.target for a in g.legal_actions() if isinstance(a, nomercy.Play)} == {1}
    g.apply("play R7 1")
    assert sizes(g) == [8, 4]
    assert g.to_act == 1


def test_ex23f_two_player_draw_two_absorbed_returns_to_player() -> None:
    g = two_player("R+2")
    g.apply("play R+2")
    assert g.to_act == 1
    g.apply("draw")
    assert sizes(g) == [2, 5]
    assert g.to_act == 0


def ex24a_game() -> Game:
    return pos([["B7", "B9", "G1", "Y3", "Y4"], ["R9"], ["G5", "G6", "G7"]], ["B2"])


@pytest.mark.parametrize("catcher", [2, 1])
def test_ex24a_uno_after_swap_caught_before_next_turn(catcher: int) -> None:
    g = ex24a_game()
    g.apply("play B7 1")
    assert codes(g, 0) == ["R9"]
    assert len(g.hands[1]) == 4
    assert 0 in g.uno_window
    assert "0:uno" in legal(g, 0)
    assert f"{catcher}:catch 0" in legal(g, catcher)
    events = g.apply(f"{catcher}:catch 0")
    ev = one(events, "catch")
    assert "[NM-37]" in ev.text
    assert len(g.hands[0]) == 3
    assert g.to_act == 1


def test_ex24a_uno_called_in_time_cannot_be_caught() -> None:
    g = ex24a_game()
    g.apply("play B7 1")
    events = g.apply("0:uno")
    assert "[NM-37]" in one(events, "uno").text
    assert_illegal(g, "2:catch 0", "NM-37")
    assert len(g.hands[0]) == 1


def test_ex24b_window_closes_when_next_player_begins() -> None:
    g = ex24a_game()
    g.apply("play B7 1")
    assert g.to_act == 1
    g.apply("play B9")  # P1 begins their turn
    assert 0 not in g.uno_window
    assert "2:catch 0" not in legal(g, 2)
    assert_illegal(g, "2:catch 0", "NM-37")
    assert len(g.hands[0]) == 1


# ---------------------------------------------------------------------------- EX-25, EX-26


def ex25_game(options: dict[str, Any] | None = None, **kw: Any) -> Game:
    set_aside = spare(25, ["R2", "B5", "GS", "Y9", "W+6", "R5"])
    return pos(
        [["R2"], ["B5", "GS"], ["Y9", "W+6"], []],
        ["R5"],
        out=[3],
        uno=[0],
        set_aside=set_aside,
        names=NAMES,
        options=options,
        **kw,
    )


def test_ex25_hand_points_with_knockout_bonus() -> None:
    g = ex25_game()
    assert g.hand_points(0) == (334, {1: 25, 2: 59})
    events = g.apply("play R2")
    assert g.is_over and g.winner == 0
    end = one(events, "hand_end")
    # NM-39: a single hand is won, not scored; the points stay in the event's data.
    assert end.text == "Aino empties their hand and wins the hand [NM-38]"
    assert end.data["scored"] is False
    assert end.data["points"] == 334
    assert end.data["cards"] == {"1": 25, "2": 59}
    assert end.data["knocked_out"] == 1


def test_ex25_scoring_enabled_adds_334() -> None:
    g = ex25_game({"scoring_enabled": True})
    events = g.apply("play R2")
    end = one(events, "hand_end")
    assert end.data["points"] == 334
    assert "scores 334" in end.text and end.text.endswith("[NM-38, NM-40]")
    assert g.scores == [334, 0, 0, 0]
    assert not g.is_over  # below 1000: a new hand is dealt (NM-41)
    assert not kinds(events, "match_end")


def test_ex25_match_end_at_1054() -> None:
    g = ex25_game({"scoring_enabled": True}, scores=[720, 0, 0, 0])
    events = g.apply("play R2")
    assert g.scores[0] == 1054
    assert g.is_over and g.winner == 0 and g.to_act is None
    end = one(events, "match_end")
    assert "[NM-41]" in end.text
    assert end.data["scores"][0] == 1054


def ex26_game(options: dict[str, Any] | None = None) -> Game:
    return pos(
        [["R2"], ["B5", "GS", "W+6"], []],
        ["R5"],
        out=[2],
        uno=[0],
        set_aside=spare(25, ["R2", "B5", "GS", "W+6", "R5"]),
        names=["W", "O", "K"],
        options=options,
    )


def test_ex26_scoring_with_one_knockout() -> None:
    g = ex26_game()
    assert g.hand_points(0) == (325, {1: 75})


def test_ex26_scoring_enabled_winner_gets_325_knocked_out_nothing() -> None:
    g = ex26_game({"scoring_enabled": True})
    events = g.apply("play R2")
    end = one(events, "hand_end")
    assert end.data["points"] == 325
    assert end.data["cards"] == {"1": 75}
    assert g.scores == [325, 0, 0]


# ---------------------------------------------------------------------------- EX-27


def _opening(options: dict[str, Any], want: Callable[[Game], bool]) -> Game:
    for seed in range(3000):
        g = nomercy.new_game(4, seed=seed, options=options)
        if want(g):
            return g
    raise AssertionError("no seed gives the wanted opening")


def _check_deal(g: Game) -> None:
    assert sizes(g) == [7, 7, 7, 7]
    assert g.to_act == (g.to_position()["dealer"] + 1) % 4
    assert g.direction == 1
    assert g.pending is None
    assert g.phase is Phase.PLAY
    assert sum(sizes(g)) + len(g.discard) + len(g.draw_pile) == 168


def test_ex27_opening_flip_buries_non_number_cards() -> None:
    def wanted(g: Game) -> bool:
        return len(g.discard) > 1 and any(c.is_draw_card for c in g.discard[:-1])

    g = _opening({}, wanted)
    assert all(not c.is_number for c in g.discard[:-1])
    assert g.discard[-1].is_number
    assert g.colour is g.discard[-1].colour
    _check_deal(g)
    texts = [e.text for e in g.opening_events]
    assert sum("[NM-4]" in t for t in texts) == len(g.discard)
    assert any("ignored" in t and "[NM-4]" in t for t in texts)


@pytest.mark.parametrize("handling", ["return_and_reshuffle", "return_to_bottom"])
def test_ex27_opening_flip_returns_non_number_cards(handling: str) -> None:
    def wanted(g: Game) -> bool:
        return any("[A01]" in e.text for e in g.opening_events)

    g = _opening({"start_card_handling": handling}, wanted)
    assert len(g.discard) == 1 and g.discard[0].is_number
    assert g.colour is g.discard[0].colour
    _check_deal(g)
    assert len(g.draw_pile) == 168 - 28 - 1
    if handling == "return_to_bottom":
        assert not g.draw_pile[-1].is_number


def test_ex27_opening_flip_with_no_number_card_left_is_refused() -> None:
    """NM-4 flips until a number card; a deal that leaves none (27 cards to each of 6 players
    leaves 6) would flip and reshuffle the same cards for ever: it is refused instead."""
    failing = []
    for seed in range(300):
        try:
            g = nomercy.new_game(6, options={"hand_size": 27, "mercy_enabled": False}, seed=seed)
        except nomercy.RuleSetError as exc:
            assert "NM-4" in str(exc) and "deal fewer cards" in str(exc)
            failing.append(seed)
        else:
            assert g.discard[-1].is_number
    assert failing == [109, 227, 235]  # the deals whose 6 leftover cards are all actions/wilds


# ---------------------------------------------------------------------------- EX-28 … EX-31


def ex28_game(options: dict[str, Any] | None = None) -> Game:
    draw = ["R3", "Y5", "B2"]
    hand0 = spare(22, draw, ["Y1", "Y2", "G1", "G2"], ok=not_blue_8_wild)
    return pos([hand0, ["Y1", "Y2"], ["G1", "G2"]], ["B8"], draw, options=options)


def test_ex28_mercy_during_draw_until_playable() -> None:
    g = ex28_game()
    assert moves(g) == {"draw"}
    events = g.apply("draw")
    assert one(events, "draw").data["cards"] == ["R3", "Y5", "B2"]
    assert one(events, "knockout").data["count"] == 25
    assert g.out[0] and len(g.set_aside) == 25
    assert top(g) == "B8"  # blue 2 is not played
    assert g.to_act == 1
    assert not g.is_over


def test_ex28_end_of_action_plays_blue2_and_stays_in() -> None:
    g = ex28_game({"mercy_timing": "end_of_action"})
    g.apply("draw")
    assert len(g.hands[0]) == 25 and not g.out[0]
    assert g.drawn is not None and g.drawn.code == "B2"
    g.apply("play B2")
    assert len(g.hands[0]) == 24 and not g.out[0]
    assert top(g) == "B2"
    assert g.to_act == 1


def ex29_game(last: str, top_card: str, options: dict[str, Any] | None = None) -> Game:
    return pos(
        [[last], ["B5", "GS"], ["Y9", "W+6", "G2"]],
        [top_card],
        uno=[0],
        options=options,
    )


def test_ex29a_last_seven_wins_without_swap() -> None:
    g = ex29_game("R7", "R1")
    assert_illegal(g, "play R7 1", "NM-31")  # no swap target: the hand ends first
    events = g.apply("play R7")
    assert g.is_over and g.winner == 0
    assert not kinds(events, "swap")
    assert sizes(g) == [0, 2, 3]
    end = one(events, "hand_end")
    assert end.data["cards"] == {"1": 25, "2": 61}
    assert end.data["points"] == 86


def test_ex29a_resolve_effects_swaps_and_continues() -> None:
    g = ex29_game("R7", "R1", {"last_card_effect": "resolve_effects"})
    assert_illegal(g, "play R7", "NM-31")  # the swap target must be chosen
    events = g.apply("play R7 1")
    assert "[NM-31]" in one(events, "swap").text
    assert not kinds(events, "hand_end")
    assert not g.is_over and g.winner is None
    assert sorted(codes(g, 0)) == ["B5", "GS"]
    assert len(g.hands[1]) == 0
    assert g.to_act == 1


def test_ex29a_resolve_effects_last_zero_passes_hands() -> None:
    # A16 resolve_effects for a last 0: P0 receives the previous player's (P2's) hand.
    g = ex29_game("R0", "R1", {"last_card_effect": "resolve_effects"})
    events = g.apply("play R0")
    assert "[NM-29]" in one(events, "pass_hands").text
    assert not g.is_over and g.winner is None
    assert sorted(codes(g, 0)) == ["G2", "W+6", "Y9"]
    assert sorted(codes(g, 2)) == ["B5", "GS"]
    assert g.hands[1] == []
    assert g.to_act == 1


def test_ex29b_last_wild_draw_ten_wins_nothing_drawn() -> None:
    g = ex29_game("W+10", "R1")
    pile = len(g.draw_pile)
    events = g.apply("play W+10")
    assert g.is_over and g.winner == 0
    assert sizes(g) == [0, 2, 3]
    assert len(g.draw_pile) == pile
    assert g.pending is None
    assert one(events, "hand_end").data["points"] == 25 + 61


def test_ex29b_apply_draw_penalty_option_draws_and_scores() -> None:
    g = ex29_game("W+10", "R1", {"last_card_effect": "apply_draw_penalty"})
    events = g.apply("play W+10")
    assert g.is_over and g.winner == 0
    assert len(g.hands[1]) == 12
    assert one(events, "hand_end").data["cards"]["1"] == 25 + sum(c.points for c in g.hands[1][2:])


def test_ex30_reshuffle_returns_knocked_out_hands() -> None:
    hands = [["R1", "G2"], ["Y1", "Y2"], ["G3", "G5"], []]
    below = spare(29, *hands, ["B4"], ok=lambda c: c.code != "B4")
    set_aside = spare(25, *hands, ["B4"], below)
    g = Game.from_position(
        {
            "rules": "no-mercy",
            "players": [
                {"name": name, "hand": hand, "out": i == 3}
                for i, (name, hand) in enumerate(zip(NAMES, hands, strict=True))
            ],
            "turn": 0,
            "discard": [*below, "B4"],
            "draw_pile": [],
            "set_aside": set_aside,
            "fill": "none",
        }
    )
    assert g.draw_pile == [] and len(g.discard) == 30 and len(g.set_aside) == 25
    events = g.apply("draw")
    ev = one(events, "reshuffle")
    assert "[NM-35]" in ev.text
    assert ev.data["count"] == 54
    assert [c.code for c in g.discard] == ["B4"]
    assert g.set_aside == []
    drawn = one(events, "draw").data["count"]
    assert len(g.draw_pile) == 54 - drawn
    assert len(g.hands[0]) == 2 + drawn
    assert g.phase is Phase.PLAY_DRAWN


@pytest.mark.parametrize(("target", "start", "over"), [(500, 416, True), (1000, 416, False)])
def test_ex31_custom_match_target(target: int, start: int, over: bool) -> None:
    g = pos(
        [["R2"], ["B5", "GS"], ["Y9", "W+6"]],
        ["R5"],
        uno=[0],
        scores=[start, 0, 0],
        options={"scoring_enabled": True, "score_target": target},
    )
    events = g.apply("play R2")
    assert g.scores[0] == start + 84
    assert g.is_over is over
    if over:
        assert g.winner == 0
        assert "[NM-41]" in one(events, "match_end").text
    else:
        assert g.winner is None and not kinds(events, "match_end")


@pytest.mark.parametrize(("source", "expected"), [("top_card", "Y"), ("last_wild_named", "B")])
def test_a18_colour_after_coloured_plus4_stacked_on_wrd4(source: str, expected: str) -> None:
    """A18 / seed S4: "the player who last played a wild sets the next colour" (option)."""
    g = Game.from_position(
        {
            "rules": {"preset": "no-mercy", "options": {"chain_colour_source": source}},
            "players": [
                {"name": "A", "hand": ["WR+4", "R1", "R2"]},
                {"name": "B", "hand": ["G3", "G4"]},
                {"name": "C", "hand": ["G5", "G6"]},
                {"name": "D", "hand": ["Y+4", "B6", "B7"]},
            ],
            "turn": 0,
            "discard": ["R9"],
        }
    )
    g.apply("play WR+4 B")  # the direction reverses; D is the target (NM-24)
    g.apply("play Y+4")  # D stacks a yellow +4: C faces 8
    g.apply("draw")
    assert g.colour is not None and g.colour.value == expected


def _deflect_game(players: list[list[str]]) -> Game:
    return Game.from_position(
        {
            "rules": {
                "preset": "no-mercy",
                "options": {"stack_deflection": "skip_reverse_deflect"},
            },
            "players": [{"name": f"P{i}", "hand": hand} for i, hand in enumerate(players)],
            "turn": 1,
            "discard": ["R5", "R+2"],
            "pending": {"total": 2, "last": 2},
        }
    )


def test_a07_skip_deflection_passes_the_penalty_to_the_next_player() -> None:
    g = _deflect_game([["R1", "R2"], ["RS", "G3", "G4"], ["Y1", "Y2"]])
    events = g.apply("play RS")
    assert g.to_act == 2 and g.pending == Stack(2, 2, (2,))
    assert any("[A07]" in e.text for e in events)


def test_a07_two_player_skip_deflection_sends_the_penalty_to_the_opponent() -> None:
    g = _deflect_game([["R1", "R2"], ["RS", "G3", "G4"]])
    g.apply("play RS")
    assert g.to_act == 0 and g.pending is not None and g.pending.total == 2


def test_a07_reverse_deflection_sends_the_penalty_back() -> None:
    g = _deflect_game([["R1", "R2"], ["RR", "G3", "G4"], ["Y1", "Y2"]])
    g.apply("play RR")
    assert g.direction == -1 and g.to_act == 0


@pytest.mark.parametrize("mode", ["choose_top_and_fire", "optional_subset"])
def test_a14_end_of_action_waits_for_the_discard_all_choice(mode: str) -> None:
    """A14 with A09: the Discard All choice is part of the same play; Mercy waits for it."""
    others = [f"{c}{n}" for c in "YB" for n in range(1, 10)] + ["Y0"]
    g = Game.from_position(
        {
            "rules": {
                "preset": "no-mercy",
                "options": {"mercy_timing": "end_of_action", "discard_all_mode": mode},
            },
            "players": [
                {"name": "P0", "hand": ["R1", "R2", "R3", "R5", "R6", *others[:19]]},
                {"name": "P1", "hand": ["G2", "G3"]},
                {"name": "P2", "hand": ["G4", "G6"]},
            ],
            "turn": 0,
            "discard": ["GDA"],
            "draw_pile": ["Y7", "RDA"],
        }
    )
    g.apply("draw")
    assert len(g.hands[0]) == 26 and not g.out[0]
    g.apply("play RDA")
    assert not g.out[0]  # still choosing
    while g.to_act == 0 and g.phase in (Phase.DISCARD_ALL_TOP, Phase.DISCARD_ALL_SUBSET):
        reds = [
            a
            for a in g.legal_actions()
            if str(a).startswith("play R") and " " not in str(a)[5:] and "uno" not in str(a)
        ]
        g.apply(reds[0] if mode == "optional_subset" and reds else "pass")
    assert not g.out[0] and len(g.hands[0]) == 20
