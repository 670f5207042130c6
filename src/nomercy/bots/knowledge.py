"""What a seat can infer from its view: unseen cards and the colours opponents lack.

:func:`read_view` turns a player's view (``Game.view(seat)``) into a :class:`Knowledge`:

- the cards this seat has not seen (the deck minus its hand, the discard pile and the cards it
  knows other seats hold), which are exactly the cards that may be in other hands, in the
  draw pile or in the set-aside pile (NM-34);
- for each opponent, the colours it showed it lacks. A player who draws on its turn without
  a voluntary draw (NM-9, CL-5, A03 ``voluntary_draw="off"``) held no card of the active
  colour and no wild. Under draw-until-playable the cards drawn before the playable one are
  unplayable too, so that gap survives the draw (older gaps survive it only if one card was
  drawn and played at once: kept cards may be of those colours). A gap ends when the player
  receives cards nobody saw (an absorbed penalty, an UNO penalty, a kept drawn card) and it
  moves with the hand in a 7-swap (NM-31) or a 0-pass (NM-29). Publicly revealed cards (a
  Roulette reveal, NM-30) are listed in the view's ``known`` and are not part of the gap:
  the gap speaks about the cards of the hand nobody has seen.

Classic rules allow drawing with a playable card (CL-5), so a draw proves nothing there and
the core's :func:`~nomercy.core.gaps.infer_gaps` (and so :func:`read_view`) reads no gap.
The search's deals read one anyway (:func:`view_gaps`, used by
:func:`nomercy.bots.determinize.redealer_for`): they assume that a player draws on its turn
only when it must, as RLCard's agent, ``greedy`` and ``heuristic`` mostly do (``random``
draws at every chance, so against it these gaps are wrong). A player who then keeps the
drawn card although it was playable ends the gap as before (NM-9, CL-5). The heuristic
keeps the core's reading: with the assumed gaps it lost 3 points in classic four-player
games against ``rlcard-rule``, ``greedy`` and ``random`` (docs/ladder.md).

Everything comes from the view's public history and fields; nothing hidden is used.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from nomercy.core.base import Phase
from nomercy.core.cards import COLOURS, Card, Colour, Kind, parse_card
from nomercy.core.events import EventKind
from nomercy.core.gaps import Gaps, infer_gaps
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView

__all__ = [
    "Choice",
    "Knowledge",
    "PlayHints",
    "Rank",
    "colour_counts",
    "play_hints",
    "rank_of",
    "read_view",
    "rules_of",
    "view_gaps",
]

_GAP_RULES: dict[RuleSet, RuleSet] = {}


def rules_of(view: PlayerView) -> RuleSet:
    """The :class:`RuleSet` of a view (:attr:`PlayerView.rules`)."""
    return view.rules


@dataclass
class Knowledge:
    """A seat's inferences from its view.

    Attributes:
        seat: the viewing seat.
        rules: the rule set in force.
        hand: the seat's own cards.
        unseen: cards the seat has not seen anywhere (other hands' hidden parts, the draw
            pile and the set-aside pile), with multiplicity.
        known: cards the seat knows another seat holds (swaps, passes, reveals), by seat.
        lacks: per seat, colours it showed it holds none of in its hidden cards.
        lacks_wild: seats that showed they hold no wild in their hidden cards.
        colour: the active colour as the history tracked it (``None`` when owed).
    """

    seat: int | None
    rules: RuleSet
    hand: list[Card]
    unseen: Counter[Card]
    known: dict[int, list[Card]]
    lacks: dict[int, set[Colour]] = field(default_factory=dict)
    lacks_wild: set[int] = field(default_factory=set)
    colour: Colour | None = None

    def unseen_of(self, colour: Colour) -> int:
        """How many unseen cards have ``colour``."""
        return sum(n for c, n in self.unseen.items() if c.colour is colour)


def read_view(view: PlayerView) -> Knowledge:
    """Build the :class:`Knowledge` of the seat that ``view`` belongs to.

    >>> from nomercy import new_game
    >>> g = new_game(2, seed=3)
    >>> k = read_view(g.view(0))
    >>> sum(k.unseen.values()) == 168 - 7 - len(g.discard)
    True
    """
    rules = view.rules
    seat = view.seat
    hand = list(view.hand)
    known = {s: list(cards) for s, cards in view.known.items()}
    unseen: Counter[Card] = Counter()
    for code, count in rules.deck_table().items():
        if count:
            unseen[Card(code)] = count
    for c in hand:
        unseen[c] -= 1
    for c in view.discard:
        unseen[c] -= 1
    for cards in known.values():
        for c in cards:
            unseen[c] -= 1
    # A known list can name a card that is also visible elsewhere only if the view is
    # inconsistent; never let a count go negative.
    unseen = Counter({c: n for c, n in unseen.items() if n > 0})
    knowledge = Knowledge(seat, rules, hand, unseen, known)
    _track(knowledge, view)
    return knowledge


def _gap_rules(rules: RuleSet) -> RuleSet:
    """The rules the gaps are read under: classic ones as if nobody drew voluntarily."""
    found = _GAP_RULES.get(rules)
    if found is None:
        found = rules
        if rules.is_classic and rules.voluntary_draw != "off":
            found = dataclasses.replace(rules, voluntary_draw="off")
        _GAP_RULES[rules] = found
    return found


def view_gaps(view: PlayerView, rules: RuleSet | None = None) -> Gaps:
    """The colour gaps of every seat in ``view``'s hand (see the module docstring).

    :func:`~nomercy.core.gaps.infer_gaps` on the view's public history, with classic rules
    read as if every draw on a turn were forced (CL-5: bots draw only when they must).
    """
    rules = view.rules if rules is None else rules
    return infer_gaps(
        _gap_rules(rules), len(view.players), view.history, view.direction, _deciding(view)
    )


def _deciding(view: PlayerView) -> int | None:
    """The seat deciding on a card it drew (phase ``play_drawn``), if any."""
    return view.to_act if view.phase is Phase.PLAY_DRAWN else None


def _track(k: Knowledge, view: PlayerView) -> None:
    """Read the gaps from the hand's public history (:func:`nomercy.core.gaps.infer_gaps`)."""
    gaps = infer_gaps(k.rules, len(view.players), view.history, view.direction, _deciding(view))
    lacks, no_wild = gaps.lacks, gaps.no_wild
    me = k.seat
    if me is not None:
        lacks[me] = set()
        no_wild.discard(me)
    k.lacks = lacks
    k.lacks_wild = no_wild
    k.colour = view.colour if view.colour is not None else gaps.colour


