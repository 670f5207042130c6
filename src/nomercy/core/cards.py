"""Cards, colours and their codes (RULES.md §1; card codes in docs/notation.md).

A :class:`Card` is an interned, immutable value: there is exactly one object per code, so
cards compare and hash by identity, which keeps the engine fast.
"""

from __future__ import annotations

import contextlib
from enum import StrEnum, unique
from typing import Any

from nomercy.core.errors import NotationError

__all__ = [
    "ALL_CODES",
    "COLOURS",
    "Card",
    "Colour",
    "Kind",
    "parse_card",
    "parse_colour",
]


@unique
class Colour(StrEnum):
    """The four suits; the value is the one-letter code."""

    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"

    @property
    def word(self) -> str:
        """The colour's name in lower case (``"red"``)."""
        # A table: an enum's ``name`` is a Python-level descriptor, read for every event
        # text that names a colour.
        return _WORD[self]


COLOURS: tuple[Colour, ...] = (Colour.RED, Colour.YELLOW, Colour.GREEN, Colour.BLUE)
_WORD: dict[Colour, str] = {c: c.name.lower() for c in COLOURS}

_COLOUR_WORDS = {
    "r": Colour.RED,
    "red": Colour.RED,
    "y": Colour.YELLOW,
    "yellow": Colour.YELLOW,
    "g": Colour.GREEN,
    "green": Colour.GREEN,
    "b": Colour.BLUE,
    "blue": Colour.BLUE,
}


def parse_colour(text: str) -> Colour:
    """Parse ``R``/``Y``/``G``/``B`` (or the colour's English name, any case).

    Raises:
        NotationError: the text names no colour.
    """
    try:
        return _COLOUR_WORDS[text.strip().lower()]
    except KeyError:
        raise NotationError(f"unknown colour {text!r}: expected one of R, Y, G, B") from None


@unique
class Kind(StrEnum):
    """What a card does (RULES.md §1.1 engine kinds)."""

    NUMBER = "number"
    SKIP = "skip"
    REVERSE = "reverse"
    DRAW_TWO = "draw_two"
    DRAW_FOUR = "draw_four"
    SKIP_EVERYONE = "skip_everyone"
    DISCARD_ALL = "discard_all"
    WILD_REVERSE_DRAW_FOUR = "wild_reverse_draw_four"
    WILD_DRAW_SIX = "wild_draw_six"
    WILD_DRAW_TEN = "wild_draw_ten"
    WILD_COLOUR_ROULETTE = "wild_colour_roulette"
    WILD = "wild"
    WILD_DRAW_FOUR = "wild_draw_four"


# face code -> (kind, draw value, display name)
_COLOURED_FACES: dict[str, tuple[Kind, int, str]] = {
    **{str(n): (Kind.NUMBER, 0, str(n)) for n in range(10)},
    "S": (Kind.SKIP, 0, "Skip"),
    "R": (Kind.REVERSE, 0, "Reverse"),
    "+2": (Kind.DRAW_TWO, 2, "+2"),
    "+4": (Kind.DRAW_FOUR, 4, "+4"),
    "SE": (Kind.SKIP_EVERYONE, 0, "Skip Everyone"),
    "DA": (Kind.DISCARD_ALL, 0, "Discard All"),
}
_WILD_CODES: dict[str, tuple[Kind, int, str]] = {
    "WR+4": (Kind.WILD_REVERSE_DRAW_FOUR, 4, "Wild Reverse +4"),
    "W+6": (Kind.WILD_DRAW_SIX, 6, "Wild +6"),
    "W+10": (Kind.WILD_DRAW_TEN, 10, "Wild +10"),
    "WCR": (Kind.WILD_COLOUR_ROULETTE, 0, "Colour Roulette"),
    "W": (Kind.WILD, 0, "Wild"),
    "W+4": (Kind.WILD_DRAW_FOUR, 4, "Wild +4"),
}


# code -> (colour, face, kind, draw value, display name), in the table's order (ALL_CODES).
_SPECS: dict[str, tuple[Colour | None, str, Kind, int, str]] = {
    **{
        colour.value + face: (colour, face, kind, value, label)
        for colour in COLOURS
        for face, (kind, value, label) in _COLOURED_FACES.items()
    },
    **{
        code: (None, code, kind, value, label) for code, (kind, value, label) in _WILD_CODES.items()
    },
}
# code -> the one Card object for it; filled below, once, by calling Card on every code.
_INTERNED: dict[str, Card] = {}


