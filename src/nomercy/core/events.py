"""Events: what an action did and why, in words that cite the rule (RULES.md ids)."""

from __future__ import annotations

from typing import Any, Final, cast

__all__ = ["Event", "Text"]


#: Classic cites its own rules (RULES.md §5) where a shared event text cites a No Mercy one:
#: the deal, UNO, reshuffles, and the house rules of C04 (7-0, stacking, draw until playable).
_CLASSIC_IDS: Final = {
    "NM-2": "CL-2",
    "NM-37": "CL-9",
    "NM-35": "CL-11",
    "A13": "CL-11",
    "NM-9": "C04",
    "NM-16": "C04",
    "NM-29": "C04",
    "NM-31": "C04",
    "A17": "C07",
}

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
        kind: a stable machine-readable kind (``"play"``, ``"absorb"``, ``"knockout"``, …).
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

    __slots__ = ("_classic", "_public", "_text", "data", "kind", "seat", "secret")

    def __init__(
        self,
        kind: str,
        text: Text,
        seat: int | None = None,
        data: dict[str, Any] | None = None,
        secret: bool = False,
        public_text: Text = "",
        classic: bool = False,
    ) -> None:
        self.kind = kind
        self._text: Text = text
        self.seat = seat
        self.data = data if data is not None else {}
        self.secret = secret
        self._public: Text = public_text
        self._classic = classic

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
        data = {k: v for k, v in self.data.items() if k not in ("cards", "hand", "card")}
        return Event(self.kind, self.public_text, self.seat, data)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (as the event's own seat sees it)."""
        return {**self.data, "kind": self.kind, "text": self.text, "seat": self.seat}

    def public_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of what every seat may see."""
        return self.for_seat(None).to_dict()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Rebuild a (public) event from :meth:`to_dict` output."""
        extra = {k: v for k, v in data.items() if k not in ("kind", "text", "seat")}
        return cls(str(data["kind"]), str(data["text"]), data.get("seat"), extra)

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
        return f"Event({self.kind!r}, {self.text!r}, seat={self.seat!r})"

    def __str__(self) -> str:
        return self.text
