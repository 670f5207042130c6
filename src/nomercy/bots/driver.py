"""Seat bots at a game and ask the right one for the next action.

The driver is the only part that touches the :class:`~nomercy.core.game.Game`: each bot gets
``game.view(seat)`` and ``game.legal_actions(seat)`` and nothing else. Seats that are not to
act are offered their out-of-turn actions (an UNO call or catch, NM-37; a classic jump-in,
C04) when their bot implements :class:`~nomercy.bots.base.OutOfTurnBot`; see
:func:`next_action` for the order.

The driver is lean, because simulations and tournaments run it millions of times:

- **Views on demand.** A bot may declare how much of the view it reads with a class attribute
  ``view_mode`` (see :data:`VIEW_MODES`): ``"full"`` (the default when the attribute is
  absent) gets ``game.view(seat)``, ``"no_history"`` gets ``game.view(seat, history=False)``
  (the same dict with an empty ``history``: the public event list is the expensive part), and
  ``"none"`` gets an empty dict because the bot never looks at it (``RandomBot``).
- **Out-of-turn actions only when they can exist.** A seat other than the one to act can
  only call UNO or catch when some seat holds one card without having called UNO (NM-37),
  and only jump in under the classic ``classic_jump_in`` option (C04); otherwise the other
  seats are not asked for their legal actions at all. Seats whose bot cannot act out of
  turn are never asked.
- **One setup per game.** :class:`Driver` checks the bots' capabilities once;
  :func:`next_action` and :func:`play_out` are thin wrappers over it.

These shortcuts change no decision: every bot is offered exactly the actions, in exactly
the order, that the plain loop (every seat's legal actions, a full view for every
decision) would offer, so the same bots and seeds play the same game
(``tests/arena/test_driver.py`` checks it against that plain loop).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from nomercy.bots.base import Bot
from nomercy.core.actions import Action, CallUno
from nomercy.core.events import Event
from nomercy.core.game import Game

__all__ = ["VIEW_MODES", "Driver", "Listener", "next_action", "play_out", "view_mode"]

#: Called after each action with the action and the events it produced.
Listener = Callable[[Action, list[Event]], None]

#: The values a bot's optional ``view_mode`` attribute may take, from most to least data.
VIEW_MODES: Final = ("full", "no_history", "none")


def view_mode(bot: Bot) -> str:
    """How much of the view ``bot`` reads: its ``view_mode`` attribute, ``"full"`` if absent.

    Raises:
        ValueError: the attribute is not one of :data:`VIEW_MODES`.
    """
    mode = getattr(bot, "view_mode", "full")
    if mode not in VIEW_MODES:
        raise ValueError(f"bot {bot.name!r} has view_mode {mode!r}; valid: {', '.join(VIEW_MODES)}")
    return str(mode)


class Driver:
    """The bots of one game, with their capabilities looked up once.

    >>> from nomercy import new_game
    >>> from nomercy.bots import make_bot
    >>> g = new_game(3, seed=4)
    >>> driver = Driver([make_bot("greedy", seed=s) for s in range(3)])
    >>> driver.play_out(g) == len(g.history) and g.is_over
    True

    Raises:
        ValueError: a bot declares an unknown ``view_mode``.
    """

    __slots__ = ("_modes", "_oot", "bots")

    def __init__(self, bots: Sequence[Bot]) -> None:
        self.bots = list(bots)
        self._modes = [view_mode(bot) for bot in self.bots]
        # What isinstance(bot, OutOfTurnBot) checks, without the Protocol machinery's cost.
        self._oot = [callable(getattr(bot, "choose_out_of_turn", None)) for bot in self.bots]

    def _view(self, game: Game, seat: int) -> dict[str, Any]:
        mode = self._modes[seat]
        if mode == "none":
            return {}
        return game.view(seat, history=mode == "full")

    def next_action(self, game: Game) -> Action:
        """The action the bots take next (the order is :func:`next_action`'s).

        Raises:
            ValueError: the game is over, or the number of bots is not the number of seats.
            RuntimeError: a bot returned an action that is not legal.
        """
        n = game.n
        bots = self.bots
        if len(bots) != n:
            raise ValueError(f"{len(bots)} bots for {n} seats")
        turn = game.to_act
        if turn is None:
            raise ValueError("the game is over")
        # NM-37: UNO calls and catches need a one-card hand without a call; C04: jump-ins.
        # Otherwise no seat but the one to act has an action, and nobody else is asked.
        if game.out_of_turn_possible():
            callers: list[tuple[int, list[Action]]] = []
            others: list[tuple[int, list[Action]]] = []
            oot = self._oot
            out = game.out
            for seat in [*range(turn, n), *range(turn)]:
                if out[seat] or (seat != turn and not oot[seat]):
                    continue  # a bot that cannot act out of turn is never offered anything
                legal = game.legal_actions(seat)
                if not legal:
                    continue
                if any(isinstance(a, CallUno) for a in legal):
                    if seat == turn:
                        bot = bots[seat]
                        return _checked(
                            bot, bot.choose_action(self._view(game, seat), legal), legal
                        )
                    callers.append((seat, legal))
                elif seat != turn:
                    others.append((seat, legal))
            for seat, legal in [*callers, *others]:
                bot = bots[seat]
                action = bot.choose_out_of_turn(self._view(game, seat), legal)  # type: ignore[attr-defined]
                if action is not None:
                    return _checked(bot, action, legal)
        legal = game.legal_actions(turn)
        bot = bots[turn]
        mode = self._modes[turn]
        view = {} if mode == "none" else game.view(turn, history=mode == "full")
        action = bot.choose_action(view, legal)
        for candidate in legal:  # the usual case: the very object from the legal list
            if candidate is action:
                return action
        return _checked(bot, action, legal)

    def play_out(
        self, game: Game, *, listener: Listener | None = None, max_actions: int = 100_000
    ) -> int:
        """Play ``game`` to the end; return the number of actions (see :func:`play_out`)."""
        count = 0
        step = self.next_action
        apply = game.apply
        while not game.is_over:
            if count >= max_actions:
                raise RuntimeError(f"the game did not end within {max_actions} actions")
            action = step(game)
            events = apply(action)
            count += 1
            if listener is not None:
                listener(action, events)
        return count


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
    return Driver(bots).next_action(game)


def _checked(bot: Bot, action: Action, legal: list[Action]) -> Action:
    for candidate in legal:  # the usual case: the very object from the legal list
        if candidate is action:
            return action
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
        ValueError: a bot declares an unknown ``view_mode``, or the bots do not fit the seats.
        RuntimeError: the game did not end within ``max_actions`` actions, or a bot chose an
            illegal action.
    """
    return Driver(bots).play_out(game, listener=listener, max_actions=max_actions)
