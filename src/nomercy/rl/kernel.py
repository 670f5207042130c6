"""A fast integer-state No Mercy engine for the RL environments (docs/rl.md, "Speed").

:class:`Kernel` plays the No Mercy rules *at their default option values* (plus the few
numeric options :func:`kernel_supports` lists) directly over card-kind integers and the RL
action ids of :mod:`nomercy.rl.actions`, and writes the observation vector of
:mod:`nomercy.rl.observations` and the legal ids itself. It exists for throughput only: the
reference engine is :class:`nomercy.core.game.Game`, and the kernel mirrors it step for step,
shuffles included (same deck order, same ``random.Random(key)`` calls, same key schedule), so a
seed and a list of ids give the same game on both. ``tests/rl/test_rl_kernel.py`` plays
thousands of games in lockstep on both and compares every observation, mask, reward and the
final positions. Rule ids in the comments point at the same RULES.md rules as the engine.

What it leaves out (the environment falls back to the reference engine for these): every
other option value, the classic preset, scoring (matches), out-of-turn offers, and the
engine's events and texts (the environment's ``game`` property replays the reference engine
when a caller wants them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import random
import warnings
from array import array
from pathlib import Path
from typing import ClassVar, Final, cast

from nomercy.core.cards import ALL_CODES, COLOURS, Card, Kind
from nomercy.core.errors import RuleSetError
from nomercy.core.game import Phase, _check_deal, _next_key
from nomercy.core.rules import RuleSet, make_rules
from nomercy.rl.actions import (
    _CARD_OFFSET,
    CATCH_BASE,
    COLOUR_BASE,
    DRAW_ID,
    MAX_PLAYERS,
    NUM_ACTIONS,
    PLAY_BASE,
    UNO_ID,
)
from nomercy.rl.observations import (  # the layout's offsets, shared with the encoder
    _CATCH,
    _COLOUR,
    _DIRECTION,
    _DISCARD,
    _DRAWN,
    _HAND,
    _KNOWN,
    _MERCY,
    _OUT,
    _PENDING,
    _PHASE,
    _PILE,
    _PRESENT,
    _SELF,
    _SIZE,
    _TO_ACT,
    _TOP,
    _UNO,
    _VOID,
    _ZERO_BYTES,
)

__all__ = [
    "COMPILED_MODULE",
    "KERNEL_FREE_OPTIONS",
    "Kernel",
    "compiled_kernel",
    "kernel_class",
    "kernel_supports",
    "source_digest",
]

_MASK64 = (1 << 64) - 1

#: Options the kernel honours at any value; every other option must keep its default.
KERNEL_FREE_OPTIONS: Final = frozenset(
    {
        "mercy_enabled",
        "mercy_threshold",
        "uno_penalty_cards",
        "hand_size",
        "min_players",
        "max_players",
        # Only read with scoring on, which the kernel does not support.
        "score_target",
        "knockout_bonus",
    }
)
_IGNORED_FIELDS = frozenset({"given"})
_DEFAULTS = make_rules("no-mercy")


def kernel_supports(rules: RuleSet, out_of_turn: str = "to_act") -> str | None:
    """``None`` if :class:`Kernel` plays ``rules`` exactly like the engine, else why not."""
    if rules.preset != _DEFAULTS.preset:
        return f"the kernel plays the no-mercy preset only, not {rules.preset!r}"
    if out_of_turn != "to_act":
        return f"the kernel supports out_of_turn='to_act' only, not {out_of_turn!r}"
    for f in dataclasses.fields(RuleSet):
        name = f.name
        if name in KERNEL_FREE_OPTIONS or name in _IGNORED_FIELDS:
            continue
        value = getattr(rules, name)
        if value != getattr(_DEFAULTS, name):
            return f"the kernel supports option {name} only at its default, not {value!r}"
    return None


# ---------------------------------------------------------------------- card tables
_K: Final = len(ALL_CODES)
_CARDS = tuple(Card(code) for code in ALL_CODES)
_CODE_INDEX = {code: i for i, code in enumerate(ALL_CODES)}
_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
# Colour index 0-3, or -1 for a wild.
_COL: tuple[int, ...] = tuple(-1 if c.colour is None else _COLOUR_INDEX[c.colour] for c in _CARDS)
_NUM: tuple[int, ...] = tuple(-1 if c.number is None else c.number for c in _CARDS)
_DRAW: tuple[int, ...] = tuple(c.draw_value for c in _CARDS)
_WILD: tuple[bool, ...] = tuple(c.is_wild for c in _CARDS)

# How a card resolves (NM-22…NM-31) and which variants its play ids have.
(_T_PLAIN, _T_SEVEN, _T_ZERO, _T_SKIP, _T_REVERSE, _T_SKIP_ALL, _T_DA, _T_DRAW, _T_WILD) = range(9)
_T_ROULETTE = 9


def _type_of(card: Card) -> int:
    kind = card.kind
    if kind is Kind.NUMBER:
        return _T_SEVEN if card.number == 7 else _T_ZERO if card.number == 0 else _T_PLAIN
    if card.draw_value:
        return _T_DRAW
    return {
        Kind.SKIP: _T_SKIP,
        Kind.REVERSE: _T_REVERSE,
        Kind.SKIP_EVERYONE: _T_SKIP_ALL,
        Kind.DISCARD_ALL: _T_DA,
        Kind.WILD_COLOUR_ROULETTE: _T_ROULETTE,
        Kind.WILD: _T_WILD,
    }[kind]


_TYPE: tuple[int, ...] = tuple(_type_of(c) for c in _CARDS)
_WRD4: Final = _CODE_INDEX["WR+4"]
# Matching symbol (NM-12): the number for numbers, the kind for coloured actions; wild tops
# match nothing by symbol (a wild card is playable anyway).
_SYMBOLS: dict[str, int] = {}


def _symbol(card: Card) -> int:
    if card.is_wild:
        return -1
    if card.number is not None:
        return card.number
    return 10 + _SYMBOLS.setdefault(card.kind.value, len(_SYMBOLS))


_SYM: tuple[int, ...] = tuple(_symbol(c) for c in _CARDS)
# First play id of each kind (PLAY_BASE + its run's offset).
_BASE: tuple[int, ...] = tuple(PLAY_BASE + _CARD_OFFSET[c] for c in _CARDS)


def _easy_ids(k: int) -> tuple[int, ...] | None:
    """The play ids of kind ``k`` when at least two cards stay in hand, if they depend on
    nothing else (not a 7, 0 or Discard All): the legal-id fast path."""
    t = _TYPE[k]
    if t in (_T_SEVEN, _T_ZERO, _T_DA):
        return None
    base = _BASE[k]
    if _WILD[k] and t != _T_ROULETTE:
        return (base + 2, base + 4, base + 6, base + 8)  # NM-14: named with the play
    return (base,)


_EASY: tuple[tuple[int, ...] | None, ...] = tuple(_easy_ids(k) for k in range(_K))


def _playable_table() -> list[bytes]:
    """``table[top * 5 + colour + 1][k]``: whether kind ``k`` matches (NM-12, A08, A11)."""
    table = []
    for top in range(_K):
        for colour in range(-1, 4):
            table.append(
                bytes(
                    _WILD[k] or _COL[k] == colour or (_SYM[k] == _SYM[top] and _SYM[top] >= 0)
                    for k in range(_K)
                )
            )
    return table


_PLAYABLE = _playable_table()
_PLAYSET = [frozenset(k for k in range(_K) if row[k]) for row in _PLAYABLE]
# Kinds that may answer a stack whose last value is v (NM-18: value only).
_STACKSET = {v: frozenset(k for k in range(_K) if _DRAW[k] >= v) for v in set(_DRAW) if v}

# Decoding an id: (op, kind, slot, uno); slot is the colour slot of a wild (0 none, 1-4 R-B)
# or the relative target of a 7 (0 none), or the catch offset.
_OP_PLAY, _OP_DRAW, _OP_COLOUR, _OP_UNO, _OP_CATCH, _OP_OTHER = range(6)


def _decode_table() -> list[tuple[int, int, int, bool]]:
    table = [(_OP_OTHER, -1, 0, False)] * NUM_ACTIONS
    table[DRAW_ID] = (_OP_DRAW, -1, 0, False)
    for i in range(4):
        table[COLOUR_BASE + i] = (_OP_COLOUR, -1, i, False)
    table[UNO_ID] = (_OP_UNO, -1, 0, False)
    for rel in range(1, MAX_PLAYERS):
        table[CATCH_BASE + rel - 1] = (_OP_CATCH, -1, rel, False)
    for k in range(_K):
        width = 10 if _WILD[k] else 12 if _TYPE[k] == _T_SEVEN else 2
        for j in range(width):
            table[_BASE[k] + j] = (_OP_PLAY, k, j >> 1, bool(j & 1))
    return table


_DECODE = _decode_table()

# Phases as small ints: the position of each in Phase, which is also its one-hot index in
# the observation's phase block.
_PHASES = tuple(Phase)
_P_PLAY = _PHASES.index(Phase.PLAY)
_P_STACK = _PHASES.index(Phase.STACK_OR_ABSORB)
_P_DRAWN = _PHASES.index(Phase.PLAY_DRAWN)
_P_ROULETTE = _PHASES.index(Phase.ROULETTE_COLOUR)
_P_OVER = _PHASES.index(Phase.OVER)

_HAND_END = _HAND + _K
_DISCARD_END = _DISCARD + _K
# Void bits (1 << colour) -> the four 0/1 floats of an opp_void block.
_VOID_FLAGS = [array("f", [float(bits >> c & 1) for c in range(4)]) for bits in range(16)]
_ZERO_COUNTS = bytes(4 * _K)


_PLANS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _fast_shuffle(cards: list[int], key: int) -> None:
    """``random.Random(key).shuffle(cards)`` with the same draws, about twice as fast.

    CPython's shuffle is Fisher-Yates over ``_randbelow_with_getrandbits``; this is the same
    loop with the bit lengths precomputed and no method calls per card. It is used only if
    :data:`_SAME_SHUFFLE` proved it equal to the library's shuffle on this Python.
    """
    size = len(cards)
    plan = _PLANS.get(size)
    if plan is None:
        plan = _PLANS[size] = tuple(
            (i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1)
        )
    getrandbits = random.Random(key).getrandbits
    for i, n, k in plan:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _randbelow(key: int, n: int) -> int:
    """``random.Random(key).randrange(n)`` (checked with the shuffle by _same_shuffle)."""
    getrandbits = random.Random(key).getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _library_shuffle(cards: list[int], key: int) -> None:
    random.Random(key).shuffle(cards)


def _same_shuffle() -> bool:
    for size in (0, 1, 2, 3, 7, 40, 108, 168, 300):
        for key in (0, 1, 12345, _MASK64):
            a = list(range(size))
            b = list(range(size))
            _fast_shuffle(a, key)
            _library_shuffle(b, key)
            if a != b:
                return False
    return all(
        _randbelow(key, n) == random.Random(key).randrange(n)
        for key in (0, 7, _MASK64)
        for n in (2, 3, 5, 6, 10)
    )


#: Whether the inlined shuffle draws exactly like ``random.Random.shuffle`` here.
_SAME_SHUFFLE: Final = _same_shuffle()
_shuffle = _fast_shuffle if _SAME_SHUFFLE else _library_shuffle
_dealer = _randbelow if _SAME_SHUFFLE else (lambda key, n: random.Random(key).randrange(n))


def _counts() -> array[float]:
    a = array("f")
    a.frombytes(_ZERO_COUNTS)
    return a


_SLOTS: Final = (
    "_deck",
    "_legal",
    "_thr",
    "_vpend",
    "cnt",
    "colour",
    "dcnt",
    "direction",
    "discard",
    "draw",
    "drawn",
    "hand_size",
    "hands",
    "key",
    "known",
    "mercy",
    "n",
    "n_active",
    "out",
    "pending_last",
    "pending_total",
    "phase",
    "rules",
    "set_aside",
    "turn",
    "uno_called",
    "uno_penalty",
    "void",
    "window",
    "winner",
)


class Kernel:
    """One game of default-rule No Mercy over integers (module docstring).

    Args:
        rules: a rule set :func:`kernel_supports` accepts.
        n: seats, 2-6.

    Use :meth:`reset` to deal, :meth:`legal` for the legal ids of the seat to act,
    :meth:`apply` to take one of them, :meth:`observation` for a seat's vector.
    """

    #: ``phase`` once the game is over (the phases are ``Phase`` indices).
    OVER: ClassVar[int] = _P_OVER

    hands: list[list[int]]
    cnt: list[array[float]]
    draw: list[int]
    discard: list[int]
    set_aside: list[int]
    window: set[int]
    known: list[dict[int, array[float]]]  # known[holder][viewer]: copies of each kind
    void: list[int]
    _vpend: tuple[int, int] | None
    _legal: list[int] | None

    __slots__ = _SLOTS

    def __init__(self, rules: RuleSet, n: int) -> None:
        why = kernel_supports(rules)
        if why is not None:
            raise ValueError(why)
        if not 2 <= n <= MAX_PLAYERS:
            raise ValueError(f"the kernel seats 2-{MAX_PLAYERS} players, not {n}")
        self.rules = rules
        self.n = n
        self.mercy = rules.mercy_enabled  # NM-33 with mercy_timing="immediate"
        self._thr = rules.mercy_threshold
        self.uno_penalty = rules.uno_penalty_cards
        self.hand_size = rules.hand_size
        # The unshuffled deck in the engine's order (build_deck: table order).
        self._deck = tuple(
            _CODE_INDEX[code] for code, count in rules.deck_table().items() for _ in range(count)
        )
        self._blank()  # no game until reset(): an empty table whose game is over
        self.key = 0

    def _blank(self) -> None:
        """Empty hands and piles, nobody out, no penalty, the game over (no seat to act)."""
        n = self.n
        self.hands = [[] for _ in range(n)]
        self.cnt = [_counts() for _ in range(n)]
        self.draw = []
        self.discard = []
        self.dcnt = _counts()
        self.set_aside = []
        self.out = [False] * n
        self.n_active = n
        self.uno_called = [False] * n
        self.window = set()
        # known[holder][viewer]: copies of each kind the viewer knows the holder has.
        self.known = [{} for _ in range(n)]
        # PublicTracker's flags as bits (1 << colour): colours each seat could not play.
        self.void = [0] * n
        self._vpend = None
        self.pending_total = 0
        self.pending_last = 0
        self.drawn = -1
        self.direction = 1
        self.turn = 0
        self.phase = _P_OVER
        self.winner = -1
        self._legal = None
        self.colour = -1

    def __reduce__(self) -> tuple[object, ...]:
        """Pickling and ``copy.deepcopy`` (the mypyc build has no instance ``__dict__``, so
        the state travels as a dict of its slots)."""
        state = {name: getattr(self, name) for name in _STATE_SLOTS}
        return (_rebuild, (type(self), self.rules, self.n, state))

    # ------------------------------------------------------------------ dealing
    def reset(self, seed: int) -> None:
        """Deal the game :func:`nomercy.core.game.new_game` deals from ``seed`` (NM-2…NM-5)."""
        n = self.n
        key = _next_key(seed & _MASK64)
        deck = list(self._deck)
        _check_deal(self.rules)  # NM-2 / NM-33: refused alike by the engine
        if self.hand_size * n >= len(deck):
            raise RuleSetError(
                f"a deck of {len(deck)} cards cannot deal {self.hand_size} cards to "
                f"{n} players and start a discard pile"
            )
        _shuffle(deck, key)
        left = len(deck) - self.hand_size * n
        if not any(_NUM[k] >= 0 for k in deck[:left]):  # checked before anything changes
            # NM-4 flips only the cards left after the deal: without a number card among
            # them it would never end (the engine refuses the same deals).
            raise RuleSetError(
                f"no card left after dealing {self.hand_size} cards to {n} players can start "
                f"the discard pile (NM-4: the {left} left are all action or wild cards); "
                "deal fewer cards"
            )
        key = _next_key(key)
        dealer = _dealer(key, n)  # A38: a random first dealer
        self.key = _next_key(key)
        self._blank()
        hands = self.hands
        cnt = self.cnt
        for _ in range(self.hand_size):
            for i in range(1, n + 1):
                s = (dealer + i) % n
                k = deck.pop()
                hands[s].append(k)
                cnt[s][k] += 1
        self.draw = deck  # top of the pile is the end of the list
        self.turn = (dealer + 1) % n
        self.phase = _P_PLAY
        # NM-4 / A01 "bury": flip until a number card; the others stay underneath.
        while True:
            if not self.draw:
                self._reshuffle()
            k = self.draw.pop()
            self.discard.append(k)
            self.dcnt[k] += 1
            if _NUM[k] >= 0:
                self.colour = _COL[k]
                break

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        """Whether the hand is over."""
        return self.phase == _P_OVER

    def next_seat(self, seat: int, direction: int = 0) -> int:
        """The first active seat after ``seat`` (current direction unless one is given)."""
        d = direction or self.direction
        n = self.n
        out = self.out
        q = (seat + d) % n
        while out[q]:
            q = (q + d) % n
        return q

    def legal(self) -> list[int]:
        """The legal ids of the seat to act (empty once the game is over); cached per state."""
        ids = self._legal
        if ids is None:
            ids = self._legal = self._compute_legal()
        return ids

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == _P_OVER:
            return []
        seat = self.turn
        hand = self.hands[seat]
        ids: list[int] = []
        if phase == _P_PLAY:
            many = len(hand) > 2
            for k in _PLAYSET[self.discard[-1] * 5 + self.colour + 1].intersection(hand):
                easy = _EASY[k]
                if many and easy is not None:
                    ids += easy
                else:
                    self._variants(ids, seat, k, False)
            if not ids:
                ids.append(DRAW_ID)  # NM-9: only with nothing playable (A03 off)
        elif phase == _P_STACK:
            many = len(hand) > 2
            # NM-18: a Draw Card of value >= the last one; colour is irrelevant (A05)
            for k in _STACKSET[self.pending_last].intersection(hand):
                easy = _EASY[k]
                if many and easy is not None:
                    ids += easy
                else:
                    self._variants(ids, seat, k, True)
            ids.append(DRAW_ID)  # NM-17 absorb; stacking is optional (A06)
        elif phase == _P_DRAWN:
            self._variants(ids, seat, self.drawn, False)  # NM-9: must play it
        else:  # _P_ROULETTE: the victim names a colour (NM-30)
            ids.extend((COLOUR_BASE, COLOUR_BASE + 1, COLOUR_BASE + 2, COLOUR_BASE + 3))
        uno_called = self.uno_called
        if len(hand) == 1 and not uno_called[seat]:
            ids.append(UNO_ID)
        if self.window:
            n = self.n
            hands = self.hands
            for t in self.window:
                if t != seat and len(hands[t]) == 1 and not uno_called[t]:
                    ids.append(CATCH_BASE + (t - seat) % n - 1)
        return ids

    def _variants(self, ids: list[int], seat: int, k: int, stacking: bool) -> None:
        """The play ids of kind ``k``: colours, 7 targets, the folded UNO call (NM-37)."""
        hand = self.hands[seat]
        t = _TYPE[k]
        base = _BASE[k]
        if t == _T_DA and not stacking:  # NM-27: the same-colour cards go with it
            col = _COL[k]
            remaining = len(hand) - sum(1 for c in hand if _COL[c] == col)
        else:
            remaining = len(hand) - 1
        if remaining == 0:  # A16: a last card wins at once; no colour, no target
            ids.append(base)
            return
        uno = remaining == 1
        if _WILD[k]:
            if t == _T_ROULETTE:  # NM-30: the victim names the colour
                ids.append(base)
                if uno:
                    ids.append(base + 1)
            elif uno:
                ids.extend((base + 2, base + 3, base + 4, base + 5, base + 6, base + 7))
                ids.extend((base + 8, base + 9))
            else:
                ids.extend((base + 2, base + 4, base + 6, base + 8))
        elif t == _T_SEVEN:  # NM-31: one id per other active seat; UNO if it holds 1
            n = self.n
            out = self.out
            hands = self.hands
            for rel in range(1, n):
                target = (seat + rel) % n
                if not out[target]:
                    ids.append(base + 2 * rel)
                    if len(hands[target]) == 1:
                        ids.append(base + 2 * rel + 1)
        elif t == _T_ZERO:  # NM-29: the hand received is the previous active seat's
            ids.append(base)
            if len(self.hands[self.next_seat(seat, -self.direction)]) == 1:
                ids.append(base + 1)
        else:
            ids.append(base)
            if uno:
                ids.append(base + 1)

    # ------------------------------------------------------------------ observation
    def observation(self, seat: int) -> array[float]:
        """``seat``'s observation vector (:mod:`nomercy.rl.observations` layout)."""
        obs = array("f")
        obs.frombytes(_ZERO_BYTES)
        n = self.n
        obs[_HAND:_HAND_END] = self.cnt[seat]
        obs[_DISCARD:_DISCARD_END] = self.dcnt
        phase = self.phase
        if phase != _P_OVER:
            turn = self.turn
            obs[_TO_ACT + (turn - seat) % n] = 1
            if seat == turn and self.drawn >= 0:
                obs[_DRAWN + self.drawn] = 1
        obs[_PHASE + phase] = 1
        obs[_TOP + self.discard[-1]] = 1
        colour = self.colour
        if colour >= 0:
            obs[_COLOUR + colour] = 1
        obs[_DIRECTION] = self.direction
        if self.pending_total:
            obs[_PENDING] = self.pending_total
            obs[_PENDING + 1] = self.pending_last
        hands = self.hands
        out = self.out
        uno_called = self.uno_called
        mercy = self.mercy
        thr = self._thr
        size = len(hands[seat])
        obs[_SELF] = size
        if mercy and not out[seat]:
            obs[_SELF + 1] = thr - size
        if uno_called[seat]:
            obs[_SELF + 2] = 1
        obs[_PILE] = len(self.draw)
        if self.window:
            for t in self.window:
                if t != seat:
                    obs[_CATCH + (t - seat) % n - 1] = 1
        known = self.known
        void = self.void
        for j in range(n - 1):
            other = (seat + j + 1) % n
            obs[_PRESENT + j] = 1
            size = len(hands[other])
            obs[_SIZE + j] = size
            if out[other]:
                obs[_OUT + j] = 1
            elif mercy:
                obs[_MERCY + j] = thr - size
            if uno_called[other]:
                obs[_UNO + j] = 1
            bits = void[other]
            if bits:
                obs[_VOID + 4 * j : _VOID + 4 * j + 4] = _VOID_FLAGS[bits]
            if known[other]:
                counts = known[other].get(seat)
                if counts is not None:
                    obs[_KNOWN + j * _K : _KNOWN + (j + 1) * _K] = counts
        return obs

    # ------------------------------------------------------------------ apply
    def apply(self, action_id: int) -> None:
        """Take ``action_id``, which must be in :meth:`legal` (the caller checks)."""
        op, k, slot, uno = _DECODE[action_id]
        seat = self.turn
        phase = self.phase
        self._legal = None
        vpend = self._vpend  # PublicTracker: a drawn card's colour, for one step only
        self._vpend = None
        if op == _OP_PLAY:
            # NM-37 / A19: an in-turn action closes earlier UNO windows, except while the
            # drawing player completes the draw with its play.
            if phase != _P_DRAWN:
                if self.window:
                    self.window.clear()
            elif vpend is not None and vpend[0] == seat:
                self.void[seat] |= vpend[1]  # the colour it could not play (NM-9)
            hand = self.hands[seat]
            hand.remove(k)
            self.cnt[seat][k] -= 1
            self.drawn = -1
            if self.known[seat]:
                self._forget(seat, k)
            self.discard.append(k)
            self.dcnt[k] += 1
            col = _COL[k]
            t = _TYPE[k]
            if col >= 0:  # NM-11: the card's colour, or the colour named with a wild (NM-14)
                self.colour = col
            elif slot and t != _T_ROULETTE:
                self.colour = slot - 1
            if t == _T_DA and phase != _P_STACK:  # NM-27: bury the same colour, no effects
                same = [c for c in hand if _COL[c] == col]
                if same:
                    self._bury(seat, same)
            if uno:
                self.uno_called[seat] = True
            elif self.uno_called[seat]:
                self.uno_called[seat] = False  # NM-37: a call belongs to its one-card hand
            if not hand:  # NM-38 / A16: the last card wins; its effect is not applied
                self._end(seat)
                return
            self._resolve(seat, k, slot)
            self._open_uno(seat)  # NM-37
        elif op == _OP_DRAW:
            if self.window:
                self.window.clear()
            if phase == _P_STACK:
                self._absorb(seat)
            else:
                self._draw_turn(seat)
        elif op == _OP_COLOUR:
            if self.window:
                self.window.clear()
            self._reveal(seat, slot)
        elif op == _OP_UNO:
            self.uno_called[seat] = True
            self.window.discard(seat)
        elif op == _OP_CATCH:
            self._catch((seat + slot) % self.n)
        else:  # pragma: no cover - legal() never offers these
            raise ValueError(f"the kernel has no action id {action_id}")

    def _bury(self, seat: int, cards: list[int]) -> None:
        hand = self.hands[seat]
        cnt = self.cnt[seat]
        discard = self.discard
        dcnt = self.dcnt
        top = discard.pop()
        for c in cards:
            hand.remove(c)
            cnt[c] -= 1
            if self.known[seat]:
                self._forget(seat, c)
            discard.append(c)
        discard.append(top)
        for c in cards:
            dcnt[c] += 1

    def _resolve(self, seat: int, k: int, slot: int) -> None:
        """NM-22…NM-31: the card's effect and who acts next."""
        self.phase = _P_PLAY
        t = _TYPE[k]
        if _DRAW[k]:
            self._open_stack(seat, k)
        elif t in (_T_PLAIN, _T_DA):
            self.turn = self.next_seat(seat)
        elif t == _T_SEVEN:
            if slot:
                self._swap(seat, (seat + slot) % self.n)
            self.turn = self.next_seat(seat)
        elif t == _T_ZERO:
            self._pass_hands(seat)
            self.turn = self.next_seat(seat)
        elif t == _T_SKIP:  # NM-23
            self.turn = self.next_seat(self.next_seat(seat))
        elif t == _T_REVERSE:  # NM-25: with two active players it acts like a Skip
            self.direction = -self.direction
            self.turn = seat if self.n_active == 2 else self.next_seat(seat)
        elif t == _T_SKIP_ALL:  # NM-26
            self.turn = seat
        elif t == _T_ROULETTE:  # NM-30: the victim names a colour
            self.turn = self.next_seat(seat)
            self.phase = _P_ROULETTE
        else:  # a plain Wild in a custom deck
            self.turn = self.next_seat(seat)

    def _open_stack(self, seat: int, k: int) -> None:
        """NM-16 / NM-24 / NM-28."""
        value = _DRAW[k]
        self.pending_total += value
        self.pending_last = value
        if k == _WRD4:
            self.direction = -self.direction
            # NM-24: with two active players its player is the target, unless it is stacked
            # on a penalty (A28 "opponent", S4): then the opponent faces the total.
            if self.n_active == 2 and self.pending_total == value:
                self.turn = seat
            else:
                self.turn = self.next_seat(seat)
        else:
            self.turn = self.next_seat(seat)
        self.phase = _P_STACK

    # ------------------------------------------------------------------ drawing
    def _reshuffle(self) -> bool:
        """NM-35: the discard pile but its top, plus set-aside hands, becomes the pile."""
        rest = self.discard[:-1] + self.set_aside
        if not rest:
            return False
        top = self.discard[-1]
        self.discard = [top]
        self.dcnt = _counts()
        self.dcnt[top] = 1
        self.set_aside = []
        _shuffle(rest, self.key)
        self.key = _next_key(self.key)
        self.draw = rest + self.draw
        return True

    def _take(self) -> int:
        """The top card of the pile (reshuffling lazily, NM-35), or -1 (A13 end_sequence)."""
        draw = self.draw
        if not draw:
            if not self._reshuffle():
                return -1
            draw = self.draw
        return draw.pop()

    def _rearm(self, seat: int) -> None:
        """NM-37: a hand that received cards must call UNO again when it is back at one."""
        if self.uno_called[seat] or seat in self.window:
            self.uno_called[seat] = False
            self.window.discard(seat)

    def _draw_cards(self, seat: int, count: int) -> bool:
        """Draw ``count`` cards one by one into ``seat``'s hand, stopping at the Mercy limit
        (NM-33, A15 stop_at_threshold) or when nothing is left (A13); True if knocked out."""
        hand = self.hands[seat]
        cnt = self.cnt[seat]
        # Cards until the Mercy check knocks the seat out: at least one, since the check runs
        # after a card arrives (a hand dealt at or over the limit goes on the next card).
        room = max(self._thr - len(hand), 1) if self.mercy else count + 1
        want = min(count, room)
        got = 0
        while got < want:
            draw = self.draw
            if not draw and not self._reshuffle():
                break
            draw = self.draw
            m = min(want - got, len(draw))
            chunk = draw[: -m - 1 : -1]  # the top m cards, top first
            del draw[-m:]
            hand += chunk
            for k in chunk:
                cnt[k] += 1
            got += m
        if got:
            self._rearm(seat)
        return got == room

    def _draw_turn(self, seat: int) -> None:
        """NM-9: draw until a playable card, which must be played (Mercy per card, NM-33)."""
        hand = self.hands[seat]
        cnt = self.cnt[seat]
        colour = self.colour
        playable = _PLAYABLE[self.discard[-1] * 5 + colour + 1]
        limit = self._thr if self.mercy else 1 << 30
        got = False
        draw = self.draw
        while True:
            if not draw:
                if not self._reshuffle():
                    break
                draw = self.draw
            k = draw.pop()
            hand.append(k)
            cnt[k] += 1
            if not got:
                got = True
                self._rearm(seat)
            if len(hand) >= limit:  # A14 immediate: knocked out even if it was playable
                self.void[seat] = 1 << colour if colour >= 0 else 0
                self.turn = self.next_seat(seat)
                self._knock_out(seat)
                return
            if playable[k]:
                self.phase = _P_DRAWN
                self.drawn = k
                self.void[seat] = 0
                if colour >= 0:
                    self._vpend = (seat, 1 << colour)
                return
        self.void[seat] = 1 << colour if colour >= 0 else 0  # A13: nothing left to draw
        self.turn = self.next_seat(seat)

    def _absorb(self, seat: int) -> None:
        """NM-17: take the whole penalty and lose the turn; A15 stops at the Mercy limit."""
        knocked = self._draw_cards(seat, self.pending_total)
        self.pending_total = 0
        self.pending_last = 0
        self.void[seat] = 0
        self.phase = _P_PLAY
        self.turn = self.next_seat(seat)
        if knocked:
            self._knock_out(seat)

    def _reveal(self, victim: int, colour: int) -> None:
        """NM-30: reveal until the named colour; keep them all (Mercy after the reveal)."""
        revealed = []
        while True:
            k = self._take()
            if k < 0:
                break
            revealed.append(k)
            if _COL[k] == colour:
                break
        if revealed:
            self.hands[victim] += revealed
            cnt = self.cnt[victim]
            for k in revealed:
                cnt[k] += 1
            self._rearm(victim)
        if revealed:  # revealed cards are public (S4)
            known = self.known[victim]
            for v in range(self.n):
                if v != victim:
                    counts = known.get(v)
                    if counts is None:
                        counts = known[v] = _counts()
                    for k in revealed:
                        counts[k] += 1
        self.colour = colour  # A21 named_colour
        self.void[victim] = 0
        self.phase = _P_PLAY
        self.turn = self.next_seat(victim)
        if self.mercy and len(self.hands[victim]) >= self._thr:
            self._knock_out(victim)

    def _catch(self, target: int) -> None:
        """NM-37: the caught seat draws the UNO penalty (Mercy per card)."""
        self.window.discard(target)
        knocked = self._draw_cards(target, self.uno_penalty)
        self.void[target] = 0
        if knocked:
            self._knock_out(target)

    # ------------------------------------------------------------------ 7s, 0s, UNO
    def _open_uno(self, seat: int) -> None:
        """NM-37: a hand of exactly one card must be called, also a hand received in a swap
        or pass (A19 uno_on_received_single_card, on by default); re-arm otherwise."""
        if len(self.hands[seat]) == 1:
            if not self.uno_called[seat]:
                self.window.add(seat)
        else:
            self.uno_called[seat] = False
            self.window.discard(seat)

    def _forget(self, seat: int, k: int) -> None:
        """A card left ``seat``'s hand: nobody can know it is there any more."""
        for counts in self.known[seat].values():
            if counts[k] > 0:
                counts[k] -= 1

    def _move_knowledge(self, moves: dict[int, int]) -> None:
        """Cards known to be in seat s are now in seat ``moves[s]`` (not known to itself)."""
        old = self.known
        new = list(old)
        for holder, dest in moves.items():
            new[dest] = {v: c for v, c in old[holder].items() if v != dest}
        self.known = new

    def _swap(self, seat: int, target: int) -> None:
        """NM-31: swap whole hands; each now knows the hand it gave away."""
        hands = self.hands
        cnt = self.cnt
        hands[seat], hands[target] = hands[target], hands[seat]
        cnt[seat], cnt[target] = cnt[target], cnt[seat]
        self._move_knowledge({seat: target, target: seat})
        self.known[target][seat] = array("f", cnt[target])
        self.known[seat][target] = array("f", cnt[seat])
        self.void[seat] = 0
        self.void[target] = 0
        self.uno_called[target] = False  # NM-37 (S0): a received hand is a new hand
        self._open_uno(target)
        self._open_uno(seat)

    def _pass_hands(self, seat: int) -> None:
        """NM-29: every active player passes their hand to the next active player."""
        n = self.n
        active = [s for s in range(n) if not self.out[s]]
        receiver = {s: self.next_seat(s) for s in active}
        old_hands = {s: self.hands[s] for s in active}
        old_cnt = {s: self.cnt[s] for s in active}
        for s in active:
            self.hands[receiver[s]] = old_hands[s]
            self.cnt[receiver[s]] = old_cnt[s]
        self._move_knowledge(receiver)
        for s in active:
            if receiver[s] != s:
                self.known[receiver[s]][s] = array("f", old_cnt[s])
        self.void = [0] * n  # PublicTracker: hands moved
        for s in active:
            if s != seat:  # NM-37 (S0): a received hand is a new hand; earlier calls are void
                self.uno_called[s] = False
            self._open_uno(s)

    # ------------------------------------------------------------------ knock-out, end
    def _knock_out(self, seat: int) -> None:
        """NM-34: set the hand aside, clear the penalty, end the hand if one is left."""
        self.set_aside.extend(self.hands[seat])
        self.hands[seat] = []
        self.cnt[seat] = _counts()
        self.out[seat] = True
        self.n_active -= 1
        self.uno_called[seat] = False
        self.window.discard(seat)
        self.known[seat] = {}
        if self.phase == _P_STACK and self.turn == seat:
            # NM-34.3: only the target's own knock-out ends the penalty (A40).
            self.pending_total = 0
            self.pending_last = 0
            self.phase = _P_PLAY
        if self.turn == seat or self.out[self.turn]:
            self.turn = self.next_seat(seat)
            self.phase = _P_PLAY
        if self.n_active == 1:
            self._end(self.out.index(False))

    def _end(self, winner: int) -> None:
        """NM-38 / NM-34.5: the hand (and, with scoring off, the game) is over."""
        self.pending_total = 0
        self.pending_last = 0
        self.winner = winner
        self.phase = _P_OVER


