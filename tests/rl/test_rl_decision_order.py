"""The RL environments ask seats in the engine's one order (``decision_order``), as the driver.

``next_decider`` (the seat a PettingZoo or Gymnasium env hands the next decision to, with
``out_of_turn="offered"``) is the first seat of ``decision_order`` among the seats that have
not let this chance go, and it is the seat the bot driver asks first.
"""

from __future__ import annotations

import random

from nomercy import Action, CallUno, Game, PlayerView, decision_order, new_game
from nomercy.bots.driver import Driver
from nomercy.core.rules import make_rules
from nomercy.rl._common import next_decider


class _Recorder:
    """A bot that records which seat it was asked for first, then lets chances go."""

    name = "recorder"

    def __init__(self, seat: int, asked: list[int]) -> None:
        self.seat = seat
        self.asked = asked

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        self.asked.append(self.seat)
        return legal[0]

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        self.asked.append(self.seat)
        return None


def _uno_positions() -> list[Game]:
    """Positions of random games where a seat other than the one to act may act."""
    rng = random.Random(3)
    found: list[Game] = []
    for i in range(40):
        options = {"classic_jump_in": True} if i % 4 == 3 else {}
        rules = make_rules("classic" if options else "no-mercy", options)
        g = new_game(3 + i % 3, rules=rules, seed=i)
        while not g.is_over and len(g.history) < 300:
            if g.out_of_turn_possible():
                found.append(g.copy())
            g.apply(rng.choice(g.legal_actions()))
    return found


def test_next_decider_is_the_first_seat_of_decision_order_and_the_drivers() -> None:
    positions = _uno_positions()
    callers = 0
    for g in positions:
        order = decision_order(g)
        assert next_decider(g, True, set()) == order[0].seat
        assert next_decider(g, False, set()) == g.to_act
        # Declined seats are not asked again: the next one in the order is.
        declined = {d.seat for d in order[:-1]}
        assert next_decider(g, True, declined) == g.to_act
        if len(order) > 2:
            assert next_decider(g, True, {order[0].seat}) == order[1].seat
        asked: list[int] = []
        Driver([_Recorder(s, asked) for s in range(g.n)]).next_action(g)
        assert asked == [d.seat for d in order]  # every chance let go, then the seat to act
        callers += any(isinstance(a, CallUno) for a in order[0].legal)
    assert len(positions) > 100 and callers > 20
