"""Player actions and their notation (docs/notation.md).

Every player decision is an explicit action; the engine never decides for a player. Actions are
frozen values; ``str(action)`` is the notation and :func:`parse_action` reads it back.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomercy.core.cards import Card, Colour, parse_card, parse_colour
from nomercy.core.errors import NotationError

__all__ = [
    "Action",
    "CallUno",
    "Catch",
    "Challenge",
    "ChooseColour",
    "Draw",
    "Pass",
    "Play",
    "parse_action",
]


@dataclass(frozen=True, slots=True)
class Action:
    """Base class: every action names the seat that takes it."""

    seat: int


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play a card: ``play CARD [COLOUR] [SEAT] [uno]``.

    Attributes:
        card: the card played.
        colour: the colour named for a wild (NM-14), else ``None``.
        target: the seat a 7 swaps with (NM-31), else ``None``.
        uno: call UNO with the play (NM-37).
        jump: an out-of-turn jump-in (classic house rule C04); written with the ``N:`` prefix.
    """

    card: Card
    colour: Colour | None = None
    target: int | None = None
    uno: bool = False
    jump: bool = False

    def __str__(self) -> str:
        text = f"play {self.card.code}"
        if self.colour is not None:
            text += f" {self.colour.value}"
        if self.target is not None:
            text += f" {self.target}"
        if self.uno:
            text += " uno"
        return f"{self.seat}:{text}" if self.jump else text


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """``draw``: draw as the rules say, or take the pending penalty (NM-9, NM-17)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """``pass``: keep a drawn card, or end a Discard All choice."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class ChooseColour(Action):
    """``colour C``: the Roulette victim names the colour (NM-30), or a deferred wild colour."""

    colour: Colour

    def __str__(self) -> str:
        return f"colour {self.colour.value}"


@dataclass(frozen=True, slots=True)
class Challenge(Action):
    """``challenge``: challenge a classic Wild +4 (CL-8)."""

    def __str__(self) -> str:
        return "challenge"


@dataclass(frozen=True, slots=True)
class CallUno(Action):
    """``N:uno``: call UNO while holding one card (NM-37); may be out of turn."""

    def __str__(self) -> str:
        return f"{self.seat}:uno"


@dataclass(frozen=True, slots=True)
class Catch(Action):
    """``N:catch SEAT``: catch a player who did not call UNO (NM-37); may be out of turn."""

    target: int

    def __str__(self) -> str:
        return f"{self.seat}:catch {self.target}"


def _digits(token: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes ``²`` and other scripts' digits, which
    ``int`` refuses or reads as numbers the notation does not have."""
    return token.isascii() and token.isdigit()


def _seat(token: str, text: str) -> int:
    if not _digits(token):
        raise NotationError(f"expected a seat number, got {token!r} in {text!r}")
    return int(token)


def parse_action(text: str, to_act: int | None) -> Action:
    """Parse action notation; without an ``N:`` prefix the seat ``to_act`` acts.

    >>> parse_action("play W+6 G", 2)
    Play(seat=2, card=Card('W+6'), colour=<Colour.GREEN: 'G'>, target=None, uno=False, jump=False)

    Raises:
        NotationError: the text does not parse.
    """
    if not isinstance(text, str):
        raise NotationError(f"an action must be a string or an action object, not {text!r}")
    body = text.strip()
    seat = to_act
    prefixed = False
    head, sep, rest = body.partition(":")
    if sep:
        seat = _seat(head.strip(), text)
        body = rest.strip()
        prefixed = True
    tokens = body.split()
    if not tokens:
        raise NotationError(f"empty action {text!r}")
    if seat is None:
        raise NotationError(f"{text!r} needs an 'N:' seat prefix: no seat is to act")
    verb, args = tokens[0].lower(), tokens[1:]
    if verb == "play":
        if not args:
            raise NotationError(f"'play' needs a card code in {text!r}")
        card = parse_card(args[0])
        colour: Colour | None = None
        target: int | None = None
        uno = False
        for token in args[1:]:
            if token.lower() == "uno" and not uno:
                uno = True
            elif _digits(token) and target is None:
                target = int(token)
            elif token.startswith("-") and _digits(token[1:]):
                raise NotationError(f"{token!r} in {text!r} is not a seat: seats count from 0")
            elif colour is None and not _digits(token) and token.lower() != "uno":
                colour = parse_colour(token)
            else:
                raise NotationError(f"unexpected {token!r} in {text!r}")
        return Play(seat, card, colour, target, uno, prefixed and seat != to_act)
    simple = {"draw": Draw, "pass": Pass, "challenge": Challenge, "uno": CallUno}
    if verb in simple:
        if args:
            raise NotationError(f"{verb!r} takes no arguments in {text!r}")
        return simple[verb](seat)
    if verb in ("colour", "color"):
        if len(args) != 1:
            raise NotationError(f"'colour' needs exactly one colour in {text!r}")
        return ChooseColour(seat, parse_colour(args[0]))
    if verb == "catch":
        if len(args) != 1:
            raise NotationError(f"'catch' needs exactly one seat in {text!r}")
        return Catch(seat, _seat(args[0], text))
    raise NotationError(
        f"unknown action {verb!r} in {text!r}: expected play, draw, colour, pass, challenge, "
        "uno or catch"
    )
