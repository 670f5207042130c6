"""Stable integer ids for every action: the engine's id path (``Game.legal_ids``, ``Game.step``).

One table serves both presets and every table size. Seats inside an action (a 7's swap target,
NM-31; the seat caught not calling UNO, NM-37) are written *relative to the actor*: offset
``k`` means the seat ``(actor + k) % n``, so an id means the same thing whichever seat plays.

Ids ``0 .. NUM_ACTIONS - 1`` (469) are the stable table of docs/rl.md
(``ACTION_SPACE_VERSION`` 1), which covers tables of 2 to :data:`MAX_PLAYERS` (6) seats:

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

Inside the play block each card code (``ALL_CODES`` order: R0..RDA, Y…, G…, B…, then WR+4,
W+6, W+10, WCR, W, W+4) owns a run of ids, two per variant (without, then with the UNO call
folded in, NM-37):

- a coloured card other than a 7: 2 ids (no variants);
- a coloured 7: 12 ids, target none (a last card, or classic without C-option 7-0), then
  offsets 1..5;
- a wild: 10 ids, colour none (named later, or not at all on a last card), then R, Y, G, B.

Classic tables of 7 to :data:`MAX_SEATS` (10) seats (A30) need offsets 6..9, which the stable
table lacks; the engine gives them the ids after it, so every action of every table has one id
(:data:`NUM_IDS` in all): ``catch`` offsets 6..9 (469-472), then the coloured 7s' swaps with
offsets 6..9, play then jump-in, colour by colour, offset by offset, without then with UNO
(473-536). Policies and observations use the stable table only: a policy imports the ids
from :mod:`nomercy.encoding.actions` (the constants, masks and checked conversions).
"""

from __future__ import annotations

from typing import Final

from nomercy.core.actions import Action, CallUno, Catch, Challenge, ChooseColour, Draw, Pass, Play
from nomercy.core.cards import ALL_CODES, COLOURS, Card, Colour
from nomercy.core.errors import ActionIdError

__all__ = [
    "ACTION_SPACE_VERSION",
    "CATCH_BASE",
    "CHALLENGE_ID",
    "COLOUR_BASE",
    "DRAW_ID",
    "JUMP_BASE",
    "MAX_PLAYERS",
    "MAX_SEATS",
    "NUM_ACTIONS",
    "NUM_IDS",
    "PASS_ID",
    "PLAY_BASE",
    "PLAY_COUNT",
    "UNO_ID",
    "action_id",
    "catch_id",
    "has_id",
    "id_action",
    "id_name",
    "play_id",
    "seat_table",
    "variant_count",
]

#: Bumped whenever an id of the stable table changes meaning; stored policies check it.
ACTION_SPACE_VERSION: Final = 1
#: Most seats the stable table covers (relative offsets 1..5).
MAX_PLAYERS: Final = 6
#: Most seats any table has (A30); the ids beyond the stable table cover offsets 6..9.
MAX_SEATS: Final = 10

DRAW_ID: Final = 0
PASS_ID: Final = 1
COLOUR_BASE: Final = 2
CHALLENGE_ID: Final = 6
UNO_ID: Final = 7
CATCH_BASE: Final = 8
PLAY_BASE: Final = 13  # CATCH_BASE + MAX_PLAYERS - 1

# Kinds of an id (ID_KIND), small ints for the engine's dispatch.
K_DRAW: Final = 0
K_PASS: Final = 1
K_COLOUR: Final = 2
K_CHALLENGE: Final = 3
K_UNO: Final = 4
K_CATCH: Final = 5
K_PLAY: Final = 6


def variant_count(card: Card) -> int:
    """How many ids a card owns in a play block (two per variant: without, then with UNO)."""
    if card.is_wild:
        return 2 * (1 + len(COLOURS))
    if card.number == 7:
        return 2 * MAX_PLAYERS
    return 2


def _offsets() -> tuple[list[int], int]:
    offsets: list[int] = []
    total = 0
    for code in ALL_CODES:
        card = Card(code)
        offsets.append(total)
        total += variant_count(card)
    return offsets, total


_OFFSETS, _PLAY_COUNT = _offsets()
#: Card.index -> first id of the card's run, relative to the block's base.
CARD_OFFSET: Final[tuple[int, ...]] = tuple(_OFFSETS)
PLAY_COUNT: Final = 228
JUMP_BASE: Final = PLAY_BASE + PLAY_COUNT  # 241
#: Size of the stable action space (docs/rl.md).
NUM_ACTIONS: Final = JUMP_BASE + PLAY_COUNT  # 469
CATCH_EXT_BASE: Final = NUM_ACTIONS  # catch offsets 6..9
SEVEN_EXT_BASE: Final = CATCH_EXT_BASE + MAX_SEATS - MAX_PLAYERS  # 473
_EXT_OFFSETS: Final = MAX_SEATS - MAX_PLAYERS  # 4 offsets: 6..9
#: Every id the engine uses, for tables of up to 10 seats.
NUM_IDS: Final = SEVEN_EXT_BASE + 2 * len(COLOURS) * _EXT_OFFSETS * 2  # 537
assert _PLAY_COUNT == PLAY_COUNT

