"""Views: what one seat may know, as a typed :class:`PlayerView` and as a compact snapshot.

:meth:`Game.view <nomercy.core.game.Game.view>` (bots, tables, the coach, the web, the
terminal app) and :meth:`Game.snapshot <nomercy.core.game.Game.snapshot>` (encoders that run
every step, RL) are the public names. Both show a seat its own hand, every hand size, the
discard pile and the public state, and never another hand or the draw pile's order (one
projection for hidden information, docs/contributing.md). A :class:`PlayerView` also carries
the facts the shells would otherwise recompute from the rules (two-player rules in force, the
next seat, the stack's floor, the UNO window): the engine derives them once, here, so no shell
restates a rule.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from nomercy.core.base import (
    DISCARD_ALL_SUBSET,
    K_WILD_COLOUR_ROULETTE,
    OVER,
    PLAY_DRAWN,
    STACK_OR_ABSORB,
    Phase,
    seat_arg,
)
from nomercy.core.cards import COLOURS, Card, Colour, parse_card
from nomercy.core.errors import NoMercyError, NotationError
from nomercy.core.events import Event
from nomercy.core.legality import (
    aim_penalty,
    answering_flags,
    answers_stack,
    cards_shed,
    stack_floor_after,
    stack_threshold,
    turn_after_play,
    turn_after_resolution,
    zero_pass_giver,
)
from nomercy.core.rules import RuleSet, make_rules

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = [
    "Bookkeeping",
    "PlayerView",
    "SeatInfo",
    "Snapshot",
    "Stack",
    "Wd4Play",
    "snapshot",
    "view",
]


class Snapshot(NamedTuple):
    """One seat's compact view (:meth:`Game.snapshot`); ``-1`` means none."""

    seat: int
    phase: Phase
    hand: list[int]
    """Card indices in hand order."""
    known: list[tuple[int, list[int]]]
    """(holder, card indices) the seat knows another seat holds (NM-30, swaps)."""
    hand_sizes: list[int]
    out: list[bool]
    uno: list[bool]
    """Whether each seat has called UNO for its one card (NM-37)."""
    uno_window: list[int]
    """Seats that may be caught, sorted (NM-37)."""
    direction: int
    draw_pile_size: int
    pending_total: int
    pending_last: int
    top: int
    colour: int
    drawn: int
    """The drawn card the seat may play now (phase ``play_drawn``)."""
    to_act: int
    wd4_challengeable: bool
    discard: list[Card]
    """The discard pile itself, bottom first (not a copy: read only)."""


_COLOUR_INDEX: Final[dict[Colour, int]] = {c: i for i, c in enumerate(COLOURS)}


class SeatInfo(NamedTuple):
    """What every seat may know of one seat (:attr:`PlayerView.players`)."""

    seat: int
    name: str
    hand_size: int
    out: bool
    """Knocked out (NM-33) or left the game."""
    uno: bool
    """Whether the seat has called UNO for its one card (NM-37)."""
    mercy_distance: int | None
    """Cards until the Mercy limit (NM-33); ``None`` when Mercy is off or the seat is out."""
    score: int


class Stack(NamedTuple):
    """The penalty pending on the seat to act (NM-17, NM-18)."""

    total: int
    """Cards it makes the taker draw."""
    last: int
    """The draw value of the card on top of it."""
    chain: tuple[int, ...]
    """The draw values stacked so far, oldest first; empty when they are not known (a
    position that gave the penalty of several cards without its ``chain``)."""

    def to_json(self) -> dict[str, Any]:
        """The JSON form of a view's and a position's ``"pending"`` (docs/notation.md)."""
        return {"total": self.total, "last": self.last, "chain": list(self.chain)}


class Wd4Play(NamedTuple):
    """A classic Wild +4 that may be challenged (CL-8): who played it, and on what colour.

    Both are public (the play and the colour before it were on the table); whether the play
    was honest is not, until it is challenged.
    """

    seat: int
    """The seat that played the Wild +4 (the one a challenge accuses)."""
    colour: Colour | None
    """The active colour it was played on: a guilty player held a card of it (CL-8)."""

    def to_json(self) -> dict[str, Any]:
        """The JSON form (a view's ``"wd4_play"``): colour as its letter."""
        return {"seat": self.seat, "colour": self.colour.value if self.colour else None}


