"""Why an action is illegal: the message and the rule it breaks (for IllegalActionError).

Only the error path reads this; legality itself is decided once, in ``legality``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from nomercy.core.actions import Action, CallUno, Catch, Challenge, ChooseColour, Draw, Pass, Play
from nomercy.core.base import (
    CHOOSE_COLOUR,
    DISCARD_ALL_SUBSET,
    DISCARD_ALL_TOP,
    OVER,
    PLAY,
    PLAY_DRAWN,
    ROULETTE_COLOUR,
    STACK_OR_ABSORB,
)
from nomercy.core.ids import id_action
from nomercy.core.legality import is_playable, variants, wild_draw_allowed

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = ["diagnose"]


def diagnose(g: Game, action: Action) -> tuple[str, str]:  # noqa: C901 (measured in tests/test_complexity.py)
    """Why an action is illegal: (message, rule id)."""
    seat = action.seat
    who = g.names[seat]
    if g.phase is OVER:
        return "the game is over", "NM-38"
    if g.out[seat]:
        return f"{who} is knocked out and takes no further part", "NM-34"
    hand = g.hand_of(seat)
    if isinstance(action, CallUno):
        if g.uno_called[seat]:
            return f"{who} has already called UNO", "NM-37"
        return f"{who} holds {len(hand)} cards; UNO is called with exactly one", "NM-37"
    if isinstance(action, Catch):
        t = action.target
        if not 0 <= t < g.n or t == seat:
            return f"{who} cannot catch seat {t}", "NM-37"
        if len(g.hand_ids[t]) != 1 or g.uno_called[t]:
            return f"{g.names[t]} does not hold one uncalled card", "NM-37"
        return f"the window to catch {g.names[t]} has closed", "NM-37"
    turn = g.turn
    assert turn is not None
    if seat != turn:
        if isinstance(action, Play) and g.rules.classic_jump_in:
            return f"{who} may only jump in with a card identical to the top card", "C04"
        return f"it is {g.names[turn]}'s turn, not {who}'s", "NM-7"
    phase = g.phase
    if phase in (ROULETTE_COLOUR, CHOOSE_COLOUR):
        rule = "NM-30" if phase is ROULETTE_COLOUR else "CL-3"
        return (
            f"{who} must name a colour first: 'colour R', 'colour Y', 'colour G' or 'colour B'",
            rule,
        )
    if isinstance(action, ChooseColour):
        return (
            "no colour is to be named now; a wild's colour goes with the play ('play W+6 G')",
            "NM-14",
        )
    if isinstance(action, Challenge):
        return "there is no Wild +4 to challenge", "CL-8"
    if isinstance(action, Pass):
        if phase is PLAY_DRAWN:
            return "the drawn card must be played", "NM-9"
        return "passing is not allowed: play a card or draw", "NM-8"
    if isinstance(action, Draw):
        if phase is PLAY_DRAWN:
            return f"{who} has drawn and must now play the drawn card", "NM-9"
        if phase is STACK_OR_ABSORB:
            return "stacking is mandatory with a legal Draw Card in hand", "A06"
        if phase in (DISCARD_ALL_TOP, DISCARD_ALL_SUBSET):
            return "finish the Discard All first (play a card of its colour, or pass)", "A09"
        return f"{who} holds a playable card and must play", "NM-8"
    assert isinstance(action, Play)
    card = action.card
    if card not in hand:
        return f"{who} does not hold {card.code}", "NM-7"
    if phase is PLAY_DRAWN and card is not g.drawn:
        assert g.drawn is not None
        return f"only the drawn card {g.drawn.code} may be played", "NM-9"
    if phase is STACK_OR_ABSORB:
        if not g.rules.facts.can_stack:
            return "no stacking in classic: take the penalty with 'draw'", "CL-7"
        if not card.draw_value:
            return f"only a Draw Card may answer a pending penalty, not {card.name}", "NM-19"
        if g.pending_win is not None:
            return "a last-card penalty cannot be stacked", "A17"
        threshold = g.rules.facts.stack_floor(g.pending_total, g.pending_last)
        if card.draw_value < threshold:
            return (
                f"{card.name} (+{card.draw_value}) is below the last card's +{threshold}",
                "NM-18",
            )
        if g.rules.stack_requires_match:
            return f"{card.name} must match the colour or symbol to stack", "A05"
    elif phase is PLAY:
        if not is_playable(g, card):
            colour = g.colour.word if g.colour else "none"
            return (
                f"{card.name} matches neither the top card {g.top.name} nor the "
                f"active colour ({colour})",
                "CL-4" if g.classic else "NM-12",
            )
        if not wild_draw_allowed(g, seat, card):
            return (
                f"{card.name} may not be played while holding the active colour",
                "CL-4" if g.classic else "A34",
            )
    n = g.n
    options = [cast(Play, id_action(i, seat, n)) for i in variants(g, seat, card)]
    if any(a.colour is not None for a in options) and action.colour is None:
        return f"{card.name} needs a colour: 'play {card.code} G'", "NM-14"
    if action.colour is not None and all(a.colour is None for a in options):
        return f"{card.name} takes no colour", "NM-14"
    if any(a.target is not None for a in options):
        valid = sorted({a.target for a in options if a.target is not None})
        if action.target is None:
            return f"a 7 needs a target seat: 'play {card.code} {valid[0]}'", "NM-31"
        if action.target not in valid:
            return (
                f"seat {action.target} is not an active opponent to swap with "
                f"(choose from {valid})",
                "NM-31",
            )
    elif action.target is not None:
        return f"{card.name} takes no target seat", "NM-31"
    if action.uno:
        return "UNO is called with the play only when it leaves one card", "NM-37"
    return f"{action} is not legal now", "NM-7"
