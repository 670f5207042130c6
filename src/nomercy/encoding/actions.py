"""Stable integer ids for every action the engine can ask of a player (docs/rl.md).

One table serves both presets and every table of 2 to :data:`MAX_PLAYERS` seats. Seats inside
an action (a 7's swap target, NM-31; the seat caught not calling UNO, NM-37) are written
*relative to the actor*: offset ``k`` means the seat ``(actor + k) % n``, so an id means the
same thing whichever seat a policy plays. Layout (``ACTION_SPACE_VERSION`` 1):

====================  =========  ===============================================================
block                 ids        meaning
====================  =========  ===============================================================
draw                  0          ``draw``: draw per the rules, or take the pending penalty
pass                  1          ``pass``: keep a drawn card, or end a Discard All choice
colour                2-5        ``colour R/Y/G/B``: Roulette victim or deferred wild colour
challenge             6          ``challenge`` a classic Wild +4 (CL-8)
uno                   7          ``uno``: call UNO holding one card (NM-37)
catch                 8-12       ``catch`` the seat at offset 1..5
play                  13-240     ``play CARD …`` in card-code order (see below)
jump                  241-468    the same plays as a classic jump-in (C04)
====================  =========  ===============================================================

Inside the play block each card code (``nomercy.core.cards.ALL_CODES`` order: R0..RDA, Y…,
G…, B…, then WR+4, W+6, W+10, WCR, W, W+4) owns a run of ids, two per variant (without, then
with the UNO call folded in, NM-37):

- a coloured card other than a 7: 2 ids (no variants);
- a coloured 7: 12 ids, target none (a last card, or classic without C-option 7-0), then
  offsets 1..5;
- a wild: 10 ids, colour none (named later, or not at all on a last card), then R, Y, G, B.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.core.actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColour,
    Draw,
    Pass,
    Play,
)
from nomercy.core.cards import ALL_CODES, COLOURS, Card, Colour

__all__ = [
    "ACTION_SPACE_VERSION",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "ActionIdError",
    "action_mask",
    "action_name",
    "action_table",
    "action_table_markdown",
    "action_to_id",
    "id_to_action",
    "legal_ids",
]

#: Bumped whenever an id changes meaning; stored policies should check it.
ACTION_SPACE_VERSION: Final = 1
#: Most seats the table covers (relative offsets 1..5).
MAX_PLAYERS: Final = 6

DRAW_ID: Final = 0
PASS_ID: Final = 1
COLOUR_BASE: Final = 2
CHALLENGE_ID: Final = 6
UNO_ID: Final = 7
CATCH_BASE: Final = 8
PLAY_BASE: Final = CATCH_BASE + MAX_PLAYERS - 1  # 13

_COLOUR_SLOT: dict[Colour | None, int] = {None: 0, **{c: i + 1 for i, c in enumerate(COLOURS)}}
_COLOUR_INDEX: dict[Colour, int] = {c: i for i, c in enumerate(COLOURS)}


def _variant_count(card: Card) -> int:
    if card.is_wild:
        return 2 * (1 + len(COLOURS))
    if card.number == 7:
        return 2 * MAX_PLAYERS
    return 2


# Card -> first id of its run inside the play block (relative to PLAY_BASE).
_CARD_OFFSET: dict[Card, int] = {}
_offset = 0
for _code in ALL_CODES:
    _card = Card(_code)
    _CARD_OFFSET[_card] = _offset
    _offset += _variant_count(_card)
PLAY_COUNT: Final = _offset  # 228
JUMP_BASE: Final = PLAY_BASE + PLAY_COUNT  # 241
#: Size of the action space.
NUM_ACTIONS: Final = JUMP_BASE + PLAY_COUNT  # 469


class ActionIdError(ValueError):
    """An id that is out of range, or an action that has no id (e.g. a seat offset > 5)."""


# id -> (kind, card, colour, relative target, uno, jump) for the decoder.
_Template = tuple[str, Card | None, Colour | None, int | None, bool, bool]
_TEMPLATES: list[_Template] = [("draw", None, None, None, False, False)] * NUM_ACTIONS


def _build_templates() -> None:
    _TEMPLATES[DRAW_ID] = ("draw", None, None, None, False, False)
    _TEMPLATES[PASS_ID] = ("pass", None, None, None, False, False)
    for i, colour in enumerate(COLOURS):
        _TEMPLATES[COLOUR_BASE + i] = ("colour", None, colour, None, False, False)
    _TEMPLATES[CHALLENGE_ID] = ("challenge", None, None, None, False, False)
    _TEMPLATES[UNO_ID] = ("uno", None, None, None, False, False)
    for k in range(1, MAX_PLAYERS):
        _TEMPLATES[CATCH_BASE + k - 1] = ("catch", None, None, k, False, False)
    for jump, base in ((False, PLAY_BASE), (True, JUMP_BASE)):
        for card, offset in _CARD_OFFSET.items():
            start = base + offset
            if card.is_wild:
                for named, slot in _COLOUR_SLOT.items():
                    for uno in (False, True):
                        _TEMPLATES[start + 2 * slot + uno] = ("play", card, named, None, uno, jump)
            elif card.number == 7:
                for rel in range(MAX_PLAYERS):
                    for uno in (False, True):
                        target = rel if rel else None
                        _TEMPLATES[start + 2 * rel + uno] = ("play", card, None, target, uno, jump)
            else:
                for uno in (False, True):
                    _TEMPLATES[start + uno] = ("play", card, None, None, uno, jump)


_build_templates()


def _relative(target: int, seat: int, n: int, what: str) -> int:
    if not 0 <= target < n or target == seat:
        raise ActionIdError(f"{what} {target} is not another seat of a {n}-player table")
    return (target - seat) % n


def _check_table(seat: int, n: int) -> None:
    if not 2 <= n <= MAX_PLAYERS:
        raise ActionIdError(f"the action table covers 2-{MAX_PLAYERS} players, not {n}")
    if not 0 <= seat < n:
        raise ActionIdError(f"there is no seat {seat} in a {n}-player game")


def action_to_id(action: Action, seat: int, n: int) -> int:
    """The id of ``action`` taken by ``seat`` at an ``n``-player table.

    >>> from nomercy.core.actions import parse_action
    >>> action_to_id(parse_action("play R7 0", 2), 2, 4)
    31

    Raises:
        ActionIdError: the action is not ``seat``'s, the table is larger than 6 seats, or a
            seat inside the action is not another seat.
    """
    _check_table(seat, n)
    if action.seat != seat:
        raise ActionIdError(f"{action} is seat {action.seat}'s action, not seat {seat}'s")
    kind = type(action)
    if kind is Play:
        assert isinstance(action, Play)
        card = action.card
        offset = _CARD_OFFSET.get(card)
        if offset is None:
            raise ActionIdError(f"not a card: {card!r}")
        if card.is_wild:
            if action.target is not None:
                raise ActionIdError(f"a wild takes no target: {action}")
            slot = _COLOUR_SLOT[action.colour]
        elif card.number == 7:
            if action.colour is not None:
                raise ActionIdError(f"a coloured card takes no colour: {action}")
            slot = 0 if action.target is None else _relative(action.target, seat, n, "target")
        else:
            if action.colour is not None or action.target is not None:
                raise ActionIdError(f"{card.code} takes no colour or target: {action}")
            slot = 0
        return (JUMP_BASE if action.jump else PLAY_BASE) + offset + 2 * slot + action.uno
    if kind is Draw:
        return DRAW_ID
    if kind is Pass:
        return PASS_ID
    if kind is ChooseColour:
        assert isinstance(action, ChooseColour)
        return COLOUR_BASE + _COLOUR_INDEX[action.colour]
    if kind is Challenge:
        return CHALLENGE_ID
    if kind is CallUno:
        return UNO_ID
    if kind is Catch:
        assert isinstance(action, Catch)
        return CATCH_BASE + _relative(action.target, seat, n, "caught seat") - 1
    raise ActionIdError(f"not an action: {action!r}")


def id_to_action(action_id: int, seat: int, n: int) -> Action:
    """The action with id ``action_id`` taken by ``seat`` at an ``n``-player table.

    Raises:
        ActionIdError: the id is out of range, or names a seat offset the table lacks.
    """
    _check_table(seat, n)
    if isinstance(action_id, bool) or not 0 <= int(action_id) < NUM_ACTIONS:
        raise ActionIdError(f"action id {action_id!r} is outside 0..{NUM_ACTIONS - 1}")
    kind, card, colour, rel, uno, jump = _TEMPLATES[int(action_id)]
    if rel is not None and rel >= n:
        raise ActionIdError(
            f"action id {action_id} names seat offset {rel}, but a {n}-player table has 1..{n - 1}"
        )
    target = None if rel is None else (seat + rel) % n
    if kind == "play":
        assert card is not None
        return Play(seat, card, colour, target, uno, jump)
    if kind == "draw":
        return Draw(seat)
    if kind == "pass":
        return Pass(seat)
    if kind == "colour":
        assert colour is not None
        return ChooseColour(seat, colour)
    if kind == "challenge":
        return Challenge(seat)
    if kind == "uno":
        return CallUno(seat)
    assert target is not None
    return Catch(seat, target)


# Per table size: id(action) -> (action, its id). The engine reuses one object per action
# (its action cache), so this turns the id computation into one dict hit; holding the action
# in the value keeps it alive, so its id() cannot be reused by another object meanwhile.
_FAST: dict[int, dict[int, tuple[Action, int]]] = {n: {} for n in range(2, MAX_PLAYERS + 1)}
_FAST_LIMIT = 100_000


def fast_id(action: Action, n: int) -> int:
    """:func:`action_to_id` for the action's own seat, memoised on the action object."""
    cache = _FAST[n]
    hit = cache.get(id(action))
    if hit is not None and hit[0] is action:
        return hit[1]
    value = action_to_id(action, action.seat, n)
    if len(cache) >= _FAST_LIMIT:  # user-made actions could otherwise grow it for ever
        cache.clear()
    cache[id(action)] = (action, value)
    return value