class Bookkeeping(NamedTuple):
    """The engine's public bookkeeping, read only by the core's re-deal API.

    :meth:`Game.from_view <nomercy.core.game.Game.from_view>` rebuilds a position from a view
    with it; it is not part of a view's documented facts, and the web does not send it.
    """

    turn: int | None
    draw_mode: str
    chain_wild: int | None
    pending_win: int | None
    resume: int | None
    roulette_colour: Colour | None
    wd4: Wd4Play | None
    """A classic Wild +4 awaiting a challenge, without whether it was honest (CL-8)."""
    total_cards: int
    hand_log_start: int


class PlayerView(NamedTuple):
    """What one seat may know now (``seat`` ``None``: a spectator), built by the engine.

    Cards are :class:`~nomercy.core.cards.Card` objects and colours
    :class:`~nomercy.core.cards.Colour` members; :meth:`to_json` gives the
    JSON-serialisable form (cards as codes). A named tuple, so frozen (a view is a picture of
    one moment) and cheap to build for every decision.

    >>> from nomercy import new_game
    >>> v = new_game(2, seed=1).view(0)
    >>> v.seat, v.to_act, len(v.hand), v.players[1].hand_size, v.two_player
    (0, 0, 7, 7, True)
    """

    seat: int | None
    rules: RuleSet
    phase: Phase
    to_act: int | None
    """The seat whose decision the game waits for; ``None`` when it is over."""
    direction: int
    """``1`` in seat order, ``-1`` reversed (NM-14)."""
    top: Card | None
    colour: Colour | None
    """The active colour (a wild's named colour, NM-12)."""
    discard: tuple[Card, ...]
    """The discard pile, bottom first."""
    draw_pile_size: int
    set_aside_size: int
    """Cards of knocked-out hands set aside until the next reshuffle (NM-33, NM-35)."""
    pending: Stack | None
    hand: tuple[Card, ...]
    """The seat's own hand in order (empty for a spectator)."""
    drawn: Card | None
    """The card the seat just drew and may play now (phase ``play_drawn``, NM-9)."""
    players: tuple[SeatInfo, ...]
    known: Mapping[int, tuple[Card, ...]]
    """Cards the seat knows another seat holds (a 7-swap, a 0-pass, a challenge)."""
    uno_window: tuple[int, ...]
    """Seats that may be caught without their UNO call now, sorted (NM-37)."""
    wd4_challengeable: bool
    """A classic Wild +4 may be challenged (CL-8)."""
    dealer: int
    hand_number: int
    scores: tuple[int, ...]
    score_target: int | None
    winner: int | None
    hand_winner: int | None
    history: tuple[Event, ...]
    """The current hand's events as every seat saw them (empty with ``history=False``)."""
    two_player: bool
    """Whether the two-player rules apply now (NM-15, NM-29, A28, A29)."""
    next_seat: int | None
    """The active seat after the seat to act in the current direction (``None``: over)."""
    stack_floor: int | None
    """The smallest draw value a card needs to be stacked now (NM-18, A04), ``None`` when no
    card may be stacked (nothing pending, no stacking in classic, a last card's penalty A17)."""
    bookkeeping: Bookkeeping | None
    """For the core's re-deal API only (:class:`Bookkeeping`); ``None`` in a view rebuilt
    by :meth:`from_json` from a JSON form without it (the web's)."""
    wd4_play: Wd4Play | None = None
    """The classic Wild +4 awaiting a challenge (CL-8), when :attr:`wd4_challengeable`."""
    stacking: bool = True
    """Whether the rules stack Draw Cards at all (NM-18; classic only with C04
    ``classic_stacking``); :attr:`stack_floor` says whether a card may be stacked now."""

    def seat_after(self, seat: int, direction: int | None = None) -> int:
        """The first active seat after ``seat`` (default: in the current direction; RULES.md
        §2 "next", as :meth:`Game.next_seat <nomercy.core.game.Game.next_seat>`)."""
        players = self.players
        d = direction or self.direction
        n = len(players)
        q = (seat + d) % n
        while players[q].out:
            q = (q + d) % n
        return q

    def penalty_target(
        self, card: Card, seat: int | None = None, *, stacked: bool | None = None
    ) -> int | None:
        """The seat that faces ``card``'s penalty if ``seat`` (default: the viewer) plays it
        now, aimed as the engine aims it (:func:`~nomercy.core.legality.aim_penalty`: NM-16;
        NM-24 a Wild Reverse +4 reverses first, and with two players one opening a chain hits
        its own player; A28 in a chain; A29). ``stacked`` asks as if the play went onto a
        pending penalty (``True``) or opened one (``False``); by default, whether one is
        pending now. ``None`` when ``card`` is no Draw Card, or is the player's last card and
        A16 ``win_immediately`` ends the hand without a penalty (NM-38).

        >>> from nomercy import Card, new_game
        >>> v = new_game(2, seed=1).view(0)
        >>> v.penalty_target(Card("WR+4")), v.penalty_target(Card("R+2"))
        (0, 1)
        >>> v.penalty_target(Card("WR+4"), stacked=True)  # A28 "opponent", the default
        1
        """
        if seat is None:
            seat = self.seat
            if seat is None:
                raise NoMercyError("penalty_target: a spectator's view names no player")
        if not card.draw_value:
            return None
        last = self.players[seat].hand_size == 1
        if last and self.rules.last_card_effect == "win_immediately":
            return None  # A16: the hand ends at once
        if stacked is None:
            stacked = self.pending is not None
        outs = [p.out for p in self.players]
        target, _, _ = aim_penalty(
            self.rules, card, seat, self.direction, outs, self.two_player, stacked, last
        )
        return target

    def _player(self, seat: int | None, caller: str) -> int:
        if seat is None:
            seat = self.seat
            if seat is None:
                raise NoMercyError(f"{caller}: a spectator's view names no player")
        return seat

    def cards_shed(self, card: Card) -> list[Card]:
        """The cards that leave the viewer's hand if it plays ``card`` now, ``card`` first
        (:func:`~nomercy.core.legality.cards_shed`, as the engine applies the play: NM-7 one
        card; NM-27 a Discard All sheds every other card of its colour; A09 the Discard All
        choices).

        >>> from nomercy import Game
        >>> g = Game.from_position({"players": [{"hand": ["RDA", "R5", "B5", "W+6"]},
        ...     {"hand": ["B2", "B3"]}], "turn": 0, "discard": ["R1"]})
        >>> [c.code for c in g.view(0).cards_shed(Card("RDA"))]
        ['RDA', 'R5']

        Raises:
            NoMercyError: a spectator's view (it holds no hand).
        """
        self._player(None, "cards_shed")
        return cards_shed(self.rules, self.hand, card, self.phase)

    def seat_after_play(self, card: Card, seat: int | None = None) -> int | None:
        """The seat that takes the next turn if ``seat`` (default: the viewer) plays ``card``
        now, once the decisions the play opens are answered without another card: a penalty
        absorbed by the seat it hits, a Roulette's reveal, a colour named, a Discard All
        choice closed with a pass. The engine's own turn rule
        (:func:`~nomercy.core.legality.turn_after_play`, then
        :func:`~nomercy.core.legality.turn_after_resolution` for a seat that absorbs a
        penalty, NM-17, or reveals for a Roulette, NM-30, and loses its turn):

        - NM-22, NM-27, NM-29 (0), NM-31 (7), a Wild: ``next(p)``;
        - NM-23 Skip: ``next(next(p))``; NM-25 Reverse: ``next(p)`` in the new direction;
          with two players (A29) both give ``p`` another turn; NM-26 Skip Everyone: ``p``;
        - a Draw Card (NM-16, NM-24, A28; stacked on a pending penalty too): the seat after
          the one its penalty hits, so with two players ``p`` after an opponent absorbs;
        - NM-30 Wild Colour Roulette: the seat after the victim;
        - A07: a Skip or Reverse deflecting a penalty: the seat after the one it passes to;
        - A09 ``optional_subset``: a card buried under the Discard All has no effect.

        ``None`` when the play empties the hand (NM-38: the hand ends, or under A16
        ``resolve_effects`` its effect resolves first). It assumes the seats stay as they
        are: a knock-out in between (NM-33, e.g. of the seat that absorbs) or a stack
        answered with another Draw Card may give the turn elsewhere
        (``tests/core/test_turn_after_play.py`` compares it with the engine on every
        other play of random games).

        >>> from nomercy import Card, new_game
        >>> v = new_game(2, seed=1).view(0)
        >>> v.seat_after_play(Card("RS")), v.seat_after_play(Card("R+2"))
        (0, 0)
        >>> v3 = new_game(3, seed=1).view(0)
        >>> v3.seat_after_play(Card("RR")), v3.seat_after_play(Card("RS"))
        (2, 2)

        Raises:
            NoMercyError: ``seat`` is ``None`` in a spectator's view.
        """
        seat = self._player(seat, "seat_after_play")
        phase = self.phase
        stacked = self.pending is not None
        if seat == self.seat:
            if len(cards_shed(self.rules, self.hand, card, phase)) >= len(self.hand):
                return None  # NM-38: the play empties the hand
        elif self.players[seat].hand_size <= 1:
            return None
        if phase is DISCARD_ALL_SUBSET and self.top is not None:
            card = self.top  # A09: the buried card has no effect; the Discard All's turn rule
        outs = [p.out for p in self.players]
        turn, direction = turn_after_play(
            self.rules, card, seat, self.direction, outs, self.two_player, stacked
        )
        if card.draw_value or stacked or card.kind is K_WILD_COLOUR_ROULETTE:
            return turn_after_resolution(turn, direction, outs)
        return turn

    def zero_pass_giver(self, seat: int | None = None) -> int:
        """The seat whose hand ``seat`` (default: the viewer) receives if a 0 is played now:
        the previous active seat (NM-29, A26; :func:`~nomercy.core.legality.zero_pass_giver`).

        >>> from nomercy import new_game
        >>> new_game(3, seed=1).view(0).zero_pass_giver()
        2

        Raises:
            NoMercyError: ``seat`` is ``None`` in a spectator's view.
        """
        seat = self._player(seat, "zero_pass_giver")
        return zero_pass_giver(seat, self.direction, [p.out for p in self.players])

    def stack_floor_after(self, card: Card, total: int | None = None) -> int:
        """The floor of the stack once ``card`` is stacked on a penalty of ``total`` cards
        (default: the pending penalty's, 0 when none: ``card`` opens one): its own draw value,
        or under A04 ``running_total`` the new total (NM-18). The next seat answers with a
        card :meth:`answers_stack` accepts on it
        (:func:`~nomercy.core.legality.stack_floor_after`).

        >>> from nomercy import Card, new_game
        >>> new_game(2, seed=1).view(0).stack_floor_after(Card("W+4"), 6)
        4
        """
        if total is None:
            total = self.pending.total if self.pending is not None else 0
        return stack_floor_after(self.rules, total, card)

    def answers_stack(self, card: Card, floor: int, top: Card, colour: Colour | None) -> bool:
        """Whether ``card`` may be stacked on a penalty whose floor is ``floor``, with ``top``
        on the pile and ``colour`` active: the engine's test of every card in a stack
        decision (:func:`~nomercy.core.legality.answers_stack`: NM-18 the floor, A05
        ``stack_requires_match``, A07 ``skip_reverse_deflect``). Now: ``floor``
        :attr:`stack_floor`, ``top`` :attr:`top`, ``colour`` :attr:`colour`; after a play,
        :meth:`stack_floor_after` and the card played.

        >>> from nomercy import Card, Colour, new_game
        >>> v = new_game(2, seed=1).view(0)
        >>> v.answers_stack(Card("B+4"), 4, Card("WR+4"), Colour.RED)
        True
        """
        return answers_stack(self.rules, card, floor, top, colour)

    def answering_flags(self, floor: int, top: Card, colour: Colour | None) -> list[bool]:
        """:meth:`answers_stack` for every card at once, by :attr:`Card.index
        <nomercy.core.cards.Card.index>` (cached, shared: do not modify), for weighing many
        cards against one stack, e.g. the unseen cards an opponent may hold
        (:func:`~nomercy.core.legality.answering_flags`).

        >>> from nomercy import Card, Colour, new_game
        >>> flags = new_game(2, seed=1).view(0).answering_flags(4, Card("R+4"), Colour.RED)
        >>> flags[Card("W+6").index], flags[Card("R+2").index]
        (True, False)
        """
        return answering_flags(self.rules, floor, top, colour)

    def to_json(self, *, bookkeeping: bool = False) -> dict[str, Any]:
        """The JSON-serialisable form: cards as codes, colours and the phase as strings.

        ``bookkeeping=True`` adds :attr:`bookkeeping` as an ``engine`` block, the form
        :meth:`Game.from_view <nomercy.core.game.Game.from_view>` also accepts (a view sent to
        a bot in another process); the web and the records leave it out.
        """
        data = {
            "seat": self.seat,
            "rules": self.rules.to_json(),
            "phase": self.phase.value,
            "to_act": self.to_act,
            "direction": self.direction,
            "top": self.top.code if self.top is not None else None,
            "colour": self.colour.value if self.colour is not None else None,
            "discard": [c.code for c in self.discard],
            "draw_pile_size": self.draw_pile_size,
            "set_aside_size": self.set_aside_size,
            "pending": None if self.pending is None else self.pending.to_json(),
            "hand": [c.code for c in self.hand],
            "drawn": self.drawn.code if self.drawn is not None else None,
            "players": [
                {
                    "seat": p.seat,
                    "name": p.name,
                    "hand_size": p.hand_size,
                    "out": p.out,
                    "uno": p.uno,
                    "mercy_distance": p.mercy_distance,
                    "score": p.score,
                }
                for p in self.players
            ],
            "known": {str(s): [c.code for c in cards] for s, cards in self.known.items()},
            "uno_window": list(self.uno_window),
            "wd4_challengeable": self.wd4_challengeable,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "score_target": self.score_target,
            "winner": self.winner,
            "hand_winner": self.hand_winner,
            "history": [e.to_dict() for e in self.history],
            "two_player": self.two_player,
            "next_seat": self.next_seat,
            "stack_floor": self.stack_floor,
            "wd4_play": None if self.wd4_play is None else self.wd4_play.to_json(),
            "stacking": self.stacking,
        }
        if bookkeeping:
            data["engine"] = self.bookkeeping_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayerView:
        """The typed view of a JSON form (:meth:`to_json`), e.g. one a web server sent.

        Without the ``engine`` block (``to_json(bookkeeping=True)``) the view has no
        :attr:`bookkeeping`: a bot can read it, a search cannot rebuild a game from it.

        >>> from nomercy import new_game
        >>> v = new_game(3, seed=2).view(1)
        >>> PlayerView.from_json(v.to_json(bookkeeping=True)) == v
        True

        Raises:
            NotationError: a malformed JSON form.
        """
        try:
            return _from_json(data)
        except NoMercyError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise NotationError(f"malformed view: {exc!r}") from None

    def bookkeeping_json(self) -> dict[str, Any]:
        """:attr:`bookkeeping` as JSON (the ``engine`` block of the re-deal API).

        Raises:
            NotationError: the view has none (see :meth:`from_json`).
        """
        b = self.bookkeeping
        if b is None:
            raise NotationError(
                "this view has no engine bookkeeping (it was rebuilt from a JSON form without "
                "it): a search needs Game.view(seat) or PlayerView.to_json(bookkeeping=True)"
            )
        return {
            "turn": b.turn,
            "draw_mode": b.draw_mode,
            "chain_wild": b.chain_wild,
            "pending_win": b.pending_win,
            "resume": b.resume,
            "roulette_colour": b.roulette_colour.value if b.roulette_colour else None,
            "wd4": b.wd4.to_json() if b.wd4 is not None else None,
            "total_cards": b.total_cards,
            "hand_log_start": b.hand_log_start,
        }

    # Until the next minor release, the dict interface of the old view, for bots written
    # against it: ``view["hand"]`` gives what the JSON form holds, with a warning.
    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, str):
            return tuple.__getitem__(self, key)
        warnings.warn(
            "reading a view by key is deprecated: use its attributes (PlayerView), or "
            "view.to_json() for the JSON form",
            DeprecationWarning,
            stacklevel=2,
        )
        if key == "engine":
            return self.bookkeeping_json()
        return self.to_json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated: the old dict view's ``get`` (see :meth:`__getitem__`)."""
        try:
            return self[key]
        except KeyError:
            return default


