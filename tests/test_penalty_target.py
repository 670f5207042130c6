"""Who a Draw Card's penalty hits: ``legality.aim_penalty`` and ``PlayerView.penalty_target``.

The engine aims every penalty with ``aim_penalty`` (``Game._open_stack``, the last-card
penalty); the view asks it for a seat. Here the view's answer is checked against what the
engine then does: in random positions, every Draw Card a seat may play (in turn or by a
classic jump-in) is played on a copy, and the seat the ensuing stack or last-card penalty
names must be the view's ``penalty_target`` (NM-16, NM-24, A28, A29, A16).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from nomercy import Card, EventKind, Game, Play, new_game
from nomercy.core.errors import NoMercyError
from nomercy.core.legality import (
    AIM_NEXT,
    AIM_PASSED,
    AIM_REVERSED,
    AIM_SELF,
    aim_penalty,
)
from nomercy.core.rules import make_rules

#: Option sets that change the aim: the defaults, A28 "self", A29 "initial" (two-player rules
#: only for a two-seat game), A16 last-card penalties, and classic with stacking and jump-ins.
AIM_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("no-mercy", {}),
    ("no-mercy", {"wrd4_two_player_in_stack": "self"}),
    ("no-mercy", {"two_player_basis": "initial", "mercy_threshold": 12}),
    ("no-mercy", {"last_card_effect": "apply_draw_penalty", "hand_size": 3}),
    ("no-mercy", {"last_card_effect": "resolve_effects", "hand_size": 3}),
    ("classic", {"classic_stacking": True, "classic_jump_in": True}),
]


def _engine_target(g: Game, action: Play) -> int | None:
    """The seat the engine's stack or last-card penalty names once ``action`` is played."""
    events = g.copy().apply(action)
    for event in events:
        if event.kind is EventKind.STACK or event.kind is EventKind.ABSORB:
            return event.seat
    return None


@pytest.mark.parametrize(("preset", "options"), AIM_OPTIONS)
def test_penalty_target_is_the_seat_the_engine_aims_at(
    preset: str, options: dict[str, Any]
) -> None:
    rng = random.Random(5)
    rules = make_rules(preset, options)
    seen: dict[str, int] = {"self": 0, "other": 0, "none": 0, "stacked": 0, "last": 0}
    for i in range(24):
        g = new_game(2 + i % 3, rules=rules, seed=300 + i)
        while not g.is_over and len(g.history) < 300:
            for seat in range(g.n):
                plays: dict[Card, Play] = {}
                for a in g.legal_actions(seat):
                    if isinstance(a, Play) and a.card.draw_value:
                        plays.setdefault(a.card, a)
                if not plays:
                    continue
                view = g.view(seat, history=False)
                for card, play in plays.items():
                    expected = _engine_target(g, play)
                    assert view.penalty_target(card) == expected, (play, g.to_position())
                    key = "none" if expected is None else "self" if expected == seat else "other"
                    seen[key] += 1
                    seen["stacked"] += view.pending is not None
                    seen["last"] += expected is not None and len(view.hand) == 1
            g.apply(rng.choice(g.legal_actions()))
    assert seen["other"] > 50 and seen["stacked"] > 10, seen
    if preset == "no-mercy" and "two_player_basis" not in options:
        assert seen["self"] > 0, seen  # NM-24 with two players
    if not options:
        assert seen["none"] > 0, seen  # A16 win_immediately: a last Draw Card ends the hand
    if "last_card_effect" in options:
        assert seen["last"] > 0, seen  # A16: a last Draw Card's penalty


def test_aim_penalty_cites_each_rule() -> None:
    rules = make_rules("no-mercy")
    self_rules = make_rules("no-mercy", {"wrd4_two_player_in_stack": "self"})
    wr4, plus4 = Card("WR+4"), Card("B+4")
    three, two = [False, False, False], [False, False]
    # NM-16: the next seat, in the direction of play, past a knocked-out seat (NM-33).
    assert aim_penalty(rules, plus4, 0, 1, three, False, False, False) == (1, 1, AIM_NEXT)
    assert aim_penalty(rules, plus4, 0, -1, [False, True, False, False], False, True, False) == (
        3,
        -1,
        AIM_NEXT,
    )
    assert aim_penalty(rules, plus4, 0, 1, [False, True, False], False, False, False) == (
        2,
        1,
        AIM_NEXT,
    )
    # NM-24: it reverses, then hits the next seat in the new direction.
    assert aim_penalty(rules, wr4, 1, 1, three, False, True, False) == (0, -1, AIM_REVERSED)
    # With two players it hits its own player opening a chain; in one, A28 decides.
    assert aim_penalty(rules, wr4, 1, 1, two, True, False, False) == (1, -1, AIM_SELF)
    assert aim_penalty(rules, wr4, 1, 1, two, True, True, False) == (0, -1, AIM_PASSED)
    assert aim_penalty(self_rules, wr4, 1, 1, two, True, True, False) == (1, -1, AIM_SELF)
    # A last card (A16 apply_draw_penalty): the hand ends, the opponent draws.
    assert aim_penalty(self_rules, wr4, 1, -1, two, True, False, True) == (0, 1, AIM_REVERSED)


def test_penalty_target_asks_as_if_stacked_and_names_no_spectator() -> None:
    g = Game.from_position(
        {
            "players": [{"hand": ["WR+4", "G+4", "B3"]}, {"hand": ["B1", "B2"]}],
            "turn": 0,
            "discard": ["Y+2"],
            "pending": {"total": 2, "last": 2},
        }
    )
    view = g.view(0)
    assert view.penalty_target(Card("WR+4")) == 1  # A28 "opponent": stacked, passed on
    assert view.penalty_target(Card("WR+4"), stacked=False) == 0  # NM-24: opening, its own
    assert view.penalty_target(Card("G+4"), 1) == 0  # another seat's play
    assert view.penalty_target(Card("B3")) is None  # no Draw Card
    with pytest.raises(NoMercyError):
        g.view(None).penalty_target(Card("G+4"))


@pytest.mark.parametrize(
    ("effect", "target"), [("win_immediately", None), ("apply_draw_penalty", 1)]
)
def test_a16_a_last_wild_reverse_four_with_two_players(effect: str, target: int | None) -> None:
    # NM-24 does not aim a last card at its player: the hand ends, the opponent draws (A16).
    rules = {"preset": "no-mercy", "options": {"last_card_effect": effect}}
    g = Game.from_position(
        {
            "rules": rules,
            "players": [{"hand": ["WR+4"], "uno": True}, {"hand": ["B1", "B2"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    (play,) = [a for a in g.legal_actions() if isinstance(a, Play)]
    assert g.view(0).penalty_target(play.card) == target == _engine_target(g, play)
