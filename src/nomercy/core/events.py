"""Events: what an action did and why, in words that cite the rule (RULES.md ids)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, cast

from nomercy.core.rules import CLASSIC_RULE_IDS

__all__ = ["Event", "EventKind", "Text"]


class EventKind(StrEnum):
    """What an event records; its value is the ``kind`` string of records and the web protocol.

    A ``StrEnum``: ``EventKind.PLAY == "play"``, and JSON writes the plain string.
    """

    ABSORB = "absorb"
    """A seat takes the pending penalty (NM-17)."""
    CATCH = "catch"
    """A seat is caught without its UNO call (NM-37)."""
    CHALLENGE = "challenge"
    """A Wild +4 is challenged (CL-8)."""
    CHOOSE_COLOUR = "choose_colour"
    """A colour is named for a wild (NM-12, CL-3, A18)."""
    COLOUR = "colour"
    """The active colour changes without a play (a resolved stack, A18)."""
    DEAL = "deal"
    """The hands are dealt (NM-2, CL-2)."""
    DEALER = "dealer"
    """The dealer is chosen or passes on (NM-3)."""
    DEFLECT = "deflect"
    """A Skip or Reverse deflects a pending penalty (A05)."""
    DISCARD_ALL = "discard_all"
    """A Discard All card discards a colour (NM-27, A09)."""
    DRAW = "draw"
    """A seat draws (NM-9, NM-35)."""
    EXHAUSTED = "exhausted"
    """The draw pile and the discard pile are both used up (A13)."""
    HAND_END = "hand_end"
    """The hand is over, with its scores (NM-40)."""
    JUMP_IN = "jump_in"
    """A classic jump-in (C04)."""
    KNOCKOUT = "knockout"
    """A seat reaches the Mercy limit and is out (NM-33)."""
    MATCH_END = "match_end"
    """The match reaches its score target (NM-41)."""
    PASS = "pass"
    """A seat keeps its drawn card or lets a choice go (NM-9)."""
    PASS_HANDS = "pass_hands"
    """Every hand passes on (a 0, NM-31)."""
    PLAY = "play"
    """A card is played (NM-8)."""
    RESHUFFLE = "reshuffle"
    """The discard pile becomes the draw pile (NM-35, CL-11)."""
    REVEAL = "reveal"
    """Roulette reveals cards (NM-30)."""
    REVEAL_HAND = "reveal_hand"
    """A hand is shown to a seat (a challenge, CL-8)."""
    REVERSE = "reverse"
    """The direction changes (NM-14)."""
    ROULETTE = "roulette"
    """A Colour Roulette is played (NM-30)."""
    ROULETTE_COLOUR = "roulette_colour"
    """The Roulette victim names the colour (NM-30)."""
    SKIP = "skip"
    """A seat loses its turn (NM-13, NM-17)."""
    SKIP_EVERYONE = "skip_everyone"
    """Everyone else is skipped (NM-15)."""
    STACK = "stack"
    """A Draw Card is stacked on the pending penalty (NM-18)."""
    START_CARD = "start_card"
    """The first card of the discard pile and its effect (NM-4, CL-3)."""
    SWAP = "swap"
    """Two hands are swapped (a 7, NM-29)."""
    UNO = "uno"
    """A seat calls UNO (NM-37)."""


#: Classic cites its own rules (RULES.md §5) where a shared event text cites a No Mercy one:
#: the one map, :data:`nomercy.core.rules.CLASSIC_RULE_IDS` (the coach reads it too).
_CLASSIC_IDS: Final = CLASSIC_RULE_IDS

#: A text, or a ``str.format`` template followed by its arguments, formatted when first read.
Text = str | tuple[Any, ...]


def _classic_ids(text: str) -> str:
    """``text`` with its trailing rule ids in classic's terms (``[NM-37]`` -> ``[CL-9]``)."""
    start = text.rfind(" [")
    if start < 0 or not text.endswith("]"):
        return text
    ids = text[start + 2 : -1].split(", ")
    return text[: start + 2] + ", ".join(_CLASSIC_IDS.get(i, i) for i in ids) + "]"


