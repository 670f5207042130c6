"""The one error family of the project: every error is a ``ValueError``."""

from __future__ import annotations

__all__ = [
    "ActionIdError",
    "IllegalActionError",
    "NoMercyError",
    "NotationError",
    "RuleSetError",
]


class NoMercyError(ValueError):
    """Base class of every error the engine raises."""


class NotationError(NoMercyError):
    """Text (a card code, an action or a position) that does not parse."""


class RuleSetError(NoMercyError):
    """An unknown preset, option name or option value."""


class IllegalActionError(NoMercyError):
    """An action that parses but breaks a rule.

    Attributes:
        rule: the RULES.md id of the rule it breaks (``"NM-18"``), or ``""``.
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} [{rule}]" if rule else message)
        self.rule = rule


class ActionIdError(NoMercyError):
    """An action id out of range, or an action that has no id (``nomercy.core.ids``)."""
