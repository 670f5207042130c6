"""Bots by name: :data:`BOTS`, :func:`make_bot` and :func:`register_bot`."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from nomercy.bots.base import Bot
from nomercy.bots.greedy_bot import GreedyBot
from nomercy.bots.heuristic_bot import HeuristicBot
from nomercy.bots.ismcts_bot import ISMCTSBot
from nomercy.bots.random_bot import RandomBot

__all__ = ["BOTS", "BotFactory", "make_bot", "register_bot"]

#: Builds a bot from a seed and keyword parameters.
BotFactory = Callable[..., Bot]


def _neural(seed: int = 0, **params: Any) -> Bot:
    """The ``neural`` bot, imported on first use (numpy loads only when it plays)."""
    from nomercy.bots.neural_bot import NeuralBot

    return NeuralBot(seed=seed, **params)


#: Every known bot, by name. ``neural`` is there only when numpy is installed.
BOTS: dict[str, BotFactory] = {
    "greedy": GreedyBot,
    "heuristic": HeuristicBot,
    "ismcts": ISMCTSBot,
    "random": RandomBot,
}
if importlib.util.find_spec("numpy") is not None:
    BOTS["neural"] = _neural

#: Why a bot that needs an optional dependency is missing from :data:`BOTS`.
_MISSING: dict[str, str] = {
    "neural": "the neural bot needs numpy: pip install 'uno-no-mercy[neural]'",
}


def register_bot(name: str, factory: BotFactory) -> None:
    """Make ``factory`` available as ``make_bot(name, ...)`` (replacing any bot of that name).

    Raises:
        ValueError: an empty name or one containing a comma or whitespace (the CLI's
            ``--bots a,b`` could not name it).
    """
    if not name or any(ch == "," or ch.isspace() for ch in name):
        raise ValueError(f"invalid bot name {name!r}: use a non-empty word without commas")
    BOTS[name] = factory


def make_bot(name: str, seed: int = 0, **params: Any) -> Bot:
    """A new bot by registry name.

    >>> make_bot("greedy", seed=3).name
    'greedy'

    Raises:
        ValueError: an unknown name (the message lists the valid ones), or a bot whose
            optional dependency is not installed (the message says what to install).
    """
    factory = BOTS.get(name)
    if factory is None and name in _MISSING:
        raise ValueError(_MISSING[name])
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; valid bots: {', '.join(sorted(BOTS))}")
    return factory(seed=seed, **params)
