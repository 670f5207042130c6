"""The rules engine: a :class:`Game` holds the whole state of a game and applies actions.

The state is mutable for speed (the shape python-chess's ``Board`` and OpenSpiel's ``clone()``
take; docs/architecture.md) with a cheap :meth:`Game.copy`. :meth:`Game.apply` checks an
action against :meth:`Game.legal_actions` *before* it changes anything, so an illegal action
leaves the game untouched, and it returns the :class:`~nomercy.core.events.Event` list that
explains what happened, citing RULES.md ids.

Randomness: the only chance is shuffling. The state holds an integer key (``seed``); each
shuffle draws from a generator seeded with the key, chosen by the game's deal version
(``nomercy.core.dealing``), and then advances the key, so a position plus actions always
gives the same game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, cast

from librt.vecs import append, remove, vec
from mypy_extensions import i64

from nomercy.core import positions as _positions
from nomercy.core import views as _views
from nomercy.core.actions import (
    Action,
    ChooseColour,
    Play,
    parse_action,
)
from nomercy.core.base import (
    CHOOSE_COLOUR,
    DISCARD_ALL_SUBSET,
    DISCARD_ALL_TOP,
    K_DISCARD_ALL,
    K_NUMBER,
    K_REVERSE,
    K_SKIP,
    K_SKIP_EVERYONE,
    K_WILD_COLOUR_ROULETTE,
    K_WILD_DRAW_FOUR,
    OVER,
    PLAY,
    PLAY_DRAWN,
    PLAYING_PHASES,
    ROULETTE_COLOUR,
    STACK_OR_ABSORB,
    EngineError,
    Phase,
    Wd4,
    check_deal,
    seat_arg,
)
from nomercy.core.cards import Card, Colour
from nomercy.core.dealing import (
    DEAL_VERSION,
    MASK,
    check_deal_version,
    deal,
    next_key,
    shuffle_with_key,
)
from nomercy.core.decisions import Decision, decision_order
from nomercy.core.diagnose import diagnose
from nomercy.core.errors import (
    ActionIdError,
    IllegalActionError,
    NoMercyError,
    NotationError,
    RuleSetError,
)
from nomercy.core.events import Event, Text
from nomercy.core.events import EventKind as EK
from nomercy.core.ids import (
    ID_CARD,
    ID_COLOUR,
    ID_JUMP,
    ID_KIND,
    ID_REL,
    ID_UNO,
    K_CATCH,
    K_CHALLENGE,
    K_COLOUR,
    K_DRAW,
    K_PASS,
    K_PLAY,
    K_UNO,
    MAX_SEATS,
    NUM_IDS,
    action_id,
    has_id,
    id_action,
    seat_table,
)
from nomercy.core.legality import (
    AIM_PASSED,
    AIM_REVERSED,
    AIM_SELF,
    ALL_CARDS,
    NUM_CARDS,
    aim_penalty,
    compute_legal,
    holds_colour,
    playable_flags,
    tables,
    turn_after_play,
    turn_after_resolution,
    wd4_played,
    wild_draw_allowed,
)
from nomercy.core.redeal import Redealer, view_position
from nomercy.core.rules import RuleSet, make_rules
from nomercy.core.tally import Tally
from nomercy.core.views import PlayerView, Stack

if TYPE_CHECKING:
    from nomercy.core.views import Snapshot

__all__ = ["EngineError", "Game", "Phase", "new_game"]


#: An empty entry of ``Game.known_ids`` or ``Game.hand_ids``. Shared, and safe to: it has no
#: room (an append makes a new vector) and nothing is ever popped from or written into an
#: empty one.
_NO_KNOWN: Final[vec[i64]] = vec[i64]()
#: Per size, an all-zero vector, an all-False one and one of _NO_KNOWN entries: slices of them
#: are copies made at once (a vector made from a list takes its items one by one).
_ZEROS: Final[dict[int, vec[i64]]] = {}
_OFF: Final[dict[int, vec[bool]]] = {}
_NO_ENTRIES: Final[dict[int, vec[vec[i64]]]] = {}


def _zeros(size: int) -> vec[i64]:
    """A new vector of ``size`` zeros."""
    found = _ZEROS.get(size)
    if found is None:
        found = _ZEROS[size] = vec[i64]([0] * size)
    return found[0:size]


def _off(size: int) -> vec[bool]:
    """A new vector of ``size`` False."""
    found = _OFF.get(size)
    if found is None:
        found = _OFF[size] = vec[bool]([False] * size)
    return found[0:size]


def _no_entries(size: int) -> vec[vec[i64]]:
    """A new ``Game.known_ids`` of ``size`` empty entries."""
    found = _NO_ENTRIES.get(size)
    if found is None:
        found = _NO_ENTRIES[size] = vec[vec[i64]]([_NO_KNOWN] * size)
    return found[0:size]


def _indices(cards: Iterable[object]) -> vec[i64]:
    """The ``Card.index`` of each of ``cards``, packed (a hand's storage). Items are read as
    objects, so both builds raise the same error for anything but a card."""
    found = _NO_KNOWN
    for c in cards:
        if not isinstance(c, Card):
            raise TypeError(f"a hand holds Card objects, not {c!r}: use Card('R7')")
        found = append(found, c.index)
    return found


#: The legal ids of no seat (shared and never changed: callers get copies).
_NO_IDS: Final[list[int]] = []
#: The events of a step with ``record_events`` off: ``_emit`` adds nothing to it (shared and
#: never handed out: ``apply`` returns a new list).
_NO_EVENTS: Final[list[Event]] = []
#: Classic draws until playable only under the C04 house rule, which its events cite.
_UNTIL_PLAYABLE_CLASSIC: Final = "C04"


def _chain_text(chain: list[int], total: int) -> str:
    if len(chain) > 1 and sum(chain) == total:
        return " (" + " ".join(f"+{v}" for v in chain) + ")"
    return ""


class Game:
    """A game of No Mercy or classic: one hand, or a match of hands when scoring is on.

    Create one with :func:`new_game` or :meth:`from_position`.

    **The state contract.** The core's modules that work on a game (``legality``,
    ``dealing``, ``positions``, ``views``, ``redeal``, ``diagnose``, ``decisions``, and the
    build's companions ``bots/playouts.py`` and ``encoding/fast.py``) read these named,
    typed fields and methods, never a ``_``-prefixed one; the game's storage may change
    behind them (docs/architecture.md, "The state contract"). Compiled, each field is a
    native slot: reading one costs what a private read did.

    - Table and turn: ``rules``, ``n``, ``names``, ``hand_ids`` (per seat, its cards'
      ``Card.index`` in hand order, ``vec[vec[i64]]``: the hands' one storage; ``hands``
      and :meth:`hand_of` make ``Card`` lists of it on each read, :meth:`give` adds cards),
      ``out``, ``n_active`` (seats not knocked out), ``turn``, ``direction`` (1 or -1),
      ``phase``, ``drawn``, ``draw_mode`` (how the seat now deciding on ``drawn`` drew,
      A02/A03), ``dealer``, ``key`` (the shuffle key), ``deal_version`` (the generator
      its shuffles draw from, ``nomercy.core.dealing``).
    - Piles and penalties: ``discard`` (top last), ``colour``, ``set_aside``,
      ``pending_total``, ``pending_last``, ``pending_chain``, ``chain_wild``, ``pending_win``,
      ``wd4``, ``resume``, ``roulette_colour``.
    - UNO and knowledge: ``uno_called``, ``uno_window``; ``known`` (a read-only mapping
      made on each read) and :meth:`known_of` over the packed ``known_ids`` (per slot
      ``(viewer + 1) * n + seat``, the known cards' ``Card.index`` in the order learnt),
      ``known_on`` (the slots with an entry) and ``known_live`` (any slot on).
    - Scores and record: ``scores``, ``hand_number``, ``hand_winner``, ``winner``, ``log``,
      ``hand_start`` (where the current hand's events start in ``log``), ``history``,
      ``start``, ``seed``, ``tally``, ``hand_tallies``, ``record_events``; ``moves`` (actions
      applied), ``forgotten`` and ``hand_forgotten`` (what :meth:`forget` let go).
    - The rule set's facts as native fields (from :attr:`RuleSet.facts
      <nomercy.core.rules.RuleSet.facts>` and the options, set once): ``classic``,
      ``seven_zero``, ``can_stack``, ``stack_on_total``, ``stack_match`` (A05),
      ``stack_mandatory`` (A06), ``deflect`` (A07), ``may_draw`` (A03), ``must_play_drawn``,
      ``last_card_ends`` (A16), ``colour_on_resolution`` (A18), ``jump_in`` (C04).
    - Legality's per-rule-set tables and scratch (``legality.tables``): ``playable_table``,
      ``plain_variants``, ``special_cards``, ``restricted_cards``, ``card_marks``,
      ``mark_epoch``.
    - Derived: :meth:`two_player` (A29), :meth:`next_active` (the next active seat),
      :attr:`draw_size`.

    >>> g = new_game(3, seed=1)
    >>> g.to_act
    0
    >>> events = g.apply(g.legal_actions()[0])
    >>> events[0].kind
    <EventKind.PLAY: 'play'>
    """

    # ------------------------------------------------------------------ construction
    def __new__(cls, *args: Any, **kwargs: Any) -> Game:
        # Spelled out so that Game.__new__(Game) (copy()) makes a blank game without
        # __init__ in the mypyc-compiled build too, whose own constructor would run __init__.
        return object.__new__(cls)

    def __init__(self, rules: RuleSet, names: list[str]) -> None:
        """Low level: an empty table. Use :func:`new_game` or :meth:`from_position`."""
        self.rules = rules
        self.n = len(names)
        self.names = list(names)
        # Each seat's hand, packed: the cards' Card.index in hand order (librt.vecs; compiled,
        # read and written unboxed). ``hands`` makes Card lists of them on each read.
        self.hand_ids: vec[vec[i64]] = _no_entries(self.n)
        self.out = [False] * self.n
        self.uno_called = [False] * self.n
        self.uno_window: set[int] = set()
        self.turn: int | None = 0
        self.direction = 1
        self.discard: list[Card] = []
        self.colour: Colour | None = None
        self._draw: list[Card] = []  # top of the draw pile is the END of this list
        self.set_aside: list[Card] = []
        self.pending_total = 0
        self.pending_last = 0
        self.pending_chain: list[int] = []
        self.chain_wild: int | None = None  # seat that played the last wild of the chain (A18)
        self.phase = PLAY
        self.drawn: Card | None = None
        self.key = 0
        self.deal_version = DEAL_VERSION  # which generator shuffles (core/dealing.py)
        self.dealer = 0
        self.scores = [0] * self.n
        self.hand_number = 1
        self.hand_winner: int | None = None
        self.winner: int | None = None
        self.wd4: Wd4 | None = None  # classic Wild +4 awaiting a challenge (CL-8)
        self.pending_win: int | None = None  # last card whose effect still resolves (A16/A17)
        self.resume: int | None = None  # CHOOSE_COLOUR: who plays after
        self.roulette_colour: Colour | None = None  # A21 player_names: colour after the reveal
        # What each viewer knows a seat holds (NM-29, NM-30, NM-31, CL-8), packed: slot
        # (viewer + 1) * n + seat (viewer -1 is everyone) holds the Card.index of each card,
        # in the order learnt; known_on marks the slots with an entry (an emptied entry stays:
        # positions list it); known_live: some slot is on. ``known`` is derived from them.
        self.known_ids: vec[vec[i64]] = _no_entries((self.n + 1) * self.n)
        self.known_on: vec[bool] = _off((self.n + 1) * self.n)
        self.known_live = False
        # Per seat, per Card.index, how many entries of known_ids about that seat list that
        # card (summed over viewers): a card nobody knows leaves a hand unread.
        # Empty until something is known (most deals never get there).
        self.known_held: vec[vec[i64]] = _no_entries(0)
        self.log: list[Event] = []  # every event so far; views censor them per seat
        self._public: list[dict[str, Any]] = []  # public dicts of log, built lazily
        self.hand_start = 0  # index in log of the current hand's deal
        self.warnings: list[str] = []
        self.total_cards = 0
        self.history: list[Action] = []
        # What forget() let go: actions before history[0], and the current hand's events
        # before log[hand_start] (dealing sets it back to 0 with each new hand).
        self.forgotten = 0
        self.hand_forgotten = 0
        self.start: dict[str, Any] | None = None  # position the game started from, if any
        self.seed = 0  # the seed new_game was given
        self._events: list[Event] = []
        #: Whether apply() builds events (and keeps the log). Turn it off on copies used for
        #: search or fast simulation: apply() then returns [] and views have no new history.
        self.record_events = True
        # The legal ids in this state: the seat to act's in _lids (when _lseat is that seat),
        # other seats' (out-of-turn actions) by seat in _legal. Never handed out to callers.
        self._lseat = -1
        self._lids: list[int] = _NO_IDS
        self._legal: dict[int, list[int]] = {}
        # Per Card.index, the epoch it was last seen in: a packed vector (librt.vecs), so
        # legality's hand loops read and write unboxed ints.
        self.card_marks: vec[i64] = _zeros(NUM_CARDS)
        self.mark_epoch: i64 = 0
        self.n_active = self.n
        self.draw_mode = "draw_until_playable"
        self.opening_events: list[Event] = []
        # Statistics kept with events on or off (nomercy.core.tally): this hand's counters,
        # and the finished hands' records in order.
        self.tally = Tally()
        self.hand_tallies: tuple[Tally, ...] = ()
        self._setup_caches()

    def _setup_caches(self) -> None:
        """Per-rule-set lookup tables for the hot paths (legal actions): derived once per rule
        set and seat count into a blank game kept for them, then copied (reading a rule set's
        options is a Python attribute lookup each: most of a short game's set-up)."""
        key = (id(self.rules), self.n)
        found = _FACTS_OF.get(key)
        if found is None or found.rules is not self.rules:
            found = Game.__new__(Game)
            found.rules = self.rules  # holds the rule set: its id is not reused while here
            found.n = self.n
            found._derive_rule_facts()
            if len(_FACTS_OF) >= _RECENT:
                _FACTS_OF.clear()
            _FACTS_OF[key] = found
        found._copy_rule_facts(self)

    def _derive_rule_facts(self) -> None:
        """The rule-set facts and tables :meth:`_copy_rule_facts` copies, from ``rules``."""
        r = self.rules
        facts = r.facts  # the rule facts, derived once per rule set (core/rules.py)
        self.classic = r.is_classic
        self.jump_in = r.classic_jump_in
        # Options read on every turn, draw or stack decision, as native fields.
        self.may_draw = r.voluntary_draw != "off"  # A03: drawing with a playable card
        self._eager_reshuffle = r.reshuffle_timing == "eager"  # NM-35
        self._no_two_player = self.classic and not r.two_player_rules  # A29
        self._two_player_initial = r.two_player_basis == "initial"  # A29
        self.can_stack = facts.can_stack  # NM-18, C04
        self.stack_on_total = facts.stack_on_total  # A04
        self.stack_match = r.stack_requires_match  # A05
        self.deflect = r.stack_deflection == "skip_reverse_deflect"  # A07
        self._mercy_limit = facts.mercy_limit  # 0: Mercy off (NM-33)
        self._immediate_mercy = facts.mercy_limit > 0 and not facts.mercy_deferred  # A14
        self._raise_on_exhaustion = r.exhaustion_fallback == "raise"
        self.last_card_ends = r.last_card_effect != "resolve_effects"  # A16
        self.colour_on_resolution = r.wild_colour_timing == "on_resolution"  # A18
        self._deferred_mercy = facts.mercy_deferred  # A14
        self._voluntary_draw = r.voluntary_draw  # A03
        self._no_playable_action = r.no_playable_action  # A02
        self.stack_mandatory = r.stack_mandatory and not self.classic  # A06
        self.must_play_drawn = r.drawn_card_must_be_played  # NM-9, CL-5
        self.seven_zero = facts.seven_zero  # NM-29, NM-31, C04
        self.playable_table, self.plain_variants, self.special_cards, self.restricted_cards = (
            tables(r)
        )
        # Each seat's id -> action table (shared by every game of this size).
        self._acts = [seat_table(s, self.n) for s in range(self.n)]

    def copy(self) -> Game:
        """An independent copy that continues exactly like this game."""
        g = Game.__new__(Game)
        d = _get_fields(self)
        d["names"] = list(self.names)
        d["hand_ids"] = _copy_rows(self.hand_ids)
        d["out"] = list(self.out)
        d["uno_called"] = list(self.uno_called)
        d["uno_window"] = set(self.uno_window)
        d["discard"] = list(self.discard)
        d["_draw"] = list(self._draw)
        d["set_aside"] = list(self.set_aside)
        d["pending_chain"] = list(self.pending_chain)
        d["scores"] = list(self.scores)
        d["known_ids"] = _copy_rows(self.known_ids)
        d["known_on"] = self.known_on[0 : len(self.known_on)]
        d["known_held"] = _copy_rows(self.known_held)
        d["log"] = list(self.log)
        d["_public"] = list(self._public)
        d["warnings"] = list(self.warnings)
        d["history"] = list(self.history)
        d["_events"] = []
        d["_lseat"] = -1
        d["_lids"] = _NO_IDS
        d["_legal"] = {}
        d["card_marks"] = _zeros(NUM_CARDS)
        d["mark_epoch"] = 0
        d["tally"] = self.tally.copy()
        _set_fields(g, d)
        return g

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Game], tuple[dict[str, Any]]]:
        """Pickling, ``copy.copy`` and ``copy.deepcopy``: every field but legality's packed
        tables and scratch (librt's vectors do not pickle), which the clone derives again."""
        fields = _get_fields(self)
        for name in _PACKED:
            del fields[name]
        fields["hand_ids"] = [list(v) for v in self.hand_ids]  # vectors do not pickle
        fields["known_ids"] = [list(v) for v in self.known_ids]
        fields["known_on"] = list(self.known_on)
        fields["known_held"] = [list(v) for v in self.known_held]
        return _restored, (fields,)

    # ------------------------------------------------------------------ search support
    def redeal(self, seat: object, rng: object) -> Game:
        """A copy in which every card ``seat`` cannot see is dealt again at random.

        The copy agrees with everything ``seat`` knows: its own hand, every hand size, the
        cards it knows others hold (``known``), the colours others publicly showed they lack
        (:func:`nomercy.core.gaps.infer_gaps`), the discard pile and every public field; a
        classic Wild +4's ``guilty`` flag follows the new hand (CL-8), and the shuffle key is
        new. The result never depends on the hidden cards of this game, only on ``rng``. It
        keeps public knowledge only (no ``history``, ``start`` or ``seed``, public events in
        ``log``). For many deals of one position use :meth:`redealer`, which does the
        per-position work once. See :class:`nomercy.core.redeal.Redealer`.

        Args:
            seat: the seat whose information set is kept.
            rng: a ``random.Random`` (advanced) or an integer seed.

        Raises:
            NoMercyError: there is no such seat.
            TypeError: ``rng`` is neither a ``random.Random`` nor an integer.
        """
        return Redealer(self, seat_arg(self, seat)).sample(rng)

    def redealer(self, seat: object) -> Redealer:
        """``seat``'s information set in this game, for many :meth:`redeal` samples.

        ``g.redealer(seat).sample(rng)`` equals ``g.redeal(seat, rng)``; the redealer is a
        snapshot (later changes to this game do not reach it).

        Raises:
            NoMercyError: there is no such seat.
        """
        # Checked here, before a compiled Redealer would coerce a bool to an int.
        return Redealer(self, seat_arg(self, seat))

    @classmethod
    def from_view(cls, view: PlayerView | Mapping[str, Any]) -> Game:
        """A game that shows ``view`` (``Game.view(seat)``) to its seat; unseen cards in order.

        For a bot that receives only views: ``Game.from_view(view).redealer(seat)`` gives
        random deals consistent with the view (colour gaps come from its ``history``). The
        unseen cards are placed in deck order, not guessed; the log is the view's history
        (this hand's public events). See :func:`nomercy.core.redeal.view_position`.

        Raises:
            NotationError: a spectator's view, a malformed one, or one whose card counts do
                not add up.
        """
        if isinstance(view, PlayerView):
            # The JSON form plus the bookkeeping the re-deal API needs (the ``engine`` block).
            view = view.to_json(bookkeeping=True)
        elif not isinstance(view, Mapping):
            raise NotationError(
                "a view must be a PlayerView (Game.view(seat)) or a JSON object "
                "(PlayerView.to_json(bookkeeping=True))"
            )
        try:
            position = view_position(view)
        except NoMercyError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise NotationError(f"malformed view: {exc!r}") from None
        return cls.from_position(position)

    # ------------------------------------------------------------------ public queries
    @property
    def to_act(self) -> int | None:
        """The seat whose decision the game waits for, or ``None`` when it is over."""
        return None if self.phase is OVER else self.turn

    @property
    def is_over(self) -> bool:
        """Whether the game (the hand, or the match when scoring is on) is over."""
        return self.phase is OVER

    @property
    def draw_pile(self) -> list[Card]:
        """The draw pile, top card first (a copy)."""
        return self._draw[::-1]

    @property
    def draw_size(self) -> int:
        """The number of cards in the draw pile (public: every seat sees the pile's size)."""
        return len(self._draw)

    @property
    def hands(self) -> list[list[Card]]:
        """Every seat's hand in hand order, as new ``Card`` lists made from ``hand_ids`` on
        each read: changing them changes nothing (assign a whole list of hands, or use
        :meth:`give`). :meth:`hand_of` makes one seat's."""
        return [[ALL_CARDS[i] for i in hand] for hand in self.hand_ids]

    @hands.setter
    def hands(self, value: list[list[Card]]) -> None:
        if len(value) != self.n:
            raise ValueError(f"hands: {len(value)} hands for {self.n} seats")
        self.hand_ids = vec[vec[i64]]([_indices(hand) for hand in value])

    def hand_of(self, seat: int) -> list[Card]:
        """``hands[seat]`` without making every hand: a new list, in hand order."""
        return [ALL_CARDS[i] for i in self.hand_ids[seat]]

    def give(self, seat: int, cards: list[Card]) -> None:
        """Put ``cards`` at the end of ``seat``'s hand as they are, with no rule applied (for
        setting up positions and tests: a draw is an action, :meth:`step`).

        Raises:
            TypeError: an item of ``cards`` is not a :class:`Card` (the hand is unchanged).
        """
        hand = self.hand_ids[seat]
        for i in _indices(cards):
            hand = append(hand, i)
        self.hand_ids[seat] = hand

    @property
    def known(self) -> Mapping[tuple[int, int], list[Card]]:
        """(viewer, seat) -> the cards ``viewer`` knows ``seat`` holds, in the order learnt
        (viewer -1 is everyone): after a swap or pass (NM-29, NM-31), a public reveal (NM-30)
        or a challenge (CL-8). Read-only, made from the packed state on every read
        (``known_ids``); assign a whole mapping to change it."""
        found: dict[tuple[int, int], list[Card]] = {}
        if self.known_live:
            n = self.n
            on = self.known_on
            ids = self.known_ids
            for k in range(len(on)):
                if on[k]:
                    found[k // n - 1, k % n] = [ALL_CARDS[i] for i in ids[k]]
        return MappingProxyType(found)

    @known.setter
    def known(self, value: Mapping[tuple[int, int], list[Card]]) -> None:
        if not value and not self.known_live:
            return  # nothing known, and nothing to know (a new deal's)
        n = self.n
        size = (n + 1) * n
        ids = _no_entries(size)
        on = _off(size)
        for (viewer, seat), cards in value.items():
            if not (-1 <= viewer < n and 0 <= seat < n) or viewer == seat:
                raise ValueError(f"known: ({viewer}, {seat}) names no viewer and other seat")
            k = (viewer + 1) * n + seat
            ids[k] = vec[i64]([c.index for c in cards])
            on[k] = True
        self.known_ids = ids
        self.known_on = on
        self.known_live = bool(value)
        self._count_known()

    def known_of(self, viewer: int, seat: int) -> list[Card] | None:
        """``known[viewer, seat]`` without making the whole mapping; None if it has no entry."""
        k = (viewer + 1) * self.n + seat
        if not self.known_live or not self.known_on[k]:
            return None
        return [ALL_CARDS[i] for i in self.known_ids[k]]

    def _learn(self, viewer: int, seat: int, cards: vec[i64]) -> None:
        """``viewer`` now knows that ``seat`` holds ``cards`` (card indices, a whole hand, and
        nothing else of it)."""
        k = (viewer + 1) * self.n + seat
        row = self._held()[seat]  # shares its buffer: writes count
        for i in self.known_ids[k]:
            row[i] -= 1
        for i in cards:
            row[i] += 1
        self.known_ids[k] = cards[0 : len(cards)]  # a copy: the hand's buffer moves on
        self.known_on[k] = True
        self.known_live = True

    def _held(self) -> vec[vec[i64]]:
        """``known_held``, made the first time something is known."""
        held = self.known_held
        if not len(held):
            held = self.known_held = _no_entries(self.n)
            for s in range(self.n):
                held[s] = _zeros(NUM_CARDS)
        return held

    def _count_known(self) -> None:
        """Count ``known_held`` again from ``known_ids`` (after a new ``known``)."""
        n = self.n
        self.known_held = _no_entries(0)
        held = self._held()
        ids = self.known_ids
        for k in range(len(ids)):
            row = held[k % n]
            for i in ids[k]:
                row[i] += 1

    @property
    def top(self) -> Card:
        """The top card of the discard pile."""
        return self.discard[-1]

    @property
    def pending(self) -> Stack | None:
        """The penalty the seat to act faces (NM-17, NM-18), or ``None``: the view's
        :class:`~nomercy.core.views.Stack`."""
        if not self.pending_total:
            return None
        # tuple.__new__: a NamedTuple's own __new__ is a Python function, a step's worth.
        return tuple.__new__(
            Stack, (self.pending_total, self.pending_last, tuple(self.pending_chain))
        )

    def active_seats(self) -> list[int]:
        """Seats not knocked out, in seat order."""
        return [s for s in range(self.n) if not self.out[s]]

    # The seat parameters of next_seat, legal_actions and view are typed ``object``: they
    # check their argument themselves (NoMercyError), which a mypyc-compiled build would
    # otherwise pre-empt with its own TypeError for a non-int argument.
    def next_seat(self, seat: object, direction: object = None) -> int:
        """The first active seat after ``seat`` in the (current) direction (RULES.md §2 next).

        Raises:
            NoMercyError: ``seat`` or ``direction`` is not an integer.
        """
        n = self.n
        out = self.out
        try:
            if type(seat) is not int:
                raise TypeError
            # A cast, not a check: compiled, a non-int raises TypeError here, as + does below.
            d = self.direction if direction is None else cast(int, direction)
            q = (seat + d) % n
            while out[q]:
                q = (q + d) % n
        except TypeError:
            raise NoMercyError(
                f"next_seat: seat and direction are integers, not {seat!r}, {direction!r}"
            ) from None
        return q

    def next_active(self, seat: int) -> int:
        """:meth:`next_seat` in the current direction for the engine's own (int) seats: the
        first seat after ``seat`` not knocked out (RULES.md §2 next)."""
        n = self.n
        d = self.direction
        out = self.out
        q = (seat + d) % n
        while out[q]:
            q = (q + d) % n
        return q

    # ------------------------------------------------------------------ legality
    def legal_actions(self, seat: object = None) -> list[Action]:
        """Every action ``seat`` (default: the seat to act) may take now.

        Includes out-of-turn actions (UNO calls and catches, classic jump-ins) for that seat.

        Raises:
            NoMercyError: ``seat`` is not an integer (a seat out of range has no actions).
        """
        found = self._seat_for(seat, "legal_actions")
        ids = self._ids_of(found) if found >= 0 else _NO_IDS
        if not ids:
            return []
        table = self._acts[found]
        n = self.n
        out: list[Action] = []
        for i in ids:
            action = table[i]
            out.append(action if action is not None else id_action(i, found, n))
        return out

    def legal_ids(self, seat: object = None) -> list[int]:
        """The ids (:mod:`nomercy.core.ids`) of :meth:`legal_actions`, in the same order.

        The id path beneath the objects: no action object is built. Ids below
        ``ids.NUM_ACTIONS`` are those of the RL action space (docs/rl.md); tables of 7 to 10
        seats also use the ids after them.

        Raises:
            NoMercyError: ``seat`` is not an integer (a seat out of range has no actions).
        """
        found = self._seat_for(seat, "legal_ids")
        # A slice copies natively when compiled (``list(ids)`` is a generic call).
        return self._ids_of(found)[:] if found >= 0 else []

    def fill_mask(self, mask: Any, seat: object = None) -> int:
        """Write 1 at each legal id of ``seat`` (default: the seat to act) into ``mask``.

        ``mask`` is any buffer indexable by id and at least as long as the ids it receives: a
        numpy array of ``ids.NUM_ACTIONS`` (or ``ids.NUM_IDS``) entries, a ``bytearray``, a
        list. The caller clears it first (``mask[:] = 0``); nothing else is written, so a
        mask can be filled without allocating. Returns the number of legal ids.

        Raises:
            NoMercyError: ``seat`` is not an integer.
        """
        found = self._seat_for(seat, "fill_mask")
        ids = self._ids_of(found) if found >= 0 else _NO_IDS
        for i in ids:
            mask[i] = 1
        return len(ids)

    def decision_order(self, asked: Callable[[int], bool] | None = None) -> list[Decision]:
        """The seats to ask for an action now, in order (:mod:`nomercy.core.decisions`)."""
        return decision_order(self, asked)

    def out_of_turn_possible(self) -> bool:
        """Whether a seat other than the one to act may have an action now: a one-card hand
        without an UNO call (its call, or a catch of it, NM-37) or classic jump-ins (C04).
        When ``False``, only the seat to act has legal actions (a fast test for drivers)."""
        if self.jump_in:
            return True
        called = self.uno_called
        hands = self.hand_ids
        for s in range(len(hands)):  # noqa: SIM110 (a loop: no generator per call)
            if len(hands[s]) == 1 and not called[s]:
                return True
        return False

    def is_legal(self, action: Action | str) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        try:
            self._check(action)
        except NoMercyError:
            return False
        return True

    def _seat_for(self, seat: object, caller: str) -> int:
        """The seat the public queries ask about: ``None`` is the seat to act (-1, no seat,
        once the game is over), anything but an integer a :class:`NoMercyError`."""
        if seat is None:
            turn = self.turn
            if turn is None or self.phase is OVER:
                return -1
            return turn
        if type(seat) is not int:
            raise NoMercyError(f"{caller}: a seat is an integer, not {seat!r}")
        return seat

    def _ids_of(self, seat: int) -> list[int]:
        """The legal ids of ``seat`` in this state, computed once (callers never change it)."""
        if seat == self._lseat:
            return self._lids
        turn = self.turn  # a narrowed local: ``seat == self.turn`` compares boxed objects
        if turn is not None and seat == turn:
            ids = self._lids = compute_legal(self, seat)
            self._lseat = seat
            return ids
        found = self._legal.get(seat)
        if found is None:
            found = self._legal[seat] = compute_legal(self, seat)
        return found

    # ------------------------------------------------------------------ apply
    def _check(self, action: Action | str) -> tuple[int, int]:
        """``(seat, id)`` of ``action`` if it is legal now; else the error naming the rule."""
        if isinstance(action, str):
            if self.phase is OVER:  # no seat to act: say so before the notation asks for one
                raise IllegalActionError("the game is over", "NM-38")
            action = parse_action(action, self.to_act)
        # Fast path: an action object of the engine's own (legal_actions()) for this state.
        seat = getattr(action, "seat", None)
        if type(seat) is int and 0 <= seat < self.n:
            cached = self._lids if seat == self._lseat else self._legal.get(seat)
            if cached is not None:
                table = self._acts[seat]
                for i in cached:
                    if table[i] is action:
                        return seat, i
        if not isinstance(action, Action):
            raise NotationError(f"not an action: {action!r}")
        if isinstance(action, Play) and not isinstance(action.card, Card):
            raise NotationError(f"a Play needs a Card, not {action.card!r}: use Card('R7')")
        if isinstance(action, (Play, ChooseColour)) and not isinstance(
            action.colour, (Colour, type(None))
        ):
            raise NotationError(f"a colour must be a Colour, not {action.colour!r}")
        # ``seat`` is action.seat, read untyped above: compiled, reading it as an int would
        # raise TypeError for Draw("0") instead of the IllegalActionError below.
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalActionError(f"there is no seat {seat!r} in a {self.n}-player game")
        legal = self._ids_of(seat)
        try:
            found = action_id(action, self.n)
        except ActionIdError:  # no such action at this table: illegal, explained below
            found = -1
        if has_id(legal, found):
            return seat, found
        reason, rule = diagnose(self, action)
        raise IllegalActionError(f"illegal '{action}': {reason}", rule)

    def step(self, action_id: object, seat: object = None) -> None:
        """Apply the action with id ``action_id`` (:meth:`legal_ids`) of ``seat``.

        The id path beneath :meth:`apply`: the same rules, checked the same way first, without
        building an action or returning events (the log still records them unless
        ``record_events`` is off, the setting for fast play: then nothing is allocated per
        step but the cards' moves). ``seat`` defaults to the seat to act; out-of-turn
        actions (UNO calls, catches, jump-ins) name their seat.

        Raises:
            IllegalActionError: the id is not legal for the seat now (the message names the
                rule, as :meth:`apply` does); the game is unchanged.
            ActionIdError: ``action_id`` is not an id (not an integer, or out of range).
            NoMercyError: ``seat`` is not a seat of this game.
            EngineError: only with ``exhaustion_fallback="raise"`` (unchanged).
        """
        if seat is None:
            seat = self.turn
            if seat is None:
                raise IllegalActionError("the game is over", "NM-38")
        elif type(seat) is not int or not 0 <= seat < self.n:
            raise NoMercyError(f"step: there is no seat {seat!r} in a {self.n}-player game")
        if type(action_id) is int and has_id(self._ids_of(seat), action_id):
            self._apply(seat, action_id)
            return
        raise self._illegal_id(action_id, seat)

    def _illegal_id(self, action_id: object, seat: int) -> NoMercyError:
        if type(action_id) is not int:
            # A numpy integer is an integer, but not an id: ids are Python ints.
            return ActionIdError(
                f"action id {action_id!r} is not a Python int: an id is an int in "
                f"0..{NUM_IDS - 1} (int() converts a numpy integer)"
            )
        if not 0 <= action_id < NUM_IDS:
            return ActionIdError(f"action id {action_id!r} is not an integer in 0..{NUM_IDS - 1}")
        try:
            action = id_action(action_id, seat, self.n)
        except ActionIdError as exc:
            return exc
        reason, rule = diagnose(self, action)
        return IllegalActionError(f"illegal '{action}': {reason}", rule)

    def apply(self, action: Action | str) -> list[Event]:
        """Apply one action and return the events that explain it.

        Args:
            action: an action from :meth:`legal_actions`, or its notation (``"play W+6 G"``).

        Raises:
            NotationError: the text does not parse (the game is unchanged).
            IllegalActionError: the action breaks a rule; the message names it (unchanged).
            EngineError: only with ``exhaustion_fallback="raise"`` (unchanged).
        """
        seat, found = self._check(action)
        events = self._apply(seat, found)
        return events if events is not _NO_EVENTS else []

    def _apply(self, seat: int, found: int) -> list[Event]:
        """Apply the legal id ``found`` of ``seat``: the one way every action changes a game.
        Returns its events: with ``record_events`` off, the shared empty ``_NO_EVENTS``."""
        snapshot = self.copy() if self._raise_on_exhaustion else None
        self.tally.act(found, self.phase)  # an action, and a turn if it starts one (NM-6, NM-7)
        events: list[Event] = [] if self.record_events else _NO_EVENTS
        self._events = events
        self._lseat = -1  # no seat's: -1 is no seat, and _NO_IDS is what it may do
        self._lids = _NO_IDS
        if self._legal:
            self._legal = {}
        try:
            self._dispatch(seat, found)
        except EngineError:
            assert snapshot is not None
            _set_fields(self, _get_fields(snapshot))
            raise
        action = self._acts[seat][found]
        self.history.append(action if action is not None else id_action(found, seat, self.n))
        if self._deferred_mercy and self.phase is not OVER:
            self._mercy_sweep(seat)
        if events:  # an empty extend is still a generic call
            self.log.extend(events)
        return events

    def _emit(
        self,
        kind: EK,
        text: Text,
        seat: int | None = None,
        data: dict[str, Any] | None = None,
        public_text: Text = "",
    ) -> None:
        """Record an event. A text is a ``str.format`` template with its arguments, formatted
        when first read (:class:`~nomercy.core.events.Event`), or a plain string."""
        if self.record_events:
            self._events.append(
                Event(
                    kind,
                    text,
                    seat,
                    data if data is not None else {},
                    bool(public_text),
                    public_text,
                    self.classic,
                )
            )

    def _dispatch(self, seat: int, aid: int) -> None:
        """Apply the legal id ``aid`` of ``seat`` (decoded by the tables of ``ids``)."""
        kind = ID_KIND[aid]
        if kind == K_PLAY:
            card = ID_CARD[aid]
            assert card is not None
            rel = ID_REL[aid]
            target = (seat + rel) % self.n if rel else None
            phase = self.phase
            if phase is PLAY:  # the common case first
                if len(self.uno_window):  # a set's truth value is a generic call, len() is not
                    self.uno_window.clear()
                self._play_card(seat, card, ID_COLOUR[aid], target, ID_UNO[aid], ID_JUMP[aid])
                return
            # An in-turn action: the next player has begun their turn, so earlier UNO windows
            # close (NM-37, A19), unless the same play is still being completed.
            if len(self.uno_window) and phase not in PLAYING_PHASES:
                self.uno_window.clear()
            if phase is DISCARD_ALL_SUBSET:
                self._bury_one(seat, card, ID_UNO[aid])
            elif phase is DISCARD_ALL_TOP:
                self._discard_all_top(seat, card, ID_COLOUR[aid], target, ID_UNO[aid])
            else:
                self._play_card(seat, card, ID_COLOUR[aid], target, ID_UNO[aid], False)
            return
        if kind == K_UNO:
            self.uno_called[seat] = True
            self.uno_window.discard(seat)
            self.tally.uno_calls += 1  # NM-37
            self._emit(EK.UNO, ("{} calls UNO [NM-37]", self.names[seat]), seat)
            return
        if kind == K_CATCH:
            self._catch(seat, (seat + ID_REL[aid]) % self.n)
            return
        if len(self.uno_window) and self.phase not in PLAYING_PHASES:
            self.uno_window.clear()  # as for an in-turn play above
        if kind == K_DRAW:
            if self.phase is STACK_OR_ABSORB:
                self._absorb(seat)
            else:
                self._draw_turn(seat)
        elif kind == K_PASS:
            self._pass(seat)
        elif kind == K_COLOUR:
            colour = ID_COLOUR[aid]
            assert colour is not None
            self._choose_colour(seat, colour)
        elif kind == K_CHALLENGE:
            self._challenge(seat)

    # ------------------------------------------------------------------ helpers
    def two_player(self) -> bool:
        """A29: whether the 2-player rules apply now."""
        if self._no_two_player:
            return False
        if self._two_player_initial:
            return self.n == 2
        return self.n_active == 2

    def _shuffle(self, cards: list[Card]) -> None:
        shuffle_with_key(cards, self.key, self.deal_version)
        self.key = next_key(self.key)

    def _reshuffle(self) -> bool:
        """NM-35 / CL-11: discard pile (all but the top) plus set-aside hands become the pile."""
        rest = self.discard[:-1] + self.set_aside
        if not rest:
            return False
        self.discard = self.discard[-1:]
        returned = len(self.set_aside)
        self.set_aside = []
        self._shuffle(rest)
        self._draw = rest + self._draw
        extra = f", {returned} of them from knocked-out hands" if returned else ""
        self.tally.reshuffles += 1  # NM-35, CL-11
        self._emit(
            EK.RESHUFFLE,
            (
                "The discard pile is reshuffled into a new draw pile of {} cards{} [NM-35]",
                len(rest),
                extra,
            ),
            None,
            {"count": len(rest)},
        )
        return True

    def _take(self) -> Card | None:
        """Take the top card of the draw pile, reshuffling lazily (NM-35); None if exhausted."""
        if not self._draw and not self._reshuffle():
            if self.rules.exhaustion_fallback == "raise":
                raise EngineError("nothing is left to draw (A13 exhaustion_fallback='raise')")
            self._emit(EK.EXHAUSTED, "Nothing is left to draw: the draw sequence ends [A13]")
            self.warnings.append("draw pool exhausted (A13)")
            return None
        card = self._draw.pop()
        if not self._draw and self._eager_reshuffle:
            self._reshuffle()
        return card

    def _receive(self, seat: int, card: Card) -> None:
        self.hand_ids[seat] = append(self.hand_ids[seat], card.index)
        if self.uno_called[seat] or seat in self.uno_window:
            self.uno_called[seat] = False
            self.uno_window.discard(seat)

    def _receive_all(self, seat: int, cards: list[Card]) -> None:
        """:meth:`_receive` for several cards at once (a non-empty list)."""
        hand = self.hand_ids[seat]
        for c in cards:
            hand = append(hand, c.index)
        self.hand_ids[seat] = hand
        if self.uno_called[seat] or seat in self.uno_window:
            self.uno_called[seat] = False
            self.uno_window.discard(seat)

    def _over_limit(self, seat: int) -> bool:
        limit = self._mercy_limit
        return limit > 0 and len(self.hand_ids[seat]) >= limit

    def _draw_cards(
        self, seat: int, count: int, *, per_card_mercy: bool
    ) -> tuple[list[Card], bool]:
        """Draw ``count`` cards one at a time; returns (cards, knocked_out) (NM-33, A15)."""
        pile = self._draw
        size = len(pile)
        if 0 < count < size:
            # The pile outlasts the draw, so no reshuffle (NM-35) or exhaustion (A13) can
            # interrupt it: take the cards at once, as many as the loop below would, stopping
            # at the card that reaches the Mercy limit (A15).
            take = count
            knocked = False
            limit = self._mercy_limit
            if per_card_mercy and limit > 0:
                first = max(1, limit - len(self.hand_ids[seat]))
                if first <= count:
                    take = first
                    knocked = True
            # The top of the pile is its end, and the first card drawn (pops are native calls
            # when compiled; a slice, its reversal and a slice deletion are generic ones).
            # A named loop variable: ``_`` is typed Any, so each step would box the counter.
            drawn = [pile.pop() for _k in range(take)]
            self._receive_all(seat, drawn)
            return drawn, knocked
        drawn = []
        for _k in range(count):
            card = self._take()
            if card is None:
                break
            self._receive(seat, card)
            drawn.append(card)
            if per_card_mercy and self._over_limit(seat):
                return drawn, True
        return drawn, False

    def _immediate(self) -> bool:
        return self._immediate_mercy

    def _forget(self, seat: int, card: Card) -> None:
        """``card`` left ``seat``'s hand: no viewer knows it is there any more."""
        index: i64 = card.index
        row = self.known_held[seat]  # shares its buffer: writes count
        if row[index] == 0:
            return  # nobody knows seat holds it: the usual case
        ids = self.known_ids
        k: i64 = seat  # the slots about seat: one per viewer, n apart
        end: i64 = len(ids)
        step: i64 = self.n
        while k < end:
            cards = ids[k]
            if index in cards:  # an emptied entry stays (positions list it)
                ids[k] = remove(cards, index)  # the first copy, as the hand loses one
                row[index] -= 1
            k += step

    def _open_uno(self, seat: int, *, received: bool = False) -> None:
        """NM-37: a hand of exactly one card must be called; re-arm otherwise.

        ``received``: the seat was handed a new hand (7-swap, 0-pass). S0: the duty to call
        starts again for it, so an earlier call does not carry over (the caller clears it),
        and A19 ``uno_on_received_single_card=False`` waives the duty.
        """
        if len(self.hand_ids[seat]) == 1:
            if not self.uno_called[seat] and (
                not received or self.rules.uno_on_received_single_card
            ):
                self.uno_window.add(seat)
        else:
            self.uno_called[seat] = False
            if len(self.uno_window):  # most often empty: skip the hash lookup
                self.uno_window.discard(seat)

    # ------------------------------------------------------------------ playing a card
    def _play_card(  # noqa: C901 (measured in tests/test_complexity.py)
        self,
        seat: int,
        card: Card,
        colour: Colour | None,
        target: int | None,
        uno: bool,
        jump: bool,
    ) -> None:
        stacking = self.phase is STACK_OR_ABSORB
        if jump:
            self.turn = seat
            self._emit(
                EK.JUMP_IN,
                ("{} jumps in with an identical {} [C04]", self.names[seat], card.name),
                seat,
            )
        # The first copy of the card (cards are interned: any copy is the same card).
        hand = remove(self.hand_ids[seat], card.index)
        self.hand_ids[seat] = hand
        self.drawn = None
        if self.known_live:
            self._forget(seat, card)
        self.discard.append(card)
        name = self.names[seat]
        r = self.rules
        if self.wd4 is None and card.kind is K_WILD_DRAW_FOUR and self.classic and r.wd4_challenge:
            # CL-8: remember whether the play was honest, for a challenge.
            self.wd4 = wd4_played(self, seat, self.colour)
        elif stacking:
            self.wd4 = None
        # Active colour (NM-11, A18). chain_colour_source="last_wild_named" reads S4 literally:
        # a coloured Draw Card stacked on a wild keeps the colour the wild named.
        if card.colour is not None:
            if not (
                stacking
                and self.chain_wild is not None
                and r.chain_colour_source == "last_wild_named"
            ):
                self.colour = card.colour
        elif colour is not None and card.kind is not K_WILD_COLOUR_ROULETTE:
            self.colour = colour
        elif card.draw_value and self.colour_on_resolution and not len(hand):
            pass
        elif card.draw_value and self.colour_on_resolution:
            self.colour = None
        if card.is_wild and card.draw_value:
            self.chain_wild = seat
        if self.record_events:  # the most frequent event: its text is joined when read
            self._emit(
                EK.PLAY,
                (
                    "{} {} {}{} [{}]",
                    name,
                    "stacks" if stacking else "plays",
                    card.name,
                    "" if colour is None else ", naming " + colour.word,
                    "CL-4" if self.classic else "NM-18" if stacking else "NM-12",
                ),
                seat,
                {"card": card.code, "colour": colour.value if colour else None},
            )
        if card.kind is K_DISCARD_ALL and not stacking:
            mode = r.discard_all_mode
            same = self._of_colour(seat, card.colour)
            if same and mode == "choose_top_and_fire":
                self.phase = DISCARD_ALL_TOP
                self.turn = seat
                return
            if same and mode == "optional_subset":
                self.phase = DISCARD_ALL_SUBSET
                self.turn = seat
                return
            if same:
                self._bury(seat, same)
        if uno:
            self.uno_called[seat] = True
            self.tally.uno_calls += 1  # NM-37
            self._emit(EK.UNO, ("{} calls UNO [NM-37]", name), seat)
        elif self.uno_called[seat]:
            # NM-37: a call belongs to the one-card hand it was made for; the hand this play
            # leaves (or a hand a 7 or 0 hands over) needs its own call.
            self.uno_called[seat] = False
        if not len(self.hand_ids[seat]):
            self._last_card(seat, card, colour, target)
            return
        # A 7-swap or 0-pass already opened the seat's UNO duty for the hand it received.
        if not self._resolve(seat, card, colour, target, stacking) and (self.phase is not OVER):
            self._open_uno(seat)

    def _of_colour(self, seat: int, colour: Colour | None) -> list[Card]:
        """The cards of ``colour`` in ``seat``'s hand, in hand order (NM-27's shedding)."""
        return [ALL_CARDS[i] for i in self.hand_ids[seat] if ALL_CARDS[i].colour is colour]

    def _bury(self, seat: int, cards: list[Card]) -> None:
        """NM-27: shed every other card of the Discard All's colour under it, effects ignored."""
        top = self.discard.pop()
        hands = self.hand_ids
        for c in cards:
            hands[seat] = remove(hands[seat], c.index)
            if self.known_live:
                self._forget(seat, c)
            self.discard.append(c)
        self.discard.append(top)
        if self.record_events:  # its texts and data read enum properties
            codes = [c.code for c in cards]
            self._emit(
                EK.DISCARD_ALL,
                (
                    "{} discards {} more {} card(s) under the Discard All ({}); "
                    "their effects are ignored [NM-27]",
                    self.names[seat],
                    len(cards),
                    top.colour.word if top.colour else "",
                    ", ".join(codes),
                ),
                seat,
                {"cards": codes},
            )

    def _bury_one(self, seat: int, card: Card, uno: bool) -> None:
        """A09 optional_subset: discard one more same-colour card under the Discard All."""
        self._bury(seat, [card])
        if uno:
            self.uno_called[seat] = True
            self.tally.uno_calls += 1  # NM-37
            self._emit(EK.UNO, ("{} calls UNO [NM-37]", self.names[seat]), seat)
        if not len(self.hand_ids[seat]):
            self._end_hand(seat, "empty hand")
        elif not holds_colour(self, seat, self.discard[-1].colour):
            self._finish_discard_all(seat)

    def _finish_discard_all(self, seat: int) -> None:
        self.colour = self.discard[-1].colour
        self.phase = PLAY
        self.turn = self.next_active(seat)
        self._open_uno(seat)

    def _discard_all_top(
        self, seat: int, card: Card, colour: Colour | None, target: int | None, uno: bool
    ) -> None:
        """A09 choose_top_and_fire: the others go under, the chosen card goes on top and fires."""
        others = self._of_colour(seat, card.colour)
        others.remove(card)
        if others:
            self._bury(seat, others)
        self.phase = PLAY
        self._play_card(seat, card, colour, target, uno, False)

    def _pass(self, seat: int) -> None:
        if self.phase is PLAY_DRAWN:
            self.drawn = None
            rule = "CL-5" if self.classic else "NM-9"
            self._emit(
                EK.PASS, ("{} keeps the drawn card and passes [{}]", self.names[seat], rule), seat
            )
            self.phase = PLAY
            self.turn = self.next_active(seat)
        else:  # a Discard All choice ends
            if self.phase is DISCARD_ALL_TOP:
                self._bury(seat, self._of_colour(seat, self.discard[-1].colour))
                if not len(self.hand_ids[seat]):
                    self._end_hand(seat, "empty hand")
                    return
            self._emit(EK.PASS, ("{} keeps the Discard All on top [A09]", self.names[seat]), seat)
            self._finish_discard_all(seat)

    def _last_card(self, seat: int, card: Card, colour: Colour | None, target: int | None) -> None:
        """NM-38 / A16 / A17 / CL-10: the hand is empty after this play."""
        eff = self.rules.last_card_effect
        if eff == "resolve_effects" and not card.draw_value:
            self.pending_win = seat
            self._resolve(seat, card, colour, target, False)
            if self.phase is OVER:
                return
            if self.phase is not ROULETTE_COLOUR and not len(self.hand_ids[seat]):
                self._end_hand(seat, "empty hand")
            elif len(self.hand_ids[seat]):
                self.pending_win = None
            return
        if eff == "win_immediately" or not card.draw_value:
            self._clear_pending()
            self._end_hand(seat, "empty hand")
            return
        # apply_draw_penalty (and resolve_effects for a Draw Card): the target draws.
        total = self.pending_total + card.draw_value
        self._grow_chain(card.draw_value)
        chain = self.pending_chain  # kept: _clear_pending gives the game a new list
        # NM-24: a Wild Reverse +4 still reverses; the next seat in the new direction draws.
        target, self.direction, _ = aim_penalty(
            self.rules, card, seat, self.direction, self.out, self.two_player(), True, True
        )
        self._clear_pending()
        r = self.rules
        if self.wd4 is not None and r.challenge_on_winning_card and r.wd4_challenge:
            self.pending_total, self.pending_last, self.pending_chain = (
                total,
                card.draw_value,
                chain,
            )
            self.pending_win = seat
            self.phase = STACK_OR_ABSORB
            self.turn = target
            self.tally.pending(total)  # C08
            self._emit(
                EK.STACK,
                (
                    "{} faces {} from the winning card and may challenge it [C08]",
                    self.names[target],
                    total,
                ),
                target,
                {"total": total},
            )
            return
        self.wd4 = None
        drawn, _ = self._draw_cards(target, total, per_card_mercy=self._immediate())
        self.tally.absorbed(len(drawn), len(drawn))  # A17: the event gives no total
        self._emit(
            EK.ABSORB,
            (
                "{} draws {} from the last card; they count in the score [A17]",
                self.names[target],
                len(drawn),
            ),
            target,
            {"cards": [c.code for c in drawn], "count": len(drawn)},
            public_text=("{} draws {} from the last card [A17]", self.names[target], len(drawn)),
        )
        if self._over_limit(target):
            self._knock_out(target, end_if_one=False)
        self._end_hand(seat, "empty hand")

    def _resolve(
        self, seat: int, card: Card, colour: Colour | None, target: int | None, stacking: bool
    ) -> bool:
        """NM-22…NM-31, CL-6: the card's effect and who acts next.

        Returns whether the seat received a new hand (a 7-swap or a 0-pass, NM-37).
        """
        kind = card.kind
        name = self.names[seat]
        self.phase = PLAY
        if card.draw_value:
            self._open_stack(seat, card)
            return False
        if stacking:  # A07 deflection with a Skip or Reverse
            # The Skip skips its player out of the penalty: the next player faces it.
            self.turn, self.direction = turn_after_play(
                self.rules, card, seat, self.direction, self.out, False, True
            )
            rule = "sends the penalty back" if kind is K_REVERSE else "passes the penalty on"
            self.phase = STACK_OR_ABSORB
            self._emit(
                EK.DEFLECT,
                (
                    "{}'s {} {}: {} faces {} [A07]",
                    name,
                    card.name,
                    rule,
                    self.names[self.turn],
                    self.pending_total,
                ),
                self.turn,
                {"total": self.pending_total},
            )
            return False
        r = self.rules
        seven_zero = self.seven_zero
        exchanged = False
        # Who plays next (NM-22..NM-31, CL-6, A29): one rule, read by the view too. Here only
        # a Reverse reads the two-player test (a Draw Card went to _open_stack), so only it
        # pays for the call.
        two = kind is K_REVERSE and self.two_player()
        turn, self.direction = turn_after_play(r, card, seat, self.direction, self.out, two, False)
        if kind is K_NUMBER:
            number = card.number  # narrowed: comparing the Optional itself boxes the int
            if seven_zero and number is not None:
                if number == 7 and target is not None:
                    self._swap(seat, target)
                    exchanged = True
                elif number == 0:
                    self._pass_hands(seat)
                    exchanged = True
            self.turn = turn
        elif kind is K_SKIP:
            skipped = self.next_active(seat)
            self.turn = turn
            rule = "CL-6" if self.classic else "NM-23"
            self._emit(EK.SKIP, ("{} is skipped [{}]", self.names[skipped], rule), skipped)
        elif kind is K_REVERSE:
            rule = "CL-12" if self.classic else "NM-25"
            self.turn = turn
            if turn == seat:
                self._emit(
                    EK.REVERSE,
                    ("Direction reverses; with two players {} plays again [{}]", name, rule),
                    seat,
                )
            else:
                self._emit(
                    EK.REVERSE,
                    (
                        "Direction reverses; {} is next [{}]",
                        self.names[self.turn],
                        "CL-6" if self.classic else "NM-25",
                    ),
                    seat,
                )
        elif kind is K_SKIP_EVERYONE:
            self.turn = turn
            self._emit(
                EK.SKIP_EVERYONE,
                ("Everyone else is skipped; {} takes another full turn [NM-26]", name),
                seat,
            )
        elif kind is K_WILD_COLOUR_ROULETTE:
            victim = turn
            if r.roulette_chooser == "player":
                assert colour is not None
                self.roulette_colour = colour
                if self.record_events:  # its texts and data read enum properties
                    self._emit(
                        EK.ROULETTE,
                        (
                            "{} names {} for {} to reveal [A20]",
                            name,
                            colour.word,
                            self.names[victim],
                        ),
                        victim,
                        {"colour": colour.value},
                    )
                self._reveal(victim, colour)
            else:
                self.roulette_colour = colour  # A21 player_names, else None
                self.phase = ROULETTE_COLOUR
                self.turn = victim
                self._emit(
                    EK.ROULETTE,
                    (
                        "{} must name a colour and reveal cards until it appears [NM-30]",
                        self.names[victim],
                    ),
                    victim,
                )
        else:  # other numbers, Discard All, a plain Wild
            self.turn = turn
        return exchanged

    def _open_stack(self, seat: int, card: Card) -> None:
        """NM-16 / NM-24 / NM-28: a Draw Card opens or extends the pending penalty."""
        value = card.draw_value
        two = self.two_player()
        prior = self.pending_total
        self._grow_chain(value)
        self.pending_total += value
        self.pending_last = value
        target, self.direction, aim = aim_penalty(
            self.rules, card, seat, self.direction, self.out, two, prior != 0, False
        )
        self.turn = target
        self.phase = STACK_OR_ABSORB
        self.tally.pending(self.pending_total)  # NM-16, NM-18
        if self.record_events:  # the texts only for the log (a stack opens every ~5 steps)
            aimed = self.names[target]
            if aim == AIM_SELF:
                why = f"with two players {aimed} is the target and must stack or draw [NM-24]"
            elif aim == AIM_PASSED:  # A28 "opponent" (S4): stacked on, it passes the penalty on
                why = f"stacked with two players, it sends the penalty to {aimed} [A28]"
            elif aim == AIM_REVERSED:
                why = f"direction reverses; {aimed} is the target [NM-24]"
            elif self.can_stack:
                why = f"{aimed} must stack or draw [NM-16]"
            else:
                why = f"{aimed} must draw [CL-6]"
            chain = _chain_text(self.pending_chain, self.pending_total)
            self._emit(
                EK.STACK,
                ("Penalty {}{}, last +{}: {}", self.pending_total, chain, value, why),
                target,
                {"total": self.pending_total, "last": value},
            )

    def _grow_chain(self, value: int) -> None:
        """A Draw Card of ``value`` joins the stack's values (NM-16), oldest first, before
        ``pending_total`` counts it. A stack whose values are not listed (a position gave
        ``pending`` without its ``chain`` for several cards) stays unlisted: its first values
        are unknown, and a partial list would not add up to the total (positions refuse that,
        NM-16). In place: the game's list is its own (copies, views and records copy it)."""
        if self.pending_chain or not self.pending_total:
            self.pending_chain.append(value)

    def _clear_pending(self) -> None:
        self.pending_total = 0
        self.pending_last = 0
        self.pending_chain = []

    def _absorb(self, seat: int) -> None:
        """NM-17 / CL-6: take the whole pending penalty and lose the turn."""
        total = self.pending_total
        chain = _chain_text(self.pending_chain, total) if self.record_events else ""
        # The option read only when it matters (a RuleSet's attribute is a generic lookup).
        per_card = self._immediate() and self.rules.mercy_absorb == "stop_at_threshold"
        self.wd4 = None
        drawn, knocked = self._draw_cards(seat, total, per_card_mercy=per_card)
        self._clear_pending()
        self.tally.absorbed(len(drawn), total)  # NM-17, CL-6, A15
        if self.record_events:
            codes = [c.code for c in drawn]
            name = self.names[seat]
            rule = "CL-6" if self.classic else "NM-17"
            if knocked:  # A15: the draw stopped at the Mercy limit
                said = f"{name} draws {len(drawn)} of {total}{chain} and reaches the Mercy limit"
                rule = f"{rule}, A15"
            else:
                said = f"{name} draws {len(drawn)}{chain} and loses the turn"
            self._emit(
                EK.ABSORB,
                ("{} [{}]: {}", said, rule, ", ".join(codes)),
                seat,
                {"cards": codes, "count": len(drawn), "total": total},
                public_text=("{} [{}]", said, rule),
            )
        win = self.pending_win
        if win is not None:  # a challengeable winning Wild +4 was accepted (C08)
            self.pending_win = None
            self._end_hand(win, "empty hand")
            return
        if not knocked and self._immediate() and self._over_limit(seat):
            knocked = True
        self.phase = PLAY
        self.turn = turn_after_resolution(seat, self.direction, self.out)  # NM-17
        if knocked:
            self._knock_out(seat)
        if self.phase is not OVER:
            self._after_resolution()

    def _after_resolution(self) -> None:
        """A18 on_resolution: the last wild's player names the colour once the stack is gone."""
        if self.pending_total:
            return
        if self.colour is None and self.chain_wild is not None and self.phase is PLAY:
            chooser = self.chain_wild
            if self.out[chooser]:
                chooser = self.turn if self.turn is not None else chooser
            self.resume = self.turn
            self.turn = chooser
            self.phase = CHOOSE_COLOUR
            self._emit(
                EK.CHOOSE_COLOUR,
                ("{} names the colour now that the stack is resolved [A18]", self.names[chooser]),
                chooser,
            )
        self.chain_wild = None

    def _draw_turn(self, seat: int) -> None:
        """NM-9 / A02 / A03 / CL-5: draw when not playing."""
        # The top card and the colour stay as they are while this seat draws (a reshuffle
        # keeps the top card), so one matching table serves the whole draw.
        flags = playable_flags(self)
        has_playable = False
        for i in self.hand_ids[seat]:
            if flags[i] and wild_draw_allowed(self, seat, ALL_CARDS[i]):
                has_playable = True
                break
        mode = self._voluntary_draw if has_playable else self._no_playable_action
        self.draw_mode = mode
        name = self.names[seat]
        immediate = self._immediate()
        if mode == "draw_until_playable":
            drawn: list[Card] = []
            while True:
                card = self._take()
                if card is None:
                    break
                self._receive(seat, card)
                drawn.append(card)
                if immediate and self._over_limit(seat):
                    self.tally.drew(len(drawn))  # NM-9
                    self._emit_draw_knocked(seat, drawn)
                    self.turn = self.next_active(seat)
                    self._knock_out(seat)
                    return
                if flags[card.index] and wild_draw_allowed(self, seat, card):
                    break
            self.tally.drew(len(drawn))  # NM-9, A13
            if drawn and flags[drawn[-1].index]:
                if self.record_events:  # the second most frequent event
                    self._emit_drawn_playable(seat, drawn)
                self.phase = PLAY_DRAWN
                self.drawn = drawn[-1]
                return
            if self.record_events:
                codes = [c.code for c in drawn]
                self._emit(
                    EK.DRAW,
                    ("{} draws {} and finds nothing playable [A13]", name, len(drawn)),
                    seat,
                    {"cards": codes, "count": len(drawn)},
                    public_text=("{} draws {} and finds nothing playable [A13]", name, len(drawn)),
                )
            self.turn = self.next_active(seat)
            return
        card = self._take()
        if card is None:
            self.turn = self.next_active(seat)
            return
        self._receive(seat, card)
        rule = "CL-5" if self.classic else "A02"
        playable = flags[card.index] and wild_draw_allowed(self, seat, card)
        knocked = immediate and self._over_limit(seat)
        keeps = playable and mode != "draw_one_pass" and not knocked
        self.tally.drew(1)  # A02, A03, CL-5
        if self.record_events:
            tail = "" if knocked else (" and may play it" if keeps else " and the turn passes")
            self._emit(
                EK.DRAW,
                ("{} draws 1 ({}){} [{}]", name, card.code, tail, rule),
                seat,
                {"cards": [card.code], "count": 1},
                public_text=("{} draws 1{} [{}]", name, "" if keeps else tail, rule),
            )
        if keeps:
            self.phase = PLAY_DRAWN
            self.drawn = card
            return
        self.turn = self.next_active(seat)
        if knocked:
            self._knock_out(seat)

    def _emit_draw_knocked(self, seat: int, drawn: list[Card]) -> None:
        """NM-9 with an immediate Mercy check: the draw stopped at the limit."""
        name = self.names[seat]
        rule = _UNTIL_PLAYABLE_CLASSIC if self.classic else "NM-9"
        self._emit(
            EK.DRAW,
            (
                "{} draws {} looking for a playable card ({}) [{}]",
                name,
                len(drawn),
                ", ".join(c.code for c in drawn),
                rule,
            ),
            seat,
            {"cards": [c.code for c in drawn], "count": len(drawn)},
            public_text=(
                "{} draws {} looking for a playable card [{}]",
                name,
                len(drawn),
                rule,
            ),
        )

    def _emit_drawn_playable(self, seat: int, drawn: list[Card]) -> None:
        """NM-9: the drawn card that ends a draw-until-playable may (or must) be played."""
        name = self.names[seat]
        codes = [c.code for c in drawn]
        must = "must play" if self.rules.drawn_card_must_be_played else "may play"
        rule = _UNTIL_PLAYABLE_CLASSIC if self.classic else "NM-9"
        self._emit(
            EK.DRAW,
            (
                "{} draws {} ({}) and {} {} [{}]",
                name,
                len(drawn),
                ", ".join(codes),
                must,
                drawn[-1].name,
                rule,
            ),
            seat,
            {"cards": codes, "count": len(drawn)},
            public_text=(
                "{} draws {} until a playable card and {} it [{}]",
                name,
                len(drawn),
                must,
                rule,
            ),
        )

    def _choose_colour(self, seat: int, colour: Colour) -> None:
        if self.phase is ROULETTE_COLOUR:
            if self.record_events:  # its texts and data read enum properties
                self._emit(
                    EK.ROULETTE_COLOUR,
                    (
                        "{} names {} and reveals cards until one of that colour appears [NM-30]",
                        self.names[seat],
                        colour.word,
                    ),
                    seat,
                    {"colour": colour.value},
                )
            self._reveal(seat, colour)
            return
        self.colour = colour
        resume = self.resume if self.resume is not None else seat
        if self.record_events:  # its texts and data read enum properties
            self._emit(
                EK.COLOUR,
                f"{self.names[seat]} names {colour.word} [CL-3]"
                if self.classic
                else f"{self.names[seat]} names {colour.word} [A18]",
                seat,
                {"colour": colour.value},
            )
        self.resume = None
        self.phase = PLAY
        self.turn = resume

    def _reveal(self, victim: int, colour: Colour) -> None:
        """NM-30: reveal until the named colour; the victim keeps everything and loses the turn.

        The seeds (S0 "Lopuksi…", S1, S3, S4) add the revealed cards to the hand when the reveal
        ends, so the Mercy check runs once, after it (option roulette_mercy keeps RULES.md's
        per-card reading).
        """
        revealed: list[Card] = []
        per_card = self._immediate() and self.rules.roulette_mercy == "per_card"
        knocked = False
        while True:
            card = self._take()
            if card is None:
                break
            revealed.append(card)
            if per_card:
                self._receive(victim, card)
                if self._over_limit(victim):
                    knocked = True
                    break
            if card.colour is colour:
                break
        if not per_card:
            for card in revealed:
                self._receive(victim, card)
        ids = self.known_ids
        on = self.known_on
        row = self._held()[victim]  # shares its buffer: writes count
        for v in range(-1, self.n):  # NM-30: revealed cards are public (S4)
            if v != victim:
                k = (v + 1) * self.n + victim
                cards = ids[k]
                for c in revealed:
                    cards = append(cards, c.index)
                    row[c.index] += 1
                ids[k] = cards
                on[k] = True
        self.known_live = True
        self.colour = self.roulette_colour or colour
        self.roulette_colour = None
        self.tally.cards_drawn += len(revealed)  # NM-30: the victim keeps the revealed cards
        if self.record_events:  # its texts and data read enum properties
            codes = [c.code for c in revealed]
            name = self.names[victim]
            self._emit(
                EK.REVEAL,
                (
                    "{} reveals {} ({}), keeps them all and loses the turn; "
                    "the colour is {} [NM-30]",
                    name,
                    len(revealed),
                    ", ".join(codes),
                    self.colour.word,
                ),
                victim,
                {"cards": codes, "count": len(revealed), "colour": self.colour.value},
            )
        if not knocked and self._immediate() and self._over_limit(victim):
            knocked = True
        self.phase = PLAY
        self.turn = turn_after_resolution(victim, self.direction, self.out)  # NM-30
        win = self.pending_win
        if knocked:
            self._knock_out(victim, end_if_one=win is None)
        if win is not None and self.phase is not OVER:
            self.pending_win = None
            self._end_hand(win, "empty hand")

    def _swap(self, seat: int, target: int) -> None:
        """NM-31: swap whole hands with the chosen active player."""
        hands = self.hand_ids
        mine = hands[seat]
        theirs = hands[target]
        hands[seat] = theirs
        hands[target] = mine
        if self.known_live:
            moves = list(range(self.n))
            moves[seat] = target
            moves[target] = seat
            self._swap_knowledge(moves)
        self._learn(seat, target, mine)
        self._learn(target, seat, theirs)
        self.tally.swaps += 1  # NM-31
        if self.record_events:
            self._emit(
                EK.SWAP,
                (
                    "{} swaps hands with {}: {} for {} [NM-31]",
                    self.names[seat],
                    self.names[target],
                    len(theirs),
                    len(mine),
                ),
                seat,
                {"target": target},
            )
        # NM-37 (S0): a hand received in a swap is a new hand; the target's old call is void.
        # The player's flag is the call made with this play (Play.uno), for the hand received.
        self.uno_called[target] = False
        self._open_uno(target, received=True)
        self._open_uno(seat, received=True)

    def _swap_knowledge(self, moves: list[int]) -> None:
        """Cards known to be in seat s are now in seat moves[s] (every seat listed); an
        emptied entry, and what a viewer knew of the hand it now holds, go."""
        n = self.n
        old = self.known_ids
        was = self.known_on
        ids = _no_entries(len(old))
        on = _off(len(old))
        live = False
        # The counts move with the hands (read from a copy: a pass moves them round).
        held = self.known_held
        rows = held[0 : len(held)]
        for seat in range(n):
            held[moves[seat]] = rows[seat]
        for k in range(len(old)):
            cards = old[k]
            if was[k] and len(cards):
                viewer = k // n - 1
                seat = k % n
                to = moves[seat]
                if to != viewer:
                    ids[k - seat + to] = cards
                    on[k - seat + to] = True
                    live = True
                else:  # the viewer holds what it knew of: nothing to know
                    row = held[to]
                    for i in cards:
                        row[i] -= 1
        self.known_ids = ids
        self.known_on = on
        self.known_live = live

    def _drop_known(self, seat: int) -> None:
        """NM-34: ``seat``'s hand is set aside; nothing is known of it any more."""
        ids = self.known_ids
        on = self.known_on
        for k in range(seat, len(ids), self.n):
            ids[k] = _NO_KNOWN
            on[k] = False
        live = False
        for flag in on:  # a loop: any() is a generic call on a vector
            if flag:
                live = True
                break
        self.known_live = live
        self._held()[seat] = _zeros(NUM_CARDS)

    def _pass_hands(self, seat: int) -> None:
        """NM-29: every active player passes their hand to the next active player."""
        n = self.n
        out = self.out
        active = [s for s in range(n) if not out[s]]
        # Per seat, who holds its hand next: the next active seat (itself if out).
        receiver = [s if out[s] else self.next_active(s) for s in range(n)]
        hands = self.hand_ids
        old = hands[0:n]  # the rows as they were (a new outer vector, the same rows)
        for s in active:
            hands[receiver[s]] = old[s]
        if self.known_live:
            self._swap_knowledge(receiver)
        for s in active:
            if receiver[s] != s:
                self._learn(s, receiver[s], old[s])
        self.tally.rotations += 1  # NM-29
        if self.record_events:
            way = "clockwise" if self.direction == 1 else "counterclockwise"
            self._emit(
                EK.PASS_HANDS,
                ("Every active player passes their hand {} [NM-29]", way),
                seat,
                {"sizes": [len(h) for h in hands]},
            )
        # NM-37 (S0): every passed hand is a new hand, the 0's player's included; earlier
        # calls are void, except the call made with this play (Play.uno), which is for the
        # hand its player receives.
        for s in active:
            if s != seat:
                self.uno_called[s] = False
            self._open_uno(s, received=True)

    def _knock_out(self, seat: int, *, end_if_one: bool = True) -> None:
        """NM-34: set the hand aside, clear the penalty, end the hand if one player is left."""
        hand = self.hand_of(seat)
        self.hand_ids[seat] = _NO_KNOWN  # empty, with no room: an append makes a new one
        where = self.rules.eliminated_cards
        if where == "bottom_of_discard":
            self.discard[:0] = hand
        elif where == "shuffle_into_draw_pile":
            self._draw.extend(hand)
            self._shuffle(self._draw)
        else:
            self.set_aside.extend(hand)
        self.out[seat] = True
        self.n_active -= 1
        self.uno_called[seat] = False
        self.uno_window.discard(seat)
        if self.known_live:
            self._drop_known(seat)
        if self.phase is STACK_OR_ABSORB and self.turn == seat:
            # NM-34.2/3: the target's own knock-out ends its stack decision and the penalty.
            # Anyone else's knock-out (a caught bystander, the Draw Card's own player under a
            # deferred Mercy check) leaves the target facing it (RULES.md A40).
            self._drop_penalty()
        elif self.wd4 is not None and self.wd4.seat == seat:
            self.wd4 = None  # CL-8: a knocked-out player's Wild +4 can no longer be challenged
        self.tally.knocked_out(seat)  # NM-33, NM-34
        if self.record_events:
            self._emit(
                EK.KNOCKOUT,
                (
                    "{} reaches {} cards and is knocked out by the Mercy rule; "
                    "the hand is set aside [NM-33, NM-34]",
                    self.names[seat],
                    len(hand),
                ),
                seat,
                {"count": len(hand)},
            )
        if self.phase is CHOOSE_COLOUR and self.turn == seat and self.colour is None:
            # A18 on_resolution: the colour is still owed; as when its wild's player is out
            # (_after_resolution), the player who would play next names it.
            resume = self.resume
            chooser = resume if resume is not None and not self.out[resume] else None
            self.turn = self.resume = chooser if chooser is not None else self.next_active(seat)
        elif self.turn == seat or (self.turn is not None and self.out[self.turn]):
            self.turn = self.next_active(seat)
            self.phase = PLAY
        if self.n_active == 1 and end_if_one:
            last = next(s for s in range(self.n) if not self.out[s])
            self._end_hand(last, "last standing")

    def _drop_penalty(self) -> None:
        """NM-34.3: the pending penalty is gone; the seat to act takes a normal turn."""
        self._clear_pending()
        self.phase = PLAY
        self.wd4 = None

    def _mercy_sweep(self, actor: int) -> None:
        """A14 end_of_action / end_of_turn: check every hand once the action is done."""
        if not self._mercy_limit:
            return
        for s in range(self.n):
            if self.out[s] or not self._over_limit(s):
                continue
            if s == self.turn and self.phase in PLAYING_PHASES:
                continue  # the action (draw then play, a Discard All choice) is not finished
            if (
                self.rules.mercy_timing == "end_of_turn"
                and s == self.turn == actor
                and (self.phase is not STACK_OR_ABSORB)
            ):
                continue  # the same player's turn goes on (Skip Everyone, 2-player Skip)
            events = self._events
            # A40: the penalty of a Draw Card whose own player this check knocks out stands
            # against its target by default ("cancelled": it goes with its player).
            cancel = (
                s == actor
                and self.phase is STACK_OR_ABSORB
                and self.turn != s
                and self.rules.knocked_out_draw_card == "cancelled"
            )
            self._knock_out(s)
            if cancel and self.phase is STACK_OR_ABSORB:
                self._drop_penalty()
            self._events = events
            if self.phase is OVER:
                return
        if self.phase is not OVER:
            self._after_resolution()

    # ------------------------------------------------------------------ UNO and challenges
    def _catch(self, seat: int, target: int) -> None:
        count = self.rules.uno_penalty_cards
        self.uno_window.discard(target)
        drawn, knocked = self._draw_cards(target, count, per_card_mercy=self._immediate())
        self.tally.caught(len(drawn))  # NM-37
        codes = [c.code for c in drawn]
        self._emit(
            EK.CATCH,
            (
                "{} catches {} not calling UNO: {} draws {} ({}) [NM-37]",
                self.names[seat],
                self.names[target],
                self.names[target],
                len(drawn),
                ", ".join(codes),
            ),
            target,
            {"by": seat, "cards": codes, "count": len(drawn)},
            public_text=(
                "{} catches {} not calling UNO: {} draws {} [NM-37]",
                self.names[seat],
                self.names[target],
                self.names[target],
                len(drawn),
            ),
        )
        if knocked:
            self._knock_out(target)

    def _challenge(self, seat: int) -> None:
        """CL-8: the challenged player shows their hand; guilty draws 4, else the challenger 6."""
        assert self.wd4 is not None
        info = self.wd4
        accused = info.seat
        self.wd4 = None
        hand = [c.code for c in self.hand_of(accused)]
        self._emit(
            EK.REVEAL_HAND,
            (
                "{} shows their hand to {}: {} [CL-8]",
                self.names[accused],
                self.names[seat],
                ", ".join(hand) or "no cards",
            ),
            seat,
            {"hand": hand, "of": accused},
            public_text=("{} shows their hand to {} [CL-8]", self.names[accused], self.names[seat]),
        )
        self._learn(seat, accused, self.hand_ids[accused])
        total = self.pending_total
        win = self.pending_win
        self._clear_pending()
        if info.guilty:
            drawn, _ = self._draw_cards(accused, 4, per_card_mercy=False)
            self.tally.cards_drawn += len(drawn)  # CL-8
            self._emit(
                EK.CHALLENGE,
                (
                    "Challenge succeeds: {} held {} and draws 4 [CL-8]",
                    self.names[accused],
                    info.colour and info.colour.word,
                ),
                accused,
                {"cards": [c.code for c in drawn], "count": 4},
                public_text=("Challenge succeeds: {} draws 4 [CL-8]", self.names[accused]),
            )
            self.pending_win = None
            self.phase = PLAY
            if self.rules.challenge_success_turn == "challenger_plays":
                self.turn = seat
            else:
                self.turn = self.next_active(seat)
            self._open_uno(accused)
            return
        drawn, _ = self._draw_cards(seat, total + 2, per_card_mercy=False)
        self.tally.cards_drawn += len(drawn)  # CL-8
        self._emit(
            EK.CHALLENGE,
            (
                "Challenge fails: {} draws {} ({}) and loses the turn [CL-8]",
                self.names[seat],
                len(drawn),
                ", ".join(c.code for c in drawn),
            ),
            seat,
            {"cards": [c.code for c in drawn], "count": len(drawn)},
            public_text=(
                "Challenge fails: {} draws {} and loses the turn [CL-8]",
                self.names[seat],
                len(drawn),
            ),
        )
        if win is not None:
            self.pending_win = None
            self._end_hand(win, "empty hand")
            return
        self.phase = PLAY
        self.turn = self.next_active(seat)

    # ------------------------------------------------------------------ end of hand, match
    def hand_points(self, winner: int) -> tuple[int, dict[int, int]]:
        """NM-40 / CL-13: the winner's points and each opponent's card points."""
        per_seat: dict[int, int] = {}
        for s in range(self.n):
            if s != winner and not self.out[s]:
                per_seat[s] = sum(ALL_CARDS[i].points for i in self.hand_ids[s])
        knocked = sum(self.out)
        bonus = 0 if self.classic else self.rules.knockout_bonus * knocked
        return sum(per_seat.values()) + bonus, per_seat

    def _end_hand(self, winner: int, how: str) -> None:
        r = self.rules
        points, per_seat = self.hand_points(winner)
        knocked = sum(self.out)
        self.hand_winner = winner
        self._clear_pending()
        self.wd4 = None  # CL-8: nothing is left to challenge once the hand is over
        name = self.names[winner]
        rule = "CL-13" if self.classic else "NM-40"
        parts = ", ".join(f"{self.names[s]} {p}" for s, p in per_seat.items())
        bonus = (
            f" + {knocked} knock-out(s) x {r.knockout_bonus}"
            if knocked and not self.classic
            else ""
        )
        how_text, how_rule = (
            ("is the last player standing", "NM-34")
            if how == "last standing"
            else ("empties their hand", "CL-10" if self.classic else "NM-38")
        )
        cards = {str(s): p for s, p in per_seat.items()}  # JSON object keys are strings
        if self.classic and r.classic_scoring == "lowest_wins":
            for s, p in per_seat.items():
                self.scores[s] += p
            self._emit(
                EK.HAND_END,
                (
                    "{} {}; each player adds their own card points ({}) [{}, CL-13]",
                    name,
                    how_text,
                    parts or "none",
                    how_rule,
                ),
                winner,
                {"winner": winner, "how": how, "cards": cards, "scores": list(self.scores)},
            )
            self.tally.ended(self.hand_number, self.dealer, winner, how, 0)  # CL-13
            done = max(self.scores) >= r.score_target
            match_winner = min(range(self.n), key=lambda s: self.scores[s])
        else:
            self.scores[winner] += points
            data = {
                "winner": winner,
                "how": how,
                "points": points,
                "cards": cards,
                "knocked_out": knocked,
                "scores": list(self.scores),
            }
            if r.scoring_enabled:
                said = f"{name} {how_text} and scores {points} ({parts or 'no cards'}{bonus}) "
                said += f"[{how_rule}, {rule}]"
            else:  # NM-39: a single hand is won, not scored (the points stay in the data)
                said = f"{name} {how_text} and wins the hand [{how_rule}]"
                data["scored"] = False
            self._emit(EK.HAND_END, said, winner, data)
            self.tally.ended(self.hand_number, self.dealer, winner, how, points)  # NM-38, NM-40
            done = self.scores[winner] >= r.score_target
            match_winner = winner
        self.hand_tallies = (*self.hand_tallies, self.tally)
        if not r.scoring_enabled:
            self.winner = winner
            self.phase = OVER
            self.turn = None
            return
        if done:
            self.winner = match_winner
            self.phase = OVER
            self.turn = None
            self._emit(
                EK.MATCH_END,
                (
                    "{} wins the match with {} points [{}]",
                    self.names[match_winner],
                    self.scores[match_winner],
                    "CL-13" if self.classic else "NM-41",
                ),
                match_winner,
                {"scores": list(self.scores)},
            )
            return
        # NM-41: deal a new hand; A38 dealer rotation.
        if r.dealer_rule == "winner_deals":
            self.dealer = winner
        else:
            self.dealer = (self.dealer + 1) % self.n
        self.hand_number += 1
        self.tally = self.tally.next_hand()  # NM-41: counted afresh from the deal
        deal(self)

    # ------------------------------------------------------------------ dealing

    # ------------------------------------------------------------------ errors

    # ------------------------------------------------------------------ views
    def view(self, seat: object, *, history: bool = True) -> PlayerView:
        """What ``seat`` may know (``None``: a spectator), as a typed, frozen view.

        Own hand, every hand size, the discard pile, active colour, direction, the pending
        stack, who is out, public history and publicly revealed cards; never another hand or
        the draw-pile order. It also carries what the rules make of them (the two-player
        rules, the next seat, the stack's floor), so callers never restate a rule.
        ``history=False`` leaves the event history out (an empty tuple), for callers that
        track it themselves. :meth:`PlayerView.to_json
        <nomercy.core.views.PlayerView.to_json>` gives the JSON form.

        Raises:
            NoMercyError: there is no such seat.
        """
        return _views.view(self, seat, history=history)

    def snapshot(self, seat: object) -> Snapshot:
        """What ``seat`` may know, compact: for encoders that run every step (RL).

        The same information as :meth:`view` without history, names, rules or scores, as
        integers: cards are :attr:`Card.index` values, colours indices into ``COLOURS``,
        ``-1`` stands for none. ``discard`` is the game's own list of cards (bottom first),
        not a copy: read it, never change it, and do not keep it across :meth:`apply`.

        Raises:
            NoMercyError: there is no such seat.
        """
        return _views.snapshot(self, seat)

    def public_history(self, *, whole_game: bool = False) -> list[dict[str, Any]]:
        """Public event dicts (what every seat saw) of the current hand, or of the game: the
        ones the game holds (after :meth:`forget`, the current hand's first
        ``hand_forgotten`` events are not among them)."""
        public = self._public
        log = self.log
        if len(public) < len(log):
            public.extend(e.public_dict() for e in log[len(public) :])
        return public[:] if whole_game else public[self.hand_start :]

    # ------------------------------------------------------------------ the record of the past
    @property
    def moves(self) -> int:
        """How many actions were applied: ``len(history)`` plus those :meth:`forget` let go."""
        return self.forgotten + len(self.history)

    def forget(self, keep: int) -> None:
        """Let go of the record of the past that play never reads: every action of
        ``history``, the events of the hands before this one, and this hand's events but the
        newest ``keep``. Play goes on exactly as before (the rules read the state, never the
        record), so a long-lived holder of a game (a web room, whose record is in its
        database) keeps its memory bounded however long the game runs.

        Counts stay: :attr:`moves` still counts every action and ``hand_forgotten`` the
        current hand's events let go (until the next deal). What needs the whole past then
        refuses with a :class:`NoMercyError`: a record (``GameRecord.from_game``), a position
        (:meth:`to_position`), and a view with history once part of the hand is gone.

        Raises:
            ValueError: ``keep`` is negative.
        """
        if keep < 0:
            raise ValueError(f"keep must be >= 0, not {keep}")
        self.forgotten += len(self.history)
        self.history = []
        cut = max(self.hand_start, len(self.log) - keep)
        if cut == 0:
            return
        self.hand_forgotten += cut - self.hand_start
        self.hand_start = 0
        del self.log[:cut]
        del self._public[: min(cut, len(self._public))]

    def check_whole(self, what: str) -> None:
        """Refuse ``what`` (a record, a position) if :meth:`forget` let part of the past go.

        Raises:
            NoMercyError: some of the game's actions or of its hand's events are forgotten.
        """
        if self.forgotten or self.hand_forgotten:
            raise NoMercyError(
                f"{what}: this game let go of its first {self.forgotten} actions and "
                f"{self.hand_forgotten} events of the hand (Game.forget): its record is "
                "where it was stored"
            )

    # ------------------------------------------------------------------ positions
    def to_position(self) -> dict[str, Any]:
        """The whole state as a JSON-serialisable dict (docs/notation.md).

        ``Game.from_position(g.to_position())`` continues exactly like ``g``, draws included.

        Raises:
            NoMercyError: the game let go of part of its past (:meth:`forget`).
        """
        return _positions.to_position(self)

    @classmethod
    def from_position(cls, position: Mapping[str, Any] | str) -> Game:
        """A game from a position (a dict or its JSON text); see docs/notation.md.

        Raises:
            NotationError: malformed position, unknown card, or more copies than the deck holds.
            RuleSetError: unknown preset or option.
        """
        return _positions.from_position(cls, position)

    # ------------------------------------------------------------------ search copies
    def search_copy(self) -> Game:
        """A copy that plays on exactly like :meth:`copy`'s, for search: events off and no past.

        ``record_events`` is off and the record of the past is left behind (``log``, public
        history, ``history``, ``warnings``, opening events, ``start`` and ``seed`` are
        empty), so views and positions of the copy show no history; everything that decides
        what happens next is copied. Made for games played forward many times
        (:meth:`Redealer.sample_for_search <nomercy.core.redeal.Redealer.sample_for_search>`,
        ISMCTS): no field dict is built, unlike :meth:`copy`.
        """
        g = Game.__new__(Game)
        g.rules = self.rules
        g.n = self.n
        g.names = list(self.names)
        g.hand_ids = _copy_rows(self.hand_ids)
        g.out = list(self.out)
        g.uno_called = list(self.uno_called)
        g.uno_window = set(self.uno_window)
        g.turn = self.turn
        g.direction = self.direction
        g.discard = list(self.discard)
        g.colour = self.colour
        g._draw = list(self._draw)
        g.set_aside = list(self.set_aside)
        g.pending_total = self.pending_total
        g.pending_last = self.pending_last
        g.pending_chain = list(self.pending_chain)
        g.chain_wild = self.chain_wild
        g.phase = self.phase
        g.drawn = self.drawn
        g.key = self.key
        g.deal_version = self.deal_version
        g.dealer = self.dealer
        g.scores = list(self.scores)
        g.hand_number = self.hand_number
        g.hand_winner = self.hand_winner
        g.winner = self.winner
        g.wd4 = self.wd4
        g.pending_win = self.pending_win
        g.resume = self.resume
        g.roulette_colour = self.roulette_colour
        g.known_ids = _copy_rows(self.known_ids)
        g.known_on = self.known_on[0 : len(self.known_on)]
        g.known_live = self.known_live
        g.known_held = _copy_rows(self.known_held)
        g.log = []
        g._public = []
        g.hand_start = 0
        g.warnings = []
        g.total_cards = self.total_cards
        g.history, g.forgotten, g.hand_forgotten = [], 0, 0
        g.start = None
        g.seed = 0
        g._events = []
        g.record_events = False
        g._lseat = -1
        g._lids = _NO_IDS
        g._legal = {}
        g.card_marks = _zeros(NUM_CARDS)
        g.mark_epoch = 0
        g.n_active = self.n_active
        g.draw_mode = self.draw_mode
        g.opening_events = []
        g.tally = self.tally.copy()
        g.hand_tallies = self.hand_tallies
        self._copy_rule_facts(g)
        return g

    def _copy_rule_facts(self, g: Game) -> None:
        """Give ``g`` this game's rule-set facts and tables (:meth:`_setup_caches` derives
        them once per rule set; a search copy shares them instead of deriving them again)."""
        g.classic = self.classic
        g.jump_in = self.jump_in
        g.may_draw = self.may_draw
        g._eager_reshuffle = self._eager_reshuffle
        g._no_two_player = self._no_two_player
        g._two_player_initial = self._two_player_initial
        g.can_stack = self.can_stack
        g.stack_on_total = self.stack_on_total
        g.stack_match = self.stack_match
        g.deflect = self.deflect
        g._mercy_limit = self._mercy_limit
        g._immediate_mercy = self._immediate_mercy
        g._raise_on_exhaustion = self._raise_on_exhaustion
        g.last_card_ends = self.last_card_ends
        g.colour_on_resolution = self.colour_on_resolution
        g._deferred_mercy = self._deferred_mercy
        g._voluntary_draw = self._voluntary_draw
        g._no_playable_action = self._no_playable_action
        g.stack_mandatory = self.stack_mandatory
        g.must_play_drawn = self.must_play_drawn
        g.seven_zero = self.seven_zero
        g.playable_table = self.playable_table
        g.plain_variants = self.plain_variants
        g.special_cards = self.special_cards
        g.restricted_cards = self.restricted_cards
        g._acts = self._acts


#: ``P0``, ``P1``, ...: the players' names when none are given, by seat count (``Game``
#: copies the list it is given).
_NAMES: Final[list[list[str]]] = [[f"P{i}" for i in range(n)] for n in range(MAX_SEATS + 1)]


#: Per (rule set's id, seat count), a blank game holding the facts and tables
#: ``Game._setup_caches`` copies; emptied when it grows past _RECENT entries.
_FACTS_OF: Final[dict[tuple[int, int], Game]] = {}
_RECENT: Final = 256


# Compiled by mypyc, Game is a native class: no instance __dict__, but it lists its fields.
_NATIVE_FIELDS: tuple[str, ...] | None = getattr(Game, "__mypyc_attrs__", None)


def _get_fields(game: Game) -> dict[str, Any]:
    """A new dict of every attribute of ``game`` (its ``__dict__`` in pure Python)."""
    if _NATIVE_FIELDS is None:
        return game.__dict__.copy()
    # mypyc's generated __getstate__ builds that dict in C.
    return cast(dict[str, Any], game.__getstate__())


def _set_fields(game: Game, fields: dict[str, Any]) -> None:
    """Set the attributes in ``fields`` on ``game``."""
    if _NATIVE_FIELDS is None:
        game.__dict__.update(fields)
        return
    game.__setstate__(fields)  # type: ignore[attr-defined]  # generated by mypyc


#: Legality's packed tables (per rule set) and scratch (librt.vecs): left out of a pickle.
_PACKED: Final = ("playable_table", "special_cards", "restricted_cards", "card_marks", "mark_epoch")


def _restored(fields: dict[str, Any]) -> Game:
    """A game unpickled or copied (:meth:`Game.__reduce__`): its fields, and legality's
    packed tables and scratch made again from its rules."""
    game = Game.__new__(Game)
    playable, _, special, restricted = tables(fields["rules"])
    fields["playable_table"] = playable
    fields["special_cards"] = special
    fields["restricted_cards"] = restricted
    fields["card_marks"] = _zeros(NUM_CARDS)
    fields["mark_epoch"] = 0
    fields["hand_ids"] = vec[vec[i64]]([vec[i64](v) for v in fields["hand_ids"]])
    fields["known_ids"] = vec[vec[i64]]([vec[i64](v) for v in fields["known_ids"]])
    fields["known_on"] = vec[bool](fields["known_on"])
    fields["known_held"] = vec[vec[i64]]([vec[i64](v) for v in fields["known_held"]])
    _set_fields(game, fields)
    return game


def _copy_rows(rows: vec[vec[i64]]) -> vec[vec[i64]]:
    """A copy of ``Game.hand_ids``, ``known_ids`` or ``known_held`` that shares no buffer:
    librt's vectors share theirs between a vector and what ``pop``/``remove``/``append`` made
    of it (an emptied hand too, whose next append writes into it), so each game needs its
    own rows."""
    found = rows[0 : len(rows)]
    for k in range(len(found)):
        row = found[k]
        found[k] = row[0 : len(row)]
    return found


def new_game(
    players: int,
    *,
    rules: str | Mapping[str, Any] | RuleSet = "no-mercy",
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    names: list[str] | None = None,
    deal_version: int = DEAL_VERSION,
) -> Game:
    """Shuffle, choose a dealer, deal and flip the start card.

    Args:
        players: number of seats (No Mercy 2–6 by default, classic 2–10).
        rules: ``"no-mercy"``, ``"classic"``, ``{"preset": …, "options": {…}}`` or a RuleSet.
        options: option values by RULES.md §6 name.
        seed: the shuffle seed, any integer (read modulo 2**64); the same seed and actions
            give the same game.
        names: player names (default ``P0``, ``P1``, …).
        deal_version: the generator of the shuffles (docs/notation.md, "Deal versions"):
            1 (the default, ``random.Random``) or 2 (xoshiro128++, cheaper); a seed deals
            different games under each.

    Raises:
        RuleSetError: unknown preset/option/value, a player count out of range, or an
            unknown deal version.
        TypeError: ``players``, ``seed`` or ``deal_version`` is not an integer (the
            compiled build refuses it as the call is made, with Python's own message), or
            ``names`` is not a list of strings.
    """
    # TypeError, as the compiled build's argument check raises; it lets a bool through as
    # 0 or 1 (then a count out of range), so only the pure build names a bool here.
    if isinstance(players, bool) or not isinstance(players, int):
        raise TypeError(f"players must be an integer, not {players!r}")
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, not {seed!r}")
    version = check_deal_version(deal_version)
    # A rule set without options is itself (make_rules, a Python call, says so too).
    ruleset = rules if type(rules) is RuleSet and not options else make_rules(rules, options)
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise RuleSetError(
            f"{players} players is outside {ruleset.min_players}-{ruleset.max_players} for "
            f"preset {ruleset.preset!r} (NM-1, A30; raise max_players up to 10 to allow more)"
        )
    check_deal(ruleset)
    if names is not None:
        given: list[Any] = names  # items read as objects: the compiled build casts a str
        if not isinstance(given, list) or not all(isinstance(name, str) for name in given):
            raise TypeError(f"names must be a list of strings, not {names!r}")
        if len(names) != players:
            raise RuleSetError(f"{len(names)} names given for {players} players")
    g = Game(ruleset, names or _NAMES[players])  # players is in range: checked above
    g.seed = seed
    g.deal_version = version
    g.key = next_key(seed & MASK)
    if not g.classic and players > 6:
        g.warnings.append(
            f"{players} players: the draw pool can run out with 7 or more (A30, NM-36)"
        )
    events: list[Event] = []
    g._events = events
    deal(g, choose_dealer=True)
    g.log = list(events)
    g.opening_events = events
    return g
