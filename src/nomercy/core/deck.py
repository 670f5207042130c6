"""Deck composition tables (RULES.md §1.1, §1.2) and deck building."""

from __future__ import annotations

from collections.abc import Mapping

from nomercy.core.cards import COLOURS, Card, parse_card
from nomercy.core.errors import RuleSetError

__all__ = ["CLASSIC108_COUNTS", "NM168_COUNTS", "build_deck", "validate_counts"]


def _per_colour(faces: Mapping[str, int]) -> dict[str, int]:
    return {colour.value + face: count for colour in COLOURS for face, count in faces.items()}


#: The 168-card No Mercy deck (RULES.md §1.1, A35 default ``nm168``).
NM168_COUNTS: dict[str, int] = {
    **_per_colour(
        {
            **{str(n): 2 for n in range(10)},  # two of each number, 0 included
            "S": 3,
            "R": 3,
            "+2": 3,  # about 80% confidence, see RULES.md §1.1 / §7.1
            "+4": 2,
            "SE": 2,
            "DA": 3,
        }
    ),
    "WR+4": 8,
    "W+6": 4,
    "W+10": 4,
    "WCR": 8,
}

#: The 108-card classic deck (RULES.md §1.2).
CLASSIC108_COUNTS: dict[str, int] = {
    **_per_colour({"0": 1, **{str(n): 2 for n in range(1, 10)}, "S": 2, "R": 2, "+2": 2}),
    "W": 4,
    "W+4": 4,
}

assert sum(NM168_COUNTS.values()) == 168
assert sum(CLASSIC108_COUNTS.values()) == 108


def validate_counts(counts: Mapping[str, object]) -> dict[str, int]:
    """Check a custom deck table (card code -> copies) and return it normalised.

    Raises:
        RuleSetError: an unknown code or a count that is not a non-negative integer.
    """
    result: dict[str, int] = {}
    for code, count in counts.items():
        try:
            card = parse_card(str(code))
        except ValueError as exc:
            raise RuleSetError(f"deck_counts: {exc}") from None
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise RuleSetError(
                f"deck_counts[{code!r}] must be a non-negative integer, not {count!r}"
            )
        if count:
            result[card.code] = result.get(card.code, 0) + count
    if not any(Card(code).is_number for code in result):
        raise RuleSetError("deck_counts must contain at least one number card (NM-4 opening flip)")
    return result


def build_deck(counts: Mapping[str, int]) -> list[Card]:
    """The deck as a list of cards in table order (unshuffled)."""
    return [Card(code) for code, count in counts.items() for _ in range(count)]
