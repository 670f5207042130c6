"""Bot specs: a registry name with keyword parameters, as the command line writes them.

``name`` or ``name:key=value:key2=value2`` (``ismcts:iterations=200``), or
``policy:MODULE:ATTR[:key=value...]`` for a trained policy (docs/rl.md). Tournaments,
simulations, ``nomercy selfplay`` and the terminal app's tables read bots this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomercy.bots.base import Bot
from nomercy.bots.registry import bot_factory, make_bot, resolve_best

__all__ = ["BotSpec", "check_preset", "for_table", "parse_bot_spec"]


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A registry bot name with keyword parameters, e.g. ``ismcts:iterations=200``."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        """The spec as written on the command line (``name`` or ``name:k=v:k2=v2``;
        ``policy:module:attr`` for a policy)."""
        params = [f"{k}={_show(v)}" for k, v in self.params if not self._target(k)]
        target = [str(v) for k, v in self.params if self._target(k)]
        return ":".join([self.name, *target, *params])

    def _target(self, key: str) -> bool:
        return self.name == "policy" and key == "target"

    def build(self, seed: int) -> Bot:
        """A new bot with ``seed``.

        Raises:
            ValueError: an unknown bot name, parameters the bot does not take, or a file
                parameter (``weights=FILE``) that cannot be read.
        """
        try:
            return make_bot(self.name, seed=seed, **dict(self.params))
        except TypeError as exc:
            raise ValueError(f"bot {self.label!r}: bad parameters ({exc})") from None
        except OSError as exc:  # a weights file that is missing or unreadable
            where = f"{exc.filename}: " if exc.filename else ""
            raise ValueError(f"bot {self.label!r}: {where}{exc.strerror or exc}") from None


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_bot_spec(text: str) -> BotSpec:
    """Parse ``name`` or ``name:key=value:key2=value2`` (values: int, float, true/false, text),
    or ``policy:module:attr[:key=value...]``, a trained policy (docs/rl.md).

    >>> parse_bot_spec("ismcts:iterations=200").params
    (('iterations', 200),)

    Raises:
        ValueError: an empty name, an unknown bot, or a parameter without ``=``.
    """
    name, *parts = text.strip().split(":")
    name = name.strip()
    if not name:
        raise ValueError(f"bot spec {text!r} has no bot name")
    bot_factory(name)  # an unknown or uninstalled bot fails here, with what to do
    params: list[tuple[str, Any]] = []
    if name == "policy":
        if len(parts) < 2 or "=" in parts[0] or "=" in parts[1]:
            raise ValueError(f"bot spec {text!r}: a policy is policy:MODULE:ATTR")
        params.append(("target", f"{parts[0].strip()}:{parts[1].strip()}"))
        parts = parts[2:]
    for part in parts:
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"bot spec {text!r}: parameter {part!r} needs KEY=VALUE")
        if key == "seed":
            raise ValueError(f"bot spec {text!r}: the seed is derived per game, not a parameter")
        params.append((key, _parse_value(value.strip())))
    return BotSpec(name, tuple(params))


def check_preset(name: str, preset: str) -> None:
    """Refuse bot ``name`` on a preset it cannot play (a factory's ``presets``, e.g.
    ``rlcard-rule``: classic only), before any game starts.

    >>> check_preset("greedy", "classic")  # every preset: nothing to say

    Raises:
        ValueError: the bot cannot play ``preset`` (or ``name`` is not a bot here).
    """
    presets = getattr(bot_factory(name), "presets", None)
    if presets is not None and preset not in presets:
        only = " or ".join(presets)
        raise ValueError(f"bot {name!r} plays the {only} preset only, not {preset!r}")


def for_table(spec: BotSpec, preset: str, players: int) -> BotSpec:
    """The spec to build at a table of ``preset`` with ``players`` seats: ``best`` becomes
    the bot strongest there (:func:`~nomercy.bots.registry.resolve_best`, with the same
    parameters); any other spec is itself. Labels keep the name as written (``best``).

    >>> for_table(parse_bot_spec("best"), "classic", 2).name
    'ismcts'
    >>> for_table(parse_bot_spec("greedy"), "classic", 2).name
    'greedy'
    """
    if spec.name != "best":
        return spec
    return BotSpec(resolve_best(preset, players), spec.params)
