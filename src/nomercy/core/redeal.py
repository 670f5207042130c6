"""Search support: what one seat can infer, and games re-dealt consistently with it.

Information-set search plays many concrete games that agree with everything one seat has
seen ("determinizations"). This module holds the rules knowledge behind them, so the bots
stay thin:

- :func:`~nomercy.core.gaps.infer_gaps` (in :mod:`nomercy.core.gaps`, with the encoders'
  reading of the same proof, and re-exported here) reads the colours a seat showed it
  lacks from the public history of a hand (NM-9, CL-5).
- :class:`Redealer` (from :meth:`Game.redealer <nomercy.core.game.Game.redealer>`) holds
  one seat's information set and deals it again and again (:meth:`Redealer.sample`);
  :meth:`Game.redeal <nomercy.core.game.Game.redeal>` is the one-shot form.
- :func:`with_cards` gives a copy in which one seat holds given cards, the cards swapped
  with the unseen places so that every card stays accounted for: what a seat's hand was
  before the plays it made since, for inference from its choices.
- :func:`view_position` (behind :meth:`Game.from_view <nomercy.core.game.Game.from_view>`)
  builds a position from a seat's view alone, so a bot that receives only views can search.

Nothing here reads a card the seat cannot see: the hidden cards are pooled, sorted into a
fixed order and only then shuffled, so two games that differ only in what the seat cannot
see give the same re-deals for the same generator (tests/test_redeal.py). A search that
weighs deals by priors (:class:`DealWeight`, from :meth:`Redealer.deal`) shuffles only as
far as the hands need and finishes the shuffle for the deal it keeps.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from nomercy.core.base import DISCARD_ALL_SUBSET, DISCARD_ALL_TOP, seat_arg
from nomercy.core.cards import ALL_CODES, COLOURS, Card, Colour, parse_card
from nomercy.core.dealing import below
from nomercy.core.errors import NotationError
from nomercy.core.events import Event
from nomercy.core.gaps import Gaps, draw_shows_gap, infer_gaps
from nomercy.core.legality import is_playable, matches, wd4_played, wild_draw_allowed
from nomercy.core.rules import make_rules
from nomercy.core.views import public_draw_mode

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = [
    "Deal",
    "DealWeight",
    "Gaps",
    "Redealer",
    "draw_shows_gap",
    "infer_gaps",
    "view_position",
    "with_cards",
]

# Each card's colour as its place in COLOURS (-1: a wild), by Card.index.
_CARD_SLOT: Final = [
    COLOURS.index(c.colour) if c.colour is not None else -1 for c in map(Card, ALL_CODES)
]


class _Shuffle:
    """The unseen cards shuffled as far as they are read: a Fisher-Yates shuffle drawn from
    the front, one card per :meth:`next` (a deal reads the hands' cards, and only a deal
    made a game reads the rest, :meth:`finish`). Every order is equally likely, however far
    it is read before it is finished."""

    __slots__ = ("_bits", "cards", "done", "rng")

    def __init__(self, pool: list[Card], rng: random.Random) -> None:
        self.cards = list(pool)
        self.done = 0  # cards[:done] are shuffled and read
        self.rng = rng
        self._bits = rng.getrandbits

    def next(self) -> Card | None:
        """The next card of the order, or ``None`` when every card has been read."""
        cards = self.cards
        at = self.done
        left = len(cards) - at
        if left <= 0:
            return None
        j = at + below(self._bits, left) if left > 1 else at  # the last card: no choice
        card = cards[j]
        cards[j] = cards[at]
        cards[at] = card
        self.done = at + 1
        return card

    def finish(self) -> list[Card]:
        """The cards not read yet, in shuffled order (after this, none are left)."""
        start = self.done
        while self.next() is not None:
            pass
        return self.cards[start:]


class Deal:
    """One deal of a :class:`Redealer`'s unseen cards (:meth:`Redealer.deal`), before it is
    made a game (:meth:`Redealer.game_of`): what a search's deal priors weigh.

    Attributes:
        hands: every seat's hand in this deal (the redealing seat's as it is).
        drawn: the card the seat to act decides on after drawing it, if any.
        turn: the seat to act.
    """

    __slots__ = ("_game", "_key", "_order", "_queue", "drawn", "hands", "turn")

    def __init__(
        self,
        hands: list[list[Card]],
        drawn: Card | None,
        turn: int | None,
        game: Game | None,
        order: _Shuffle,
        queue: list[Card],
    ) -> None:
        self.hands = hands
        self.drawn = drawn
        self.turn = turn
        self._game = game  # the whole game, when it had to be made to deal (a drawer's)
        self._order = order  # the shuffle, read as far as the hands needed
        self._queue = queue  # the cards read and not dealt, ahead of the unread ones
        self._key = -1  # the shuffle key, drawn with the rest of the order (game_of)


class DealWeight:
    """How likely a :class:`Deal` is under a search's deal priors, up to a constant.

    The priors model sensible classic players (:func:`nomercy.bots.determinize.search_sampler`
    reads them from the public history and documents them); this evaluates them on a deal's
    hands, compiled with the core, for sampling-importance-resampling. Cards are given by
    ``Card.index``, colours by their place in ``COLOURS``. The weight starts at 1 and:

    Args:
        ranks: per ``(seat, unmatched, seen)``: times ``rank_doubt`` when the seat holds a card
            whose ``unmatched`` flag is set in more copies than ``seen`` counts (the copies
            the searching seat knows it holds), the card it now decides on apart.
        rank_doubt: that factor.
        named: per ``(seat, colour, since)``: times ``named_doubt`` when the seat's hand
            plus the ``since`` counts (per colour, the cards it played since naming) hold
            another colour more than ``colour``.
        named_doubt: that factor.
        choices: per ``(seat, per_choice)``, per ``(fits, played)`` of ``per_choice``:
            divided by how many distinct cards would have been playable at that choice,
            those whose ``fits`` flag is set among its hand and the cards ``played``
            (flags) since, at least 1.
    """

    __slots__ = ("_choices", "_mark", "_named", "_named_doubt", "_rank_doubt", "_ranks", "_tag")

    def __init__(
        self,
        ranks: list[tuple[int, list[bool], list[int]]],
        rank_doubt: float,
        named: list[tuple[int, int, list[int]]],
        named_doubt: float,
        choices: list[tuple[int, list[tuple[list[bool], list[bool]]]]],
    ) -> None:
        self._ranks = ranks
        self._rank_doubt = rank_doubt
        self._named = named
        self._named_doubt = named_doubt
        self._choices = [
            (seat, [(fits, played, sum(played)) for fits, played in per_choice])
            for seat, per_choice in choices
        ]
        self._mark = [0] * len(_CARD_SLOT)  # per card: the choice it was last counted for
        self._tag = 0  # the last choice counted (a new one per choice and deal)

    def weight(self, deal: Deal) -> float:
        """The deal's weight (the factors in the order the class describes)."""
        w = 1.0
        hands = deal.hands
        for seat, unmatched, seen in self._ranks:
            hand = hands[seat]
            drawn = deal.drawn
            own = drawn.index if drawn is not None and deal.turn == seat else -1
            for c in hand:
                i = c.index
                if unmatched[i]:
                    copies = 0
                    for d in hand:
                        if d.index == i:
                            copies += 1
                    if copies > seen[i] + (1 if i == own else 0):
                        w *= self._rank_doubt
                        break
        for seat, colour, since in self._named:
            counts = list(since)
            for c in hands[seat]:
                slot = _CARD_SLOT[c.index]
                if slot >= 0:
                    counts[slot] += 1
            if counts[colour] < max(counts):
                w *= self._named_doubt
        mark = self._mark
        tag = self._tag
        for seat, per_choice in self._choices:
            hand = hands[seat]
            for fits, played, playable in per_choice:
                tag += 1
                for c in hand:
                    i = c.index
                    if fits[i] and not played[i] and mark[i] != tag:
                        mark[i] = tag
                        playable += 1
                w /= max(1, playable)
        self._tag = tag
        return w


