"""Who plays after a card, and what a card sheds: one rule in ``core/legality.py``.

``legality.turn_after_play`` passes the turn in the engine (``Game._resolve``) and answers
:meth:`PlayerView.seat_after_play`; ``legality.cards_shed`` counts a Discard All for the
engine's UNO offer and for :meth:`PlayerView.cards_shed`. The scenario tests are named by
RULES.md's ids; the property tests play every card a seat may play, on a copy of random
seeded positions, and compare the view's answer with what the engine then does.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from nomercy import Action, Card, ChooseColour, Draw, Game, Pass, Play, new_game
from nomercy.core.base import Phase
from nomercy.core.errors import NoMercyError
from nomercy.core.rules import make_rules

#: Option sets that change who plays next or what a card sheds: the defaults; A29 "initial"
#: (a game reduced to two keeps the many-player rules); A20 "player" (the Roulette's player
#: names the colour and the victim reveals at once); A18 "on_resolution" (the colour of a
#: wild Draw Card is named once the stack is gone); A07 deflection; A09's two choices;
#: classic with and without C03 two-player rules and with 7-0.
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("no-mercy", {}),
    ("no-mercy", {"two_player_basis": "initial", "mercy_threshold": 12}),
    ("no-mercy", {"roulette_chooser": "player"}),
    ("no-mercy", {"wild_colour_timing": "on_resolution"}),
    ("no-mercy", {"stack_deflection": "skip_reverse_deflect"}),
    ("no-mercy", {"discard_all_mode": "choose_top_and_fire"}),
    ("no-mercy", {"discard_all_mode": "optional_subset"}),
    ("classic", {}),
    ("classic", {"two_player_rules": False, "classic_seven_zero": True}),
]

#: Phases in which a seat decides without taking a new turn, and the passive answer.
_PASSIVE = (Phase.STACK_OR_ABSORB, Phase.ROULETTE_COLOUR, Phase.CHOOSE_COLOUR)


def _passive(g: Game) -> Action | None:
    """The answer that plays no card: absorb, the first colour, keep the Discard All."""
    legal = g.legal_actions()
    for kind in (Draw, ChooseColour, Pass):
        for action in legal:
            if isinstance(action, kind):
                return action
    return None


def _engine_next_turn(g: Game, play: Play) -> tuple[int | None, bool]:
    """The seat whose turn comes after ``play`` once its decisions are answered passively,
    and whether a knock-out or the hand's end intervened (then the answer is not compared)."""
    g = g.copy()
    hand_number = g.hand_number
    outs = list(g.out)
    g.apply(play)
    for _ in range(8):
        if g.is_over or g.hand_number != hand_number or g.out != outs:
            return None, True
        phase = g.phase
        if phase not in (*_PASSIVE, Phase.DISCARD_ALL_TOP, Phase.DISCARD_ALL_SUBSET):
            return g.to_act, False
        answer = _passive(g)
        if answer is None:  # e.g. a mandatory stack (A06): no passive answer
            return None, True
        g.apply(answer)
    raise AssertionError(f"no turn after {play}: {g.to_position()}")


def _random_positions(preset: str, options: dict[str, Any], games: int, seed: int) -> Any:
    rng = random.Random(seed)
    rules = make_rules(preset, options)
    for i in range(games):
        g = new_game(2 + i % 3, rules=rules, seed=seed + i)
        while not g.is_over and len(g.history) < 250:
            yield g
            g.apply(rng.choice(g.legal_actions()))


