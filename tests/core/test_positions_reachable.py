"""Game.from_position refuses the positions the engine cannot reach, naming the inconsistency.

Each refusal is a fact the engine's transitions keep (random-play scans of both presets under
random option sets found no reachable state breaking it); what play does reach stays legal
(a last card whose effect resolves leaves an empty hand, a deferred Mercy check leaves the seat
to act over the limit). The mutation soak at the end changes reachable positions: a refused
one is a NotationError, an accepted one round-trips and plays on to the end.
"""

from __future__ import annotations

import copy
import json
import os
import random
from typing import Any

import pytest

import nomercy
from nomercy import Game, NotationError, Phase, RuleSetError

SOAK = int(os.environ.get("NOMERCY_SOAK_FACTOR", "1"))

#: 36 different coloured number cards (one copy each in both decks).
NUMBERS = [f"{c}{n}" for c in "RYGB" for n in range(1, 10)]


def _base() -> dict[str, Any]:
    return {
        "rules": "no-mercy",
        "players": [{"hand": ["R1", "R2", "G3"]}, {"hand": ["G1", "B2"]}, {"hand": ["Y1", "Y2"]}],
        "turn": 0,
        "discard": ["R5"],
    }


def _stack(**pending: Any) -> dict[str, Any]:
    """P1 faces a penalty on a red +4 (NM-16)."""
    return {**_base(), "turn": 1, "discard": ["R5", "R+4"], "pending": pending}


def _classic_wd4(top: str) -> dict[str, Any]:
    """Classic (CL-8): P1 may challenge P0's Wild +4, which named green on red."""
    return {
        "rules": "classic",
        "players": [{"hand": ["R1", "R2"]}, {"hand": ["G1", "G2"]}],
        "turn": 1,
        "discard": ["R5", top],
        "colour": "G",
        "pending": {"total": 4, "last": 4},
        "wd4": {"seat": 0, "guilty": True, "colour": "R"},
    }


def _with(position: dict[str, Any], seat: int, **player: Any) -> dict[str, Any]:
    players = [dict(p) for p in position["players"]]
    players[seat].update(player)
    return {**position, "players": players}