def fast_ids(legal: Iterable[Action], n: int) -> dict[int, Action]:
    """:func:`fast_id` of each action (each for its own seat) mapped to the action."""
    cache = _FAST[n]
    ids: dict[int, Action] = {}
    for action in legal:
        hit = cache.get(id(action))  # fast_id inlined: once per legal action of every step
        ids[hit[1] if hit is not None and hit[0] is action else fast_id(action, n)] = action
    return ids


def legal_ids(legal: Iterable[Action], seat: int, n: int) -> dict[int, Action]:
    """Map each id in ``legal`` (e.g. ``game.legal_actions(seat)``) to its action."""
    _check_table(seat, n)
    out: dict[int, Action] = {}
    for a in legal:
        if a.seat != seat:
            raise ActionIdError(f"{a} is seat {a.seat}'s action, not seat {seat}'s")
        out[fast_id(a, n)] = a
    return out


def action_mask(legal: Iterable[Action], seat: int, n: int) -> npt.NDArray[np.int8]:
    """A 0/1 ``int8`` vector of length :data:`NUM_ACTIONS`: 1 where the id is legal."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    ids = list(legal_ids(legal, seat, n))
    if ids:
        mask[ids] = 1
    return mask


def action_name(action_id: int) -> str:
    """A seat-independent name for an id: ``"play R7 +2 uno"`` (offsets written ``+k``)."""
    if isinstance(action_id, bool) or not 0 <= int(action_id) < NUM_ACTIONS:
        raise ActionIdError(f"action id {action_id!r} is outside 0..{NUM_ACTIONS - 1}")
    kind, card, colour, rel, uno, jump = _TEMPLATES[int(action_id)]
    if kind == "play":
        assert card is not None
        parts = ["jump-in" if jump else "play", card.code]
        if colour is not None:
            parts.append(colour.value)
        if rel is not None:
            parts.append(f"+{rel}")
        if uno:
            parts.append("uno")
        return " ".join(parts)
    if kind == "colour":
        assert colour is not None
        return f"colour {colour.value}"
    if kind == "catch":
        return f"catch +{rel}"
    return kind


def action_table() -> list[tuple[int, int, str]]:
    """Runs of ids as ``(first, last, description)`` rows, for docs/rl.md."""
    rows: list[tuple[int, int, str]] = [
        (DRAW_ID, DRAW_ID, "draw"),
        (PASS_ID, PASS_ID, "pass"),
        (COLOUR_BASE, COLOUR_BASE + 3, "colour R, Y, G, B"),
        (CHALLENGE_ID, CHALLENGE_ID, "challenge"),
        (UNO_ID, UNO_ID, "uno (call UNO)"),
        (CATCH_BASE, CATCH_BASE + MAX_PLAYERS - 2, "catch +1 .. +5"),
    ]
    for jump, base in ((False, PLAY_BASE), (True, JUMP_BASE)):
        verb = "jump-in" if jump else "play"
        for card, offset in _CARD_OFFSET.items():
            first = base + offset
            last = first + _variant_count(card) - 1
            if card.is_wild:
                what = "colour none, R, Y, G, B"
            elif card.number == 7:
                what = "target none, +1 .. +5"
            else:
                what = "no variants"
            rows.append((first, last, f"{verb} {card.code} ({what}; each without, then with uno)"))
    return rows


def action_table_markdown(rows: Sequence[tuple[int, int, str]] | None = None) -> str:
    """The id table as a Markdown table (the block between the markers in docs/rl.md)."""
    lines = ["| ids | action |", "| --- | --- |"]
    for first, last, text in rows if rows is not None else action_table():
        ids = str(first) if first == last else f"{first}-{last}"
        lines.append(f"| {ids} | {text} |")
    return "\n".join(lines) + "\n"