class Card:
    """One card. Use ``Card("R7")`` or :func:`parse_card`; both return the interned object.

    Attributes:
        code: the card code (``"R7"``, ``"G+2"``, ``"W+6"``).
        colour: the printed colour, or ``None`` for a wild.
        face: the face code without colour (``"7"``, ``"+2"``, ``"W+6"``).
        kind: what the card does.
        index: its position in :data:`ALL_CODES` (compact encodings: counts, masks).
        number: the number of a number card, else ``None``.
        draw_value: the penalty it adds to a stack (RULES.md NM-15), 0 if it is no Draw Card.
        points: its value when a hand is scored (RULES.md §1.3).
        is_wild: whether it is a wild card.
        name: a short English name (``"red 7"``, ``"Wild +6"``).

    >>> Card("R+2").draw_value
    2
    >>> Card("W+10") is parse_card("w+10")
    True
    """

    __slots__ = (
        "code",
        "colour",
        "draw_value",
        "face",
        "index",
        "is_wild",
        "kind",
        "name",
        "number",
        "points",
    )
    code: str
    colour: Colour | None
    face: str
    index: int
    kind: Kind
    number: int | None
    draw_value: int
    points: int
    is_wild: bool
    name: str

    # ``code`` is typed object, as in parse_card: a non-str is a NotationError, which a
    # mypyc-compiled build would otherwise pre-empt with its own TypeError.
    def __new__(cls, code: object) -> Card:
        if isinstance(code, str):
            card = _INTERNED.get(code)
            if card is not None:
                return card
            spec = _SPECS.get(code)
            if spec is not None:
                # Only reached while the module fills the table. The object is made here,
                # inside __new__: a mypyc-compiled class refuses object.__new__(Card) elsewhere.
                colour, face, kind, value, label = spec
                card = object.__new__(cls)
                number = int(face) if kind is Kind.NUMBER else None
                object.__setattr__(card, "code", code)
                object.__setattr__(card, "colour", colour)
                object.__setattr__(card, "face", face)
                object.__setattr__(card, "index", len(_INTERNED))
                object.__setattr__(card, "kind", kind)
                object.__setattr__(card, "number", number)
                object.__setattr__(card, "draw_value", value)
                object.__setattr__(card, "is_wild", colour is None)
                points = 50 if colour is None else (number if number is not None else 20)
                object.__setattr__(card, "points", points)
                name = label if colour is None else f"{colour.word} {label}"
                object.__setattr__(card, "name", name)
                _INTERNED[code] = card
                return card
        # Not an exact code: parse_card normalises ("r7") or raises NotationError.
        return parse_card(code)

    def __hash__(self) -> int:
        # By identity, as object hashes. Spelled out because a class that mypyc compiles with
        # a comparison method (__lt__) does not inherit object's hash. Below, the module
        # swaps in object's own (C) hash, the same value without a Python call per hash.
        return object.__hash__(self)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple[type[Card], tuple[str]]:
        return (Card, (self.code,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self

    def __lt__(self, other: Card) -> bool:
        return _ORDER[self.code] < _ORDER[other.code]

    @property
    def is_number(self) -> bool:
        """Whether this is a number card (0–9)."""
        return self.number is not None

    @property
    def is_draw_card(self) -> bool:
        """Whether this card can open, join or answer a stack (NM-15)."""
        return self.draw_value > 0


# A type that refuses this keeps the method above: the same hash, one call slower.
with contextlib.suppress(TypeError):
    Card.__hash__ = object.__hash__  # type: ignore[method-assign]

for _code in _SPECS:
    Card(_code)

ALL_CODES: tuple[str, ...] = tuple(_INTERNED)
_ORDER = {code: i for i, code in enumerate(ALL_CODES)}


def parse_card(code: object) -> Card:
    """Parse a card code such as ``R7``, ``G+2``, ``BSE``, ``YDA``, ``WR+4``, ``WCR`` (any case).

    Raises:
        NotationError: the code names no card.
    """
    key = code.strip().upper() if isinstance(code, str) else code
    card = _INTERNED.get(key) if isinstance(key, str) else None
    if card is None:
        raise NotationError(
            f"unknown card code {code!r}: expected a colour R/Y/G/B plus a face "
            "(0-9, S, R, +2, +4, SE, DA), or a wild WR+4, W+6, W+10, WCR, W, W+4"
        )
    return card