REFUSED: list[tuple[str, dict[str, Any], str]] = [
    # NM-33: a hand at or over the limit is knocked out at once.
    ("nm33_over_the_limit", _with(_base(), 1, hand=NUMBERS[:26]), "over the Mercy limit 25"),
    (
        "nm33_every_hand_at_the_limit",
        {
            **_base(),
            "rules": {"preset": "no-mercy", "options": {"hand_size": 3, "mercy_threshold": 4}},
            "players": [{"hand": NUMBERS[i : i + 4]} for i in (0, 4, 8)],
        },
        "every player in the game holds at least the Mercy limit 4",
    ),
    ("nm38_over_without_a_winner", {**_base(), "phase": "over"}, "needs the 'winner'"),
    ("nm38_a_winner_while_playing", {**_base(), "winner": 1}, "'winner'"),
    ("nm38_a_hand_winner_while_playing", {**_base(), "hand_winner": 1}, "hand_winner"),
    ("nm16_chain_short_of_its_total", _stack(total=5, chain=[2, 2]), "does not add up"),
    ("nm16_chain_last_is_not_last", _stack(total=6, last=2, chain=[2, 4]), "does not add up"),
    ("nm15_chain_of_no_draw_card", _stack(total=101, last=99, chain=[2, 99]), "99 is no Draw"),
    ("nm15_last_of_no_draw_card", _stack(total=6, last=3), "'pending.last' 3"),
    (
        "c04_classic_stack_without_stacking",
        {
            **_classic_wd4("R+2"),
            "wd4": None,
            "colour": "R",
            "pending": {"total": 4, "last": 2, "chain": [2, 2]},
        },
        "needs stacking",
    ),
    (
        "nm30_roulette_colour_on_a_number",
        {**_base(), "phase": "roulette_colour", "discard": ["R5"]},
        "Colour Roulette on top",
    ),
    (
        "cl3_choose_colour_on_a_number",
        {**_base(), "phase": "choose_colour", "colour": None, "discard": ["R8"]},
        "wild on top, not R8",
    ),
    (
        # Found by the mutation soak: the phase names a colour that nobody has named yet.
        "a18_choose_colour_with_a_colour",
        {**_base(), "phase": "choose_colour", "colour": "B", "discard": ["R5", "W+6"]},
        "'colour' must be null, not 'B'",
    ),
    (
        # Found by the mutation soak: any card but a Draw Card stacked on the wild names the
        # colour, so a colour still owed in a stack sits under a wild or Draw Card (A18).
        "a18_colour_owed_under_a_reverse",
        {
            **_stack(total=10, last=10),
            "discard": ["R5", "W+10", "BR"],
            "colour": None,
            "chain_wild": 0,
            "rules": {"preset": "no-mercy", "options": {"wild_colour_timing": "on_resolution"}},
        },
        "wild or Draw Card on top, not BR",
    ),
    ("cl8_wd4_on_a_number", _classic_wd4("R9"), "Wild \\+4 on top, not R9"),
    ("nm38_empty_active_hand_in_play", _with(_base(), 1, hand=[]), "holds no cards"),
    ("nm37_uno_window_on_three_cards", {**_base(), "uno_window": [0]}, "uno_window"),
    (
        "nm37_uno_window_after_the_call",
        {**_with(_base(), 1, hand=["G1"], uno=True), "uno_window": [1]},
        "has called UNO",
    ),
    ("nm37_uno_on_five_cards", _with(_base(), 1, hand=NUMBERS[:5], uno=True), "called UNO"),
    ("nm11_blue_under_a_red_eight", {**_base(), "discard": ["R8"], "colour": "B"}, "NM-11"),
    ("a21_roulette_colour_in_play", {**_base(), "roulette_colour": "R"}, "roulette_colour"),
    (
        "a16_pending_win_in_play",
        _with({**_base(), "pending_win": 1}, 1, hand=[]),
        "'pending_win'",
    ),
    (
        "a16_pending_win_holding_cards",
        {
            **_base(),
            "phase": "roulette_colour",
            "discard": ["R5", "WCR"],
            "colour": "R",
            "turn": 2,
            "pending_win": 1,
        },
        "no cards",
    ),
    ("nm34_set_aside_while_nobody_is_out", {**_base(), "set_aside": ["B9"]}, "nobody is out"),
    ("nm40_negative_scores", {**_base(), "scores": [0, -3, 5]}, "negative"),
    (
        "nm9_drawn_card_that_does_not_match",
        {**_with(_base(), 0, hand=["R1", "G3", "B7"]), "phase": "play_drawn", "drawn": "B7"},
        "does not match",
    ),
    (
        "nm9_known_card_is_the_drawn_one",
        {
            **_with(_base(), 0, hand=["G3", "R1"]),
            "phase": "play_drawn",
            "drawn": "R1",
            "known": {"1,0": ["G3", "R1"]},
        },
        "just drew",
    ),
    (
        "nm34_known_cards_of_a_knocked_out_seat",
        {
            **_with(_base(), 2, hand=[], out=True),
            "set_aside": ["Y1", "Y2"],
            "known": {"0,2": ["Y1"]},
            "players": [{"hand": ["R1"]}, {"hand": ["G1"]}, {"hand": [], "out": True}],
        },
        "not in seat 2's hand",
    ),
    (
        "a09_discard_all_choice_without_its_colour",
        {
            **_with(_base(), 0, hand=["R1", "R2", "B3"]),
            "rules": {"preset": "no-mercy", "options": {"discard_all_mode": "choose_top_and_fire"}},
            "phase": "discard_all_top",
            "discard": ["R5", "GDA"],
            "colour": "G",
        },
        "Discard All's colour",
    ),
]


def test_the_base_positions_load() -> None:
    Game.from_position(_base())
    Game.from_position(_stack(total=6, last=4, chain=[2, 4]))
    Game.from_position(_classic_wd4("W+4"))


