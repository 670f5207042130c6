"""Determinization: a full game consistent with everything one seat has seen.

Information-set search (:mod:`nomercy.bots.ismcts_bot`) needs concrete games to play forward.
The rules knowledge lives in the core (:mod:`nomercy.core.redeal`): :meth:`Game.from_view`
builds a game from a seat's view alone and :meth:`Game.redealer` deals the cards the seat
has not seen into the places it cannot see, keeping its hand, every hand size, the cards it
knows others hold, the colours they publicly showed they lack, the public piles and
bookkeeping, and a classic Wild +4's ``guilty`` flag consistent with the sampled hand.

This module is the view-level convenience on top: :func:`sample_game` and
:func:`sample_position` take a view (and optionally its :class:`Knowledge`). Nothing but the
view is read, so a determinization never uses hidden state.
"""

from __future__ import annotations

import random
from typing import Any

from nomercy.bots.knowledge import Knowledge
from nomercy.core.errors import NotationError
from nomercy.core.game import Game
from nomercy.core.redeal import Gaps, Redealer

__all__ = ["redealer_for", "sample_game", "sample_position"]


def redealer_for(view: dict[str, Any], knowledge: Knowledge | None = None) -> Redealer:
    """The core :class:`~nomercy.core.redeal.Redealer` of ``view``'s seat, from the view alone.

    Args:
        view: ``Game.view(seat)`` of a seat (not a spectator), with its history unless
            ``knowledge`` is given.
        knowledge: :func:`~nomercy.bots.knowledge.read_view` of the same view; its colour
            gaps are used instead of reading the history again.

    Raises:
        ValueError: a spectator view, or a view whose card counts do not add up.
    """
    seat = view["seat"]
    if seat is None:
        raise ValueError("a determinization needs a seat's view, not a spectator's")
    try:
        game = Game.from_view(view)
    except NotationError as exc:
        raise ValueError(str(exc)) from None
    gaps = None
    if knowledge is not None:
        gaps = Gaps(knowledge.lacks, knowledge.lacks_wild, knowledge.colour)
    return Redealer(game, seat, gaps)


def sample_game(
    view: dict[str, Any], rng: random.Random, knowledge: Knowledge | None = None
) -> Game:
    """A game consistent with ``view``, with the hidden cards dealt at random.

    For many samples of one view, build :func:`redealer_for` once and call its ``sample``.

    Raises:
        ValueError: a spectator view, or a view whose card counts do not add up.
    """
    return redealer_for(view, knowledge).sample(rng)


def sample_position(
    view: dict[str, Any], rng: random.Random, knowledge: Knowledge | None = None
) -> dict[str, Any]:
    """:func:`sample_game` as a position (``Game.to_position()``); same arguments."""
    return sample_game(view, rng, knowledge).to_position()
