"""Seat bots at a game and ask the right one for the next action.

The driver is the only part that touches the :class:`~nomercy.core.game.Game`: each bot gets
``game.view(seat)`` (a :class:`~nomercy.core.views.PlayerView`) and
``game.legal_actions(seat)`` and nothing else. Seats that are not to act are offered their
out-of-turn actions (an UNO call or catch, NM-37; a classic jump-in, C04) when their bot
implements :class:`~nomercy.bots.base.OutOfTurnBot`, in the engine's one order
(:func:`nomercy.core.decisions.decision_order`, which every interface uses).

The driver is lean, because simulations and tournaments run it millions of times:

- **Views on demand.** A bot may declare how much of the view it reads with a class attribute
  ``view_mode`` (see :data:`VIEW_MODES`): ``"full"`` (the default when the attribute is
  absent) gets ``game.view(seat)``, ``"no_history"`` gets ``game.view(seat, history=False)``
  (the same view with an empty ``history``: the public event list is the expensive part), and
  ``"none"`` gets ``None`` because the bot never looks at it (``RandomBot``).
- **Out-of-turn actions only when they can exist.** A seat other than the one to act can
  only call UNO or catch when some seat holds one card without having called UNO (NM-37),
  and only jump in under the classic ``classic_jump_in`` option (C04); otherwise the other
  seats are not asked for their legal actions at all. Seats whose bot cannot act out of
  turn are never asked.
- **One setup per game.** :class:`Driver` checks the bots' capabilities once;
  :func:`next_action` and :func:`play_out` are thin wrappers over it.

These shortcuts change no decision: every bot is offered exactly the actions, in exactly
the order, that the plain loop (``decision_order`` over every seat, a full view for every
decision) would offer, so the same bots and seeds play the same game
(``tests/arena/test_driver.py`` checks it against that plain loop).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, cast

from nomercy.bots.base import Bot
from nomercy.core.actions import Action
from nomercy.core.decisions import decision_order
from nomercy.core.events import Event
from nomercy.core.game import Game
from nomercy.core.views import PlayerView

__all__ = ["NO_VIEW", "VIEW_MODES", "Driver", "Listener", "next_action", "play_out", "view_mode"]

#: Called after each action with the action and the events it produced.
Listener = Callable[[Action, list[Event]], None]

#: The values a bot's optional ``view_mode`` attribute may take, from most to least data.
VIEW_MODES: Final = ("full", "no_history", "none")

#: What a ``view_mode="none"`` bot receives instead of a view: ``None`` (it promised never to
#: read one; typed as the protocol's view so the call type-checks).
NO_VIEW: Final = cast(PlayerView, None)


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

    def _view(self, game: Game, seat: int) -> PlayerView:
        mode = self._modes[seat]
        if mode == "none":
            return NO_VIEW
        return game.view(seat, history=mode == "full")

    def next_action(self, game: Game) -> Action:
        """The action the bots take next, asking seats in ``decision_order``'s order.

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
        if game.out_of_turn_possible():
            # A bot that cannot act out of turn is never offered anything (nor are its seat's
            # out-of-turn actions computed); the seat to act always ends the order.
            order = decision_order(game, self._oot.__getitem__)
            for decision in order[:-1]:
                bot = bots[decision.seat]
                view = self._view(game, decision.seat)
                action = bot.choose_out_of_turn(view, decision.legal)  # type: ignore[attr-defined]
                if action is not None:
                    return _checked(bot, action, decision.legal)
            legal = order[-1].legal
        else:
            # Nobody else has an action: decision_order is the seat to act alone (its first
            # case), so the hot loop skips building it.
            legal = game.legal_actions(turn)
        bot = bots[turn]
        mode = self._modes[turn]
        view = NO_VIEW if mode == "none" else game.view(turn, history=mode == "full")
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

    Seats are asked in :func:`nomercy.core.decisions.decision_order`'s order, which gives a
    player who must call UNO (NM-37) the first chance to do so, before anyone may catch
    them: the seat to act alone when it may call UNO (through ``choose_action``); otherwise
    (1) the other seats that may call UNO, (2) the other seats' out-of-turn actions
    (catches, classic jump-ins), each from the seat after the seat to act on, through
    ``choose_out_of_turn``, then (3) the seat to act, through ``choose_action``.

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
