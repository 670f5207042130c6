"""Observations: a seat's view as a flat ``float32`` vector with named slices (docs/rl.md).

Everything comes from ``Game.view(seat, history=False)`` (what that seat may know) and from
:class:`PublicTracker`, which follows the *public* form of each step's events
(``event.for_seat(None)``); never from the game state or from uncensored events. Seats are
relative to the observer: opponent slot ``k`` (1..5) is the seat ``(observer + k) % n``; slots
beyond the table are zero with ``opp_present`` 0. Counts are raw (not normalised); the Box's
``high`` gives each entry's largest possible value for the rule set. :func:`flat_scale` gives
the factors of the environments' ``"flat"`` format (``FLAT_BOUNDS``: fixed or per rule set).
"""

from __future__ import annotations

from array import array
from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.core.cards import ALL_CODES, COLOURS, Card
from nomercy.core.game import Phase
from nomercy.core.gaps import VoidTracker
from nomercy.core.rules import RuleSet, make_rules
from nomercy.core.views import PlayerView, Snapshot
from nomercy.encoding.actions import MAX_PLAYERS

__all__ = [
    "CARD_KINDS",
    "FLAT_BOUNDS",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "ObservationEncoder",
    "PublicTracker",
    "fixed_flat_scale",
    "flat_scale",
]

#: How the ``"flat"`` observation is scaled: ``"fixed"``, the same divisors for every rule
#: set (:func:`fixed_flat_scale`), or ``"rules"``, each entry's bound under the rule set in
#: force (:func:`flat_scale`; what the shipped ``neural`` bot was trained on).
FLAT_BOUNDS: Final = ("fixed", "rules")

#: Card kinds indexed in every per-kind block: every card code, ``ALL_CODES`` order.
CARD_KINDS: Final = ALL_CODES
_K = len(ALL_CODES)
_CODE_INDEX: dict[str, int] = {code: i for i, code in enumerate(ALL_CODES)}
_COLOUR_INDEX: dict[str, int] = {c.value: i for i, c in enumerate(COLOURS)}
_PHASES: tuple[Phase, ...] = tuple(Phase)
# By value: an Enum member's hash is a Python-level call, a str's is cached.
_PHASE_INDEX: dict[str, int] = {p.value: i for i, p in enumerate(_PHASES)}
_OPP = MAX_PLAYERS - 1

# (name, width, meaning) in vector order; docs/rl.md lists the same rows (checked by a test).
_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("hand", _K, "own hand: copies held of each card kind"),
    ("drawn", _K, "one-hot: the drawn card that may be played now (phase play_drawn)"),
    ("top", _K, "one-hot: top card of the discard pile"),
    ("colour", 4, "one-hot: active colour R, Y, G, B (all 0 before one is named)"),
    ("direction", 1, "+1 seat order, -1 reversed"),
    ("phase", len(_PHASES), "one-hot: " + ", ".join(p.value for p in _PHASES)),
    ("pending", 2, "pending penalty: total, last value (0, 0 when none)"),
    ("self", 3, "own hand size, own Mercy distance (0 with Mercy off), own UNO called"),
    ("to_act", MAX_PLAYERS, "one-hot: seat to act, relative (0 = the observer)"),
    ("opp_present", _OPP, "opponent slot k exists at this table"),
    ("opp_hand_size", _OPP, "opponent hand sizes"),
    ("opp_mercy_distance", _OPP, "cards until each opponent's Mercy knock-out (0 if off/out)"),
    ("opp_out", _OPP, "opponent knocked out"),
    ("opp_uno", _OPP, "opponent has called UNO for their single card"),
    ("opp_catchable", _OPP, "opponent holds one card without calling UNO (may be caught)"),
    ("opp_known", _OPP * _K, "per opponent, copies of each kind known to be in their hand"),
    (
        "opp_void",
        _OPP * 4,
        "per opponent, colours R, Y, G, B they could not play since they "
        "last received cards (PublicTracker)",
    ),
    ("discard", _K, "copies of each kind in the discard pile"),
    ("draw_pile_size", 1, "cards left in the draw pile"),
    ("wd4_challengeable", 1, "a classic Wild +4 may be challenged (CL-8)"),
)


def _layout() -> dict[str, slice]:
    out: dict[str, slice] = {}
    start = 0
    for name, width, _ in _FIELDS:
        out[name] = slice(start, start + width)
        start += width
    return out


#: Field name -> slice of the observation vector.
OBS_LAYOUT: Final[dict[str, slice]] = _layout()
#: Length of the observation vector.
OBS_SIZE: Final = sum(width for _, width, _ in _FIELDS)
OBS_FIELDS: Final = _FIELDS

