"""Whole games between bots that pick by ids, played inside compiled code (the simulator's).

:func:`play_ids` is the loop :func:`nomercy.arena.runner.play_game` runs when every seat's
bot picks among the legal ids and none acts out of turn (``random``): the seat to act picks
from :meth:`Game.legal_ids <nomercy.core.game.Game.legal_ids>` and the game steps that id,
until the game is over. It is compiled with the engine as a companion of the core's build
(``nomercy.core.COMPANION_FILES``, ``python -m nomercy.core.build``), so the loop and its
calls into the engine are native code, not the interpreter's; the pure build runs the same
source.

It holds no policy: each seat's chooser is its bot's own (``RandomBot.id_chooser``, the
generator's :class:`~nomercy.core.dealing.RandomChoice`), called once per decision with the
legal ids, so the same seeds make the same choices and play the same games as the loop in
Python did (``tests/arena/test_fastplay.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from nomercy.core.base import OVER

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = ["play_ids"]


def play_ids(game: Game, choosers: list[Callable[[list[int]], int]], limit: int) -> bool:
    """Play ``game`` on, the seat to act stepping ``choosers[seat](game.legal_ids())``, until
    it is over or ``limit`` actions were applied; whether it is over.

    Raises:
        IllegalActionError: a chooser returned an id that is not legal (the game is unchanged
            by that step).
    """
    for _k in range(limit):  # not ``_``: typed Any, it would box the counter
        turn = game.turn
        if game.phase is OVER or turn is None:
            return True
        game.step(choosers[turn](game.legal_ids()))
    return game.phase is OVER