def _card(code: str | None) -> Card | None:
    return None if code is None else parse_card(code)


def _wd4_play(data: Mapping[str, Any] | None) -> Wd4Play | None:
    """:meth:`Wd4Play.to_json` read back."""
    if not data:
        return None
    return Wd4Play(int(data["seat"]), Colour(data["colour"]) if data["colour"] else None)


def _from_json(data: Mapping[str, Any]) -> PlayerView:
    """:meth:`PlayerView.from_json` (documented there), without its error wrapping."""
    cards = parse_card
    pending = data["pending"]
    wd4 = data.get("wd4_play")
    engine = data.get("engine")
    notes = None
    if engine is not None:
        notes = Bookkeeping(
            engine["turn"],
            str(engine["draw_mode"]),
            engine["chain_wild"],
            engine["pending_win"],
            engine["resume"],
            _colour(engine["roulette_colour"]),
            _wd4_play(engine["wd4"]),
            int(engine["total_cards"]),
            int(engine["hand_log_start"]),
        )
    return PlayerView(
        data["seat"],
        make_rules(data["rules"]),
        Phase(data["phase"]),
        data["to_act"],
        int(data["direction"]),
        _card(data["top"]),
        _colour(data["colour"]),
        tuple(cards(c) for c in data["discard"]),
        int(data["draw_pile_size"]),
        int(data["set_aside_size"]),
        None
        if pending is None
        else Stack(int(pending["total"]), int(pending["last"]), tuple(pending["chain"])),
        tuple(cards(c) for c in data["hand"]),
        _card(data["drawn"]),
        tuple(
            SeatInfo(
                int(p["seat"]),
                str(p["name"]),
                int(p["hand_size"]),
                bool(p["out"]),
                bool(p["uno"]),
                p["mercy_distance"],
                int(p["score"]),
            )
            for p in data["players"]
        ),
        {int(s): tuple(cards(c) for c in codes) for s, codes in data["known"].items()},
        tuple(data["uno_window"]),
        bool(data["wd4_challengeable"]),
        int(data["dealer"]),
        int(data["hand_number"]),
        tuple(data["scores"]),
        data["score_target"],
        data["winner"],
        data["hand_winner"],
        tuple(Event.from_dict(dict(e)) for e in data["history"]),
        bool(data["two_player"]),
        data["next_seat"],
        data["stack_floor"],
        notes,
        _wd4_play(wd4),
        bool(data.get("stacking", True)),
    )