@pytest.mark.parametrize(("preset", "options"), OPTIONS)
def test_seat_after_play_is_the_seat_the_engine_gives_the_turn(
    preset: str, options: dict[str, Any]
) -> None:
    seen = {"again": 0, "other": 0, "none": 0, "skipped": 0, "stacked": 0}
    for g in _random_positions(preset, options, 18, 700):
        seat = g.to_act
        assert seat is not None
        plays: dict[Card, Play] = {}
        for a in g.legal_actions():
            if isinstance(a, Play) and a.seat == seat:
                plays.setdefault(a.card, a)
        if not plays:
            continue
        view = g.view(seat, history=False)
        for card, play in plays.items():
            fact = view.seat_after_play(card)
            expected, intervened = _engine_next_turn(g, play)
            if fact is None:
                # NM-38: the play empties the hand.
                assert len(view.cards_shed(card)) == len(view.hand), (play, g.to_position())
                seen["none"] += 1
                continue
            if intervened:
                continue
            assert fact == expected, (play, g.to_position())
            seen["again" if fact == seat else "other"] += 1
            seen["skipped"] += fact not in (seat, view.next_seat)
            seen["stacked"] += view.pending is not None
    assert seen["again"] > 20 and seen["other"] > 100 and seen["skipped"] > 5, seen
    if preset == "no-mercy":
        assert seen["stacked"] > 3 and seen["none"] > 0, seen


@pytest.mark.parametrize(("preset", "options"), OPTIONS)
def test_cards_shed_is_what_leaves_the_hand(preset: str, options: dict[str, Any]) -> None:
    seen = {"discard_all": 0, "one": 0}
    seven_zero = preset == "no-mercy" or options.get("classic_seven_zero", False)
    for g in _random_positions(preset, options, 12, 900):
        seat = g.to_act
        assert seat is not None
        view = g.view(seat, history=False)
        for a in dict.fromkeys(a for a in g.legal_actions() if isinstance(a, Play)):
            if a.seat != seat or (seven_zero and a.card.number in (0, 7)):
                continue  # NM-29, NM-31: the hand is exchanged
            after = g.copy()
            after.apply(a)
            shed = view.cards_shed(a.card)
            assert len(g.hands[seat]) - len(after.hands[seat]) == len(shed), (a, g.to_position())
            seen["discard_all" if len(shed) > 1 else "one"] += 1
    assert seen["one"] > 100, seen
    if preset == "no-mercy" and options.get("discard_all_mode") != "optional_subset":
        assert seen["discard_all"] > 0, seen


def _game(
    players: list[list[str]], turn: int = 0, out: list[bool] | None = None, rules: Any = None
) -> Game:
    """A position on a red 1 (``out``: seats knocked out; a one-card hand has called UNO)."""
    outs = out or [False] * len(players)
    seats = [
        {"hand": [] if o else h, "out": o, "uno": len(h) == 1}
        for h, o in zip(players, outs, strict=True)
    ]
    position: dict[str, Any] = {"players": seats, "turn": turn, "discard": ["R1"]}
    if rules is not None:
        position["rules"] = rules
    return Game.from_position(position)


def test_nm23_nm25_nm26_two_players_skip_reverse_and_skip_everyone_play_again() -> None:
    view = _game([["RS", "RR", "RSE", "R5", "B1"], ["B2", "B3"]]).view(0)
    assert view.two_player
    for code in ("RS", "RR", "RSE"):
        assert view.seat_after_play(Card(code)) == 0, code
    assert view.seat_after_play(Card("R5")) == 1  # NM-22


def test_nm25_reverse_with_three_players_gives_the_turn_to_the_previous_seat() -> None:
    view = _game([["RR", "R5"], ["B2", "B3"], ["G2", "G3"], ["Y2", "Y3"]], turn=1).view(1)
    assert view.seat_after_play(Card("RR"), 0) == 3
    g = _game([["RR", "R5"], ["B2", "B3"], ["G2", "G3"], ["Y2", "Y3"]])
    assert g.view(0).seat_after_play(Card("RR")) == 3
    g.apply("0: play RR")
    assert g.to_act == 3 and g.direction == -1