@pytest.mark.parametrize(
    ("position", "match"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_an_unreachable_position_is_refused_naming_it(position: dict[str, Any], match: str) -> None:
    with pytest.raises(NotationError, match=match):
        Game.from_position(position)


def test_a_stack_given_without_its_chain_stays_unlisted_as_it_grows() -> None:
    """NM-16: a position may give a penalty of several cards without its values; stacking on
    it keeps them unknown (a partial chain would not add up to the total, which positions
    refuse), so the game's position still loads (found by the mutation soak)."""
    g = Game.from_position(
        _with(_stack(total=6, last=2), 1, hand=["B+4", "G1"]) | {"discard": ["R5", "R+2"]}
    )
    assert g.pending == (6, 2, ())
    g.apply(next(a for a in g.legal_actions() if a.card is not None))  # P1 stacks its +4
    assert g.pending == (10, 4, ())
    again = Game.from_position(json.loads(json.dumps(g.to_position())))
    assert again.pending == (10, 4, ()) and again.to_position() == g.to_position()
    # A chain that is given grows with the stack as before.
    g = Game.from_position(
        _with(_stack(total=6, last=2, chain=[4, 2]), 1, hand=["B+4", "G1"])
        | {"discard": ["R5", "R+2"]}
    )
    g.apply(next(a for a in g.legal_actions() if a.card is not None))
    assert g.pending == (10, 4, (4, 2, 4))


def test_what_play_reaches_stays_legal() -> None:
    # A16 resolve_effects: a Colour Roulette as the last card leaves its player with no cards
    # while the victim names a colour (pending_win).
    Game.from_position(
        {**_with(_base(), 0, hand=[]), "phase": "roulette_colour", "discard": ["R5", "WCR"],
         "colour": "R", "turn": 1, "pending_win": 0,
         "rules": {"preset": "no-mercy", "options": {"last_card_effect": "resolve_effects"}}}
    )  # fmt: skip
    # A16 resolve_effects with 7-0: a last-card 0 hands the empty hand on (NM-29).
    Game.from_position(
        {**_with(_base(), 1, hand=[]), "discard": ["R5", "R0"],
         "rules": {"preset": "no-mercy", "options": {"last_card_effect": "resolve_effects"}}}
    )  # fmt: skip
    # A14 end_of_action: the seat to act holds the limit while it decides on its drawn card.
    Game.from_position(
        {**_with(_base(), 0, hand=[*NUMBERS[9:12], *NUMBERS[:1]]), "phase": "play_drawn",
         "drawn": "R1",
         "rules": {"preset": "no-mercy",
                   "options": {"mercy_threshold": 4, "hand_size": 3,
                               "mercy_timing": "end_of_action"}}}
    )  # fmt: skip
    # A18 on_resolution: a coloured Draw Card stacked on a wild; its player names the colour.
    Game.from_position(
        {**_base(), "phase": "choose_colour", "colour": None, "discard": ["R5", "W+6", "B+4"],
         "rules": {"preset": "no-mercy", "options": {"wild_colour_timing": "on_resolution"}}}
    )  # fmt: skip
    # A18 last_wild_named: the colour the wild named stays under a Draw Card stacked on it.
    Game.from_position(
        {**_base(), "discard": ["R5", "W+6", "B+4"], "colour": "G",
         "rules": {"preset": "no-mercy", "options": {"chain_colour_source": "last_wild_named"}}}
    )  # fmt: skip
    # C04 without stacking: a single +2 waits to be drawn.
    Game.from_position({**_classic_wd4("R+2"), "wd4": None, "colour": "R", "pending": {"total": 2}})
    # An over hand: a winner, and the loser's UNO call on the card it held.
    Game.from_position({**_with(_base(), 1, hand=["G1"], uno=True), "phase": "over",
                        "winner": 0, "hand_winner": 0})  # fmt: skip


# ---------------------------------------------------------------------- mutation soak

#: (preset, options): the option sets the soak plays.
SETS: list[tuple[str, dict[str, Any]]] = [
    ("no-mercy", {}),
    ("no-mercy", {"hand_size": 3, "mercy_threshold": 8, "mercy_timing": "end_of_turn"}),
    ("no-mercy", {"last_card_effect": "resolve_effects", "wild_colour_timing": "on_resolution"}),
    ("no-mercy", {"discard_all_mode": "optional_subset", "chain_colour_source": "last_wild_named",
                  "stack_deflection": "skip_reverse_deflect", "roulette_chooser": "player"}),
    ("classic", {}),
    ("classic", {"classic_seven_zero": True, "classic_stacking": True,
                 "last_card_effect": "resolve_effects"}),
]  # fmt: skip

_SEATS = ("turn", "chain_wild", "pending_win", "resume", "winner", "hand_winner")


def _mutate(p: dict[str, Any], rng: random.Random) -> str:
    """One small change of a position's state (never its rules); returns what changed."""
    n = len(p["players"])
    zones = [pl["hand"] for pl in p["players"]] + [p["discard"], p["draw_pile"], p["set_aside"]]
    what = rng.randrange(11)
    if what == 0:  # a card moves between places (hands, piles)
        source = rng.choice([z for z in zones if z])
        rng.choice(zones).append(source.pop(rng.randrange(len(source))))
    elif what == 1:
        p[rng.choice(_SEATS)] = rng.choice([None, *range(n)])
    elif what == 2:
        p["phase"] = rng.choice([ph.value for ph in Phase])
    elif what == 3:
        p["colour"] = rng.choice([None, "R", "Y", "G", "B"])
    elif what == 4:
        player = rng.choice(p["players"])
        player["uno"] = not player["uno"]
    elif what == 5:
        p["uno_window"] = sorted({rng.randrange(n)} | set(p["uno_window"]))
    elif what == 6:
        total = rng.randint(1, 14)
        chain = rng.choice([None, [total], [2, total - 2], [4, 2], [2, 99]])
        p["pending"] = {"total": total, "last": rng.choice([total, 2, 4]), "chain": chain}
    elif what == 7:
        p["roulette_colour"] = rng.choice([None, "R"])
    elif what == 8:
        p["scores"] = [rng.randint(-5, 50) for _ in range(n)]
    elif what == 9 and p["players"][0]["hand"]:  # seat 1 learns one of seat 0's cards
        p["known"] = {**p["known"], "1,0": p["players"][0]["hand"][:1]}
    elif what == 10:
        s = rng.randrange(n)
        p["players"][s]["out"] = not p["players"][s]["out"]
    return str(what)


def _play_out(g: Game, rng: random.Random, limit: int) -> bool:
    """Random legal actions until the game ends (True) or ``limit`` steps."""
    for _ in range(limit):
        if g.is_over:
            return True
        ids = g.legal_ids()
        assert ids, "a running game offers the seat to act an action"
        g.step(ids[rng.randrange(len(ids))])
    return g.is_over


@pytest.mark.soak
def test_mutated_positions_are_refused_clearly_or_round_trip_and_play() -> None:
    accepted = refused = ended = 0
    for i in range(60 * SOAK):
        preset, options = SETS[i % len(SETS)]
        rng = random.Random(i)
        try:
            g = nomercy.new_game(rng.randint(2, 5), rules=preset, options=options, seed=i)
        except RuleSetError:
            continue
        for _ in range(rng.randint(0, 80)):
            if g.is_over:
                break
            ids = g.legal_ids()
            g.step(ids[rng.randrange(len(ids))])
        base = g.to_position()
        base.pop("log")
        base["hand_log_start"] = 0
        Game.from_position(base)  # a reachable position loads
        for _ in range(20):
            p = copy.deepcopy(base)
            for _ in range(rng.randint(1, 2)):
                _mutate(p, rng)
            try:
                mutated = Game.from_position(p)
            except NotationError:
                refused += 1
                continue
            accepted += 1
            again = Game.from_position(json.loads(json.dumps(mutated.to_position())))
            assert again.to_position() == mutated.to_position()
            ended += _play_out(again, rng, 3000)
    assert accepted > 200 * SOAK and refused > 200 * SOAK
    assert ended > accepted * 0.9