def stack_floor(game: Game) -> int | None:
    """:attr:`PlayerView.stack_floor`: A04's threshold when a card may be stacked now."""
    if not game.pending_total or game.phase is not STACK_OR_ABSORB:
        return None
    return stack_threshold(game)


def view(game: Game, seat: object, *, history: bool = True) -> PlayerView:
    """:meth:`Game.view <nomercy.core.game.Game.view>` (documented there)."""
    n = game.n
    viewer = -1
    if seat is not None:
        viewer = seat_arg(game, seat)
    r = game.rules
    threshold = r.facts.mercy_limit  # 0: no Mercy rule (NM-33)
    mercy = threshold > 0
    hands = game.hand_ids
    out = game.out
    called = game.uno_called
    names = game.names
    scores = game.scores
    # tuple.__new__: a NamedTuple's own __new__ is a Python function, a step's worth.
    players: list[SeatInfo] = []
    for s in range(n):
        size = len(hands[s])
        gone = out[s]
        distance = threshold - size if mercy and not gone else None
        info = (s, names[s], size, gone, called[s], distance, scores[s])
        players.append(tuple.__new__(SeatInfo, info))
    known: dict[int, tuple[Card, ...]] = {}
    if game.known_live:
        for s in range(n):
            cards = game.known_of(viewer, s) if s != viewer else None
            if cards:
                known[s] = tuple(cards)
    stack = game.pending
    turn = game.turn
    over = game.phase is OVER
    wd4 = game.wd4
    # CL-8: whether the Wild +4 was played dishonestly is hidden until challenged.
    play = None if wd4 is None else tuple.__new__(Wd4Play, (wd4.seat, wd4.colour))
    events: tuple[Event, ...] = ()
    if history:
        if game.hand_forgotten:
            # Bots read the hand's whole public history (NM-9 gaps): never half of it.
            raise NoMercyError(
                f"this game let go of the hand's first {game.hand_forgotten} events "
                "(Game.forget): view(seat, history=False), or replay its record"
            )
        # Event.for_seat(None) is the event itself unless it is secret (a draw's cards); the
        # censored copies are kept (Event.for_seat), as this runs for every decision of a bot
        # that reads the history.
        events = tuple([e.for_seat(None) for e in game.log[game.hand_start :]])
    notes = (
        turn,
        public_draw_mode(game, viewer),
        game.chain_wild,
        game.pending_win,
        game.resume,
        game.roulette_colour,
        play,
        game.total_cards,
        game.hand_start,
    )
    fields = (
        None if viewer < 0 else viewer,
        r,
        game.phase,
        None if over else turn,
        game.direction,
        game.discard[-1] if game.discard else None,
        game.colour,
        tuple(game.discard),
        game.draw_size,
        len(game.set_aside),
        stack,
        tuple(game.hand_of(viewer)) if viewer >= 0 else (),
        game.drawn if game.drawn is not None and viewer == turn else None,
        tuple(players),
        known,
        tuple(sorted(game.uno_window)),
        wd4 is not None,
        game.dealer,
        game.hand_number,
        tuple(scores),
        r.score_target,
        game.winner,
        game.hand_winner,
        events,
        game.two_player(),
        None if over or turn is None else game.next_active(turn),
        stack_floor(game),
        tuple.__new__(Bookkeeping, notes),
        play,
        game.can_stack,
    )
    return tuple.__new__(PlayerView, fields)