def test_nm23_skip_passes_a_knocked_out_seat_and_a29_initial_keeps_it() -> None:
    g = _game([["RS", "R5"], ["B2", "B3"], ["G2", "G3"], ["Y2"]], out=[False, True, False, False])
    view = g.view(0)
    assert view.seat_after_play(Card("RS")) == 3  # next(p) is 2, skipped; 1 is out
    assert view.seat_after_play(Card("RSE")) == 0  # NM-26
    two = _game([["RS", "RR", "R5"], ["B2", "B3"], ["G2"]], out=[False, False, True])
    assert two.view(0).seat_after_play(Card("RR")) == 0  # A29 "active": two players
    initial = _game(
        [["RS", "RR", "R5"], ["B2", "B3"], ["G2"]],
        out=[False, False, True],
        rules={"preset": "no-mercy", "options": {"two_player_basis": "initial"}},
    )
    assert not initial.view(0).two_player
    assert initial.view(0).seat_after_play(Card("RR")) == 1  # reversed, the other seat
    assert initial.view(0).seat_after_play(Card("RS")) == 0  # next(next(p)) is p


def test_nm29_zero_pass_gives_the_previous_seats_hand_and_the_turn_to_the_next() -> None:
    g = _game([["R0", "R5"], ["B2", "B3", "B4"], ["G2"], ["Y2", "Y3", "Y4", "Y5"]])
    view = g.view(0)
    assert view.zero_pass_giver() == 3 and view.zero_pass_giver(2) == 1
    assert view.seat_after_play(Card("R0")) == 1
    g.apply("0: play R0")
    assert len(g.hands[0]) == 4 and g.to_act == 1  # Y's four cards (NM-29)


def test_nm16_nm17_two_players_a_draw_card_gives_its_player_the_next_turn() -> None:
    view = _game([["R+2", "WR+4", "B5"], ["B2", "B3"]]).view(0)
    assert view.seat_after_play(Card("R+2")) == 0  # the opponent absorbs, loses the turn
    assert view.seat_after_play(Card("WR+4")) == 1  # NM-24: it hits p, who absorbs
    three = _game([["R+2", "WR+4", "B5"], ["B2", "B3"], ["G2", "G3"]]).view(0)
    assert three.seat_after_play(Card("R+2")) == 2
    assert three.seat_after_play(Card("WR+4")) == 1  # NM-24: reversed, seat 2 absorbs


def test_nm30_roulette_the_victim_loses_the_turn() -> None:
    assert _game([["WCR", "B5"], ["B2", "B3"]]).view(0).seat_after_play(Card("WCR")) == 0
    three = _game([["WCR", "B5"], ["B2", "B3"], ["G2", "G3"]]).view(0)
    assert three.seat_after_play(Card("WCR")) == 2


def test_nm38_a_last_card_names_no_next_seat_and_a_spectator_no_player() -> None:
    g = _game([["R5"], ["B2", "B3"]])
    assert g.view(0).seat_after_play(Card("R5")) is None
    assert g.view(1).seat_after_play(Card("R5"), 0) is None
    with pytest.raises(NoMercyError):
        g.view(None).seat_after_play(Card("R5"))
    with pytest.raises(NoMercyError):
        g.view(None).cards_shed(Card("R5"))


def test_nm27_discard_all_sheds_its_colour_and_a09_defers_the_choice() -> None:
    hand = ["RDA", "R5", "R+2", "B5", "W+6"]
    assert [c.code for c in _game([hand, ["B2"]]).view(0).cards_shed(Card("RDA"))] == [
        "RDA",
        "R5",
        "R+2",
    ]
    for mode in ("choose_top_and_fire", "optional_subset"):
        g = _game(
            [hand, ["B2", "B3"]],
            rules={"preset": "no-mercy", "options": {"discard_all_mode": mode}},
        )
        assert [c.code for c in g.view(0).cards_shed(Card("RDA"))] == ["RDA"], mode
        g.apply("0: play RDA")
        view = g.view(0)
        shed = [c.code for c in view.cards_shed(Card("R5"))]
        assert shed == (["R5", "R+2"] if mode == "choose_top_and_fire" else ["R5"]), mode
    # Two copies of one card: one is played, the other goes under it (cards are shared).
    twice = _game([["RDA", "RDA", "B5"], ["B2"]]).view(0)
    assert [c.code for c in twice.cards_shed(Card("RDA"))] == ["RDA", "RDA"]
