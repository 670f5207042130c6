"""Observations written straight from a :class:`~nomercy.core.game.Game`, for environments that
encode every step (docs/rl.md, "Speed").

:class:`TableObserver` follows one table: it steps the game by id (``Game.step``) with the
engine's events off where it can, keeps the public history the observation needs (the
:class:`~nomercy.encoding.observations.PublicTracker`'s colour gaps, the discard-pile counts)
up to date, and writes a seat's observation vector into a preallocated buffer (a row of a
``(num_envs, OBS_SIZE)`` array). The vector is exactly :class:`ObservationEncoder`'s, value
for value (a test compares them on thousands of positions). It reads only what the observing
seat may know: its own hand, the public counts and flags, the cards ``Game.known`` says it has
seen, and facts derived from the public course of play; never another hand or the draw pile.

Without events, the colour gaps are derived from what each step visibly did: the id taken
(draw, pass, play of the drawn card, catch, ...), the phase and colour before it, and which
hands grew, changed places or were knocked out (public: hand sizes, swaps, passes and
knock-outs are announced at the table). That reading is exact for the rule sets where
:attr:`TableObserver.mode` is ``"infer"``; the others keep events on (``"events"``) and fold
them into the tracker as the reference encoder does, or need no gaps at all (``"none"``: no
draw proves a gap, so every flag stays 0).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from librt.vecs import vec
from mypy_extensions import i32, i64, u8

from nomercy.core.base import OVER, PLAY_DRAWN, ROULETTE_COLOUR, STACK_OR_ABSORB
from nomercy.core.cards import COLOURS, Card
from nomercy.core.deck import build_deck
from nomercy.core.events import Event
from nomercy.core.game import Game
from nomercy.core.gaps import VoidTracker
from nomercy.core.ids import (
    ID_CARD,
    ID_KIND,
    ID_REL,
    K_CATCH,
    K_COLOUR,
    K_DRAW,
    K_PASS,
    K_PLAY,
    has_id,
)
from nomercy.core.rules import RuleSet
from nomercy.encoding import actions as _actions
from nomercy.encoding import observations as _layout
from nomercy.encoding.actions import MAX_PLAYERS
from nomercy.encoding.observations import _PHASES, OBS_LAYOUT

# The layout's offsets are observations.py's own (one table of the layout), bound here as
# Final: compiled, a Final name is a native static, where a name imported from a module that
# runs as Python is looked up in that module's dict at every use.
_NUM_ACTIONS: Final[int] = _actions.NUM_ACTIONS
_OBS_SIZE: Final[int] = _layout.OBS_SIZE
_PASS_ID: Final[int] = _actions.PASS_ID
_CATCH: Final[int] = _layout._CATCH
_COLOUR: Final[int] = _layout._COLOUR
_DIRECTION: Final[int] = _layout._DIRECTION
_DISCARD: Final[int] = _layout._DISCARD
_DRAWN: Final[int] = _layout._DRAWN
_HAND: Final[int] = _layout._HAND
_KNOWN: Final[int] = _layout._KNOWN
_MERCY: Final[int] = _layout._MERCY
_OUT: Final[int] = _layout._OUT
_PENDING: Final[int] = _layout._PENDING
_PHASE: Final[int] = _layout._PHASE
_PILE: Final[int] = _layout._PILE
_PRESENT: Final[int] = _layout._PRESENT
_SELF: Final[int] = _layout._SELF
_SIZE: Final[int] = _layout._SIZE
_TO_ACT: Final[int] = _layout._TO_ACT
_TOP: Final[int] = _layout._TOP
_UNO: Final[int] = _layout._UNO
_VOID: Final[int] = _layout._VOID
_WD4: Final[int] = _layout._WD4

__all__ = [
    "MODES",
    "LearnerCore",
    "TableObserver",
    "TurnCore",
    "advance_tables",
    "draw_pile_size",
    "int32_view",
    "mask_view",
]

#: How a :class:`TableObserver` keeps the colour gaps: ``"none"`` (the rules make every flag
#: 0), ``"infer"`` (from each step's public effects, events off), ``"events"`` (events on).
MODES: Final = ("none", "infer", "events")

_K: Final = 70  # len(ALL_CODES), checked below
assert OBS_LAYOUT["hand"].stop - _HAND == _K

# Phases and colours by position, found by identity (_position).
_PHASE_LIST: Final = list(_PHASES)
_COLOUR_LIST: Final = list(COLOURS)


def _position(items: list[Any], item: object) -> int:
    """The index of ``item`` in ``items`` by identity (enum members: a few pointer
    comparisons, where a dict lookup would hash the member in Python)."""
    for i in range(len(items)):
        if items[i] is item:
            return i
    raise ValueError(f"{item!r} is not one of {items!r}")  # pragma: no cover


# numpy's names bound once: compiled, each use of ``np.frombuffer`` would otherwise look up
# the module and then its attribute.
_FROMBUFFER: Final = np.frombuffer
_F32: Final = np.dtype(np.float32)
_I8: Final = np.dtype(np.int8)

# A mask row of no legal id, copied over a row before its ids are set.
_NO_MASK: Final = memoryview(bytes(_NUM_ACTIONS)).cast("b")


def _out_count(outs: list[bool]) -> int:
    """How many seats are knocked out."""
    count = 0
    for gone in outs:
        if gone:
            count += 1
    return count


def _f32_bits(value: float) -> int:
    """The float32 encoding of ``value`` as a signed 32-bit integer."""
    bits: int = struct.unpack("<i", struct.pack("<f", value))[0]
    return bits


# The vector is built in a vec[i32] (librt.vecs: a packed array that mypyc reads and writes
# natively, where a memoryview's items cost a generic call each) holding each entry's float32
# encoding, then handed over as float32 bytes. Every entry is a whole number: a table per
# rule set maps them, from minus the deck's size (a Mercy margin) to the largest count,
# size, threshold or stack the deck allows.
_ONE: Final = _f32_bits(1.0)
_TABLES: Final[dict[tuple[int, int], vec[i32]]] = {}


def _encodings(low: int, high: int) -> vec[i32]:
    """The float32 encodings of the whole numbers ``low``..``high - 1`` (cached)."""
    table = _TABLES.get((low, high))
    if table is None:
        table = _TABLES[low, high] = vec[i32]([_f32_bits(float(v)) for v in range(low, high)])
    return table


def draw_pile_size(game: Game) -> int:
    """Cards in the draw pile (public: ``view.draw_pile_size``, ``Game.draw_size``)."""
    return game.draw_size


def _mode(rules: RuleSet, events: bool) -> str:
    informative = rules.facts.draw_proves_gap  # A03, NM-9: when a draw proves a gap
    if events:
        return "events"
    if not informative:
        return "none"
    if rules.scoring_enabled or rules.facts.mercy_deferred:
        # A new deal inside a step, or a Mercy check that knocks out a seat which received
        # nothing in that step: the public effects alone would not say what the events say.
        return "events"
    return "infer"


def _places(game: Game) -> tuple[int, int, int]:
    """What shows hands changing places: they do only in a 7's swap (NM-31), a 0's pass
    (NM-29) and a new deal (NM-41), which the tally counts and the hand number shows."""
    tally = game.tally
    return game.hand_number, tally.rotations, tally.swaps


def _changed_places(
    game: Game, before: tuple[int, int, int], seat: int, aid: int, was_out: list[bool]
) -> list[bool]:
    """Per seat, whether it holds another hand than before the step ``aid`` of ``seat``
    (``before``: :func:`_places` then): every seat after a deal, the active seats after a
    pass, the 7's player and target after a swap."""
    hand_number, rotations, swaps = before
    tally = game.tally
    dealt = game.hand_number != hand_number
    passed = not dealt and tally.rotations != rotations
    changed = [dealt or (passed and not was_out[s]) for s in range(game.n)]
    if not (dealt or passed) and tally.swaps != swaps:
        changed[seat] = True
        changed[(seat + ID_REL[aid]) % game.n] = True
    return changed


