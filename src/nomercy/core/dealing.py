"""Dealing and shuffling: the only chance in a game (NM-2..NM-5, CL-2, CL-3, A01, A38).

Each shuffle draws from a generator seeded with the game's key and then advances the key with
SplitMix64, so a position plus actions always continues the same way, draws included. Which
generator is the game's *deal version* (docs/notation.md, "Deal versions"):

- version 1: ``random.Random(key)`` (MT19937) and CPython's ``random.shuffle`` (compiled,
  drawn by :class:`Mt19937`, the same generator as native code);
- version 2: :class:`DealStream` (xoshiro128++ seeded by SplitMix64, Lemire's bounded
  draws) and a Fisher-Yates shuffle of our own, about twice as cheap compiled, with every bit of
  its output fixed by this module rather than by a library.

Functions that work on a game take it as ``g`` (``Game`` calls them).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from types import FunctionType
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from librt.vecs import append, vec
from mypy_extensions import i64

from nomercy.core.base import (
    CHOOSE_COLOUR,
    K_DRAW_TWO,
    K_REVERSE,
    K_SKIP,
    K_WILD,
    K_WILD_DRAW_FOUR,
    PLAY,
)
from nomercy.core.cards import Card
from nomercy.core.deck import build_deck
from nomercy.core.errors import RuleSetError
from nomercy.core.events import EventKind as EK
from nomercy.core.rules import RuleSet

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = [
    "DEAL_VERSION",
    "DEAL_VERSIONS",
    "MASK",
    "DealStream",
    "Mt19937",
    "SeededChoice",
    "below",
    "check_deal_version",
    "choice_as_random",
    "deal",
    "fresh_deck",
    "key_below",
    "next_key",
    "randbelow",
    "seed_label",
    "seeded_choices",
    "shuffle_as_random",
    "shuffle_then_below",
    "shuffle_with_key",
]

MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15  # SplitMix64's increment
_M32: Final = 0xFFFFFFFF
_2_32: Final = 1 << 32
_N_LIMIT: Final = 1 << 31  # DealStream.below's bound: a product of 32 and 31 bits fits i64

#: The deal versions this code deals (docs/notation.md, "Deal versions").
DEAL_VERSIONS: Final = (1, 2)
#: The deal version of a new game when none is named, and of every record, position or
#: room that names none (all of them were dealt by version 1). Version 2 is opt-in until
#: every place that keeps or shows a seed also keeps the version.
DEAL_VERSION: Final = 1


def check_deal_version(version: object) -> int:
    """``version`` if it is a deal version this code deals.

    Raises:
        TypeError: not an integer.
        RuleSetError: an integer that is not a deal version.
    """
    if isinstance(version, bool) or not isinstance(version, int):
        raise TypeError(f"deal_version must be an integer, not {version!r}")
    if version not in DEAL_VERSIONS:
        raise RuleSetError(
            f"deal version {version} is not one this version of nomercy deals "
            f"({', '.join(map(str, DEAL_VERSIONS))})"
        )
    return version


def seed_label(seed: int, version: int) -> str:
    """How interfaces show a game's seed: with its deal version when it is not 1, since the
    seed alone deals another game under another version.

    >>> seed_label(12, 1), seed_label(12, 2)
    ('seed 12', 'seed 12, deal version 2')
    """
    return f"seed {seed}" if version == DEAL_VERSION else f"seed {seed}, deal version {version}"


def next_key(key: int) -> int:
    """SplitMix64 step: derive the next shuffle key from the current one (Pgx-style keys).

    The key is read modulo 2**64. The arithmetic runs on two 32-bit halves, each product
    below 2**63, so the compiled build computes it in machine words (``i64``) rather than
    with Python's big integers, and the pure build in Python ints, to the same bits.

    >>> next_key(0), next_key(2**64 - 1) == next_key(-1)
    (16294208416658607535, True)
    """
    key &= MASK
    hi: i64 = key >> 32
    lo: i64 = key & _M32
    lo += 0x7F4A7C15  # + SplitMix64's increment, 0x9E3779B97F4A7C15
    hi = (hi + 0x9E3779B9 + (lo >> 32)) & _M32
    lo &= _M32
    lo ^= ((lo >> 30) | (hi << 2)) & _M32  # z ^= z >> 30
    hi ^= hi >> 30
    hi, lo = _times(hi, lo, 0xBF58476D, 0x1CE4E5B9)
    lo ^= ((lo >> 27) | (hi << 5)) & _M32  # z ^= z >> 27
    hi ^= hi >> 27
    hi, lo = _times(hi, lo, 0x94D049BB, 0x133111EB)
    lo ^= ((lo >> 31) | (hi << 1)) & _M32  # z ^= z >> 31
    hi ^= hi >> 31
    # Python ints (an i64 beside an int makes the operation i64): the key can pass 2**63.
    top: int = hi
    bottom: int = lo
    return (top << 32) | bottom


def _times(hi: i64, lo: i64, c_hi: i64, c_lo: i64) -> tuple[i64, i64]:
    """``(hi, lo) * (c_hi, c_lo)`` modulo 2**64, each a number in two 32-bit halves (high,
    low): ``lo * c_lo`` in full from 16-bit pieces of ``lo``, the cross terms modulo 2**32."""
    low = (lo & 0xFFFF) * c_lo  # below 2**48
    high = (lo >> 16) * c_lo  # below 2**48: lo * c_lo = low + high * 2**16
    total = low + ((high & 0xFFFF) << 16)
    carry = (total >> 32) + (high >> 16)
    return (carry + _low_times(lo, c_hi) + _low_times(hi, c_lo)) & _M32, total & _M32


def _low_times(a: i64, b: i64) -> i64:
    """``a * b`` modulo 2**32 for 32-bit ``a`` and ``b``, from 16-bit pieces of ``a``."""
    return ((((a >> 16) * b & 0xFFFF) << 16) + (a & 0xFFFF) * b) & _M32


class DealStream:
    """Deal version 2's generator: xoshiro128++ 1.0 (Blackman and Vigna) on four 32-bit words.

    Seeded from a 64-bit ``key``: the first two outputs of SplitMix64 from state ``key``
    (``next_key(key)`` and ``next_key(key + 0x9E3779B97F4A7C15)``), each split low word first,
    as the authors recommend seeding it (two distinct outputs, so never the all-zero state).
    Every value it computes stays below 2**63, so the compiled build works in machine words
    (``i64``) and the pure build in Python ints, to the same bits.

    >>> s = DealStream(0)
    >>> [s.next32() for _ in range(3)]
    [1179900579, 1938959192, 3089844957]
    """

    __slots__ = ("a", "b", "c", "d")

    def __init__(self, key: int) -> None:
        key &= MASK
        low = next_key(key)
        high = next_key((key + _GAMMA) & MASK)
        self.a: i64 = low & _M32
        self.b: i64 = low >> 32
        self.c: i64 = high & _M32
        self.d: i64 = high >> 32

    def next32(self) -> i64:
        """The next 32-bit output (xoshiro128++'s ``next``)."""
        a = self.a
        b = self.b
        c = self.c
        d = self.d
        x = (a + d) & _M32
        result = ((((x << 7) & _M32) | (x >> 25)) + a) & _M32
        t = (b << 9) & _M32
        c ^= a
        d ^= b
        b ^= c
        a ^= d
        c ^= t
        self.a = a
        self.b = b
        self.c = c
        self.d = ((d << 11) & _M32) | (d >> 21)
        return result

    def below(self, n: i64) -> i64:
        """A number in ``range(n)`` for ``1 <= n < 2**31``, unbiased: Lemire's
        multiply-and-shift with rejection (2019), one ``next32`` almost always (``n`` is
        bounded so that the product fits a signed 64-bit word).

        Raises:
            ValueError: ``n`` is out of that range.
        """
        if n < 1 or n >= _N_LIMIT:
            raise ValueError(f"DealStream.below needs 1 <= n < 2**31, not {n}")
        m = self.next32() * n
        low = m & _M32
        if low < n:
            floor = (_2_32 - n) % n  # 2**32 mod n: the draws that would bias
            while low < floor:
                m = self.next32() * n
                low = m & _M32
        return m >> 32

    def shuffle(self, cards: list[Any]) -> None:
        """Fisher-Yates from the top index down, as version 1's shuffle runs: position
        ``i`` swaps with ``below(i + 1)``."""
        i: i64 = len(cards) - 1
        while i > 0:
            j = self.below(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
            i -= 1


_MT_N: Final = 624  # MT19937's state, in 32-bit words
_MT_M: Final = 397  # the twist's middle word
_MT_MAX_KEY: Final = MASK  # the keys Mt19937 seeds as Random does (keys are SplitMix64 output)


def _mt_init(seed: i64) -> vec[i64]:
    """MT19937's ``init_genrand(seed)``: the state ``init_by_array`` starts from."""
    mt = vec[i64]([0] * _MT_N)
    mt[0] = seed
    i: i64 = 1
    while i < _MT_N:
        prev = mt[i - 1]
        mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & _M32
        i += 1
    return mt


#: ``init_genrand(19650218)``: every ``init_by_array`` starts from it, so it is made once.
_MT_BASE: Final = _mt_init(19650218)


def _seeded_states(key_a: int, key_b: int) -> tuple[vec[i64], vec[i64]]:
    """The MT19937 states ``random.Random(key_a)`` and ``random.Random(key_b)`` start from
    (``init_by_array`` over each key's 32-bit words, low first), for keys in ``[0, 2**64)``.

    Both in one pass: each step of ``init_by_array`` waits on the one before (a multiply
    and shifts, about 8 cycles), so two independent seedings interleaved take little more
    time than one (a deal seeds its shuffle and A38's dealer draw: :func:`shuffle_then_below`).

    Raises:
        ValueError: a key out of that range.
    """
    for key in (key_a, key_b):
        if not 0 <= key <= _MT_MAX_KEY:
            raise ValueError(f"Mt19937 seeds keys in [0, 2**64), not {key}")
    low_a: i64 = key_a & _M32
    high_a: i64 = key_a >> 32
    low_b: i64 = key_b & _M32
    high_b: i64 = key_b >> 32
    # The key as CPython reads it: the fewest 32-bit words that hold it, at least one; each
    # step's key word j cycles through them (last: the index of the last word, 0 or 1).
    last_a: i64 = 0
    if high_a:
        last_a = 1
    last_b: i64 = 0
    if high_b:
        last_b = 1
    a = _MT_BASE[0:_MT_N]
    b = _MT_BASE[0:_MT_N]
    prev_a = a[0]
    prev_b = b[0]
    i: i64 = 1
    j_a: i64 = 0
    j_b: i64 = 0
    steps: i64 = _MT_N  # max(624, words): 624 steps over the key from word 1 on, then 623
    while steps > 0:  # without it; past the last word, word 0 takes its value, on from 1
        word_a = low_a
        if j_a:
            word_a = high_a
        word_b = low_b
        if j_b:
            word_b = high_b
        prev_a = ((a[i] ^ ((prev_a ^ (prev_a >> 30)) * 1664525)) + word_a + j_a) & _M32
        prev_b = ((b[i] ^ ((prev_b ^ (prev_b >> 30)) * 1664525)) + word_b + j_b) & _M32
        a[i] = prev_a
        b[i] = prev_b
        i += 1
        if i >= _MT_N:
            a[0] = prev_a
            b[0] = prev_b
            i = 1
        j_a ^= last_a  # 0, 0, ... for a one-word key; 0, 1, 0, ... for two
        j_b ^= last_b
        steps -= 1
    steps = _MT_N - 1
    while steps > 0:
        prev_a = ((a[i] ^ ((prev_a ^ (prev_a >> 30)) * 1566083941)) - i) & _M32
        prev_b = ((b[i] ^ ((prev_b ^ (prev_b >> 30)) * 1566083941)) - i) & _M32
        a[i] = prev_a
        b[i] = prev_b
        i += 1
        if i >= _MT_N:
            a[0] = prev_a
            b[0] = prev_b
            i = 1
        steps -= 1
    a[0] = 0x80000000  # assures a non-zero state, as init_by_array does
    b[0] = 0x80000000
    return a, b


class Mt19937:
    """Deal version 1's generator as native code: CPython's ``random.Random(key)`` (MT19937,
    Matsumoto and Nishimura, seeded by ``init_by_array`` with the key's 32-bit words, low
    first) for a key in ``[0, 2**64)``, output for output.

    Compiled, seeding and shuffling here take well under half the time of
    ``random.Random(key)`` and its ``shuffle``: the draws are native calls rather than
    ``getrandbits`` through the object protocol, and the twist runs one word per draw (word
    ``i`` of a twist needs only words ``i + 1`` and ``i + 397`` of the old state and words
    already twisted, so in order, one at a time, gives the same words). The pure build keeps
    ``random.Random``: this code as Python is slower than the library's C. Its users
    (:func:`shuffle_with_key`, :func:`shuffle_then_below`, :func:`key_below`,
    :class:`SeededChoice`) take it only where it was checked at import to draw exactly as
    this Python's ``random`` does.

    >>> m, r = Mt19937(2**40 + 7), random.Random(2**40 + 7)
    >>> [m.next32() for _ in range(700)] == [r.getrandbits(32) for _ in range(700)]
    True
    """

    __slots__ = ("index", "mt")

    def __init__(self, key: int, state: vec[i64] | None = None) -> None:
        """Seeded with ``key``; ``state``: its seeded state if made already (by
        :func:`_seeded_states`, or unpickled), which the generator then owns."""
        self.mt = state if state is not None else _seeded_states(key, key)[0]
        self.index: i64 = 0  # the next word to twist and temper

    def __reduce__(self) -> tuple[Any, tuple[list[int], int]]:
        # Compiled classes have no default pickling: the state's words and the next index.
        return _restored_mt, (list(self.mt), self.index)

    def next32(self) -> i64:
        """The next 32-bit output (``genrand_uint32``; ``getrandbits(k)`` for ``k <= 32`` is
        its top ``k`` bits)."""
        i = self.index
        after = i + 1
        if after == _MT_N:
            after = 0
        self.index = after
        return _mt_word(self.mt, i)

    def below(self, n: i64) -> i64:
        """``randrange(n)`` for ``1 <= n < 2**31``, as CPython draws it
        (``_randbelow_with_getrandbits``: the top ``n.bit_length()`` bits of a word, again
        while they reach ``n``).

        Raises:
            ValueError: ``n`` is out of that range.
        """
        if n < 1 or n >= _N_LIMIT:
            raise ValueError(f"Mt19937.below needs 1 <= n < 2**31, not {n}")
        bits: i64 = 0
        while n >> bits:
            bits += 1
        r = self.next32() >> (32 - bits)
        while r >= n:
            r = self.next32() >> (32 - bits)
        return r

    def shuffle(self, cards: list[Any]) -> None:
        """``random.Random(key).shuffle(cards)``, swap for swap (see :func:`fisher_yates`)."""
        mt = self.mt  # next32 inlined: the state and the index held locally for every draw
        at = self.index
        size: i64 = len(cards)
        bits: i64 = 0  # of n = i + 1 below, kept by integer steps
        while size >> bits:
            bits += 1
        low: i64 = 0
        if bits:
            low = 1 << (bits - 1)
        i = size - 1
        while i > 0:
            n = i + 1
            if n < low:
                bits -= 1
                low >>= 1
            j = n
            while j >= n:
                j = _mt_word(mt, at) >> (32 - bits)
                at += 1
                if at == _MT_N:
                    at = 0
            cards[i], cards[j] = cards[j], cards[i]
            i -= 1
        self.index = at


def _restored_mt(words: list[int], index: int) -> Mt19937:
    """What :meth:`Mt19937.__reduce__` pickles, unpickled."""
    if len(words) != _MT_N or not 0 <= index < _MT_N:
        raise ValueError("an MT19937 state is 624 words and an index below 624")
    restored = Mt19937(0, vec[i64](words))
    restored.index = index
    return restored


def _mt_word(mt: vec[i64], i: i64) -> i64:
    """Twist word ``i`` of MT19937's state in place and return it tempered: the generator's
    next output when ``i`` is its index. Words twisted in order, one per output, are the
    words of CPython's whole-state twist: word ``i`` reads words ``i + 1`` and ``i + 397``
    (mod 624) of the old state, and the wrapped ones are twisted already."""
    # Statements, not conditional expressions: mypyc boxes an ``x if c else 0``.
    after = i + 1
    if after == _MT_N:
        after = 0
    far = i + _MT_M
    if far >= _MT_N:
        far -= _MT_N
    y = (mt[i] & 0x80000000) | (mt[after] & 0x7FFFFFFF)
    twisted = mt[far] ^ (y >> 1)
    if y & 1:
        twisted ^= 0x9908B0DF
    mt[i] = y = twisted
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


def _native_v1() -> bool:
    """Whether :class:`Mt19937` may shuffle for version 1: only compiled (as Python it is
    slower than the library), and only if it shuffles exactly as this Python's ``random``
    (checked on a few keys and sizes, as :func:`_pick_shuffle` checks the library's)."""
    if isinstance(_mt_init, FunctionType):  # this module runs as Python: the pure build
        return False
    for key in (0, 2**32 - 1, 2**32, 2**63 + 12345, MASK):
        words, library = Mt19937(key), random.Random(key)
        if [words.next32() for _ in range(8)] != [library.getrandbits(32) for _ in range(8)]:
            return False
        for size in (0, 1, 2, 168):
            mine, theirs = list(range(size)), list(range(size))
            Mt19937(key).shuffle(mine)
            random.Random(key).shuffle(theirs)
            if mine != theirs:
                return False
        if Mt19937(key).below(7) != random.Random(key).randrange(7):
            return False
    return True


_NATIVE_V1: Final = _native_v1()


#: An empty hand: no room, so each hand's first append makes its own vector.
_NO_CARDS: Final[vec[i64]] = vec[i64]()
_DECKS: Final[dict[tuple[tuple[str, int], ...], tuple[Card, ...]]] = {}


#: The deck of each recently used rule set, by identity: the composition's key costs more to
#: build than the deal that follows. A value holds its rule set, so its id is not reused
#: while it is here; the dict is emptied when it grows past _RECENT entries.
_DECK_OF: Final[dict[int, tuple[RuleSet, tuple[Card, ...]]]] = {}
_RECENT: Final = 256


def fresh_deck(rules: RuleSet) -> list[Card]:
    """The unshuffled deck of the rule set (built once per composition)."""
    found = _DECK_OF.get(id(rules))
    if found is not None and found[0] is rules:
        return list(found[1])
    key = tuple(rules.deck_table().items())
    deck = _DECKS.get(key)
    if deck is None:
        deck = _DECKS[key] = tuple(build_deck(dict(key)))
    if len(_DECK_OF) >= _RECENT:
        _DECK_OF.clear()
    _DECK_OF[id(rules)] = (rules, deck)
    return list(deck)


def fisher_yates(cards: list[Any], rng: random.Random) -> None:
    """``rng.shuffle(cards)``, draw for draw: the same Fisher-Yates over ``getrandbits`` as
    CPython's ``random.shuffle`` with ``_randbelow_with_getrandbits``, inlined (a shuffle of
    168 cards is ~167 Python-level calls there; compiled, this loop is native code)."""
    getrandbits = rng.getrandbits
    size = len(cards)
    k = size.bit_length()  # of n = i + 1 below, kept by integer steps (native when compiled)
    low = 1 << (k - 1) if k else 0  # the smallest n with k bits
    for i in range(size - 1, 0, -1):
        n = i + 1
        if n < low:
            k -= 1
            low >>= 1
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _library_shuffle(cards: list[Any], rng: random.Random) -> None:
    rng.shuffle(cards)


def _pick_shuffle() -> Callable[[list[Any], random.Random], None]:
    """The inlined shuffle if it draws exactly like this Python's ``random.shuffle`` (checked
    on a few seeds and sizes, so a future ``random`` cannot change recorded games), else the
    library's own: the same seed must deal the same game (docs/notation.md)."""
    for seed in (0, 1, 12345, 2**63 - 1):
        for size in (0, 1, 2, 7, 108, 168, 300):
            mine, theirs = list(range(size)), list(range(size))
            fisher_yates(mine, random.Random(seed))
            random.Random(seed).shuffle(theirs)
            if mine != theirs:
                return _library_shuffle
    return fisher_yates


shuffle_as_random = _pick_shuffle()

_T = TypeVar("_T")


def below(getrandbits: Callable[[int], int], n: int) -> int:
    """A number in ``range(n)`` (``n > 0``) from a generator's ``getrandbits``: CPython's
    ``_randbelow_with_getrandbits``, inlined as the shuffle is (and, unlike ``randrange``,
    the same draws whatever ``random`` does on another Python)."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _inlined_draws_match() -> bool:
    """Whether :func:`below` draws exactly like this Python's ``Random.randrange`` and, as
    an index, ``Random.choice``."""
    for seed in (0, 1, 12345, 2**63 - 1):
        a, b, c, d = (random.Random(seed) for _ in range(4))
        for size in (1, 2, 3, 7, 8, 9, 31, 64, 65, 108, 300):
            seq = range(size)
            if [below(a.getrandbits, size) for _ in range(5)] != [
                b.randrange(size) for _ in range(5)
            ]:
                return False
            if [seq[below(c.getrandbits, size)] for _ in range(5)] != [
                d.choice(seq) for _ in range(5)
            ]:
                return False
    return True


_INLINED: Final = _inlined_draws_match()


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``, draw for draw: one native call when compiled, where
    ``randrange`` is three Python-level frames (``ValueError`` for ``n <= 0``, as there)."""
    if n <= 0:
        raise ValueError(f"empty range for randbelow ({n})")
    return below(rng.getrandbits, n) if _INLINED else rng.randrange(n)


class RandomChoice:
    """``rng.choice``, draw for draw, as one call: CPython's ``choice`` is ``seq[r]`` with
    ``r`` from ``_randbelow_with_getrandbits`` (two Python-level frames); compiled, this is
    native code over the same ``getrandbits``. It shares ``rng``'s state: mixing calls to it
    and to ``rng`` draws as ``rng`` alone would. Make one with :func:`choice_as_random`."""

    __slots__ = ("_getrandbits", "rng")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._getrandbits = rng.getrandbits  # bound once: a lookup per call costs more

    def __call__(self, seq: Sequence[_T]) -> _T:
        n = len(seq)
        if not n:
            raise IndexError("Cannot choose from an empty sequence")
        return seq[below(self._getrandbits, n)]

    def __reduce__(self) -> tuple[Any, tuple[random.Random]]:
        return RandomChoice, (self.rng,)


def choice_as_random(rng: random.Random) -> Callable[[Sequence[_T]], _T]:
    """A function drawing as ``rng.choice`` does, from ``rng``'s own state: a
    :class:`RandomChoice` (one native call, compiled), or ``rng.choice`` itself if this
    Python's ``choice`` draws otherwise (checked at import, as the shuffle is: the same seed
    must play the same game)."""
    return RandomChoice(rng) if _INLINED else rng.choice


class SeededChoice:
    """``random.Random(seed).choice``, draw for draw, from a generator of its own: compiled
    and for a seed in ``[0, 2**64)``, a :class:`Mt19937` (native draws, and a cheaper
    seeding); otherwise the library's generator through :func:`choice_as_random`.
    :meth:`reseed` starts it over in place, so whoever holds it draws from the new seed
    (``RandomBot.reseed``).

    >>> choose, library = SeededChoice(9), random.Random(9)
    >>> [choose(range(10)) for _ in range(6)] == [library.choice(range(10)) for _ in range(6)]
    True
    """

    __slots__ = ("_library", "_words", "seed")

    def __init__(self, seed: int, words: Mt19937 | None = None) -> None:
        """``words``: ``Mt19937(seed)`` if made already (:func:`seeded_choices`)."""
        self._words: Mt19937 | None = words
        self._library: Callable[[Sequence[Any]], Any] | None = None
        self.seed = seed
        if words is None:
            self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """Draw from now on as ``random.Random(seed).choice`` does."""
        self.seed = seed
        if _NATIVE_V1 and 0 <= seed <= _MT_MAX_KEY:
            self._words = Mt19937(seed)
            self._library = None
        else:
            self._words = None
            self._library = choice_as_random(random.Random(seed))

    def __call__(self, seq: Sequence[_T]) -> _T:
        words = self._words
        if words is None:
            assert self._library is not None
            return cast("_T", self._library(seq))
        if type(seq) is list:  # the legal ids: a list's length and items read natively
            items = cast("list[_T]", seq)
            n = len(items)
            if n:
                return items[words.below(n)]
        n = len(seq)
        if not n:
            raise IndexError("Cannot choose from an empty sequence")
        return seq[words.below(n)]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Compiled classes have no default pickling: the seed and the generator's state.
        return _restored_choice, (self.seed, self._words, self._library)


def _restored_choice(
    seed: int, words: Mt19937 | None, library: Callable[[Sequence[Any]], Any] | None
) -> SeededChoice:
    """What :meth:`SeededChoice.__reduce__` pickles, unpickled."""
    choice = SeededChoice(seed)
    choice._words = words
    choice._library = library
    return choice


def seeded_choices(seeds: Sequence[int]) -> list[SeededChoice]:
    """``[SeededChoice(seed) for seed in seeds]``, their native generators seeded two at a
    time (:func:`_seeded_states`: a pair costs little more than one): a simulated game's
    random bots (``RandomBot.id_choosers``).

    >>> [c(range(50)) for c in seeded_choices([1, 2, 3])] == [
    ...     random.Random(s).choice(range(50)) for s in (1, 2, 3)]
    True
    """
    native = [i for i, seed in enumerate(seeds) if _NATIVE_V1 and 0 <= seed <= _MT_MAX_KEY]
    words: dict[int, Mt19937] = {}
    for k in range(1, len(native), 2):  # an odd one out seeds alone (SeededChoice)
        i, j = native[k - 1], native[k]
        state_i, state_j = _seeded_states(seeds[i], seeds[j])
        words[i] = Mt19937(seeds[i], state_i)
        words[j] = Mt19937(seeds[j], state_j)
    return [SeededChoice(seed, words.get(i)) for i, seed in enumerate(seeds)]


def shuffle_with_key(cards: list[Any], key: int, version: int) -> None:
    """Shuffle ``cards`` in place as deal ``version`` does with ``key`` (the caller advances
    the key: ``Game._shuffle``)."""
    if version == 1:
        if _NATIVE_V1 and 0 <= key <= _MT_MAX_KEY:
            Mt19937(key).shuffle(cards)
        else:
            shuffle_as_random(cards, random.Random(key))
    else:
        DealStream(key).shuffle(cards)


def shuffle_then_below(cards: list[Any], key: int, n: int, version: int) -> int:
    """:func:`shuffle_with_key` with ``key``, then :func:`key_below` with ``next_key(key)``:
    a first deal's shuffle and A38's random dealer (the caller advances the key twice).
    Compiled, version 1 seeds both generators in one pass (:func:`_seeded_states`)."""
    after = next_key(key)
    if version == 1 and _NATIVE_V1 and 0 <= key <= _MT_MAX_KEY and 0 < n < _N_LIMIT:
        shuffler, dealer = _seeded_states(key, after)
        Mt19937(key, shuffler).shuffle(cards)
        return Mt19937(after, dealer).below(n)
    shuffle_with_key(cards, key, version)
    return key_below(after, n, version)


def key_below(key: int, n: int, version: int) -> int:
    """A number in ``range(n)`` drawn as deal ``version`` does with ``key`` (A38's dealer)."""
    if version == 1:
        if _NATIVE_V1 and 0 <= key <= _MT_MAX_KEY and n < _N_LIMIT:
            return Mt19937(key).below(n)
        return random.Random(key).randrange(n)
    return DealStream(key).below(n)


def deal(g: Game, *, choose_dealer: bool = False) -> None:
    """NM-2…NM-5, CL-2, CL-3: shuffle, deal, flip the start card."""
    r = g.rules
    n = g.n
    deck = fresh_deck(r)
    g.total_cards = len(deck)
    if choose_dealer and r.dealer_rule != "highest_card":
        # A38: the dealer is drawn with the key after the shuffle's (one pass seeds both).
        g.dealer = shuffle_then_below(deck, g.key, n, g.deal_version)
        g.key = next_key(next_key(g.key))
    else:
        g._shuffle(deck)
    if choose_dealer:
        if r.dealer_rule == "highest_card":
            g.dealer = high_card_dealer(g, deck)
        else:
            g._emit(
                EK.DEALER,
                ("{} is chosen at random to deal [A38]", g.names[g.dealer]),
                g.dealer,
            )
    if r.hand_size * n >= len(deck):
        raise RuleSetError(
            f"a deck of {len(deck)} cards cannot deal {r.hand_size} cards to "
            f"{n} players and start a discard pile"
        )
    g.out = [False] * n
    g.n_active = n
    g.uno_called = [False] * n
    g.uno_window = set()
    g.set_aside = []
    g.known = {}
    g._clear_pending()
    g.chain_wild = None
    g.wd4 = None
    g.pending_win = None
    g.drawn = None
    g.direction = 1
    g.hand_winner = None
    g._draw = deck  # top = end
    hands = vec[vec[i64]]([_NO_CARDS] * n)  # Game.hand_ids: each hand's Card.index values
    for _k in range(r.hand_size):  # not ``_``: typed Any, it would box the counter
        for i in range(1, n + 1):
            s = (g.dealer + i) % n
            hands[s] = append(hands[s], deck.pop().index)
    g.hand_ids = hands
    g.discard = []
    g.turn = (g.dealer + 1) % n
    g.phase = PLAY
    g.hand_start = len(g.log) + len(g._events)
    g.hand_forgotten = 0  # Game.forget: nothing of the new hand is let go yet
    g._emit(
        EK.DEAL,
        (
            "Hand {}: {} deals {} cards to each player [NM-2]",
            g.hand_number,
            g.names[g.dealer],
            r.hand_size,
        ),
        g.dealer,
        {"dealer": g.dealer, "hand_number": g.hand_number},
    )
    flip(g)


def high_card_dealer(g: Game, deck: list[Card]) -> int:
    """CL-2: each player draws a card; the highest number deals (actions count 0)."""
    contenders = list(range(g.n))
    pos = len(deck) - 1
    while True:
        draws = {}
        for s in contenders:
            card = deck[pos]
            pos -= 1
            draws[s] = card.number or 0
        best = max(draws.values())
        contenders = [s for s, v in draws.items() if v == best]
        g._emit(
            EK.DEALER,
            "Cards drawn for the deal: "
            + ", ".join(f"{g.names[s]} {v}" for s, v in draws.items())
            + " [CL-2]",
        )
        if len(contenders) == 1:
            g._emit(EK.DEALER, ("{} deals [CL-2]", g.names[contenders[0]]), contenders[0])
            return contenders[0]


def flip(g: Game) -> None:
    """NM-4 / A01 and CL-3: turn up the start card."""
    r = g.rules
    name = "NM-4"
    # The flip only ever turns up cards of the pile left after the deal (flipped cards
    # return to it at a reshuffle), so without a card that may start it would never end.
    if g.classic and r.start_card_effects:
        can_start = any(c.kind is not K_WILD_DRAW_FOUR for c in g._draw)
    else:
        can_start = any(c.is_number for c in g._draw)
    if not can_start:
        raise RuleSetError(
            f"no card left after dealing {r.hand_size} cards to {g.n} players can start "
            f"the discard pile ({'CL-3' if g.classic and r.start_card_effects else name}"
            f": the {len(g._draw)} left are all action or wild cards); deal fewer cards"
        )
    while True:
        if not g._draw:
            g._reshuffle()
        card = g._draw.pop()
        if g.classic and r.start_card_effects:
            if card.kind is K_WILD_DRAW_FOUR:
                g._draw.append(card)
                g._shuffle(g._draw)
                g._emit(
                    EK.START_CARD,
                    (
                        "{} cannot start: it goes back and the deck is reshuffled [CL-3]",
                        card.name,
                    ),
                )
                continue
            g.discard.append(card)
            g.colour = card.colour
            g._emit(
                EK.START_CARD,
                ("The start card is {} [CL-3]", card.name),
                None,
                {"card": card.code},
            )
            classic_start(g, card)
            return
        if card.is_number:
            g.discard.append(card)
            g.colour = card.colour
            g._emit(
                EK.START_CARD,
                ("The start card is {}; it has no effect [{}]", card.name, name),
                None,
                {"card": card.code},
            )
            return
        mode = r.start_card_handling
        if mode == "return_and_reshuffle":
            g._draw.append(card)
            g._shuffle(g._draw)
            g._emit(
                EK.START_CARD,
                (
                    "{} is not a number card: it goes back and the deck is reshuffled [A01]",
                    card.name,
                ),
            )
        elif mode == "return_to_bottom":
            g._draw.insert(0, card)
            g._emit(
                EK.START_CARD,
                ("{} is not a number card: it goes to the bottom of the deck [A01]", card.name),
            )
        else:
            g.discard.append(card)
            g._emit(
                EK.START_CARD,
                (
                    "{} is not a number card: its effect is ignored and the next card is "
                    "flipped on top [NM-4]",
                    card.name,
                ),
                None,
                {"card": card.code},
            )


def classic_start(g: Game, card: Card) -> None:
    """CL-3: the classic start-card effects."""
    first = (g.dealer + 1) % g.n
    kind = card.kind
    if kind is K_DRAW_TWO:
        drawn, _ = g._draw_cards(first, 2, per_card_mercy=False)
        g.tally.absorbed(len(drawn), 2)  # CL-3: a penalty of 2 taken (nomercy.core.tally)
        g.turn = g.next_seat(first)
        g._emit(
            EK.ABSORB,
            (
                "{} draws 2 ({}) and is skipped by the start card [CL-3]",
                g.names[first],
                ", ".join(c.code for c in drawn),
            ),
            first,
            {"cards": [c.code for c in drawn], "count": 2},
            public_text=(
                "{} draws 2 and is skipped by the start card [CL-3]",
                g.names[first],
            ),
        )
    elif kind is K_REVERSE:
        g.direction = -1
        g.turn = g.dealer
        g._emit(
            EK.REVERSE,
            (
                "The start card reverses play: {} (the dealer) plays first, "
                "counterclockwise [CL-3]",
                g.names[g.dealer],
            ),
            g.dealer,
        )
    elif kind is K_SKIP:
        g.turn = g.next_seat(first)
        g._emit(EK.SKIP, ("{} is skipped by the start card [CL-3]", g.names[first]), first)
    elif kind is K_WILD:
        g.colour = None
        g.turn = first
        g.resume = first
        g.phase = CHOOSE_COLOUR
        g._emit(
            EK.CHOOSE_COLOUR,
            ("{} names the colour of the start Wild and plays first [CL-3]", g.names[first]),
            first,
        )
