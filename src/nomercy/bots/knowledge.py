"""What a seat can infer from its view: unseen cards and the colours opponents lack.

:func:`read_view` turns a player's view (``Game.view(seat)``) into a :class:`Knowledge`:

- the cards this seat has not seen (the deck minus its hand, the discard pile and the cards it
  knows other seats hold), which are exactly the cards that may be in other hands, in the
  draw pile or in the set-aside pile (NM-34);
- for each opponent, the colours it showed it lacks. A player who draws on its turn without
  a voluntary draw (NM-9, CL-5, A03 ``voluntary_draw="off"``) held no card of the active
  colour and no wild. Under draw-until-playable the cards drawn before the playable one are
  unplayable too, so the gap survives the draw. The gap ends when the player receives cards
  nobody saw (an absorbed penalty, an UNO penalty, a kept drawn card) and it moves with the
  hand in a 7-swap (NM-31) or a 0-pass (NM-29). Publicly revealed cards (a Roulette reveal,
  NM-30) are listed in the view's ``known`` and are not part of the gap: the gap speaks
  about the cards of the hand nobody has seen.

Everything comes from the view's public history and fields; nothing hidden is used.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from nomercy.core.cards import COLOURS, Card, Colour, Kind, parse_card
from nomercy.core.rules import RuleSet, make_rules

__all__ = ["Knowledge", "colour_counts", "read_view", "rules_of"]

_RULES_CACHE: dict[str, RuleSet] = {}


def rules_of(view: dict[str, Any]) -> RuleSet:
    """The :class:`RuleSet` of a view (cached by its JSON form)."""
    spec = view["rules"]
    options = spec.get("options") or {}
    key = spec["preset"] + repr(sorted(options.items(), key=lambda kv: kv[0]))
    found = _RULES_CACHE.get(key)
    if found is None:
        found = _RULES_CACHE[key] = make_rules(spec)
    return found


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

    seat: int
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


def read_view(view: dict[str, Any]) -> Knowledge:
    """Build the :class:`Knowledge` of the seat that ``view`` belongs to.

    >>> from nomercy import new_game
    >>> g = new_game(2, seed=3)
    >>> k = read_view(g.view(0))
    >>> sum(k.unseen.values()) == 168 - 7 - len(g.discard)
    True
    """
    rules = rules_of(view)
    seat = view["seat"]
    hand = [parse_card(c) for c in view["hand"]]
    known = {int(s): [parse_card(c) for c in cards] for s, cards in view["known"].items()}
    unseen: Counter[Card] = Counter()
    for code, count in rules.deck_table().items():
        if count:
            unseen[Card(code)] = count
    for c in hand:
        unseen[c] -= 1
    for code in view["discard"]:
        unseen[parse_card(code)] -= 1
    for cards in known.values():
        for c in cards:
            unseen[c] -= 1
    # A known list can name a card that is also visible elsewhere only if the view is
    # inconsistent; never let a count go negative.
    unseen = Counter({c: n for c, n in unseen.items() if n > 0})
    knowledge = Knowledge(seat, rules, hand, unseen, known)
    _track(knowledge, view)
    return knowledge


def _track(k: Knowledge, view: dict[str, Any]) -> None:
    """Walk the public history of the hand, keeping the active colour and each seat's gaps."""
    rules = k.rules
    n = len(view["players"])
    out = [False] * n
    lacks: dict[int, set[Colour]] = {s: set() for s in range(n)}
    no_wild: set[int] = set()
    # A34 / CL-4 restrictions make some wilds unplayable, so a draw says nothing about them.
    wild_always_playable = not (
        (rules.is_classic and rules.wd4_restriction and not rules.wd4_challenge)
        or (not rules.is_classic and rules.wild_draw_restriction)
    )
    infer = rules.voluntary_draw == "off"
    mode = rules.no_playable_action
    colour: Colour | None = None
    direction = 1
    last_card: Card | None = None
    drew: int | None = None  # seat whose turn draw is not yet settled

    def clear(seat: int | None) -> None:
        if seat is not None and 0 <= seat < n:
            lacks[seat] = set()
            no_wild.discard(seat)

    for event in view["history"]:
        kind = event["kind"]
        seat = event.get("seat")
        if drew is not None and kind != "draw":
            # The drawing player's next move tells what happened to the drawn card.
            if kind == "pass" and seat == drew:
                clear(drew)  # a drawn card was kept: it was playable (NM-9, CL-5)
            drew = None
        if kind == "deal":
            lacks = {s: set() for s in range(n)}
            no_wild = set()
            out = [False] * n
            direction = 1
        elif kind == "start_card":
            card = parse_card(event["card"]) if event.get("card") else None
            if card is not None:
                colour = card.colour
        elif kind == "play":
            card = parse_card(event["card"])
            last_card = card
            if card.colour is not None:
                colour = card.colour
            elif event.get("colour"):
                colour = Colour(event["colour"])
            elif card.kind is Kind.WILD_COLOUR_ROULETTE or (
                card.draw_value and rules.wild_colour_timing == "on_resolution"
            ):
                colour = None  # named later (NM-30 reveal, A18 colour event)
            if card.kind is Kind.WILD_REVERSE_DRAW_FOUR:
                direction = -direction
        elif kind in ("colour", "reveal", "roulette_colour"):
            if event.get("colour") and kind != "roulette_colour":
                colour = Colour(event["colour"])
        elif kind == "reverse":
            direction = -direction
        elif kind == "deflect":
            if last_card is not None and last_card.kind is Kind.REVERSE:
                direction = -direction
        elif kind == "draw":
            if infer and seat is not None and colour is not None:
                lacks[seat].add(colour)
                if wild_always_playable:
                    no_wild.add(seat)
                if mode == "draw_one_pass":
                    clear(seat)  # the drawn card stays in hand whatever it is
                else:
                    drew = seat
            else:
                clear(seat)
        elif kind in ("absorb", "catch", "challenge"):
            clear(seat)
        elif kind == "swap":
            target = event.get("target")
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
                    receiver = active[(i + direction) % len(active)]
                    new_lacks[receiver] = lacks[s]
                    if s in no_wild:
                        new_no_wild.add(receiver)
                lacks, no_wild = new_lacks, new_no_wild
        elif kind == "knockout" and seat is not None:
            out[seat] = True
            clear(seat)
    if direction != view["direction"]:
        # The walk lost track of the direction (an event this tracker does not model):
        # the gaps moved by a 0-pass may be wrong, so keep none of them.
        lacks = {s: set() for s in range(n)}
        no_wild = set()
    me = k.seat
    if me is not None:
        lacks[me] = set()
        no_wild.discard(me)
    k.lacks = lacks
    k.lacks_wild = no_wild
    k.colour = Colour(view["colour"]) if view.get("colour") else colour


def colour_counts(cards: list[Card]) -> dict[Colour, int]:
    """How many of ``cards`` have each colour."""
    counts = {c: 0 for c in COLOURS}
    for card in cards:
        if card.colour is not None:
            counts[card.colour] += 1
    return counts
