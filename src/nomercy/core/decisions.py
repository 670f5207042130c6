"""Who decides next: the one order in which seats are asked for an action.

Several seats may have an action at once: the seat to act, a seat that may call UNO for its
one card, seats that may catch it (NM-37), classic jump-ins (C04). Every interface that asks
players (the bot driver, the tables of the terminal app, the web rooms, the RL environments)
asks them in :func:`decision_order`'s order, so the same position gets the same answer
everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from nomercy.core.actions import Action, CallUno

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = ["Decision", "decision_order"]


class Decision(NamedTuple):
    """One seat to ask, with the actions it may take now."""

    seat: int
    legal: list[Action]
    in_turn: bool
    """The seat to act (it must choose); otherwise an out-of-turn chance it may let go."""


def decision_order(game: Game, asked: Callable[[int], bool] | None = None) -> list[Decision]:
    """The seats to ask now, in order; the first seat that takes an action acts.

    NM-37 gives a player who must call UNO the first chance to do so, before anyone may catch
    them. So: if the seat to act may call UNO, only it is asked (its call comes with its
    turn). Otherwise (1) the other seats that may call UNO, (2) the other seats' other
    out-of-turn actions (catches, classic jump-ins), each in seat order from the seat after
    the seat to act, then (3) the seat to act, which always ends the list.

    ``asked`` (optional) says which seats may be asked out of turn at all (a bot that never
    acts out of turn, a person away); the others are left out without computing their
    actions. The seat to act is always in the list. An empty list: the game is over.

    >>> from nomercy import new_game
    >>> [(d.seat, d.in_turn) for d in decision_order(new_game(3, seed=1))]
    [(0, True)]
    """
    turn = game.to_act
    if turn is None:
        return []
    legal = game.legal_actions(turn)
    mine = Decision(turn, legal, True)
    if not game.out_of_turn_possible():
        return [mine]
    for action in legal:
        if type(action) is CallUno:
            return [mine]
    n = game.n
    out = game.out
    callers: list[Decision] = []
    others: list[Decision] = []
    for k in range(1, n):
        seat = (turn + k) % n
        if out[seat] or (asked is not None and not asked(seat)):
            continue
        theirs = game.legal_actions(seat)
        if not theirs:
            continue
        if any(type(a) is CallUno for a in theirs):
            callers.append(Decision(seat, theirs, False))
        else:
            others.append(Decision(seat, theirs, False))
    return [*callers, *others, mine]
