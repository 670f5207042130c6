"""Names the rules engine's modules share: the phases, card kinds as constants, the engine's
own error and the checks of seats and deals.

``game``, ``legality``, ``dealing``, ``diagnose``, ``positions``, ``views`` and ``redeal``
import these from here, so no module imports another's private names and only ``game``
imports the modules that work on a game (they receive it as an argument).
"""

from __future__ import annotations

from enum import StrEnum, unique
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from nomercy.core.cards import Colour, Kind
from nomercy.core.errors import NoMercyError, RuleSetError
from nomercy.core.rules import RuleSet

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = ["EngineError", "Phase", "Wd4", "check_deal", "seat_arg"]


class EngineError(NoMercyError):
    """The game cannot go on (A13 ``exhaustion_fallback="raise"``); the game is unchanged."""


class Wd4(NamedTuple):
    """A classic Wild +4 awaiting a challenge (CL-8), as the engine keeps it (``Game.wd4``).

    Whether the play was honest is hidden until challenged: a view shows ``seat`` and
    ``colour`` only (``PlayerView.wd4_play``).
    """

    seat: int
    """The seat that played the Wild +4 (the one a challenge accuses)."""
    guilty: bool
    """Whether that seat held a card of ``colour`` when it played (CL-8)."""
    colour: Colour | None
    """The active colour it was played on."""

    def to_json(self) -> dict[str, Any]:
        """The position format's ``"wd4"`` (docs/notation.md): colour as its letter."""
        colour = self.colour
        return {
            "seat": self.seat,
            "guilty": self.guilty,
            "colour": colour.value if colour else None,
        }


@unique
class Phase(StrEnum):
    """The decision the game waits for (RULES.md §K)."""

    PLAY = "play"
    """The seat to act plays a card or draws (NM-8, NM-9)."""
    STACK_OR_ABSORB = "stack_or_absorb"
    """A penalty is pending: stack a Draw Card or take it (NM-17, NM-18); classic: challenge."""
    PLAY_DRAWN = "play_drawn"
    """After drawing, the drawn card may (or must) be played (NM-9, CL-5)."""
    CHOOSE_COLOUR = "choose_colour"
    """Name a colour: the classic opening Wild (CL-3), or a wild whose stack resolved (A18)."""
    ROULETTE_COLOUR = "roulette_colour"
    """The Roulette victim names the colour to reveal (NM-30)."""
    DISCARD_ALL_TOP = "discard_all_top"
    """A09 ``choose_top_and_fire``: choose which same-colour card goes on top, or pass."""
    DISCARD_ALL_SUBSET = "discard_all_subset"
    """A09 ``optional_subset``: discard same-colour cards one by one, then pass."""
    OVER = "over"
    """The game is over."""


# Enum members bound to module names: attribute access on an enum class is slow in the
# hot paths (about 0.1 us each). Final: compiled, a module constant is a static, not a
# lookup in the module's dict.
CHOOSE_COLOUR: Final = Phase.CHOOSE_COLOUR
DISCARD_ALL_SUBSET: Final = Phase.DISCARD_ALL_SUBSET
DISCARD_ALL_TOP: Final = Phase.DISCARD_ALL_TOP
OVER: Final = Phase.OVER
PLAY: Final = Phase.PLAY
PLAY_DRAWN: Final = Phase.PLAY_DRAWN
ROULETTE_COLOUR: Final = Phase.ROULETTE_COLOUR
STACK_OR_ABSORB: Final = Phase.STACK_OR_ABSORB
K_DISCARD_ALL: Final = Kind.DISCARD_ALL
K_DRAW_FOUR: Final = Kind.DRAW_FOUR
K_DRAW_TWO: Final = Kind.DRAW_TWO
K_NUMBER: Final = Kind.NUMBER
K_REVERSE: Final = Kind.REVERSE
K_SKIP: Final = Kind.SKIP
K_SKIP_EVERYONE: Final = Kind.SKIP_EVERYONE
K_WILD: Final = Kind.WILD
K_WILD_COLOUR_ROULETTE: Final = Kind.WILD_COLOUR_ROULETTE
K_WILD_DRAW_FOUR: Final = Kind.WILD_DRAW_FOUR
K_WILD_REVERSE_DRAW_FOUR: Final = Kind.WILD_REVERSE_DRAW_FOUR
PLAYING_PHASES: Final = (PLAY_DRAWN, DISCARD_ALL_TOP, DISCARD_ALL_SUBSET)
"""Phases in which the seat to act is still completing a play (UNO windows stay open)."""


def seat_arg(game: Game, seat: object) -> int:
    """``seat`` if it is a seat of ``game``, else a :class:`NoMercyError`."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.n:
        raise NoMercyError(f"there is no seat {seat!r} in a {game.n}-player game")
    return seat


def check_deal(rules: RuleSet) -> None:
    """NM-2 / NM-33: a deal must leave every player under the Mercy limit."""
    limit = rules.facts.mercy_limit
    if limit and rules.hand_size >= limit:
        raise RuleSetError(
            f"hand_size {rules.hand_size} would deal every player at or over mercy_threshold "
            f"{limit}: the hand size must be below it (NM-2, NM-33)"
        )
