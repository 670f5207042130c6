"""Stable integer ids for every action: :mod:`nomercy.encoding.actions`, re-exported here.

The ids live in :mod:`nomercy.encoding`, below both the environments and the ``neural`` bot;
this module keeps their public names importable from ``nomercy.rl.actions``.
"""

from __future__ import annotations

from nomercy.encoding.actions import (
    ACTION_SPACE_VERSION,
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
    ActionIdError,
    action_mask,
    action_name,
    action_table,
    action_table_markdown,
    action_to_id,
    fast_id,
    fast_ids,
    id_to_action,
    legal_ids,
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
    "ActionIdError",
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