class Redealer:
    """One seat's information set in a game, ready to be dealt again many times.

    Build it with :meth:`Game.redealer <nomercy.core.game.Game.redealer>`; it is a snapshot,
    so later changes to the game do not reach it. Each :meth:`sample` returns a new
    :class:`~nomercy.core.game.Game` in which every card the seat cannot see is dealt at
    random, consistently with what it knows:

    - the seat keeps its hand (in order) and the drawn card;
    - every other seat keeps its hand size and the cards this seat knows it holds
      (``Game.known[(seat, holder)]``: swaps, passes, challenges, public reveals); the rest
      of its hand comes from the unseen cards, avoiding the colours (and wilds) it publicly
      showed it lacks (:func:`infer_gaps`) while enough other cards remain;
    - the draw pile and the set-aside pile (NM-34) get the remaining cards in random order,
      with their sizes; the discard pile and every public field are unchanged;
    - a classic Wild +4 awaiting a challenge (CL-8) gets the ``guilty`` flag its accused's
      new hand implies (unless the seat itself is the accused);
    - if another seat is deciding on a card it drew (NM-9, CL-5), that card is drawn for it
      apart from its gaps: the first unseen card it may play. The cards the seat knows it
      holds are never the drawn one (they were in the hand before the draw), whatever their
      codes;
    - a seat choosing under its Discard All (A09) gets a card of its colour;
    - the draw mode is the seat's reading of it (:func:`nomercy.core.views.public_draw_mode`:
      whether another player who drew held a playable card is hidden);
    - the shuffle key comes from the generator, so later reshuffles differ too.

    The unseen cards are shuffled by a Fisher-Yates shuffle from the front, read as far as
    each hand needs them and finished for the piles; :meth:`deal` stops at the hands, so a
    search can weigh several deals and make a game (:meth:`game_of`) of one.

    The new game keeps only public knowledge: its ``log`` holds the public events, ``known``
    only this seat's and the public entries, and its ``history``, ``start`` and ``seed`` are
    empty (they would tell the real deal). It plays on like any game.
    """

    __slots__ = (
        "_constrained",
        "_drawer",
        "_free",
        "_gaps",
        "_holds",
        "_pool",
        "_seat",
        "_tail",
        "_template",
    )

    def __init__(self, game: Game, seat: int, gaps: Gaps | None = None) -> None:
        seat = seat_arg(game, seat)
        # The gaps and the copy's log come from the hand's whole public history (NM-9).
        game.check_whole("a re-deal")
        hidden: list[Card] = []
        t = game.copy()
        keep: dict[int, list[Card]] = {}
        for s in range(game.n):
            if s == seat:
                continue
            hand = game.hand_of(s)
            kept: list[Card] = []
            for c in game.known_of(seat, s) or ():
                if c in hand:
                    hand.remove(c)
                    kept.append(c)
            keep[s] = kept
            hidden.extend(hand)
        hidden.extend(game._draw)
        hidden.extend(game.set_aside)
        # The multiset of unseen cards is public (the deck minus what the seat sees); their
        # places are not, so the pool forgets them before any generator touches it.
        hidden.sort()
        t.hands = [game.hand_of(s) if s == seat else keep[s] for s in range(game.n)]
        t._draw = []
        t.set_aside = []
        # Whether the last drawer held a playable card is hidden (A03): the seat's reading.
        t.draw_mode = public_draw_mode(game, seat)
        t.known = {k: list(v) for k, v in game.known.items() if k[0] in (seat, -1)}
        public = game.public_history(whole_game=True)
        t._public = list(public)
        t.log = [Event.from_dict(d) for d in public]
        t.history = []
        t.forgotten = 0
        t.opening_events = []
        t.start = None
        t.seed = 0
        t.key = 0
        if gaps is None:
            deciding = game.turn if game.phase == "play_drawn" else None
            gaps = infer_gaps(game.rules, game.n, game.public_history(), game.direction, deciding)
        need = {s: len(game.hand_ids[s]) - len(keep[s]) for s in keep}
        drawer = -1
        turn = game.turn
        if game.drawn is not None and turn is not None and turn != seat:
            # Another seat decides on the card it drew (NM-9, CL-5): which card is hidden, but
            # it was playable, so each deal draws it apart from the gaps (see sample). Never
            # one of the cards this seat knows it holds: those were in the hand before the
            # draw, so a drawn card of the same code is another copy (asking whether it is
            # one of them would read the hidden card).
            if need[turn] < 1:
                raise ValueError(
                    f"seat {turn} decides on a drawn card, but seat {seat} knows every card of "
                    "its hand: a known card cannot be the one drawn after it"
                )
            drawer = turn
            need[turn] -= 1
            t.drawn = None
        constrained = [s for s in keep if need[s] > 0 and (gaps.lacks.get(s) or s in gaps.no_wild)]
        # The most constrained seats choose first, so the constraints hold whenever they can.
        constrained.sort(key=lambda s: (-(len(gaps.lacks.get(s, ())) + (s in gaps.no_wild)), s))
        self._constrained = [(s, need[s]) for s in constrained]
        self._free = [(s, need[s]) for s in keep if need[s] > 0 and s not in constrained]
        self._tail = len(game.set_aside)
        self._drawer = drawer
        # A09: a seat choosing among its Discard All's colour holds a card of it (public).
        holds: tuple[int, Colour] | None = None
        colour = game.discard[-1].colour if game.discard else None
        if (
            game.phase in (DISCARD_ALL_TOP, DISCARD_ALL_SUBSET)
            and turn is not None
            and turn != seat
            and colour is not None
            and need[turn] > 0
            and not any(c.colour is colour for c in keep[turn])
        ):
            holds = (turn, colour)
        self._holds = holds
        self._pool = hidden
        self._gaps = gaps
        self._seat = seat
        self._template = t

    @property
    def seat(self) -> int:
        """The seat whose information set this is."""
        return self._seat

    @property
    def gaps(self) -> Gaps:
        """The gaps the deals respect."""
        return self._gaps

    def sample(self, rng: object) -> Game:
        """A new game with the unseen cards dealt at random (see the class docstring).

        Args:
            rng: a ``random.Random`` (advanced) or an integer seed.
        """
        return self._deal(self._template.copy(), _generator(rng))

    def sample_for_search(self, rng: object) -> Game:
        """:meth:`sample`'s deal for a search, which only plays it forward.

        The same game as ``sample(rng)`` would give for the same state of ``rng`` (drawing
        from it the same way), but made by :meth:`Game.search_copy
        <nomercy.core.game.Game.search_copy>`: events are off and its ``log``, public
        history and ``history`` are empty, so nothing of the past is copied per deal.
        """
        return self._deal(self._template.search_copy(), _generator(rng))

    def deal(self, rng: object) -> Deal:
        """The hands of a deal, the game around them made later (:meth:`game_of`).

        For sampling-importance-resampling (a search's deal priors): weigh several deals by
        their hands and make a game of the one kept. The unseen cards are shuffled only as
        far as the hands need; the rest of the shuffle (the piles' order) and the shuffle key
        are drawn from ``rng`` when the deal first becomes a game, which is why a deal
        costs a fraction of a game. ``game_of(deal(rng))`` is the game ``sample(rng)`` deals
        (with :meth:`sample_for_search`'s copy) for the same state of ``rng``.
        """
        rng = _generator(rng)
        if self._drawer >= 0:
            # The drawn card is chosen against the drawer's dealt hand in the game itself.
            g = self._deal(self._template.search_copy(), rng)
            return Deal(g.hands, g.drawn, g.turn, g, _Shuffle([], rng), [])
        t = self._template
        hands = t.hands  # new lists
        order = _Shuffle(self._pool, rng)
        queue = self._place(hands, order)
        return Deal(hands, t.drawn, t.turn, None, order, queue)

    def game_of(self, deal: Deal) -> Game:
        """The game of a :meth:`deal` of this redealer: a new one each time, all equal (the
        first call draws the rest of the deal from the deal's generator)."""
        if deal._game is not None:  # the drawer's deal was made as a game
            return deal._game.search_copy()
        if deal._key < 0:
            deal._queue.extend(deal._order.finish())
            deal._key = deal._order.rng.getrandbits(63)
        g = self._template.search_copy()
        g.hands = deal.hands
        return self._finish(g, deal._queue, deal._key)

    def _place(self, hands: list[list[Card]], order: _Shuffle) -> list[Card]:
        """Deal the shuffled unseen cards into the hands that need them, the constrained
        seats first; returns the cards read from ``order`` and not dealt, in order (the
        cards ``order`` has not shuffled yet come after them)."""
        gaps = self._gaps
        queue: list[Card] = []
        for s, want in self._constrained:
            lacks = gaps.lacks.get(s, ())
            no_wild = s in gaps.no_wild
            picked: list[Card] = []
            skipped: list[Card] = []
            at = 0
            while len(picked) < want:
                if at < len(queue):
                    c = queue[at]
                    at += 1
                else:
                    found = order.next()
                    if found is None:
                        break
                    c = found
                colour = c.colour
                # Gaps.fits, inlined: a wild fits unless the seat showed it holds none.
                if (not no_wild) if colour is None else colour not in lacks:
                    picked.append(c)
                else:
                    skipped.append(c)
            # The cards it skipped come first for the next seat, then those not yet read.
            skipped.extend(queue[at:])
            queue = skipped
            short = want - len(picked)
            if short:  # not enough cards fit the gaps (all are read): the gaps give way
                picked.extend(queue[:short])
                del queue[:short]
            hands[s].extend(picked)
        for s, want in self._free:
            hand = hands[s]
            taken = min(want, len(queue))
            hand.extend(queue[:taken])
            del queue[:taken]
            for _ in range(want - taken):
                found = order.next()
                if found is not None:
                    hand.append(found)
        if self._holds is not None:
            self._hold(hands, order, queue)
        return queue

    def _hold(self, hands: list[list[Card]], order: _Shuffle, queue: list[Card]) -> None:
        """A09: the seat choosing under its Discard All holds a card of its colour: if the
        deal gave it none, its last dealt card and the first unseen card of that colour (in
        the shuffled order) change places."""
        assert self._holds is not None
        s, colour = self._holds
        hand = hands[s]
        if any(c.colour is colour for c in hand):
            return
        at = 0
        while True:
            if at == len(queue):
                found = order.next()
                if found is None:
                    return  # no unseen card of that colour: the deal stays as it is
                queue.append(found)
            if queue[at].colour is colour:
                hand[-1], queue[at] = queue[at], hand[-1]
                return
            at += 1

    def _deal(self, g: Game, rng: random.Random) -> Game:
        """Deal the unseen cards into ``g`` (a copy of the template) from ``rng``."""
        order = _Shuffle(self._pool, rng)
        hands = g.hands  # new lists: dealt into, then the game's
        queue = self._place(hands, order)
        g.hands = hands
        drawer = self._drawer
        if drawer >= 0:
            # The first remaining card the drawer may play is the drawn one (NM-9, A34/CL-4),
            # tried in the drawer's hand (A34 reads the hand it would be played from).
            pick = -1
            at = 0
            while True:
                if at == len(queue):
                    found = order.next()
                    if found is None:
                        break
                    queue.append(found)
                c = queue[at]
                if is_playable(g, c):
                    held = g.hand_ids[drawer]
                    g.give(drawer, [c])
                    if wild_draw_allowed(g, drawer, c):
                        pick = at
                        break
                    g.hand_ids[drawer] = held
                at += 1
            if pick < 0:
                g.drawn = self._drawn_from_hands(g, queue)
            else:
                g.drawn = queue.pop(pick)
        queue.extend(order.finish())
        return self._finish(g, queue, rng.getrandbits(63))

    def _drawn_from_hands(self, g: Game, queue: list[Card]) -> Card:
        """The drawer's card when no card left in ``queue`` (every unseen card not dealt,
        at least one) may be played: the hands took every playable one. The first playable
        card dealt to a hand (the drawer's own included) becomes the drawn one, the first
        card left takes its place (the gaps give way, as when too few cards fit them); if
        no unseen card is playable at all, the first card left, so the phase stays valid."""
        drawer = self._drawer
        template = self._template.hand_ids
        for s in range(g.n):
            if s == self._seat:
                continue
            dealt = g.hand_of(s)
            for i in range(len(template[s]), len(dealt)):  # not the cards it is known to hold
                c = dealt[i]
                if is_playable(g, c) and wild_draw_allowed(g, drawer, c):
                    dealt[i] = queue.pop(0)
                    hands = g.hands
                    hands[s] = dealt
                    hands[drawer].append(c)
                    g.hands = hands
                    return c
        c = queue.pop(0)
        g.give(drawer, [c])
        return c

    def _finish(self, g: Game, rest: list[Card], key: int) -> Game:
        """The rest of a deal into ``g``: the drawn card, the piles from the cards no hand
        took (``rest``, in shuffled order), the key, the Wild +4's guilt."""
        tail = self._tail
        end = len(rest) - tail
        g._draw = rest[:end]
        g.set_aside = rest[end:] if tail else []
        g.key = key
        seat = self._seat
        wd4 = g.wd4
        if wd4 is not None and wd4.seat != seat:
            g.wd4 = wd4_played(g, wd4.seat, wd4.colour)
        return g