_HAND = OBS_LAYOUT["hand"].start
_DRAWN = OBS_LAYOUT["drawn"].start
_TOP = OBS_LAYOUT["top"].start
_COLOUR = OBS_LAYOUT["colour"].start
_DIRECTION = OBS_LAYOUT["direction"].start
_PHASE = OBS_LAYOUT["phase"].start
_PENDING = OBS_LAYOUT["pending"].start
_SELF = OBS_LAYOUT["self"].start
_TO_ACT = OBS_LAYOUT["to_act"].start
_PRESENT = OBS_LAYOUT["opp_present"].start
_SIZE = OBS_LAYOUT["opp_hand_size"].start
_MERCY = OBS_LAYOUT["opp_mercy_distance"].start
_OUT = OBS_LAYOUT["opp_out"].start
_UNO = OBS_LAYOUT["opp_uno"].start
_CATCH = OBS_LAYOUT["opp_catchable"].start
_KNOWN = OBS_LAYOUT["opp_known"].start
_VOID = OBS_LAYOUT["opp_void"].start
_DISCARD = OBS_LAYOUT["discard"].start
_PILE = OBS_LAYOUT["draw_pile_size"].start
_WD4 = OBS_LAYOUT["wd4_challengeable"].start


#: The ``opp_void`` flags' tracker: the core's one reading of what a draw proves about the
#: colours a seat holds (:class:`nomercy.core.gaps.VoidTracker`, NM-9, CL-5).
PublicTracker = VoidTracker


class ObservationEncoder:
    """Turns ``view(seat, history=False)`` views into vectors for one rule set and table size.

    The discard-pile counts are kept between calls and only the new tail is counted, after
    checking that the previous pile is still its prefix (a reshuffle restarts the count).
    """

    def __init__(self, rules: RuleSet, n: int) -> None:
        if not 2 <= n <= MAX_PLAYERS:
            raise ValueError(f"observations cover 2-{MAX_PLAYERS} players, not {n}")
        self.rules = rules
        self.n = n
        self._mercy = rules.facts.mercy_limit > 0
        self.low, self.high = _bounds(rules)
        self._threshold = rules.facts.mercy_limit
        self._discard: list[Card] = []
        self._discard_counts = array("f", bytes(4 * _K))
        # Every vector starts as a copy of this one: zeros, but for the opponent slots that
        # exist at this table (opp_present), the same in every observation.
        self._blank = array("f", bytes(4 * OBS_SIZE))
        for j in range(n - 1):
            self._blank[_PRESENT + j] = 1

    def encode(
        self, view: PlayerView, void: list[list[int]] | None = None
    ) -> npt.NDArray[np.float32]:
        """The observation vector of ``view`` (plus the tracker's ``void`` flags, if given)."""
        seat = view.seat
        if seat is None:
            raise ValueError("observations are of a seat, not of a spectator's view")
        players = view.players
        top = view.top
        colour = view.colour
        drawn = view.drawn
        to_act = view.to_act
        pending = view.pending
        snap = tuple.__new__(
            Snapshot,
            (
                seat,
                view.phase,
                [c.index for c in view.hand],
                [(s, [c.index for c in cards]) for s, cards in view.known.items()],
                [p.hand_size for p in players],
                [p.out for p in players],
                [p.uno for p in players],
                list(view.uno_window),
                view.direction,
                view.draw_pile_size,
                pending.total if pending is not None else 0,
                pending.last if pending is not None else 0,
                -1 if top is None else top.index,
                -1 if colour is None else _COLOUR_INDEX[colour._value_],
                -1 if drawn is None else drawn.index,
                -1 if to_act is None else to_act,
                view.wd4_challengeable,
                list(view.discard),
            ),
        )
        return self.encode_snapshot(snap, void)

    def encode_snapshot(
        self, snap: Snapshot, void: list[list[int]] | None = None
    ) -> npt.NDArray[np.float32]:
        """The observation vector of ``Game.snapshot(seat)`` (plus ``void`` flags, if given).

        :meth:`encode` gives the same vector from ``Game.view(seat, history=False)``.
        """
        # Written entry by entry into a copy of the blank array.array, then wrapped without a
        # copy: for the ~40 scattered entries this is cheaper than numpy fancy indexing.
        obs = self._blank[:]
        (
            seat,
            phase,
            hand,
            known,
            sizes,
            out,
            uno,
            window,
            direction,
            pile,
            pending_total,
            pending_last,
            top,
            colour,
            drawn,
            to_act,
            wd4,
            discard,
        ) = snap
        n = self.n
        for i in hand:
            obs[_HAND + i] += 1
        for holder, cards in known:
            base = _KNOWN + ((holder - seat) % n - 1) * _K
            for i in cards:
                obs[base + i] += 1
        threshold = self._threshold
        obs[_DIRECTION] = direction
        obs[_SELF] = sizes[seat]
        if threshold and not out[seat]:
            obs[_SELF + 1] = threshold - sizes[seat]
        obs[_SELF + 2] = uno[seat]
        obs[_PILE] = pile
        obs[_PHASE + _PHASE_INDEX[phase._value_]] = 1
        if pending_total:
            obs[_PENDING] = pending_total
            obs[_PENDING + 1] = pending_last
        if top >= 0:
            obs[_TOP + top] = 1
        if drawn >= 0:
            obs[_DRAWN + drawn] = 1
        if colour >= 0:
            obs[_COLOUR + colour] = 1
        if to_act >= 0:
            obs[_TO_ACT + (to_act - seat) % n] = 1
        for t in window:
            if t != seat:
                obs[_CATCH + (t - seat) % n - 1] = 1
        if wd4:
            obs[_WD4] = 1
        for k in range(1, n):
            other = (seat + k) % n
            j = k - 1
            obs[_SIZE + j] = sizes[other]
            if threshold and not out[other]:
                obs[_MERCY + j] = threshold - sizes[other]
            obs[_OUT + j] = out[other]
            obs[_UNO + j] = uno[other]
            if void is not None:
                flags = void[other]
                if flags[0] or flags[1] or flags[2] or flags[3]:
                    v = _VOID + 4 * j
                    obs[v : v + 4] = array("f", flags)
        obs[_DISCARD : _DISCARD + _K] = self._discard_counts_of(discard)
        return np.frombuffer(obs, np.float32)  # positional dtype: cheaper

    def _discard_counts_of(self, pile: list[Card]) -> array[float]:
        # Only the new tail is counted, once the previous pile is checked to be its prefix
        # (a reshuffle or a Discard All burying cards under its top restarts the count).
        old = self._discard
        size = len(old)
        counts = self._discard_counts
        if len(pile) < size or pile[:size] != old:
            counts = self._discard_counts = array("f", bytes(4 * _K))
            size = 0
        for card in pile[size:]:
            counts[card.index] += 1
        self._discard = pile[:]
        return counts


