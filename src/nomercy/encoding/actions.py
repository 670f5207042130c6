"""Stable integer ids for every action a policy can take (docs/rl.md), as numpy masks.

The one module a policy imports the ids from. The ids are the engine's own
(:mod:`nomercy.core.ids` defines them and describes the layout; ``ACTION_SPACE_VERSION`` 1):
one table for both presets, seats inside an action written relative to the actor. This
module keeps to the stable table (2 to :data:`MAX_PLAYERS` seats, ids below
:data:`NUM_ACTIONS`), exports its constants, and adds the conversions checked against it, the
numpy mask and the docs table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from nomercy.core.actions import Action
from nomercy.core.cards import ALL_CODES, Card
from nomercy.core.errors import ActionIdError
from nomercy.core.ids import (
    ACTION_SPACE_VERSION,
    CARD_OFFSET,
    CATCH_BASE,
    CHALLENGE_ID,
    COLOUR_BASE,
    DRAW_ID,
    JUMP_BASE,
    MAX_PLAYERS,
    NUM_ACTIONS,
    PASS_ID,
    PLAY_BASE,
    PLAY_COUNT,
    UNO_ID,
    action_id,
    id_action,
    id_name,
    variant_count,
)

__all__ = [
    "ACTION_SPACE_VERSION",
    "CATCH_BASE",
    "CHALLENGE_ID",
    "COLOUR_BASE",
    "DRAW_ID",
    "JUMP_BASE",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "PASS_ID",
    "PLAY_BASE",
    "PLAY_COUNT",
    "UNO_ID",
    "action_mask",
    "action_name",
    "action_table",
    "action_table_markdown",
    "action_to_id",
    "fast_id",
    "fast_ids",
    "id_to_action",
    "legal_ids",
]


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
    return action_id(action, n)


def id_to_action(action_id: int, seat: int, n: int) -> Action:
    """The action with id ``action_id`` taken by ``seat`` at an ``n``-player table.

    Raises:
        ActionIdError: the id is out of range, or names a seat offset the table lacks.
    """
    _check_table(seat, n)
    if isinstance(action_id, bool) or not 0 <= int(action_id) < NUM_ACTIONS:
        raise ActionIdError(f"action id {action_id!r} is outside 0..{NUM_ACTIONS - 1}")
    return id_action(int(action_id), seat, n)


def fast_id(action: Action, n: int) -> int:
    """:func:`action_to_id` for the action's own seat (at an ``n``-seat table, n <= 6)."""
    if not 2 <= n <= MAX_PLAYERS:
        raise ActionIdError(f"the action table covers 2-{MAX_PLAYERS} players, not {n}")
    return action_id(action, n)


def fast_ids(legal: Iterable[Action], n: int) -> dict[int, Action]:
    """:func:`fast_id` of each action (each for its own seat) mapped to the action."""
    if not 2 <= n <= MAX_PLAYERS:
        raise ActionIdError(f"the action table covers 2-{MAX_PLAYERS} players, not {n}")
    return {action_id(action, n): action for action in legal}


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
    return id_name(int(action_id))


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
        for code in ALL_CODES:
            card = Card(code)
            first = base + CARD_OFFSET[card.index]
            last = first + variant_count(card) - 1
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
