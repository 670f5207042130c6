"""Bots: players that choose an action from a seat's view and its legal actions.

>>> from nomercy import new_game
>>> from nomercy.bots import make_bot, play_out
>>> g = new_game(2, seed=5)
>>> bots = [make_bot("greedy", seed=0), make_bot("random", seed=1)]
>>> _ = play_out(g, bots)
>>> g.winner in (0, 1)
True
"""

from __future__ import annotations

import os as _os

import nomercy.core as _core

if _core.BUILD == "compiled":
    # The search's playouts (nomercy.bots.playouts) are compiled with the core, as a
    # companion of its build (nomercy.core.COMPANION_FILES); the other bots load from here.
    __path__.insert(0, _os.path.join(_core.COMPILED_DIR, "bots"))

from nomercy.bots.base import Bot, OutOfTurnBot
from nomercy.bots.determinize import sample_game, sample_position
from nomercy.bots.driver import next_action, play_out
from nomercy.bots.greedy_bot import GreedyBot, favourite_colour
from nomercy.bots.heuristic_bot import HeuristicBot
from nomercy.bots.ismcts_bot import ISMCTSBot
from nomercy.bots.knowledge import Knowledge, read_view
from nomercy.bots.random_bot import RandomBot
from nomercy.bots.registry import (
    ALIASES,
    BEST,
    BEST_AT,
    BOTS,
    OPTIONAL_BOTS,
    BotFactory,
    bot_factory,
    bot_names,
    make_bot,
    register_bot,
    resolve_best,
)
from nomercy.bots.rlcard_rule import RLCardRuleBot

__all__ = [
    "ALIASES",
    "BEST",
    "BEST_AT",
    "BOTS",
    "OPTIONAL_BOTS",
    "Bot",
    "BotFactory",
    "GreedyBot",
    "HeuristicBot",
    "ISMCTSBot",
    "Knowledge",
    "OutOfTurnBot",
    "RLCardRuleBot",
    "RandomBot",
    "bot_factory",
    "bot_names",
    "favourite_colour",
    "make_bot",
    "next_action",
    "play_out",
    "read_view",
    "register_bot",
    "resolve_best",
    "sample_game",
    "sample_position",
]