def colour_counts(cards: list[Card]) -> dict[Colour, int]:
    """How many of ``cards`` have each colour."""
    counts = {c: 0 for c in COLOURS}
    for card in cards:
        if card.colour is not None:
            counts[card.colour] += 1
    return counts


#: A card's rank for matching (CL-4): its number, or its kind for an action card.
Rank = int | Kind


def rank_of(card: Card) -> Rank | None:
    """What ``card`` matches besides its colour (``None`` for a wild)."""
    if card.is_wild:
        return None
    return card.number if card.is_number else card.kind


class Choice(NamedTuple):
    """One coloured card a player chose to play from its hand (:attr:`PlayHints.choices`).

    ``colour`` and ``rank`` are what the top asked for (the active colour, the top card's
    :func:`rank_of`); the player's hand then was its hidden cards now plus the cards it
    played from its hand since, from index ``since`` of :attr:`PlayHints.played` on.
    """

    colour: Colour | None
    rank: Rank | None
    since: int


@dataclass
class PlayHints:
    """What a classic player's draws and plays suggest about its hand (search priors).

    Every hint is about a seat's hand since it last received cards nobody saw.

    Attributes:
        lacks: per seat, the colours that were active when it played a wild (plain or
            Wild +4): a sensible player keeps its wilds for when no other card fits, so it
            probably held none of them.
        ranks: per seat, the ranks (:func:`rank_of`) it showed it could not match: the top
            card's when it drew on its turn or played a wild (it held no card of that
            number or symbol, as it held none of the colour, :func:`view_gaps`).
        named: per seat, the colour it named with its latest wild and how many cards of
            :attr:`played` came before it (its hand then was its hidden cards now plus the
            rest): a sensible player names the colour it holds most.
        played: per seat, the cards it played from its hand, oldest first (not a card it
            drew and played at once).
        choices: per seat, its plays of coloured cards from its hand (:class:`Choice`).
        named_with: per seat in :attr:`named`, the wild it named that colour with.
    """

    lacks: dict[int, set[Colour]] = field(default_factory=dict)
    ranks: dict[int, set[Rank]] = field(default_factory=dict)
    named: dict[int, tuple[Colour, int]] = field(default_factory=dict)
    played: dict[int, list[Card]] = field(default_factory=dict)
    choices: dict[int, list[Choice]] = field(default_factory=dict)
    named_with: dict[int, Card] = field(default_factory=dict)


#: Events by which their seat receives cards nobody saw (or leaves the hand, NM-33).
_RECEIVED = frozenset({EventKind.ABSORB, EventKind.CATCH, EventKind.CHALLENGE, EventKind.KNOCKOUT})


@dataclass
class _Seat:
    """One seat's hints while the history is walked (see :class:`PlayHints`)."""

    lacks: set[Colour] = field(default_factory=set)
    ranks: set[Rank] = field(default_factory=set)
    named: tuple[Colour, int] | None = None
    played: list[Card] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    wild: Card | None = None  # the last wild it played (the one a colour is named with)