# The slots that hold a game's state (the rest are set from the rules by __init__).
_STATE_SLOTS: Final = tuple(
    name
    for name in _SLOTS
    if name not in ("_deck", "_thr", "hand_size", "mercy", "n", "rules", "uno_penalty")
)


def _rebuild(cls: type[Kernel], rules: RuleSet, n: int, state: dict[str, object]) -> Kernel:
    """Unpickle a :class:`Kernel` (see ``Kernel.__reduce__``)."""
    kernel = cls(rules, n)
    for name, value in state.items():
        setattr(kernel, name, value)
    return kernel


# ---------------------------------------------------------------------- the compiled build
#: The module ``python -m nomercy.rl.build_kernel`` compiles this source into (mypyc).
COMPILED_MODULE: Final = "nomercy.rl._kernel_mypyc"
_CHOSEN: list[type[Kernel]] = []


def source_digest() -> str:
    """SHA-256 of this module's source, which a compiled build must have been made from."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def compiled_kernel() -> type[Kernel] | None:
    """The mypyc build's :class:`Kernel`, if it is installed and built from this source."""
    try:
        module = importlib.import_module(COMPILED_MODULE)
    except ImportError:
        return None
    if getattr(module, "SOURCE_SHA256", None) != source_digest():
        warnings.warn(
            "the compiled RL kernel was built from another kernel.py; using the pure-Python "
            "kernel (rebuild it with: python -m nomercy.rl.build_kernel)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return cast("type[Kernel]", module.Kernel)


def kernel_class() -> type[Kernel]:
    """The :class:`Kernel` the environments use: the compiled build when it is current,
    else this module's. ``NOMERCY_KERNEL=python`` in the environment forces this module's."""
    if not _CHOSEN:
        compiled = None if os.environ.get("NOMERCY_KERNEL") == "python" else compiled_kernel()
        _CHOSEN.append(compiled or Kernel)
    return _CHOSEN[0]
