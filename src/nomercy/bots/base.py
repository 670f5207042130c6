"""The bot protocol: a bot chooses one action from a seat's view and its legal actions.

A bot sees only what its seat may see: the :class:`~nomercy.core.views.PlayerView` from
``Game.view(seat)`` and the list from ``Game.legal_actions(seat)`` (docs/contributing.md: one
projection for hidden information). It never receives the :class:`~nomercy.core.game.Game`.
Randomness comes from a private ``random.Random(seed)`` owned by the bot, never from the
global ``random`` module.

The view is typed and frozen: its own hand (``view.hand``, :class:`~nomercy.core.cards.Card`
objects), every seat's public facts (``view.players[s].hand_size``, ``.out``, ``.uno``,
``.mercy_distance``), the pile (``view.top``, ``view.colour``, ``view.discard``), the
pending stack (``view.pending.total``), the public history (``view.history``, events whose
``kind`` is an :class:`~nomercy.core.events.EventKind`), and facts the engine derives so
that no bot restates a rule: ``view.two_player``, ``view.next_seat``,
``view.seat_after(seat, direction)``, ``view.stack_floor``, ``view.wd4_play``,
``view.penalty_target(card)``, ``view.seat_after_play(card)``, ``view.zero_pass_giver()``,
``view.cards_shed(card)``.

A bot may also set a class attribute ``view_mode``: ``"full"`` (assumed when absent),
``"no_history"`` (the view without its public event history, which is the expensive part) or
``"none"`` (the bot never reads the view and receives ``None`` instead of one). The driver
builds only what the bot reads (:mod:`nomercy.bots.driver`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from nomercy.core.actions import Action
from nomercy.core.views import PlayerView

__all__ = ["Bot", "OutOfTurnBot"]


@runtime_checkable
class Bot(Protocol):
    """Anything that picks an action for the seat to act.

    Attributes:
        name: the registry name (``"random"``, ``"greedy"``), shown in logs and the CLI.
    """

    name: str

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """Return one element of ``legal`` (never empty) for the seat described by ``view``.

        ``view`` is ``None`` for a bot whose ``view_mode`` is ``"none"``.
        """
        ...


@runtime_checkable
class OutOfTurnBot(Bot, Protocol):
    """A bot that may also act out of turn: call UNO or catch (NM-37, EX-24), or jump in (C04).

    A driver offers these actions to seats that are not to act, in the engine's order
    (:func:`nomercy.core.decisions.decision_order`); the bot may let them go.
    """

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        """Return one element of ``legal`` to act now, or ``None`` to let the chance go."""
        ...
