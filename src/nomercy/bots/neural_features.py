"""What the ``neural`` bot feeds its network, built from a seat's view with numpy only.

The policy was trained on the PettingZoo environment's ``obs_format="flat"`` vector
(docs/rl.md, "Observations"): the view encoded field by field, each entry divided by its
largest magnitude. This module rebuilds that vector from ``Game.view(seat, history=False)``
without importing :mod:`nomercy.rl` (a bot sees only its view, and the ``bots`` layer may not
import ``rl``). One field is left out on both sides: ``opp_void`` comes from the env's
``PublicTracker``, which a view does not carry, so training zeroes it too
(:data:`VIEW_KEEP`). ``tests/bots/test_neural_features.py`` checks, game moment by game
moment, that :func:`encode_view` equals the env's flat observation times :data:`VIEW_KEEP`,
and that :func:`action_id` equals ``nomercy.rl.action_to_id``.
"""

from __future__ import annotations

from typing import Any, Final

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
from nomercy.core.game import Phase
from nomercy.core.rules import RuleSet

__all__ = [
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "VIEW_KEEP",
    "FeatureEncoder",
    "action_id",
    "encode_view",
]

MAX_PLAYERS: Final = 6
_K = len(ALL_CODES)
_OPP = MAX_PLAYERS - 1
_PHASES: tuple[Phase, ...] = tuple(Phase)
_PHASE_INDEX: dict[str, int] = {p.value: i for i, p in enumerate(_PHASES)}
_CODE_INDEX: dict[str, int] = {code: i for i, code in enumerate(ALL_CODES)}
_COLOUR_INDEX: dict[str, int] = {c.value: i for i, c in enumerate(COLOURS)}

# The env's field order and widths (nomercy.rl.observations._FIELDS; a test compares them).
FIELDS: Final[tuple[tuple[str, int], ...]] = (
    ("hand", _K),
    ("drawn", _K),
    ("top", _K),
    ("colour", 4),
    ("direction", 1),
    ("phase", len(_PHASES)),
    ("pending", 2),
    ("self", 3),
    ("to_act", MAX_PLAYERS),
    ("opp_present", _OPP),
    ("opp_hand_size", _OPP),
    ("opp_mercy_distance", _OPP),
    ("opp_out", _OPP),
    ("opp_uno", _OPP),
    ("opp_catchable", _OPP),
    ("opp_known", _OPP * _K),
    ("opp_void", _OPP * 4),
    ("discard", _K),
    ("draw_pile_size", 1),
    ("wd4_challengeable", 1),
)


def _layout() -> dict[str, int]:
    out: dict[str, int] = {}
    start = 0
    for name, width in FIELDS:
        out[name] = start
        start += width
    return out


_AT: Final = _layout()
OBS_SIZE: Final = sum(width for _, width in FIELDS)

#: 1 for the entries a view determines, 0 for ``opp_void`` (tracked from events, not a view).
VIEW_KEEP: Final[npt.NDArray[np.float32]] = np.ones(OBS_SIZE, dtype=np.float32)
VIEW_KEEP[_AT["opp_void"] : _AT["opp_void"] + _OPP * 4] = 0.0
VIEW_KEEP.setflags(write=False)

# ---------------------------------------------------------------------------- action ids
# The env's action table (nomercy.rl.actions, ACTION_SPACE_VERSION 1).
_DRAW_ID = 0
_PASS_ID = 1
_COLOUR_BASE = 2
_CHALLENGE_ID = 6
_UNO_ID = 7
_CATCH_BASE = 8
_PLAY_BASE = _CATCH_BASE + MAX_PLAYERS - 1
_COLOUR_SLOT: dict[Colour | None, int] = {None: 0, **{c: i + 1 for i, c in enumerate(COLOURS)}}
_COLOUR_NUMBER: dict[Colour, int] = {c: i for i, c in enumerate(COLOURS)}


def _runs() -> tuple[dict[Card, int], int]:
    offsets: dict[Card, int] = {}
    at = 0
    for code in ALL_CODES:
        card = Card(code)
        offsets[card] = at
        at += 2 * (1 + len(COLOURS)) if card.is_wild else 2 * MAX_PLAYERS if card.number == 7 else 2
    return offsets, at


_CARD_OFFSET, _PLAY_COUNT = _runs()
_JUMP_BASE = _PLAY_BASE + _PLAY_COUNT
NUM_ACTIONS: Final = _JUMP_BASE + _PLAY_COUNT


def action_id(action: Action, n: int) -> int:
    """The env's id of ``action`` (taken by its own seat) at an ``n``-player table.

    Raises:
        ValueError: an action the table has no id for (a seat offset beyond 5).
    """
    seat = action.seat
    kind = type(action)
    if kind is Play:
        assert isinstance(action, Play)
        card = action.card
        if card.is_wild:
            slot = _COLOUR_SLOT[action.colour]
        elif card.number == 7 and action.target is not None:
            slot = (action.target - seat) % n
        else:
            slot = 0
        return (
            (_JUMP_BASE if action.jump else _PLAY_BASE) + _CARD_OFFSET[card] + 2 * slot + action.uno
        )
    if kind is Draw:
        return _DRAW_ID
    if kind is Pass:
        return _PASS_ID
    if kind is ChooseColour:
        assert isinstance(action, ChooseColour)
        return _COLOUR_BASE + _COLOUR_NUMBER[action.colour]
    if kind is Challenge:
        return _CHALLENGE_ID
    if kind is CallUno:
        return _UNO_ID
    if kind is Catch:
        assert isinstance(action, Catch)
        offset = (action.target - seat) % n
        if not 1 <= offset < MAX_PLAYERS:
            raise ValueError(f"{action} has no id at a {n}-player table")
        return _CATCH_BASE + offset - 1
    raise ValueError(f"not an action: {action!r}")