_COLOUR_INDEX: Final[dict[Colour, int]] = {c: i for i, c in enumerate(COLOURS)}


def _tables() -> tuple[
    list[int], list[Card | None], list[Colour | None], list[int], list[bool], list[bool]
]:
    kind = [K_DRAW] * NUM_IDS
    card: list[Card | None] = [None] * NUM_IDS
    colour: list[Colour | None] = [None] * NUM_IDS
    rel = [0] * NUM_IDS
    uno = [False] * NUM_IDS
    jump = [False] * NUM_IDS
    kind[PASS_ID] = K_PASS
    for i, c in enumerate(COLOURS):
        kind[COLOUR_BASE + i] = K_COLOUR
        colour[COLOUR_BASE + i] = c
    kind[CHALLENGE_ID] = K_CHALLENGE
    kind[UNO_ID] = K_UNO
    for k in range(1, MAX_SEATS):
        i = CATCH_BASE + k - 1 if k < MAX_PLAYERS else CATCH_EXT_BASE + k - MAX_PLAYERS
        kind[i] = K_CATCH
        rel[i] = k
    for is_jump, base in ((False, PLAY_BASE), (True, JUMP_BASE)):
        for code in ALL_CODES:
            cd = Card(code)
            start = base + CARD_OFFSET[cd.index]
            for i in range(start, start + variant_count(cd)):
                kind[i] = K_PLAY
                card[i] = cd
                jump[i] = is_jump
                uno[i] = bool((i - start) & 1)
                slot = (i - start) >> 1
                if cd.is_wild:
                    colour[i] = COLOURS[slot - 1] if slot else None
                elif cd.number == 7:
                    rel[i] = slot
    for i in range(SEVEN_EXT_BASE, NUM_IDS):
        j = i - SEVEN_EXT_BASE
        uno[i] = bool(j & 1)
        j >>= 1
        rel[i] = MAX_PLAYERS + j % _EXT_OFFSETS
        j //= _EXT_OFFSETS
        card[i] = Card(COLOURS[j % len(COLOURS)].value + "7")
        jump[i] = j >= len(COLOURS)
        kind[i] = K_PLAY
    return kind, card, colour, rel, uno, jump


_KIND, _CARD, _COLOUR, _REL, _UNO, _JUMP = _tables()
#: Per id: its kind (``K_*``), card, named colour, seat offset (0: none), UNO call, jump-in.
ID_KIND: Final[tuple[int, ...]] = tuple(_KIND)
ID_CARD: Final[tuple[Card | None, ...]] = tuple(_CARD)
ID_COLOUR: Final[tuple[Colour | None, ...]] = tuple(_COLOUR)
ID_REL: Final[tuple[int, ...]] = tuple(_REL)
ID_UNO: Final[tuple[bool, ...]] = tuple(_UNO)
ID_JUMP: Final[tuple[bool, ...]] = tuple(_JUMP)


def play_id(card: Card, colour: Colour | None, rel: int, uno: bool, jump: bool) -> int:
    """The id of playing ``card`` (the engine's variants: a valid combination only).

    ``rel`` is the 7's target as an offset from the player (0: none); ``colour`` a wild's
    named colour (``None``: none).
    """
    if rel >= MAX_PLAYERS:  # a 7 at a table of 7+ seats
        c_i = _COLOUR_INDEX[card.colour] if card.colour is not None else 0
        slot = ((jump * len(COLOURS) + c_i) * _EXT_OFFSETS + rel - MAX_PLAYERS) * 2
        return SEVEN_EXT_BASE + slot + uno
    base = JUMP_BASE if jump else PLAY_BASE
    if colour is not None:
        rel = _COLOUR_INDEX[colour] + 1
    return base + CARD_OFFSET[card.index] + 2 * rel + uno


def catch_id(rel: int) -> int:
    """The id of catching the seat at offset ``rel`` (1..9)."""
    return CATCH_BASE + rel - 1 if rel < MAX_PLAYERS else CATCH_EXT_BASE + rel - MAX_PLAYERS


def _relative(target: object, seat: int, n: int, what: str) -> int:
    if not isinstance(target, int) or not 0 <= target < n or target == seat:
        raise ActionIdError(f"{what} {target!r} is not another seat of a {n}-player table")
    return (target - seat) % n