def with_cards(game: Game, seat: int, cards: Iterable[Card], *, keep: Iterable[int] = ()) -> Game:
    """A copy of ``game`` in which ``seat`` holds every card of ``cards`` (a multiset of at
    most its hand size; the size does not change).

    Each card it lacks is swapped with one of its cards not in ``cards``, taken from the draw
    pile, the set-aside pile or another seat's hand (never from the hands of ``keep``, nor a
    card some seat is known to hold there), so every card stays accounted for. The copy is
    made as the game's own kind: :meth:`Game.search_copy
    <nomercy.core.game.Game.search_copy>` when its events are off, else :meth:`Game.copy
    <nomercy.core.game.Game.copy>`. Cards known to be in ``seat``'s hand and a drawn card
    it decides on must be among ``cards``: only the caller knows which cards to keep.

    For search: a determinized game with a seat's hand as it was before plays it made since
    (policy-based inference of hidden hands, :mod:`nomercy.bots.inference`).

    Raises:
        NoMercyError: there is no such seat.
        ValueError: more cards than the seat holds, or a card found nowhere it may be taken.
    """
    seat = seat_arg(game, seat)
    g = game.copy() if game.record_events else game.search_copy()
    hands = g.hands  # new lists: changed below, then the game's
    hand = hands[seat]
    wanted = Counter(cards)
    if sum(wanted.values()) > len(hand):
        raise ValueError(f"seat {seat} holds {len(hand)} cards, fewer than those asked")
    spare: list[int] = []  # places in the hand of cards not asked for
    for i, c in enumerate(hand):
        if wanted[c] > 0:
            wanted[c] -= 1
        else:
            spare.append(i)
    missing = [c for c, k in wanted.items() for _ in range(k)]
    if not missing:
        return g
    fixed = set(keep)
    fixed.add(seat)
    places = [g._draw, g.set_aside]
    pinned: list[Counter[Card]] = [Counter(), Counter()]  # per place: cards that must stay
    for t in range(g.n):
        if t not in fixed:
            known: Counter[Card] = Counter()
            for viewer in range(-1, g.n):
                known |= Counter(g.known_of(viewer, t) or ())
            places.append(hands[t])
            pinned.append(known)
    for c in missing:
        for k, place in enumerate(places):
            if place.count(c) > pinned[k][c]:
                at = next(i for i, x in enumerate(place) if x is c)
                give = spare.pop()
                place[at], hand[give] = hand[give], c
                break
        else:
            raise ValueError(f"{c} is nowhere seat {seat} could have held it from")
    g.hands = hands
    return g