def play_hints(view: PlayerView) -> PlayHints:  # noqa: C901 (measured in tests/test_complexity.py)
    """Read :class:`PlayHints` from ``view``'s public history (the viewer's own excluded).

    A seat's hints end when it receives cards nobody saw (a draw it keeps, an absorbed
    penalty, a challenge, an UNO penalty) or when hands move (a 7-swap or a 0-pass); a
    draw it keeps, unplayable, leaves the rank it could not match. A colour or rank hint
    ends when the seat later plays a card of it from its hand (the hint was wrong). A
    single drawn card played at once leaves the hand as it was, so the hints stand.
    """
    seats: dict[int, _Seat] = {}
    top, colour = _first_top(view)
    naming: int | None = None  # a seat whose wild's colour is named by a later event
    drew: int | None = None  # a seat that drew one card, while its next move is unknown
    kept: _Seat | None = None  # the drawer's hints before the draw

    for event in view.history:
        kind = event.kind
        seat = event.seat
        data = event.data
        at_once = False  # this play is of the card its player just drew
        if drew is not None and kind is not EventKind.UNO:
            if kind is EventKind.PLAY and seat == drew:
                # The drawn card was played at once: the hand is the one that gave the hints.
                at_once = True
                if kept is not None:
                    kept.ranks |= seats.get(drew, _Seat()).ranks
                    seats[drew] = kept
            elif kind is EventKind.PASS and seat == drew:
                seats.pop(drew, None)  # it kept a playable card: nothing is sure about it
            drew = None
        if kind is EventKind.DEAL:
            seats, naming, top, colour = {}, None, None, None
        elif kind is EventKind.START_CARD:
            top = parse_card(data["card"]) if data.get("card") else None
            colour = top.colour if top is not None else None
        elif kind is EventKind.PLAY and seat is not None:
            card = parse_card(data["card"])
            h = seats.setdefault(seat, _Seat())
            rank = rank_of(top) if top is not None else None
            if not at_once:
                if card.is_wild:
                    if colour is not None:
                        h.lacks.add(colour)
                    if rank is not None:
                        h.ranks.add(rank)
                else:
                    # A card from the hand that gave the hints: those it contradicts go.
                    if card.colour is not None:
                        h.lacks.discard(card.colour)
                    h.ranks.discard(rank_of(card))
                    h.choices.append(Choice(colour, rank, len(h.played)))
                h.played.append(card)
            if card.is_wild:
                h.wild = card
                if data.get("colour"):
                    colour = Colour(data["colour"])
                    h.named = (colour, len(h.played))
                else:
                    colour, naming, h.named = None, seat, None
            else:
                colour = card.colour
            top = card
        elif kind in (EventKind.COLOUR, EventKind.REVEAL) and data.get("colour"):
            colour = Colour(data["colour"])
            if naming is not None and naming == seat:
                h = seats.setdefault(seat, _Seat())
                h.named = (colour, len(h.played))
            naming = None
        elif kind is EventKind.DRAW and seat is not None:
            kept = seats.pop(seat, None)
            rank = rank_of(top) if top is not None else None
            if int(data.get("count", 1)) == 1:
                drew = seat
                if rank is not None:
                    # Read as forced (view_gaps): no card of its hand matched the top's
                    # rank, nor does the drawn card if it stays.
                    seats[seat] = _Seat(ranks={rank})
        elif kind in _RECEIVED and seat is not None:
            seats.pop(seat, None)  # the seat took cards nobody saw (the event's seat)
        elif kind is EventKind.SWAP or kind is EventKind.PASS_HANDS:
            seats = {}  # hands moved (classic_seven_zero): start again
    return _collected(seats, view.seat)


def _collected(seats: dict[int, _Seat], viewer: int | None) -> PlayHints:
    """The :class:`PlayHints` of the walked seats, the viewer's own left out."""
    result = PlayHints()
    for seat, h in sorted(seats.items()):
        if seat == viewer:
            continue
        if h.lacks:
            result.lacks[seat] = h.lacks
        if h.ranks:
            result.ranks[seat] = h.ranks
        if h.named is not None:
            result.named[seat] = h.named
            if h.wild is not None:
                result.named_with[seat] = h.wild
        if h.played:
            result.played[seat] = h.played
        if h.choices:
            result.choices[seat] = h.choices
    return result


def _first_top(view: PlayerView) -> tuple[Card | None, Colour | None]:
    """The top card and active colour before the view's history, if it has no deal.

    A game set up from a position (``Game.from_position``) starts its history with the first
    move: the card under every card played since is the top it started on.
    """
    history = view.history
    if any(e.kind is EventKind.DEAL or e.kind is EventKind.START_CARD for e in history):
        return None, None  # the walk meets the start card itself
    plays = sum(1 for e in history if e.kind is EventKind.PLAY)
    at = len(view.discard) - plays - 1
    if at < 0:
        return None, None
    card = view.discard[at]
    return card, card.colour
