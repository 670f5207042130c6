"""Events: what an action did and why, in words that cite the rule (RULES.md ids)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event"]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened.

    Attributes:
        kind: a stable machine-readable kind (``"play"``, ``"absorb"``, ``"knockout"``, …).
        text: plain English, citing the rule id in brackets. It may name cards that only
            ``seat`` may see; :meth:`for_seat` gives the text another seat may read.
        seat: the seat the event is about, if any.
        data: machine-readable details (card codes, counts, seats).
        secret: ``public_text`` replaces ``text`` for every seat but ``seat``.
        public_text: the censored text for other seats when ``secret``.
    """

    kind: str
    text: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    secret: bool = False
    public_text: str = ""

    def for_seat(self, seat: int | None) -> Event:
        """This event as ``seat`` may see it (``None``: a spectator)."""
        if not self.secret or seat == self.seat:
            return self
        data = {k: v for k, v in self.data.items() if k not in ("cards", "hand", "card")}
        return Event(self.kind, self.public_text, self.seat, data)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {"kind": self.kind, "text": self.text, "seat": self.seat, **self.data}

    def __str__(self) -> str:
        return self.text