# ---------------------------------------------------------------------------- observations
class FeatureEncoder:
    """Encodes views of one rule set and table size as the scaled flat vector.

    Args:
        rules: the rule set in force (the view's ``rules``).
        n: seats at the table, 2-6.

    Raises:
        ValueError: ``n`` outside 2-6.
    """

    def __init__(self, rules: RuleSet, n: int) -> None:
        if not 2 <= n <= MAX_PLAYERS:
            raise ValueError(f"the neural bot plays 2-{MAX_PLAYERS} players, not {n}")
        self.n = n
        self.scale = _scale(rules) * VIEW_KEEP

    def encode(self, view: dict[str, Any]) -> npt.NDArray[np.float32]:
        """The scaled observation of ``view`` (``opp_void`` left 0)."""
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        seat = view["seat"]
        n = self.n
        idx = _CODE_INDEX
        hand = _AT["hand"]
        for c in view["hand"]:
            obs[hand + idx[c]] += 1
        known = _AT["opp_known"]
        for rel_s, cards in view["known"].items():
            base = known + ((int(rel_s) - seat) % n - 1) * _K
            for c in cards:
                obs[base + idx[c]] += 1
        players = view["players"]
        me = players[seat]
        obs[_AT["direction"]] = view["direction"]
        own = _AT["self"]
        obs[own] = me["hand_size"]
        obs[own + 1] = me["mercy_distance"] or 0
        obs[own + 2] = me["uno"]
        obs[_AT["draw_pile_size"]] = view["draw_pile_size"]
        obs[_AT["phase"] + _PHASE_INDEX[view["phase"]]] = 1
        pending = view["pending"]
        if pending:
            obs[_AT["pending"]] = pending["total"]
            obs[_AT["pending"] + 1] = pending["last"]
        if view["top"] is not None:
            obs[_AT["top"] + idx[view["top"]]] = 1
        if view["drawn"] is not None:
            obs[_AT["drawn"] + idx[view["drawn"]]] = 1
        if view["colour"] is not None:
            obs[_AT["colour"] + _COLOUR_INDEX[view["colour"]]] = 1
        if view["to_act"] is not None:
            obs[_AT["to_act"] + (view["to_act"] - seat) % n] = 1
        for t in view["uno_window"]:
            if t != seat:
                obs[_AT["opp_catchable"] + (t - seat) % n - 1] = 1
        if view["wd4_challengeable"]:
            obs[_AT["wd4_challengeable"]] = 1
        for k in range(1, n):
            p = players[(seat + k) % n]
            j = k - 1
            obs[_AT["opp_present"] + j] = 1
            obs[_AT["opp_hand_size"] + j] = p["hand_size"]
            obs[_AT["opp_mercy_distance"] + j] = p["mercy_distance"] or 0
            obs[_AT["opp_out"] + j] = p["out"]
            obs[_AT["opp_uno"] + j] = p["uno"]
        discard = _AT["discard"]
        for c in view["discard"]:
            obs[discard + idx[c]] += 1
        obs *= self.scale
        return obs


def encode_view(view: dict[str, Any], rules: RuleSet) -> npt.NDArray[np.float32]:
    """:meth:`FeatureEncoder.encode` for a single view (builds the encoder each call)."""
    return FeatureEncoder(rules, len(view["players"])).encode(view)


def _scale(rules: RuleSet) -> npt.NDArray[np.float32]:
    """1 / each entry's largest magnitude for ``rules`` (the env's ``flat_scale``)."""
    table = rules.deck_table()
    copies = np.array([table.get(code, 0) for code in ALL_CODES], dtype=np.float32)
    total = float(copies.sum())
    draw_total = float(sum(Card(code).draw_value * count for code, count in table.items()))
    threshold = float(rules.mercy_threshold) if rules.mercy_enabled else 0.0
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    for name in ("hand", "discard"):
        high[_AT[name] : _AT[name] + _K] = copies
    high[_AT["opp_known"] : _AT["opp_known"] + _OPP * _K] = np.tile(copies, _OPP)
    low[_AT["direction"]] = -1.0
    high[_AT["pending"] : _AT["pending"] + 2] = max(draw_total, 1.0)
    high[_AT["opp_hand_size"] : _AT["opp_hand_size"] + _OPP] = total
    high[_AT["draw_pile_size"]] = total
    high[_AT["self"]] = total
    mercy = _AT["self"] + 1
    low[mercy] = threshold - total if threshold else 0.0
    high[mercy] = threshold
    opp_mercy = slice(_AT["opp_mercy_distance"], _AT["opp_mercy_distance"] + _OPP)
    low[opp_mercy] = threshold - total if threshold else 0.0
    high[opp_mercy] = threshold
    high = np.maximum(high, low + 1.0)
    largest: npt.NDArray[np.float32] = np.maximum(np.abs(low), np.abs(high))
    return (1.0 / largest).astype(np.float32)
