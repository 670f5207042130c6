"""nomercy: the No Mercy card game (168 cards) and classic play, exact to RULES.md.

>>> import nomercy
>>> g = nomercy.new_game(4, seed=1)
>>> while not g.is_over:
...     _ = g.apply(g.legal_actions()[0])
>>> g.winner is not None
True
"""

from __future__ import annotations

from nomercy.core.actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColour,
    Draw,
    Pass,
    Play,
    parse_action,
)
from nomercy.core.cards import Card, Colour, Kind, parse_card, parse_colour
from nomercy.core.decisions import Decision, decision_order
from nomercy.core.deck import CLASSIC108_COUNTS, NM168_COUNTS
from nomercy.core.errors import (
    ActionIdError,
    IllegalActionError,
    NoMercyError,
    NotationError,
    RuleSetError,
)
from nomercy.core.events import Event, EventKind
from nomercy.core.game import EngineError, Game, Phase, new_game
from nomercy.core.records import GameRecord
from nomercy.core.rules import OPTIONS, PRESETS, RuleSet, make_rules
from nomercy.core.views import PlayerView, SeatInfo, Stack

__all__ = [
    "CLASSIC108_COUNTS",
    "NM168_COUNTS",
    "OPTIONS",
    "PRESETS",
    "Action",
    "ActionIdError",
    "CallUno",
    "Card",
    "Catch",
    "Challenge",
    "ChooseColour",
    "Colour",
    "Decision",
    "Draw",
    "EngineError",
    "Event",
    "EventKind",
    "Game",
    "GameRecord",
    "IllegalActionError",
    "Kind",
    "NoMercyError",
    "NotationError",
    "Pass",
    "Phase",
    "Play",
    "PlayerView",
    "RuleSet",
    "RuleSetError",
    "SeatInfo",
    "Stack",
    "decision_order",
    "make_rules",
    "new_game",
    "parse_action",
    "parse_card",
    "parse_colour",
]

__version__ = "0.1.0"
