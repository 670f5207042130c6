"""Events: what an action did and why, in words that cite the rule (RULES.md ids)."""

from __future__ import annotations

from typing import Any

__all__ = ["Event"]


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
    """

    __slots__ = ("data", "kind", "public_text", "seat", "secret", "text")

    def __init__(
        self,
        kind: str,
        text: str,
        seat: int | None = None,
        data: dict[str, Any] | None = None,
        secret: bool = False,
        public_text: str = "",
    ) -> None:
        self.kind = kind
        self.text = text
        self.seat = seat
        self.data = data if data is not None else {}
        self.secret = secret
        self.public_text = public_text

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
