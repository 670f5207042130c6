"""Seat bots at a game and ask the right one for the next action.

The driver is the only part that touches the :class:`~nomercy.core.game.Game`: each bot gets
``game.view(seat)`` and ``game.legal_actions(seat)`` and nothing else. Seats that are not to
act are offered their out-of-turn actions (an UNO call or catch, NM-37; a classic jump-in,
C04) when their bot implements :class:`~nomercy.bots.base.OutOfTurnBot`; see
:func:`next_action` for the order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nomercy.bots.base import Bot, OutOfTurnBot
from nomercy.core.actions import Action, CallUno
from nomercy.core.events import Event
from nomercy.core.game import Game

__all__ = ["next_action", "play_out"]

#: Called after each action with the action and the events it produced.
Listener = Callable[[Action, list[Event]], None]


def next_action(game: Game, bots: Sequence[Bot]) -> Action:
    """The action the bots take next.

    The order gives a player who must call UNO (NM-37) the first chance to do so, before anyone
    may catch them: (1) every seat that may call UNO, from the seat to act onwards (the seat
    to act answers through ``choose_action``, the others through ``choose_out_of_turn``);
    (2) the other seats' out-of-turn actions (catches, classic jump-ins), in the same order;
    (3) the seat to act.

    Raises:
        ValueError: the game is over, or the number of bots is not the number of seats.
        RuntimeError: a bot returned an action that is not legal.
    """
    n = game.n
    if len(bots) != n:
        raise ValueError(f"{len(bots)} bots for {n} seats")
    turn = game.to_act
    if turn is None:
        raise ValueError("the game is over")
    callers: list[tuple[int, list[Action]]] = []
    others: list[tuple[int, list[Action]]] = []
    for seat in [*range(turn, n), *range(turn)]:
        legal = game.legal_actions(seat) if not game.out[seat] else []
        if not legal:
            continue
        if any(isinstance(a, CallUno) for a in legal):
            if seat == turn:
                bot = bots[seat]
                return _checked(bot, bot.choose_action(game.view(seat), legal), legal)
            callers.append((seat, legal))
        elif seat != turn:
            others.append((seat, legal))
    for seat, legal in [*callers, *others]:
        bot = bots[seat]
        if isinstance(bot, OutOfTurnBot):
            action = bot.choose_out_of_turn(game.view(seat), legal)
            if action is not None:
                return _checked(bot, action, legal)
    legal = game.legal_actions(turn)
    return _checked(bots[turn], bots[turn].choose_action(game.view(turn), legal), legal)


def _checked(bot: Bot, action: Action, legal: list[Action]) -> Action:
    if action not in legal:
        raise RuntimeError(f"bot {bot.name!r} chose {action!r}, which is not legal")
    return action


def play_out(
    game: Game,
    bots: Sequence[Bot],
    *,
    listener: Listener | None = None,
    max_actions: int = 100_000,
) -> int:
    """Play ``game`` to the end with ``bots`` (one per seat); return the number of actions.

    Raises:
        RuntimeError: the game did not end within ``max_actions`` actions, or a bot chose an
            illegal action.
    """
    count = 0
    while not game.is_over:
        if count >= max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
        action = next_action(game, bots)
        events = game.apply(action)
        count += 1
        if listener is not None:
            listener(action, events)
    return count
