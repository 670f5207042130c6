"""The bot protocol: a bot chooses one action from a seat's view and its legal actions.

A bot sees only what its seat may see: the JSON-serialisable dict from ``Game.view(seat)``
and the list from ``Game.legal_actions(seat)`` (STYLE.md habit 8, one projection for hidden
information). It never receives the :class:`~nomercy.core.game.Game`. Randomness comes from a
private ``random.Random(seed)`` owned by the bot, never from the global ``random`` module.

A bot may also set a class attribute ``view_mode``: ``"full"`` (assumed when absent),
``"no_history"`` (the view without its public event history, which is the expensive part) or
``"none"`` (the bot never reads the view and gets an empty dict). The driver builds only what
the bot reads (:mod:`nomercy.bots.driver`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from nomercy.core.actions import Action

__all__ = ["Bot", "OutOfTurnBot"]


@runtime_checkable
class Bot(Protocol):
    """Anything that picks an action for the seat to act.

    Attributes:
        name: the registry name (``"random"``, ``"greedy"``), shown in logs and the CLI.
    """

    name: str

    def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """Return one element of ``legal`` (never empty) for the seat described by ``view``."""
        ...


@runtime_checkable
class OutOfTurnBot(Bot, Protocol):
    """A bot that may also act out of turn: call UNO or catch (NM-37, EX-24), or jump in (C04).

    A driver offers these actions to every seat that is not to act; the bot may let them go.
    """

    def choose_out_of_turn(self, view: dict[str, Any], legal: list[Action]) -> Action | None:
        """Return one element of ``legal`` to act now, or ``None`` to let the chance go."""
        ...
