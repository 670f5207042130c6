"""What the public history of a hand proves about the colours a seat holds (NM-9, CL-5).

A player who draws on its turn without a voluntary draw (A03 ``voluntary_draw="off"``: a
player who can play must, NM-8) held no card of the active colour and no wild, unless a
playable drawn card may be kept silently (A02 ``draw_one_pass``) or some wild draw cards are
restricted (A34, CL-4): :attr:`RuleFacts.draw_proves_gap
<nomercy.core.rules.RuleFacts.draw_proves_gap>` and ``wild_draw_restricted`` say when, once
per rule set. This module is the one place that turns that proof into knowledge, in the two
readings the project needs:

- :class:`VoidTracker`: the colours a seat surely holds *none* of (the RL encoders'
  ``opp_void``), followed step by step, from the step's public events (:meth:`update`) or,
  with events off, from the same transitions called by a reader of the step's public effects
  (``nomercy.encoding.fast.TableObserver``).
- :func:`infer_gaps`: the colours missing from the *unseen* part of each hand (what a re-deal
  must respect, :class:`~nomercy.core.redeal.Redealer`), read from the public history of the
  hand. Under draw-until-playable the cards drawn before the playable one were unplayable
  too, so that gap survives the draw; gaps shown on earlier turns survive it only if the
  hand ends the turn as it began it (one card drawn and played at once), since kept cards
  may be of those colours. A gap ends when the player gets cards nobody saw (an absorbed
  penalty, an UNO penalty, a kept drawn card) and it moves with the hand in a 7-swap (NM-31)
  or a 0-pass (NM-29). Publicly revealed cards (NM-30) are known cards, not part of the
  gap: the gap speaks about the cards nobody has seen. So it is wider than the void flags
  (tests/rl/test_rl_void_readings.py checks that every void flag is one of these gaps).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from nomercy.core.cards import COLOURS, Card, Colour, Kind, parse_card
from nomercy.core.events import Event
from nomercy.core.events import EventKind as EK
from nomercy.core.rules import RuleSet

__all__ = ["Gaps", "VoidTracker", "draw_shows_gap", "infer_gaps"]

#: A colour's place in COLOURS by its value ("R" -> 0).
_COLOUR_SLOT: Final[dict[str, int]] = {c.value: i for i, c in enumerate(COLOURS)}
_NO_FLAGS: Final[list[int]] = [0, 0, 0, 0]
# Events by which a seat receives cards (so what it could not play says nothing any more).
_RECEIVE_KINDS: Final = frozenset({EK.ABSORB, EK.CATCH, EK.CHALLENGE, EK.REVEAL})
#: Every kind VoidTracker.update reads; the others are skipped before their public form
#: is built.
TRACKED_KINDS: Final = _RECEIVE_KINDS | {
    EK.DEAL,
    EK.DRAW,
    EK.PASS,
    EK.PASS_HANDS,
    EK.PLAY,
    EK.SWAP,
}


class VoidTracker:
    """Per seat, the colours a draw proved it holds none of (NM-9, CL-5), step by step.

    ``void[s][c]`` is set when seat ``s`` drew in its turn because it held nothing playable
    while ``COLOURS[c]`` was the active colour, once the draw is over: at once if the turn
    passed, or when ``s`` plays the drawn card (a kept drawn card sets nothing). It is
    cleared when ``s`` receives cards in any other way (absorbing a penalty, being caught, a
    challenge, a Roulette reveal, a swap, hands passing, a new deal). It is only tracked when
    a draw proves it (:attr:`RuleFacts.draw_proves_gap
    <nomercy.core.rules.RuleFacts.draw_proves_gap>`); otherwise every flag stays 0.

    Follow a game with :meth:`update` (a step's events), or with the transitions
    :meth:`settle`, :meth:`drew`, :meth:`played`, :meth:`forget` and :meth:`reset` (a reader
    of the step's public effects, events off). ``nomercy.encoding`` calls it
    ``PublicTracker``.
    """

    __slots__ = ("_informative", "_pending", "_rules", "n", "void")

    def __init__(self, rules: RuleSet, n: int) -> None:
        self._rules = rules
        self.n = n
        self._informative = rules.facts.draw_proves_gap  # A02, A03, NM-9
        self.void: list[list[int]] = [[0, 0, 0, 0] for _ in range(n)]
        #: A drawn card in play: ``seat * 4 + colour slot`` of the draw, -1 for none.
        self._pending = -1

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Compiled, the class is native: pickle and copy rebuild it through __init__.
        return _restored, (self._rules, self.n, self._pending, self.void)

    def reset(self) -> None:
        """Forget everything (a new deal, every hand passing, a new game)."""
        for flags in self.void:
            flags[:] = _NO_FLAGS
        self._pending = -1

    def forget(self, seat: int) -> None:
        """``seat`` got cards nobody saw, or another hand: its flags say nothing any more."""
        self.void[seat][:] = _NO_FLAGS

    def settle(self) -> int:
        """Begin a step: the drawn card in play (for :meth:`played`), now no longer pending."""
        pending = self._pending
        self._pending = -1
        return pending

    def drew(self, seat: int, colour: int, deciding: bool) -> None:
        """``seat`` drew on its turn while ``COLOURS[colour]`` was active (-1: none yet):
        what it held says nothing more, and the draw proves it held none of that colour, at
        once or, when it now decides on the drawn card (``deciding``), once it plays it."""
        flags = self.void[seat]
        flags[:] = _NO_FLAGS
        if colour >= 0 and self._informative:
            if deciding:
                self._pending = seat * 4 + colour
            else:
                flags[colour] = 1

    def played(self, seat: int, pending: int) -> None:
        """``seat`` played the card it was deciding on (``pending`` from :meth:`settle`): the
        drawn card has left the hand, so the draw's proof holds."""
        if pending >= 0 and pending >> 2 == seat:
            self.void[seat][pending & 3] = 1

    def update(
        self,
        events: Iterable[Event],
        *,
        colour: str | None,
        phase: str,
        next_phase: str,
    ) -> None:
        """Fold in one step's events, in the public form every seat sees.

        Args:
            events: the step's events; each is read through ``event.for_seat(None)``.
            colour: the active colour before the step (public, ``view.colour``), as its value.
            phase: the phase before the step (public, ``view.phase``), as its value.
            next_phase: the phase after the step (public).
        """
        pending = self.settle()
        deciding = phase == "play_drawn"
        slot = -1 if colour is None else _COLOUR_SLOT[colour]
        for raw in events:
            if raw.kind not in TRACKED_KINDS:
                continue
            event = raw.for_seat(None)
            kind = event.kind
            seat = event.seat
            if kind is EK.PASS_HANDS or kind is EK.DEAL:
                self.reset()
                continue
            if seat is None:
                continue
            if kind is EK.PLAY:
                if deciding:
                    self.played(seat, pending)
                    pending = -1
            elif kind is EK.DRAW:
                self.drew(seat, slot, next_phase == "play_drawn")
            elif kind is EK.PASS:
                if deciding:
                    self.forget(seat)  # the drawn card is kept
            elif kind in _RECEIVE_KINDS:
                self.forget(seat)
            elif kind is EK.SWAP:
                self.forget(seat)
                self.forget(event.data["target"])


def _restored(rules: RuleSet, n: int, pending: int, void: list[list[int]]) -> VoidTracker:
    tracker = VoidTracker(rules, n)
    tracker._pending = pending
    tracker.void = [list(flags) for flags in void]
    return tracker


def draw_shows_gap(rules: RuleSet) -> bool:
    """Whether a draw on a player's turn shows it held no card of the active colour
    (:attr:`RuleFacts.draw_proves_gap <nomercy.core.rules.RuleFacts.draw_proves_gap>`).

    >>> from nomercy import make_rules
    >>> draw_shows_gap(make_rules("no-mercy")), draw_shows_gap(make_rules("classic"))
    (True, False)
    """
    return rules.facts.draw_proves_gap


class Gaps:
    """What the public history of a hand says each seat does *not* hold.

    Attributes:
        lacks: per seat, the colours it showed it holds none of among its unseen cards.
        no_wild: seats that showed they hold no wild among their unseen cards.
        colour: the active colour as the history tracked it (``None`` when owed or unknown).
    """

    __slots__ = ("colour", "lacks", "no_wild")

    def __init__(
        self, lacks: dict[int, set[Colour]], no_wild: set[int], colour: Colour | None
    ) -> None:
        self.lacks = lacks
        self.no_wild = no_wild
        self.colour = colour

    def fits(self, seat: int, card: Card) -> bool:
        """Whether ``card`` may be among ``seat``'s unseen cards."""
        if card.colour is None:
            return seat not in self.no_wild
        return card.colour not in self.lacks.get(seat, ())

    def __repr__(self) -> str:
        return f"Gaps(lacks={self.lacks!r}, no_wild={self.no_wild!r}, colour={self.colour!r})"


def infer_gaps(  # noqa: C901, PLR0915 (measured in tests/test_complexity.py)
    rules: RuleSet,
    n: int,
    history: Iterable[Mapping[str, Any] | Event],
    direction: int,
    deciding: int | None = None,
) -> Gaps:
    """Walk a hand's public history (``Game.public_history()``) and return its :class:`Gaps`.

    Args:
        rules: the rule set in force.
        n: the number of seats.
        history: the public events of the current hand, oldest first: event dicts
            (``Game.public_history()``) or :class:`Event` objects as every seat saw them
            (``PlayerView.history``).
        direction: the direction of play now; if the walk ends elsewhere it lost track of an
            event and keeps no gap (a 0-pass moves gaps by direction).
        deciding: the seat now deciding on a card it drew (phase ``play_drawn``), if any;
            its gaps then describe its hand apart from that card.
    """
    out = [False] * n
    lacks: dict[int, set[Colour]] = {s: set() for s in range(n)}
    no_wild: set[int] = set()
    # A34 / CL-4 restrictions make some wilds unplayable, so a draw says nothing about them.
    wild_always_playable = not rules.facts.wild_draw_restricted
    infer = rules.facts.draw_proves_gap  # A02, A03, NM-9, CL-5
    colour: Colour | None = None
    walked = 1
    last_card: Card | None = None
    # The seat whose turn draw is not yet settled, and its gaps from before that turn.
    drew: int | None = None
    drew_count = 0
    before: set[Colour] = set()

    def clear(seat: int | None) -> None:
        if seat is not None and 0 <= seat < n:
            lacks[seat] = set()
            no_wild.discard(seat)

    data: Mapping[str, Any]
    for event in history:
        if isinstance(event, Event):
            kind: str = event.kind
            seat = event.seat
            data = event.data
        else:
            kind = event["kind"]
            seat = event.get("seat")
            data = event
        if drew is not None and kind != "draw":
            if kind == "uno" and seat == drew:
                continue  # a call before playing the drawn card settles nothing
            # The drawing player's next move tells what happened to the drawn cards.
            if kind == "pass" and seat == drew:
                clear(drew)  # a drawn card was kept: it was playable (NM-9, CL-5)
            elif kind == "play" and seat == drew and drew_count == 1:
                # One card drawn and played at once: the hand is the one that showed the
                # older gaps, so they still hold beside the new one.
                lacks[drew] |= before
            drew = None
        if kind == "deal":
            lacks = {s: set() for s in range(n)}
            no_wild = set()
            out = [False] * n
            walked = 1
        elif kind == "start_card":
            card = parse_card(data["card"]) if data.get("card") else None
            if card is not None:
                colour = card.colour
        elif kind == "play":
            card = parse_card(data["card"])
            last_card = card
            if card.colour is not None:
                colour = card.colour
            elif data.get("colour"):
                colour = Colour(data["colour"])
            elif card.kind is Kind.WILD_COLOUR_ROULETTE or (
                card.draw_value and rules.wild_colour_timing == "on_resolution"
            ):
                colour = None  # named later (NM-30 reveal, A18 colour event)
            if card.kind is Kind.WILD_REVERSE_DRAW_FOUR:
                walked = -walked
        elif kind in ("colour", "reveal", "roulette_colour"):
            if data.get("colour") and kind != "roulette_colour":
                colour = Colour(data["colour"])
        elif kind == "reverse":
            walked = -walked
        elif kind == "deflect":
            if last_card is not None and last_card.kind is Kind.REVERSE:
                walked = -walked
        elif kind == "draw":
            if infer and seat is not None and colour is not None:
                # Cards drawn and kept may be of colours the seat showed it lacked before,
                # so only the active colour is sure; the older gaps come back if the hand
                # ends the turn as it began it (see above).
                before = lacks[seat]
                lacks[seat] = {colour}
                if wild_always_playable:
                    no_wild.add(seat)
                drew = seat
                drew_count = int(data.get("count", 1))
            else:
                clear(seat)
        elif kind in ("absorb", "catch", "challenge"):
            clear(seat)
        elif kind == "swap":
            target = data.get("target")
            if seat is not None and target is not None:
                lacks[seat], lacks[target] = lacks[target], lacks[seat]
                a, b = seat in no_wild, target in no_wild
                no_wild.discard(seat)
                no_wild.discard(target)
                if a:
                    no_wild.add(target)
                if b:
                    no_wild.add(seat)
        elif kind == "pass_hands":
            active = [s for s in range(n) if not out[s]]
            if len(active) > 1:
                new_lacks = dict(lacks)
                new_no_wild = set(no_wild) - set(active)
                for i, s in enumerate(active):
                    receiver = active[(i + walked) % len(active)]
                    new_lacks[receiver] = lacks[s]
                    if s in no_wild:
                        new_no_wild.add(receiver)
                lacks, no_wild = new_lacks, new_no_wild
        elif kind == "knockout" and seat is not None:
            out[seat] = True
            clear(seat)
    if drew is not None and drew == deciding and drew_count == 1:
        # The seat still decides on the card it drew (NM-9, CL-5): the gaps speak about the
        # hand apart from that card (Redealer deals it apart), so the older gaps hold.
        lacks[drew] |= before
    if walked != direction:
        # The walk lost track of the direction (an event this tracker does not model):
        # the gaps moved by a 0-pass may be wrong, so keep none of them.
        lacks = {s: set() for s in range(n)}
        no_wild = set()
    return Gaps(lacks, no_wild, colour)
