"""Bots by name: :data:`BOTS`, :func:`make_bot` and :func:`register_bot`."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nomercy.bots.base import Bot
from nomercy.bots.greedy_bot import GreedyBot
from nomercy.bots.heuristic_bot import HeuristicBot
from nomercy.bots.ismcts_bot import ISMCTSBot
from nomercy.bots.random_bot import RandomBot
from nomercy.bots.rlcard_rule import RLCardRuleBot

__all__ = [
    "ALIASES",
    "BEST",
    "BEST_AT",
    "BOTS",
    "OPTIONAL_BOTS",
    "BotFactory",
    "bot_factory",
    "bot_names",
    "make_bot",
    "register_bot",
    "resolve_best",
]

#: Builds a bot from a seed and keyword parameters.
BotFactory = Callable[..., Bot]


def _neural(seed: int = 0, **params: Any) -> Bot:
    """The ``neural`` bot: the policy-value network's policy alone (``puct.npz``), or the
    masked-PPO policy a ``weights`` file of that format holds; imported on first use (numpy
    loads only when it plays)."""
    from nomercy.bots.neural_bot import NeuralBot, is_ppo_weights
    from nomercy.bots.puct_bot import PolicyNetBot

    weights = params.get("weights")
    if isinstance(weights, (str, Path)) and is_ppo_weights(weights):
        return NeuralBot(seed=seed, **params)
    return PolicyNetBot(seed=seed, **params)


def _neural_ppo(seed: int = 0, **params: Any) -> Bot:
    """The ``neural-ppo`` bot (the masked-PPO policy, ``neural.npz``), imported on first use."""
    from nomercy.bots.neural_bot import NeuralBot

    return NeuralBot(seed=seed, **params)


def _puct(seed: int = 0, **params: Any) -> Bot:
    """The ``puct`` bot (search with the policy-value network), imported on first use."""
    from nomercy.bots.puct_bot import PUCTBot

    return PUCTBot(seed=seed, **params)


def _policy(seed: int = 0, **params: Any) -> Bot:
    """A trained policy as a bot (``policy:MODULE:ATTR``), imported on first use."""
    from nomercy.bots.policy_bot import PolicyBot

    return PolicyBot(seed=seed, **params)


#: Every known bot, by name. ``neural`` is there only when numpy is installed.
BOTS: dict[str, BotFactory] = {
    "greedy": GreedyBot,
    "heuristic": HeuristicBot,
    "ismcts": ISMCTSBot,
    "random": RandomBot,
}
if importlib.util.find_spec("numpy") is not None:
    BOTS["neural"] = _neural
    BOTS["neural-ppo"] = _neural_ppo
    BOTS["puct"] = _puct

#: The bot that measures strongest at each table, by ``(preset, players)``; ``(preset, None)``
#: is the preset's choice at seat counts not measured apart. Each entry was decided by the
#: measurements in docs/ladder.md#best-at-each-table (changed only by a sequential test,
#: docs/ladder.md#decisions-by-sequential-test):
#:
#: - No Mercy heads-up: ``puct``, 55.15% against ``ismcts`` over 4,000 held-out games.
#: - No Mercy, four players: ``puct``, 25.6% [23.7%, 27.6%] against three ``ismcts`` (par
#:   25%: no worse, and faster per decision).
#: - classic: ``ismcts``; ``puct`` won 61.35% against ``rlcard-rule`` heads-up, below
#:   ``ismcts``'s own 62.2-65.3% on the same kind of run.
BEST_AT: dict[tuple[str, int | None], str] = {
    ("no-mercy", None): "puct",
    ("no-mercy", 2): "puct",
    ("no-mercy", 4): "puct",
    ("classic", None): "ismcts",
    ("classic", 2): "ismcts",
}


def resolve_best(preset: str = "no-mercy", players: int = 2) -> str:
    """The registry name of the strongest bot at a table of ``preset`` with ``players``
    seats (:data:`BEST_AT`); ``ismcts`` where that bot is not installed here (``puct``
    needs numpy).

    >>> resolve_best("classic", 2)
    'ismcts'
    """
    name = BEST_AT.get((preset, players)) or BEST_AT.get((preset, None)) or "ismcts"
    return name if name in BOTS else "ismcts"


#: The strongest bot at the default table (No Mercy, heads-up): ``puct``, or ``ismcts``
#: without numpy. The coach searches with it.
BEST: str = resolve_best("no-mercy", 2)


def _best(seed: int = 0, *, preset: str = "no-mercy", players: int = 2, **params: Any) -> Bot:
    """``best``: the strongest bot at the table of ``preset`` and ``players``
    (:func:`resolve_best`; No Mercy heads-up unless told). Callers that know the table pass
    it (``nomercy.bots.spec.for_table`` does for a spec)."""
    return BOTS[resolve_best(preset, players)](seed=seed, **params)


#: ``make_bot("best", preset=..., players=...)`` and ``--bots best`` build the table's best.
BOTS["best"] = _best

#: Why a bot that needs an optional dependency is missing from :data:`BOTS`.
_MISSING: dict[str, str] = {
    "neural": "the neural bot needs numpy: pip install 'uno-no-mercy[neural]'",
    "neural-ppo": "the neural-ppo bot needs numpy: pip install 'uno-no-mercy[neural]'",
    "puct": "the puct bot needs numpy: pip install 'uno-no-mercy[neural]'",
}

#: Former names that still build their bot (records and scripts may hold them); the apps do
#: not offer them. ``puct-policy`` became ``neural`` when it beat the PPO policy (issue 29).
ALIASES: dict[str, str] = {"puct-policy": "neural"}

#: Bots for tournaments only, each needing an optional package: name -> (factory, the
#: package, how to install it). They are not in :data:`BOTS` (which the apps offer for every
#: preset): ``rlcard-rule`` plays the classic preset only. :func:`make_bot` builds them by
#: name when their package is installed and says how to install it otherwise.
OPTIONAL_BOTS: dict[str, tuple[BotFactory, str, str]] = {
    "rlcard-rule": (
        RLCardRuleBot,
        "rlcard",
        "pip install 'rlcard==1.2.0' (or this package's bench extra: pip install -e '.[bench]')",
    ),
}


def bot_names() -> list[str]:
    """Every name :func:`make_bot` can build here: :data:`BOTS` and the installed optional ones.

    >>> {"greedy", "heuristic", "ismcts", "random"} <= set(bot_names())
    True
    """
    names = set(BOTS)
    for name, (_factory, module, _install) in OPTIONAL_BOTS.items():
        # find_spec looks the package up without importing it (RLCard imports numpy).
        if importlib.util.find_spec(module) is not None:
            names.add(name)
    return sorted(names)


def bot_factory(name: str) -> BotFactory:
    """The factory of bot ``name`` (a registered or an installed optional one).

    Raises:
        ValueError: an unknown name (the message lists the valid ones), or a bot whose
            optional package is not installed (the message says how to install it).
    """
    name = ALIASES.get(name, name)
    factory = BOTS.get(name)
    if factory is not None:
        return factory
    if name == "policy":  # a trained policy: needs a target, so the apps do not offer it
        if importlib.util.find_spec("numpy") is None:
            raise ValueError("a policy bot needs numpy: pip install 'uno-no-mercy[neural]'")
        return _policy
    if name in _MISSING:
        raise ValueError(_MISSING[name])
    optional = OPTIONAL_BOTS.get(name)
    if optional is not None:
        factory, module, install = optional
        if importlib.util.find_spec(module) is None:
            raise ValueError(
                f"bot {name!r} needs the {module} package, not installed here: {install}"
            )
        return factory
    raise ValueError(f"unknown bot {name!r}; valid bots: {', '.join(bot_names())}")


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
    """A new bot by name (see :func:`bot_factory`).

    >>> make_bot("greedy", seed=3).name
    'greedy'

    Raises:
        ValueError: an unknown name (the message lists the valid ones), or a bot whose
            optional dependency is not installed (the message says what to install).
    """
    return bot_factory(name)(seed=seed, **params)