class Event:
    """One thing that happened. Treat it as immutable.

    Attributes:
        kind: what happened (:class:`EventKind`, a ``StrEnum``: ``e.kind == "play"`` holds).
        text: plain English, citing the rule id in brackets. It may name cards that only
            ``seat`` may see; :meth:`for_seat` gives the text another seat may read.
        seat: the seat the event is about, if any.
        data: machine-readable details (card codes, counts, seats).
        secret: ``public_text`` replaces ``text`` for every seat but ``seat``.
        public_text: the censored text for other seats when ``secret``.

    The engine builds texts when they are first read: it may pass ``text`` and
    ``public_text`` as ``(template, *arguments)`` tuples (``template.format(*arguments)`` on
    first read), and ``classic=True`` turns the cited No Mercy rule ids into classic ones
    (``[NM-37]`` -> ``[CL-9]``) at that moment.
    """

    __slots__ = ("_censored", "_classic", "_public", "_text", "data", "kind", "seat", "secret")

    def __init__(
        self,
        kind: EventKind | str,
        text: Text,
        seat: int | None = None,
        data: dict[str, Any] | None = None,
        secret: bool = False,
        public_text: Text = "",
        classic: bool = False,
    ) -> None:
        # A plain string is accepted and checked (ValueError for an unknown kind).
        self.kind: EventKind = kind if type(kind) is EventKind else EventKind(kind)
        self._text: Text = text
        self.seat = seat
        self.data = data if data is not None else {}
        self.secret = secret
        self._public: Text = public_text
        self._classic = classic
        self._censored: Event | None = None  # for_seat's copy for the other seats, once built

    @property
    def text(self) -> str:
        """The event in words (built on first read)."""
        text = self._text
        if isinstance(text, str) and not self._classic:
            return text
        self._build()
        return cast(str, self._text)

    @property
    def public_text(self) -> str:
        """The text other seats read when ``secret`` (built on first read)."""
        text = self._public
        if isinstance(text, str) and not self._classic:
            return text
        self._build()
        return cast(str, self._public)

    def _build(self) -> None:
        """Format both texts and map classic's rule ids, once."""
        self._text = self._final(self._text)
        self._public = self._final(self._public)
        self._classic = False

    def _final(self, text: Text) -> str:
        joined = text if isinstance(text, str) else str(text[0]).format(*text[1:])
        return _classic_ids(joined) if self._classic and joined else joined

    def for_seat(self, seat: int | None) -> Event:
        """This event as ``seat`` may see it (``None``: a spectator)."""
        if not self.secret or seat == self.seat:
            return self
        # Every other seat sees the same copy: built once (views ask for it at every decision).
        censored = self._censored
        if censored is None:
            data = {k: v for k, v in self.data.items() if k not in ("cards", "hand", "card")}
            censored = self._censored = Event(self.kind, self.public_text, self.seat, data)
        return censored

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (as the event's own seat sees it)."""
        # _value_: the plain string (Enum.value is a slow descriptor), as records store it.
        return {**self.data, "kind": self.kind._value_, "text": self.text, "seat": self.seat}

    def public_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of what every seat may see."""
        return self.for_seat(None).to_dict()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Rebuild a (public) event from :meth:`to_dict` output."""
        extra = {k: v for k, v in data.items() if k not in ("kind", "text", "seat")}
        return cls(EventKind(data["kind"]), str(data["text"]), data.get("seat"), extra)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.kind, self.text, self.seat, self.data, self.secret, self.public_text) == (
            other.kind,
            other.text,
            other.seat,
            other.data,
            other.secret,
            other.public_text,
        )

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[type[Event], tuple[Any, ...]]:
        # Copies and pickles rebuild through __init__: the mypyc-compiled class has no
        # constructor without arguments.
        return (Event, (self.kind, self.text, self.seat, self.data, self.secret, self.public_text))

    def __repr__(self) -> str:
        return f"Event({self.kind._value_!r}, {self.text!r}, seat={self.seat!r})"

    def __str__(self) -> str:
        return self.text