class TableObserver:
    """The observations of one table of ``n`` seats under ``rules``.

    Call :meth:`start` after dealing (``new_game``; the deal's events are read once), then
    play every action through :meth:`step` (or :meth:`step_events`), and write observations
    with :meth:`write` (into a buffer) or :meth:`vector` (a new array).

    Args:
        rules, n: the table's rule set and seat count (2-6).
        events: keep the engine's events on (``mode="events"``) whatever the rules, for
            callers that read them (per-hand rewards from ``hand_end`` events).
    """

    __slots__ = (
        "_base",
        "_blank",
        "_counts",
        "_enc",
        "_marks",
        "_pile",
        "_pile_last",
        "_pile_outs",
        "_pile_size",
        "_rules",
        "_scratch",
        "_threshold",
        "_zero",
        "mode",
        "moves",
        "n",
        "out_before",
        "tracker",
    )

    def __init__(self, rules: RuleSet, n: int, *, events: bool = False) -> None:
        if not 2 <= n <= MAX_PLAYERS:
            raise ValueError(f"observations cover 2-{MAX_PLAYERS} players, not {n}")
        self._rules = rules
        self.n = n
        #: What the last :meth:`advance` did: the moves it played, the seats out before it.
        self.moves = 0
        self.out_before = 0
        self.mode = _mode(rules, events)
        self.tracker = VoidTracker(rules, n)
        self._threshold = rules.facts.mercy_limit
        deck = build_deck(rules.deck_table())
        # Hand sizes, counts and the pile are at most the deck; a stack is at most the deck's
        # penalties, unless a reshuffle in mid-stack returns some (then _encode's slow path).
        high = max(len(deck), sum(card.draw_value for card in deck), self._threshold) + 1
        self._zero = len(deck)
        self._enc = _encodings(-len(deck), high)
        blank = vec[i32]([0] * _OBS_SIZE)
        for j in range(n - 1):
            blank[_PRESENT + j] = _ONE
        self._blank = blank
        # The discard pile as counted so far (_follow_pile): the game's list, how many of its
        # cards, the last of them and the seats out then; its cards by Card.index, and the
        # blank vector with those counts written in, which every vector starts from.
        self._pile: list[Card] | None = None
        self._pile_size = 0
        self._pile_last: Card | None = None
        self._pile_outs = 0
        self._counts = vec[i64]([0] * _K)
        self._base = blank[0:_OBS_SIZE]
        self._scratch = vec[i64]([0] * _K)  # per-call counts, left all 0
        self._marks = vec[u8]([0] * _NUM_ACTIONS)  # write_row's mask, left all 0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Compiled (a companion of the core's build) the class is native: pickle and copy
        # rebuild it through __init__, then restore what it has followed (the pile's counts
        # are a cache, counted again at the next vector).
        return _restored, (self._rules, self.n, self.mode, self.tracker)

    # ------------------------------------------------------------------ following a game
    def start(self, game: Game) -> None:
        """Begin a new game: fold in the deal's public events, then turn events off (unless
        the mode keeps them)."""
        game.record_events = self.mode == "events"
        self._pile = None  # counted afresh at the first vector
        if self.mode == "none":
            return  # no flag is ever set
        tracker = self.tracker
        tracker.reset()
        tracker.update(
            game.opening_events, colour=None, phase="play", next_phase=game.phase._value_
        )

    def step(self, game: Game, action_id: int, seat: int) -> None:
        """Apply the legal id ``action_id`` of ``seat`` and follow its public effects."""
        mode = self.mode
        if mode == "none":
            game.step(action_id, seat)
        elif mode == "infer":
            self._step_inferred(game, action_id, seat)
        else:
            self.step_events(game, action_id, seat)

    def step_turn(self, game: Game, action_id: int, seat: int) -> int:
        """:meth:`step`, then the seat to act if nothing else happened: ``-1`` when the game
        ended, a seat was knocked out or nobody is to act (a reward or a new decider to
        settle). The AEC env's common step."""
        before = _out_count(game.out)
        self.step(game, action_id, seat)
        turn = game.turn
        if game.phase is OVER or turn is None or _out_count(game.out) != before:
            return -1
        return turn

    def play_others(
        self, game: Game, seat: int, choosers: Sequence[Callable[[list[int]], int] | None]
    ) -> int:
        """Play the other seats until ``seat`` is to act, is out or the game is over, each
        move :meth:`step` with ``choosers[turn](game.legal_ids(turn))``; returns the moves
        played. For tables where only the seat to act acts (no out-of-turn chances) and the
        others choose from their legal ids alone (``RandomBot.id_chooser``)."""
        moves = 0
        out = game.out
        while game.phase is not OVER and not out[seat]:
            turn = game.turn
            if turn is None or turn == seat:
                break
            chooser = choosers[turn]
            if chooser is None:
                raise ValueError(f"seat {turn} is to act and has no chooser")
            self.step(game, chooser(game.legal_ids(turn)), turn)
            moves += 1
        return moves

    def advance(
        self,
        game: Game,
        action_id: int,
        seat: int,
        choosers: Sequence[Callable[[list[int]], int] | None],
        out: memoryview,
        mask: memoryview,
    ) -> list[int] | None:
        """One move of a learner at ``seat`` and the others' (:meth:`play_others`), and, if
        nothing else happened, its next observation and mask written: the vector env's step
        of a table (docs/rl.md, "Vector envs").

        Returns ``seat``'s legal ids, its observation written into ``out`` (as :meth:`write`)
        and its mask into ``mask`` (an ``int8`` memoryview of ``NUM_ACTIONS`` entries); or
        ``None``, with nothing written, when the game ended, ``seat`` was knocked out or
        anyone else was (a reward to settle). :attr:`moves` and :attr:`out_before` say how
        many moves were played and how many seats were out before them."""
        outs = game.out
        before = _out_count(outs)
        self.out_before = before
        self.step(game, action_id, seat)
        self.moves = 1 + self.play_others(game, seat, choosers)
        if game.phase is OVER or outs[seat] or _out_count(outs) != before:
            return None
        legal = game.legal_ids(seat)
        self.write_row(game, seat, legal, out, mask)
        return legal

    def step_events(self, game: Game, action_id: int, seat: int) -> list[Event]:
        """:meth:`step`, returning the step's events (``[]`` unless the mode is
        ``"events"``)."""
        if self.mode != "events":
            self.step(game, action_id, seat)
            return []
        log = game.log
        start = len(log)
        colour = game.colour
        phase = game.phase._value_
        game.step(action_id, seat)
        events = log[start:]
        self.tracker.update(
            events,
            colour=colour._value_ if colour is not None else None,
            phase=phase,
            next_phase=game.phase._value_,
        )
        return events

    def _step_inferred(self, game: Game, aid: int, seat: int) -> None:
        """One step with events off: what the tracker's events would have said, read from the
        step's public effects (module docstring), through the same transitions of the core's
        VoidTracker that its update() calls for the events."""
        if draw_pile_size(game) + len(game.discard) + len(game.set_aside) <= 1:
            # Nothing left to draw: a draw, penalty or reveal may take no card, so its effect
            # is invisible. Rare; this step runs with events, as the reference does.
            game.record_events = True
            try:
                self.mode = "events"
                self.step_events(game, aid, seat)
            finally:
                self.mode = "infer"
                game.record_events = False
            return
        tracker = self.tracker
        pending = tracker.settle()
        phase = game.phase
        kind = ID_KIND[aid]
        if kind == K_PASS:
            game.step(aid, seat)
            if phase is PLAY_DRAWN:  # keeps the drawn card ("pass")
                tracker.forget(seat)
            return  # a Discard All's pass gives nobody cards
        if kind == K_DRAW:
            colour = game.colour
            game.step(aid, seat)
            if phase is STACK_OR_ABSORB:  # absorbing the penalty: an "absorb" event
                tracker.forget(seat)
                return
            # A draw turn ("draw"); nothing else in the step gives anyone cards.
            slot = -1 if colour is None else _position(_COLOUR_LIST, colour)
            tracker.drew(seat, slot, game.phase is PLAY_DRAWN)
            return
        hands = game.hand_ids
        sizes = [len(hand) for hand in hands]  # compiled: native, where map() is generic
        was_out = game.out[:]
        places = _places(game)
        game.step(aid, seat)
        if kind == K_PLAY:
            if phase is PLAY_DRAWN:
                tracker.played(seat, pending)  # the drawn card has left the hand
        elif kind == K_CATCH:
            tracker.forget((seat + ID_REL[aid]) % self.n)  # "catch", even for 0 cards
        elif kind == K_COLOUR and phase is ROULETTE_COLOUR:
            tracker.forget(seat)  # "reveal": the seat naming the colour reveals
        # Whoever received cards (absorb, catch, challenge, reveal) or was knocked out (with
        # Mercy immediate, only right after receiving) forgets; moved hands are a swap or,
        # after a 0, every hand passing (which resets everything).
        out = game.out
        hands = game.hand_ids
        n = self.n
        changed = _changed_places(game, places, seat, aid, was_out)
        moved = False
        for s in range(n):
            if out[s] and not was_out[s]:
                tracker.forget(s)
            elif changed[s]:
                moved = True
            elif len(hands[s]) > sizes[s]:
                tracker.forget(s)
        if moved:
            card = ID_CARD[aid]
            if card is not None and card.number is not None and card.number == 0:
                tracker.reset()
            else:
                for s in range(n):
                    if changed[s]:
                        tracker.forget(s)

    # ------------------------------------------------------------------ writing
    def write(self, game: Game, seat: int, out: memoryview) -> None:
        """Write ``seat``'s observation vector into ``out``: a float32 memoryview of
        ``OBS_SIZE`` entries (e.g. ``batch[i].data``), or the same bytes read as int32
        (:func:`int32_view`), which takes the vector's float32 encodings in one copy where a
        float32 view needs two casts first."""
        values = self._fill(game, seat)
        try:
            out[:] = values  # int32 encodings into an int32 view: one copy
        except ValueError:  # a float32 view (formats differ): the bytes read as float32
            out[:] = memoryview(values).cast("B").cast("f")

    def write_row(
        self, game: Game, seat: int, legal: list[int], out: memoryview, mask: memoryview
    ) -> None:
        """:meth:`write` ``seat``'s vector into ``out``, and its mask of the ids ``legal``
        into ``mask``: a memoryview of ``NUM_ACTIONS`` bytes, an ``int8`` row's
        (``batch[i].data``) or, cheaper to write, the same bytes unsigned
        (:func:`mask_view`), which take the mask in one copy."""
        self.write(game, seat, out)
        marks = self._marks  # all 0 between calls
        for a in legal:
            marks[a] = 1
        try:
            mask[:] = marks
        except ValueError:  # a signed view (formats differ): item by item
            mask[:] = _NO_MASK
            for a in legal:
                mask[a] = 1
        finally:
            for a in legal:
                marks[a] = 0

    def vector(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """``seat``'s observation vector as a new ``float32`` array."""
        # One copy of the encodings into a bytearray that the array then owns (writable):
        # numpy's calls, not the copies, are most of a vector's cost.
        result: npt.NDArray[np.float32] = _FROMBUFFER(bytearray(self._fill(game, seat)), _F32)
        return result

    def mask(self, ids: list[int]) -> npt.NDArray[np.int8]:
        """A new ``int8`` mask of ``NUM_ACTIONS`` entries, 1 at ``ids``."""
        buf = bytearray(_NUM_ACTIONS)  # a few ids: cheaper than numpy's fancy indexing
        for i in ids:
            buf[i] = 1
        result: npt.NDArray[np.int8] = _FROMBUFFER(buf, _I8)
        return result

    def _fill(self, game: Game, seat: int) -> vec[i32]:  # noqa: C901 (measured in tests/test_complexity.py)
        """``seat``'s observation vector as float32 encodings (the comment at _encodings)."""
        self._follow_pile(game)
        out = self._base[0:_OBS_SIZE]  # a copy, the pile's counts written in
        enc = self._enc
        zero = self._zero
        n = self.n
        hands = game.hand_ids
        hand = hands[seat]
        self._count_into(out, _HAND, hand)
        if game.known_live:
            known = game.known_ids
            on = game.known_on
            row = (seat + 1) * n  # the slots of what seat knows (Game.known_ids)
            for t in range(n):
                if t != seat and on[row + t]:
                    cards = known[row + t]
                    if len(cards):
                        self._count_into(out, _KNOWN + ((t - seat) % n - 1) * _K, cards)
        threshold = self._threshold
        outs = game.out
        uno = game.uno_called
        out[_DIRECTION] = enc[zero + game.direction]
        size = len(hand)
        out[_SELF] = enc[zero + size]
        if threshold and not outs[seat]:
            out[_SELF + 1] = enc[zero + threshold - size]
        if uno[seat]:
            out[_SELF + 2] = _ONE
        out[_PILE] = enc[zero + draw_pile_size(game)]
        phase = game.phase
        out[_PHASE + _position(_PHASE_LIST, phase)] = _ONE
        total = game.pending_total
        if total:
            out[_PENDING] = self._encode(total)
            out[_PENDING + 1] = self._encode(game.pending_last)
        discard = game.discard
        if discard:
            out[_TOP + discard[-1].index] = _ONE
        turn = game.turn
        drawn = game.drawn
        if drawn is not None and turn is not None and seat == turn:  # narrowed: no boxing
            out[_DRAWN + drawn.index] = _ONE
        colour = game.colour
        if colour is not None:
            out[_COLOUR + _position(_COLOUR_LIST, colour)] = _ONE
        if turn is not None and phase is not OVER:
            out[_TO_ACT + (turn - seat) % n] = _ONE
        window = game.uno_window
        if len(window):  # mostly empty: no iterator made then (len(): a native read)
            for t in window:
                if t != seat:
                    out[_CATCH + (t - seat) % n - 1] = _ONE
        if game.wd4 is not None:
            out[_WD4] = _ONE
        void = self.tracker.void if self.mode != "none" else None
        for k in range(1, n):
            other = (seat + k) % n
            j = k - 1
            size = len(hands[other])
            out[_SIZE + j] = enc[zero + size]
            gone = outs[other]
            if threshold and not gone:
                out[_MERCY + j] = enc[zero + threshold - size]
            if gone:
                out[_OUT + j] = _ONE
            if uno[other]:
                out[_UNO + j] = _ONE
            if void is not None:
                flags = void[other]
                if flags[0] or flags[1] or flags[2] or flags[3]:
                    v = _VOID + 4 * j
                    for c in range(4):
                        if flags[c]:
                            out[v + c] = _ONE  # the flags are 0 or 1
        return out

    def _count_into(self, out: vec[i32], base: int, cards: vec[i64]) -> None:
        """Write how many of each card ``cards`` (``Card.index`` values) holds at
        ``out[base + Card.index]``."""
        counts = self._scratch  # all 0 between calls
        enc = self._enc
        # Native integers (i64) for the offsets: compiled, an int is a tagged value whose
        # every sum with an index is a checked call.
        zero = i64(self._zero)
        start = i64(base)
        for i in cards:
            count = counts[i] + 1
            counts[i] = count
            out[start + i] = enc[zero + count]
        for i in cards:
            counts[i] = 0

    def _encode(self, value: int) -> i32:
        """The float32 encoding of the whole number ``value``."""
        at = self._zero + value
        if 0 <= at < len(self._enc):
            return self._enc[at]
        return i32(_f32_bits(float(value)))  # a stack that outgrew the deck's penalties

    def _follow_pile(self, game: Game) -> None:
        """Bring the discard pile's counts (and :attr:`_base`) up to date with the game.

        Only the cards added since the last call are counted, when the pile can only have
        grown at its end: the same list (a reshuffle or a new deal makes a new one), at
        least as long, the same card where the last counted one was, and no seat knocked
        out since (its hand may go under the pile: A27, ``bottom_of_discard``). A Discard
        All lifts its top to bury cards under it (A09): the first buried card then stands
        where the top was, and unless it is the same card (interned: equal is identical),
        which leaves the counts right, the pile is counted again, as in every other case."""
        pile = game.discard
        size = self._pile_size
        outs = _out_count(game.out)
        if (
            pile is not self._pile
            or len(pile) < size
            or outs != self._pile_outs
            or (size and pile[size - 1] is not self._pile_last)
        ):
            self._pile = pile
            self._pile_outs = outs
            self._counts = vec[i64]([0] * _K)
            self._base = self._blank[0:_OBS_SIZE]
            size = 0
        end = len(pile)
        if end == size:
            return
        counts = self._counts
        base = self._base
        enc = self._enc
        zero = self._zero
        for j in range(size, end):
            i = pile[j].index
            count = counts[i] + 1
            counts[i] = count
            base[_DISCARD + i] = enc[zero + count]
        self._pile_size = end
        self._pile_last = pile[end - 1]


class TurnCore:
    """The PettingZoo env's per-step state and common step, compiled with the core: the
    seat whose decision comes next, its legal ids (cached until the next step) and the game
    (``nomercy.rl.pettingzoo_env``, whose ``last()`` and ``step()`` call it once each).

    Args:
        observer: the env's :class:`TableObserver`, which writes and steps.
    """

    __slots__ = ("decider", "game", "ids", "observer", "offered")

    def __init__(self, observer: TableObserver) -> None:
        self.observer = observer
        self.game: Game | None = None
        #: The seat whose decision comes next.
        self.decider = 0
        #: The decider's legal ids (``None``: not worked out yet in this state); on an offered
        #: out-of-turn decision, ``PASS_ID`` (last) lets the chance go.
        self.ids: list[int] | None = None
        #: Whether the decision is an out-of-turn chance offered to a seat not to act.
        self.offered = False

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _turn_core, (self.observer, self.game, self.decider, self.ids, self.offered)

    def _game(self) -> Game:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return game

    def legal(self) -> list[int]:
        """The decider's legal ids (:attr:`ids`)."""
        ids = self.ids
        if ids is None:
            game = self._game()
            seat = self.decider
            ids = game.legal_ids(seat)
            to_act = game.to_act  # narrowed below: comparing the Optional boxes the seat
            self.offered = to_act is None or seat != to_act
            if self.offered:
                ids.append(_PASS_ID)
            self.ids = ids
        return ids

    def mask(self, seat: int, dead: bool) -> npt.NDArray[np.int8]:
        """``seat``'s action mask: its legal ids if it is the decider, live (not ``dead``),
        in a game not over; else zeros."""
        live = seat == self.decider and not dead and self._game().phase is not OVER
        return self.observer.mask(self.legal() if live else [])

    def observe(self, seat: int, dead: bool) -> dict[str, Any]:
        """``seat``'s Dict observation: its vector and its :meth:`mask`."""
        mask = self.mask(seat, dead)
        return {"observation": self.observer.vector(self._game(), seat), "action_mask": mask}

    def step(self, action: object) -> int:
        """Play ``action`` for the decider of a turn-taking game (no offered chances) if it is
        one of its legal ids, as a Python ``int``. Returns the next decider; ``-1`` when the
        step needs settling (a seat out, the end, nobody to act); ``-2`` when ``action`` was
        not taken (not such an int, or no game): nothing changed."""
        if self.game is None or not isinstance(action, int) or isinstance(action, bool):
            return -2
        aid: int = action
        if not has_id(self.legal(), aid):
            return -2
        self.ids = None
        turn = self.observer.step_turn(self.game, aid, self.decider)
        if turn >= 0:
            self.decider = turn
        return turn


class LearnerCore:
    """The compiled part of one learner's table (:class:`nomercy.rl.table.LearnerTable`,
    which ``NoMercy-v0`` and its vector env both play): the game, the learner's seat and
    legal ids, the opponents' id choosers, the step counts, and the common step of a table
    whose opponents choose from their ids alone (:meth:`advance`), which
    :func:`advance_tables` takes for a whole batch of tables in one call.

    Args:
        observer: the table's :class:`TableObserver`, which steps the game and writes.
    """

    __slots__ = (
        "choosers",
        "fast",
        "game",
        "game_steps",
        "legal",
        "max_steps",
        "observer",
        "seat",
        "steps",
    )

    def __init__(self, observer: TableObserver) -> None:
        self.observer = observer
        self.game: Game | None = None
        #: The learner's seat.
        self.seat = 0
        #: The learner's legal ids now (empty: the episode is over, nothing is legal).
        self.legal: list[int] = []
        #: Each seat's choice of an id from its legal ids (``RandomBot.id_chooser``), for
        #: :meth:`advance`; ``None`` for the learner's seat.
        self.choosers: list[Callable[[list[int]], int] | None] = []
        #: Whether :meth:`advance` may play this table: every opponent chooses from its ids
        #: alone and only the seat to act acts (no out-of-turn chances offered).
        self.fast = False
        #: The learner's actions this episode (illegal ones included) and its cap (0: none).
        self.steps = 0
        self.max_steps = 0
        #: The game's steps this episode, every seat's.
        self.game_steps = 0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Compiled, the class is native: pickle and copy rebuild it from its fields.
        fields = (self.game, self.seat, self.legal, self.choosers, self.fast, self.steps)
        return _learner_core, (self.observer, self.max_steps, self.game_steps, *fields)

    def start(self, game: Game) -> bool:
        """Begin the episode of a new ``game`` for a table whose opponents choose from their
        ids alone: the observer started, the counts at 0, the opponents' moves played up
        to the learner's first decision (:meth:`TableObserver.play_others`) and its legal
        ids found. Returns whether the learner is to act (``False``: the game ended or the
        learner was knocked out before its first decision; :attr:`legal` is then empty)."""
        self.game = game
        observer = self.observer
        observer.start(game)
        seat = self.seat
        self.steps = 0
        self.game_steps = observer.play_others(game, seat, self.choosers)
        if game.phase is OVER or game.out[seat]:
            self.legal = []
            return False
        self.legal = game.legal_ids(seat)
        return True

    def advance(self, aid: int, out: memoryview, mask: memoryview) -> bool:
        """Play the learner's legal id ``aid``, then the opponents until the learner is to
        act again (:meth:`TableObserver.advance`). Returns ``True`` when the episode goes on
        with nothing to report (no reward, no knock-out, no truncation), the learner's
        observation written into ``out`` and its mask into ``mask``; ``False`` when there is
        something to settle (:meth:`TableObserver.out_before` says who was out before),
        nothing written. Only for a :attr:`fast` table and an id of :attr:`legal`."""
        game = self.game
        assert game is not None
        seat = self.seat
        observer = self.observer
        legal = observer.advance(game, aid, seat, self.choosers, out, mask)
        self.game_steps += observer.moves
        self.steps += 1
        if legal is not None:
            self.legal = legal
            return self.max_steps <= 0 or self.steps < self.max_steps
        if game.phase is not OVER and not game.out[seat]:
            self.legal = game.legal_ids(seat)  # another seat was knocked out (NM-33)
        else:
            self.legal = []
        return False


def advance_tables(
    cores: list[LearnerCore],
    actions: list[int],
    outs: list[memoryview],
    masks: list[memoryview],
    untouched: list[int],
) -> list[int]:
    """One step of a batch of tables, in one call (the vector env's step): table ``i``
    plays ``actions[i]`` with :meth:`LearnerCore.advance`, writing into ``outs[i]`` and
    ``masks[i]``, if it is :attr:`~LearnerCore.fast` and the id is legal. Returns the tables
    that moved and have something to settle (a reward, an end); appends to ``untouched`` the
    tables it did not move (not fast, an illegal id, an ended episode), for the caller's
    general step."""
    settle: list[int] = []
    for i in range(len(cores)):
        core = cores[i]
        aid = actions[i]
        if not core.fast or not has_id(core.legal, aid):
            untouched.append(i)
        elif not core.advance(aid, outs[i], masks[i]):
            settle.append(i)
    return settle


def int32_view(row: Any) -> memoryview:
    """A float32 array's bytes as a memoryview of int32s, the cheaper target of
    :meth:`TableObserver.write` (the rows of the envs' observation arrays)."""
    return memoryview(row).cast("B").cast("i")


def mask_view(row: Any) -> memoryview:
    """An ``int8`` mask row's bytes as a memoryview of unsigned bytes, the cheaper target of
    :meth:`TableObserver.write_row` (the rows of the envs' mask arrays; masks are 0 or 1)."""
    return memoryview(row).cast("B")


def _learner_core(
    observer: TableObserver,
    max_steps: int,
    game_steps: int,
    game: Game | None,
    seat: int,
    legal: list[int],
    choosers: list[Callable[[list[int]], int] | None],
    fast: bool,
    steps: int,
) -> LearnerCore:
    """A :class:`LearnerCore` unpickled."""
    core = LearnerCore(observer)
    core.max_steps, core.game_steps, core.game, core.seat = max_steps, game_steps, game, seat
    core.legal, core.choosers, core.fast, core.steps = legal, choosers, fast, steps
    return core


def _turn_core(
    observer: TableObserver, game: Game | None, decider: int, ids: list[int] | None, offered: bool
) -> TurnCore:
    """A :class:`TurnCore` unpickled."""
    core = TurnCore(observer)
    core.game, core.decider, core.ids, core.offered = game, decider, ids, offered
    return core


def _restored(rules: RuleSet, n: int, mode: str, tracker: VoidTracker) -> TableObserver:
    """A :class:`TableObserver` unpickled: built anew, then given the state it had."""
    observer = TableObserver(rules, n)
    observer.mode = mode
    observer.tracker = tracker
    return observer