def _generator(rng: object) -> random.Random:
    """``rng`` itself (a ``random.Random``), or a new one seeded with it (an int).

    ``rng`` is typed ``object`` so that both builds raise the same TypeError for anything
    else (compiled, a typed argument would raise mypyc's own).
    """
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, int):
        raise TypeError(f"rng must be a random.Random or an int seed, not {rng!r}")
    return random.Random(rng)


def view_position(view: Mapping[str, Any]) -> dict[str, Any]:
    """A position (for ``Game.from_position``) that shows ``view`` to its seat.

    The public state, the seat's hand, the cards it knows others hold and the public history
    come from the view; every unseen card (the deck minus the seat's hand, the discard pile
    and its known cards) goes to the hidden places in deck order. The hidden cards are *not*
    a guess: call :meth:`Game.redeal <nomercy.core.game.Game.redeal>` (or a
    :meth:`~nomercy.core.game.Game.redealer`) for random deals. Colour gaps are read from the
    view's history, so pass a view with it (``history=True``, the default).

    Raises:
        NotationError: a spectator view, or a view whose card counts do not add up.
    """
    seat = view.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise NotationError("Game.from_view needs the view of a seat, not a spectator's")
    players = view["players"]
    n = len(players)
    if not 0 <= seat < n:
        raise NotationError(f"the view's seat {seat} is not one of its {n} seats")
    rules = make_rules(view["rules"])
    unseen: Counter[Card] = Counter()
    for code, count in rules.deck_table().items():
        if count:
            unseen[Card(code)] = count
    hand = [parse_card(c) for c in view["hand"]]
    known = {int(s): [parse_card(c) for c in cards] for s, cards in view["known"].items()}
    seen: Counter[Card] = Counter(hand)
    seen.update(parse_card(c) for c in view["discard"])
    for cards in known.values():
        seen.update(cards)
    if seen - unseen:
        extra = ", ".join(sorted(c.code for c in seen - unseen))
        raise NotationError(f"the view shows more copies than the deck holds: {extra}")
    unseen -= seen
    pool = sorted(unseen.elements())
    hands: list[list[str]] = []
    at = 0
    for s, p in enumerate(players):
        if s == seat:
            hands.append(list(view["hand"]))
            continue
        mine = [c.code for c in known.get(s, [])]
        want = int(p["hand_size"]) - len(mine)
        if want < 0:
            raise NotationError(f"the view knows more cards in seat {s}'s hand than it holds")
        mine.extend(c.code for c in pool[at : at + want])
        at += want
        hands.append(mine)
    rest = [c.code for c in pool[at:]]
    set_aside = int(view["set_aside_size"])
    draw = int(view["draw_pile_size"])
    if len(rest) != set_aside + draw:
        raise NotationError(
            f"the view's card counts do not add up: {len(rest)} unseen cards left for a draw "
            f"pile of {draw} and a set-aside pile of {set_aside}"
        )
    engine = view["engine"]
    wd4 = engine.get("wd4")
    if wd4:
        accused = int(wd4["seat"])
        named = wd4.get("colour")
        guilty = bool(named) and any(Card(c).colour is Colour(named) for c in hands[accused])
        wd4 = {**wd4, "guilty": guilty}
    drawn = view["drawn"]
    turn = engine["turn"]
    phase = view["phase"]
    top = parse_card(view["discard"][-1])
    if isinstance(turn, int) and turn != seat and phase == "play_drawn" and drawn is None:
        # Another seat decides on a card it drew (NM-9): which one is hidden (redeal picks),
        # but it was playable, so the position holds an unseen one there.
        colour = Colour(view["colour"]) if view["colour"] else None
        drawn = _bring(view, turn, hands, known, rest, lambda c: matches(c, top, colour, rules))
    elif (
        isinstance(turn, int)
        and turn != seat
        and phase in ("discard_all_top", "discard_all_subset")
    ):
        # A09: the seat choosing under its Discard All holds a card of its colour.
        _bring(view, turn, hands, known, rest, lambda c: c.colour is top.colour)
    spec = view["rules"]
    position = {
        "rules": spec if spec.get("options") else spec["preset"],
        "players": [
            {"name": p["name"], "hand": hands[s], "out": p["out"], "uno": p["uno"]}
            for s, p in enumerate(players)
        ],
        "turn": engine["turn"],
        "direction": view["direction"],
        "discard": list(view["discard"]),
        "colour": view["colour"],
        "draw_pile": rest[set_aside:],
        "set_aside": rest[:set_aside],
        "pending": view["pending"],
        "seed": 0,
        "fill": "none",
        "phase": view["phase"],
        "drawn": drawn,
        "draw_mode": engine["draw_mode"],
        "uno_window": list(view["uno_window"]),
        "chain_wild": engine["chain_wild"],
        "wd4": wd4,
        "pending_win": engine["pending_win"],
        "resume": engine["resume"],
        "roulette_colour": engine["roulette_colour"],
        "known": {f"{seat},{s}": [c.code for c in cards] for s, cards in known.items()},
        "dealer": view["dealer"],
        "scores": list(view["scores"]),
        "hand_number": view["hand_number"],
        "hand_winner": view["hand_winner"],
        "winner": view["winner"],
        "total_cards": engine["total_cards"],
        "log": list(view["history"]),
        "hand_log_start": 0,
    }
    return position


def _bring(
    view: Mapping[str, Any],
    seat: int,
    hands: list[list[str]],
    known: Mapping[int, list[Card]],
    rest: list[str],
    fits: Callable[[Card], bool],
) -> str | None:
    """For :func:`view_position`: put last in ``seat``'s hand (codes; each hand's first cards
    are the ones the view knows) an unseen card that ``fits``: the last of its own, else the
    first of the piles' cards (``rest``) or of the other hands' unseen ones, swapped in.
    Returns it; ``None`` when the hand holds only known cards, its last card when no unseen
    card fits."""
    hand = hands[seat]
    mine = len(known.get(seat, ()))
    if len(hand) <= mine:
        return None
    for i in range(len(hand) - 1, mine - 1, -1):
        if fits(Card(hand[i])):
            hand.append(hand.pop(i))
            return hand[-1]
    places = [(rest, 0)] + [
        (h, len(known.get(s, ()))) for s, h in enumerate(hands) if s not in (seat, view["seat"])
    ]
    for place, start in places:
        for i in range(start, len(place)):
            if fits(Card(place[i])):
                place[i], hand[-1] = hand[-1], place[i]
                return hand[-1]
    return hand[-1]
