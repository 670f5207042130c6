"""Derived facts of the PlayerView and the core predicates the shells use instead of rules.

The view's ``wd4_play`` and ``stacking``, its ``answers_stack``, ``answering_flags`` and
``stack_floor_after`` (NM-18, A04, A05, A07: the legality functions the bots read through
the view) against the engine's own stack decision, and
``redeal.infer_gaps`` reading a view's events exactly as it reads the public event dicts.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from nomercy import Card, Colour, Game, Phase, Play, Stack, new_game
from nomercy.core.base import Wd4
from nomercy.core.legality import answers_stack, stack_floor_after
from nomercy.core.redeal import draw_shows_gap, infer_gaps
from nomercy.core.rules import make_rules
from nomercy.core.views import Wd4Play

#: Stacking option sets: the defaults, A04 running total, A05 matching, A07 deflection, and
#: classic with C04 stacking.
STACK_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("no-mercy", {}),
    ("no-mercy", {"stack_threshold": "running_total"}),
    ("no-mercy", {"stack_requires_match": True, "stack_deflection": "skip_reverse_deflect"}),
    ("classic", {"classic_stacking": True}),
]


def _random_states(preset: str, options: dict[str, Any], games: int, seed: int) -> list[Game]:
    """Copies of every state of ``games`` random games (2-4 seats)."""
    rng = random.Random(seed)
    states = []
    for i in range(games):
        g = new_game(2 + i % 3, rules=make_rules(preset, options), seed=seed * 100 + i)
        while not g.is_over and len(g.history) < 400:
            states.append(g.copy())
            g.apply(rng.choice(g.legal_actions()))
    return states


@pytest.mark.parametrize(("preset", "options"), STACK_OPTIONS)
def test_answers_stack_is_the_engines_stack_decision(preset: str, options: dict[str, Any]) -> None:
    # In every stack decision, the cards the engine lets the seat stack are exactly those
    # the view's answers_stack (and answering_flags) accepts on its floor, top card and colour.
    seen = 0
    for g in _random_states(preset, options, 12, 7):
        turn = g.to_act
        if turn is None or g.phase is not Phase.STACK_OR_ABSORB:
            continue
        view = g.view(turn, history=False)
        if view.stack_floor is None:
            continue
        assert view.top is not None and view.pending is not None
        stacked = {a.card for a in g.legal_actions(turn) if isinstance(a, Play)}
        floor, top, colour = view.stack_floor, view.top, view.colour
        accepted = {c for c in view.hand if view.answers_stack(c, floor, top, colour)}
        assert stacked == accepted, (preset, options, g.to_position())
        flags = view.answering_flags(floor, top, colour)
        assert {c for c in view.hand if flags[c.index]} == accepted
        seen += 1
    assert seen > 20


@pytest.mark.parametrize(("preset", "options"), STACK_OPTIONS)
def test_stack_floor_after_is_the_floor_the_next_seat_faces(
    preset: str, options: dict[str, Any]
) -> None:
    # NM-18, A04: a Draw Card stacked (or opening a stack) leaves the floor the next seat's
    # view shows, as the playing seat's view predicts it.
    seen = 0
    for g in _random_states(preset, options, 12, 11):
        turn = g.to_act
        if turn is None:
            continue
        before = g.pending_total if g.phase is Phase.STACK_OR_ABSORB else 0
        mine = g.view(turn, history=False)
        for action in g.legal_actions(turn):
            if not isinstance(action, Play) or not action.card.draw_value or action.jump:
                continue
            after = g.copy()
            after.apply(action)
            if after.phase is not Phase.STACK_OR_ABSORB or after.to_act is None:
                continue
            floor = after.view(after.to_act, history=False).stack_floor
            if floor is None:
                continue  # the next seat may not stack (classic without C04, a last card)
            assert floor == mine.stack_floor_after(action.card, before)
            if g.phase is Phase.STACK_OR_ABSORB:
                assert floor == mine.stack_floor_after(action.card)  # the pending total
            seen += 1
            break
    assert seen > 20


def test_answers_stack_options() -> None:
    plain = make_rules("no-mercy")
    top, red = Card("R+4"), Colour.RED
    assert answers_stack(plain, Card("G+4"), 4, top, red)
    assert not answers_stack(plain, Card("G+2"), 4, top, red)
    assert not answers_stack(plain, Card("GS"), 4, top, red)
    match = make_rules("no-mercy", {"stack_requires_match": True})
    assert not answers_stack(match, Card("G+4"), 4, Card("R+2"), red)  # A05: no match
    assert answers_stack(match, Card("W+6"), 4, Card("R+2"), red)  # a wild always matches
    deflect = make_rules("no-mercy", {"stack_deflection": "skip_reverse_deflect"})
    assert answers_stack(deflect, Card("RS"), 4, top, red)  # A07: a red Skip deflects
    assert not answers_stack(deflect, Card("GS"), 4, top, red)
    total = make_rules("no-mercy", {"stack_threshold": "running_total"})
    assert stack_floor_after(total, 6, Card("W+4")) == 10
    assert stack_floor_after(plain, 6, Card("W+4")) == 4


def test_wd4_play_names_the_accused_and_the_colour_it_covered() -> None:
    # CL-8: the accused and the colour the Wild +4 replaced are public; honesty is not.
    game = new_game(2, rules="classic", seed=30)
    while not game.view(game.to_act).wd4_challengeable:
        game.apply(game.legal_actions(game.to_act)[0])
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    assert view.wd4_play is not None
    assert view.wd4_play.seat == 1 - seat
    assert view.wd4_play.colour is Colour.BLUE
    assert view.to_json()["wd4_play"] == {"seat": 1 - seat, "colour": "B"}
    assert new_game(2, rules="classic", seed=30).view(0).wd4_play is None


def test_engine_wd4_is_typed_and_its_view_hides_the_guilt() -> None:
    # CL-8: Game.wd4 is a typed record (seat, guilt, colour); the view and the position
    # give its public part and the position's JSON form, key for key.
    game = new_game(2, rules="classic", seed=30)
    while not game.view(game.to_act).wd4_challengeable:
        game.apply(game.legal_actions(game.to_act)[0])
    wd4 = game.wd4
    assert isinstance(wd4, Wd4) and wd4.colour is Colour.BLUE
    assert game.view(game.to_act).wd4_play == Wd4Play(wd4.seat, wd4.colour)
    assert game.to_position()["wd4"] == {"seat": wd4.seat, "guilty": wd4.guilty, "colour": "B"}
    assert Game.from_position(game.to_position()).wd4 == wd4
    for seat in range(2):
        assert "guilty" not in json.dumps(game.view(seat).to_json(bookkeeping=True))


def test_game_pending_is_the_views_stack() -> None:
    # NM-17, NM-18: the engine's pending penalty is the view's Stack, not a second shape.
    for g in _random_states("no-mercy", {}, 6, 3):
        pending = g.pending
        assert pending is None or type(pending) is Stack
        turn = g.to_act
        if turn is not None:
            assert g.view(turn).pending == pending
        expected = None if pending is None else pending.to_json()
        assert g.to_position()["pending"] == expected


@pytest.mark.parametrize(
    ("preset", "options", "stacking"),
    [
        ("no-mercy", {}, True),
        ("classic", {}, False),
        ("classic", {"classic_stacking": True}, True),
    ],
)
def test_stacking_says_whether_the_rules_stack(
    preset: str, options: dict[str, Any], stacking: bool
) -> None:
    view = new_game(3, rules=make_rules(preset, options), seed=1).view(0)
    assert view.stacking is stacking
    assert view.to_json()["stacking"] is stacking


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_infer_gaps_reads_view_events_as_event_dicts(preset: str) -> None:
    # The gaps read from a view's history (Event objects) are the ones read from the public
    # event dicts of the same hand.
    checked = 0
    for g in _random_states(preset, {}, 6, 3):
        if len(g.history) % 5 or g.to_act is None:
            continue
        view = g.view(g.to_act)
        deciding = view.to_act if view.phase is Phase.PLAY_DRAWN else None
        a = infer_gaps(g.rules, g.n, view.history, view.direction, deciding)
        b = infer_gaps(g.rules, g.n, g.public_history(), g.direction, deciding)
        assert (a.lacks, a.no_wild, a.colour) == (b.lacks, b.no_wild, b.colour)
        checked += 1
    assert checked > 30


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("no-mercy", {}),
        ("no-mercy", {"voluntary_draw": "draw_one_may_pass"}),
        ("no-mercy", {"no_playable_action": "draw_one_pass"}),
        ("classic", {}),
    ],
)
def test_draw_shows_gap_says_when_the_history_shows_a_gap(
    preset: str, options: dict[str, Any]
) -> None:
    # A03, NM-9: only then does infer_gaps (and with it the encoders' opp_void) read a gap.
    rules = make_rules(preset, options)
    gaps = 0
    for g in _random_states(preset, options, 6, 5):
        found = infer_gaps(g.rules, g.n, g.public_history(), g.direction)
        gaps += sum(len(c) for c in found.lacks.values())
    assert (gaps > 0) is draw_shows_gap(rules)