def _colour(value: str | None) -> Colour | None:
    return Colour(value) if value else None


def snapshot(game: Game, seat: object) -> Snapshot:
    """:meth:`Game.snapshot <nomercy.core.game.Game.snapshot>` (documented there)."""
    s = seat_arg(game, seat)
    n = game.n
    hands = game.hand_ids
    known: list[tuple[int, list[int]]] = []
    if game.known_live:
        for t in range(n):
            cards = game.known_of(s, t) if t != s else None
            if cards:
                known.append((t, [c.index for c in cards]))
    colour = game.colour
    drawn = game.drawn
    turn = game.turn
    # tuple.__new__: a NamedTuple's own __new__ is a Python function, a step's worth.
    return tuple.__new__(
        Snapshot,
        (
            s,
            game.phase,
            [i for i in hands[s]],  # the Card.index values, in hand order
            known,
            [len(h) for h in hands],
            list(game.out),
            list(game.uno_called),
            sorted(game.uno_window),
            game.direction,
            game.draw_size,
            game.pending_total,
            game.pending_last,
            game.discard[-1].index if game.discard else -1,
            _COLOUR_INDEX[colour] if colour is not None else -1,
            drawn.index if drawn is not None and s == turn else -1,
            -1 if turn is None or game.phase is OVER else turn,
            game.wd4 is not None,
            game.discard,
        ),
    )


def public_draw_mode(game: Game, viewer: int) -> str:
    """How the last draw was made (A02, A03, CL-5), as far as ``viewer`` (-1: everyone) may
    know it: what the view's bookkeeping shows and a re-deal keeps.

    The engine draws by ``voluntary_draw`` when the player held a playable card and by
    ``no_playable_action`` otherwise, so the mode tells whether a hidden hand could play.
    The seat deciding on its drawn card knows it; when both options agree (or a voluntary
    draw is off) everyone does; otherwise the others read ``no_playable_action``.
    """
    rules = game.rules
    if (game.phase is PLAY_DRAWN and game.turn == viewer) or rules.voluntary_draw in (
        "off",
        rules.no_playable_action,
    ):
        return game.draw_mode
    return rules.no_playable_action