def flat_scale(encoder: ObservationEncoder, bounds: str = "rules") -> npt.NDArray[np.float32]:
    """Per-entry factors of the ``"flat"`` observation.

    ``bounds="rules"``: 1 / the entry's largest magnitude under the encoder's rule set
    (``max(|low|, |high|)``), so every entry lies in [-1, 1] and 0 stays 0, but the same count
    is scaled differently under another deck or Mercy threshold. ``bounds="fixed"``:
    :func:`fixed_flat_scale`, the same for every rule set.
    """
    if bounds == "fixed":
        return fixed_flat_scale()
    if bounds != "rules":
        raise ValueError(f"flat_bounds must be 'fixed' or 'rules', not {bounds!r}")
    largest = np.maximum(np.abs(encoder.low), np.abs(encoder.high))
    return (1.0 / largest).astype(np.float32)


_FIXED: list[npt.NDArray[np.float32]] = []


def fixed_flat_scale() -> npt.NDArray[np.float32]:
    """The ``"fixed"`` factors: one divisor per entry for every preset and option set.

    Each entry is divided by its largest magnitude over both presets' standard decks
    (``NM168_COUNTS``, ``CLASSIC108_COUNTS``: copies per kind, 168 cards, the No Mercy deck's
    draw total), and the Mercy distances by the card total (168), which bounds them for any
    threshold up to 168. Entries lie in [-1, 1] for both presets, both standard decks and
    every Mercy threshold up to 168; a custom deck with more copies of a kind or more cards
    gives entries beyond 1 (the observation ``Box`` says how far).
    """
    if not _FIXED:
        largest = np.ones(OBS_SIZE, dtype=np.float32)
        total = 1.0
        for preset in ("no-mercy", "classic"):
            rules = make_rules(preset)
            low, high = _bounds(rules)
            largest = np.maximum(largest, np.maximum(np.abs(low), np.abs(high)))
            total = max(total, float(sum(rules.deck_table().values())))
        mercy = OBS_LAYOUT["self"].start + 1
        largest[mercy] = total
        largest[OBS_LAYOUT["opp_mercy_distance"]] = total
        scale = (1.0 / largest).astype(np.float32)
        scale.setflags(write=False)
        _FIXED.append(scale)
    return _FIXED[0]


def _bounds(rules: RuleSet) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Per-entry lower and upper bounds of the observation for ``rules``."""
    table = rules.deck_table()
    copies = np.array([table.get(code, 0) for code in ALL_CODES], dtype=np.float32)
    total = float(copies.sum())
    draw_total = float(sum(Card(code).draw_value * count for code, count in table.items()))
    threshold = float(rules.facts.mercy_limit)
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    for name in ("hand", "discard"):
        high[OBS_LAYOUT[name]] = copies
    high[OBS_LAYOUT["opp_known"]] = np.tile(copies, _OPP)
    low[OBS_LAYOUT["direction"]] = -1.0
    high[OBS_LAYOUT["pending"]] = max(draw_total, 1.0)
    for name in ("opp_hand_size", "draw_pile_size"):
        high[OBS_LAYOUT[name]] = total
    high[OBS_LAYOUT["self"].start] = total
    mercy = OBS_LAYOUT["self"].start + 1
    # A deferred Mercy check (A14) lets a hand pass the threshold for a moment.
    low[mercy] = threshold - total if threshold else 0.0
    high[mercy] = threshold
    low[OBS_LAYOUT["opp_mercy_distance"]] = threshold - total if threshold else 0.0
    high[OBS_LAYOUT["opp_mercy_distance"]] = threshold
    # Kinds a deck lacks, and Mercy distances with Mercy off, stay 0; a range of width 0 is
    # legal but Gymnasium's checker warns about it, so those entries get [low, low + 1].
    high = np.maximum(high, low + 1.0)
    return low, high
