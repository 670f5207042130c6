"""Bot levels: Easy, Medium, Hard and Expert, each a registry bot chosen by measured strength.

Players pick a level; the apps show the bot behind it for those who care, and accept the
registry names as before. One mapping, :data:`LEVEL_BOTS`, per preset, from the ladder's
figures (docs/ladder.md, docs/bots.md):

- **Easy** ``greedy``: one-step rules of thumb; beats ``random`` 69.0% heads-up.
- **Medium** ``heuristic``: beats ``greedy`` 64.4% and ``random`` 77.9% heads-up.
- **Hard**: No Mercy ``ismcts`` (beats ``heuristic`` 66.7% heads-up); classic ``puct``
  (61.35% against RLCard's rule agent, where ``heuristic`` wins 52-54% and ``ismcts``
  62-65%), or ``ismcts`` where ``puct`` is not installed (it needs numpy).
- **Expert** ``best``: the strongest bot at the table (No Mercy: ``puct``, 55.15% against
  ``ismcts``; classic: ``ismcts``), as the registry names it.

A level resolves to a registry name when a table is made (:func:`resolve_level`), so records
hold the bot that played, and replay with it, whatever a later version maps the level to.

>>> resolve_level("Hard", "no-mercy"), resolve_level("easy", "classic")
('ismcts', 'greedy')
>>> resolve_level("heuristic", "classic")  # a registry name stays as it is
'heuristic'
"""

from __future__ import annotations

from nomercy.bots.registry import BEST, BOTS

__all__ = [
    "LEVELS",
    "LEVEL_BOTS",
    "algorithm",
    "level_bot",
    "level_label",
    "level_of",
    "resolve_level",
]

#: The levels, weakest first (the apps offer them in this order).
LEVELS: tuple[str, ...] = ("easy", "medium", "hard", "expert")

#: Each level's registry bot, by preset (the strongest-per-table facts are the ladder's).
LEVEL_BOTS: dict[str, dict[str, str]] = {
    "no-mercy": {"easy": "greedy", "medium": "heuristic", "hard": "ismcts", "expert": "best"},
    "classic": {"easy": "greedy", "medium": "heuristic", "hard": "puct", "expert": "best"},
}

#: The bot a level plays where its own is not installed (``puct`` needs numpy).
_FALLBACK = {"puct": "ismcts"}


def level_bot(level: str, preset: str = "no-mercy") -> str:
    """The registry name a level plays under ``preset`` (a preset without its own mapping
    plays No Mercy's).

    Raises:
        ValueError: not a level (the message lists them).
    """
    mapping = LEVEL_BOTS.get(preset, LEVEL_BOTS["no-mercy"])
    name = mapping.get(level.strip().lower())
    if name is None:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    return name if name in BOTS else _FALLBACK.get(name, name)


def resolve_level(text: str, preset: str = "no-mercy") -> str:
    """``text`` with a level name (any case) replaced by its registry bot; any other text
    (a registry name, ``name:key=value``) unchanged."""
    if text.strip().lower() in LEVELS:
        return level_bot(text, preset)
    return text


def level_of(name: str, preset: str = "no-mercy") -> str | None:
    """The level that plays registry bot ``name`` under ``preset``, or ``None``."""
    for level in LEVELS:
        if level_bot(level, preset) == name:
            return level
    return None


def algorithm(name: str) -> str:
    """The algorithm a registry name plays: ``best`` is an alias (:data:`BEST`)."""
    return BEST if name == "best" else name


def level_label(level: str, preset: str = "no-mercy") -> str:
    """A level with the algorithm behind it, for menus and help.

    >>> level_label("hard")
    'Hard (ismcts)'
    """
    return f"{level.capitalize()} ({algorithm(level_bot(level, preset))})"