def action_id(action: Action, n: int) -> int:
    """The id of ``action`` (taken by its own seat) at an ``n``-seat table (2..10).

    Raises:
        ActionIdError: the action has no id: a colour on a card that names none, a target on
            a card other than a 7, a seat that is not another seat of the table.
    """
    seat = action.seat
    kind = type(action)
    if kind is Play:
        assert isinstance(action, Play)
        card = action.card
        if not isinstance(card, Card):
            raise ActionIdError(f"not a card: {card!r}")
        colour = action.colour
        if colour is not None and (not card.is_wild or not isinstance(colour, Colour)):
            raise ActionIdError(f"{card.code} takes no colour {colour!r}: {action}")
        target = action.target
        rel = 0
        if target is not None:
            if card.number != 7:
                raise ActionIdError(f"{card.code} takes no target: {action}")
            rel = _relative(target, seat, n, "target")
        return play_id(card, colour, rel, bool(action.uno), bool(action.jump))
    if kind is Draw:
        return DRAW_ID
    if kind is Pass:
        return PASS_ID
    if kind is ChooseColour:
        assert isinstance(action, ChooseColour)
        index = _COLOUR_INDEX.get(action.colour) if isinstance(action.colour, Colour) else None
        if index is None:
            raise ActionIdError(f"not a colour: {action.colour!r}")
        return COLOUR_BASE + index
    if kind is Challenge:
        return CHALLENGE_ID
    if kind is CallUno:
        return UNO_ID
    if kind is Catch:
        assert isinstance(action, Catch)
        return catch_id(_relative(action.target, seat, n, "caught seat"))
    raise ActionIdError(f"not an action: {action!r}")


# (n, seat) -> id -> the action object (one object per action, shared by every game).
_ACTIONS: Final[dict[int, list[Action | None]]] = {}


def seat_table(seat: int, n: int) -> list[Action | None]:
    """The shared id -> action list of ``seat`` at an ``n``-seat table, filled as ids are
    first met (:func:`id_action`); the engine reads it to turn legal ids into actions."""
    key = n * MAX_SEATS + seat
    table = _ACTIONS.get(key)
    if table is None:
        table = _ACTIONS[key] = [None] * NUM_IDS
    return table


def id_action(action_id: int, seat: int, n: int) -> Action:
    """The action with id ``action_id`` taken by ``seat`` at an ``n``-seat table.

    One object per (table size, seat, id): the engine's legal actions are these objects.

    Raises:
        ActionIdError: the id is out of range or names a seat offset the table lacks.
    """
    if type(action_id) is not int or not 0 <= action_id < NUM_IDS:
        raise ActionIdError(f"action id {action_id!r} is outside 0..{NUM_IDS - 1}")
    if not 2 <= n <= MAX_SEATS or not 0 <= seat < n:
        raise ActionIdError(f"there is no seat {seat} at a table of {n} (2..{MAX_SEATS} seats)")
    table = seat_table(seat, n)
    action = table[action_id]
    if action is None:
        action = table[action_id] = _make(action_id, seat, n)
    return action


def _make(action_id: int, seat: int, n: int) -> Action:
    kind = ID_KIND[action_id]
    rel = ID_REL[action_id]
    if rel >= n:
        raise ActionIdError(
            f"action id {action_id} names seat offset {rel}, but a {n}-player table has 1..{n - 1}"
        )
    target = (seat + rel) % n if rel else None
    if kind == K_PLAY:
        card = ID_CARD[action_id]
        assert card is not None
        return Play(seat, card, ID_COLOUR[action_id], target, ID_UNO[action_id], ID_JUMP[action_id])
    if kind == K_DRAW:
        return Draw(seat)
    if kind == K_PASS:
        return Pass(seat)
    if kind == K_COLOUR:
        colour = ID_COLOUR[action_id]
        assert colour is not None
        return ChooseColour(seat, colour)
    if kind == K_CHALLENGE:
        return Challenge(seat)
    if kind == K_UNO:
        return CallUno(seat)
    assert target is not None
    return Catch(seat, target)


def has_id(ids: list[int], action_id: int) -> bool:
    """``action_id in ids``, for a list of ids: compiled, a loop compares native ints, where
    ``in`` boxes the id and compares objects.

    >>> has_id([DRAW_ID, 500], 500), has_id([DRAW_ID], PASS_ID)
    (True, False)
    """
    for i in ids:  # noqa: SIM110 (a loop: no generator per call)
        if i == action_id:
            return True
    return False


def id_name(action_id: int) -> str:
    """A seat-independent name for an id: ``"play R7 +2 uno"`` (offsets written ``+k``).

    Raises:
        ActionIdError: the id is out of range.
    """
    if type(action_id) is not int or not 0 <= action_id < NUM_IDS:
        raise ActionIdError(f"action id {action_id!r} is outside 0..{NUM_IDS - 1}")
    kind = ID_KIND[action_id]
    colour = ID_COLOUR[action_id]
    rel = ID_REL[action_id]
    if kind == K_PLAY:
        card = ID_CARD[action_id]
        assert card is not None
        parts = ["jump-in" if ID_JUMP[action_id] else "play", card.code]
        if colour is not None:
            parts.append(colour.value)
        if card.number == 7 and rel:
            parts.append(f"+{rel}")
        if ID_UNO[action_id]:
            parts.append("uno")
        return " ".join(parts)
    if kind == K_COLOUR:
        assert colour is not None
        return f"colour {colour.value}"
    if kind == K_CATCH:
        return f"catch +{rel}"
    return ("draw", "pass", "colour", "challenge", "uno")[kind]
