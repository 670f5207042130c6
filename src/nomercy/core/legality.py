"""Legality: every action a seat may take now, as ids (``nomercy.core.ids``).

The one place the engine decides what is legal. ``Game.legal_ids``, ``Game.legal_actions``,
``Game.step`` and ``Game.apply`` all read :func:`compute_legal`; the order of the ids is the
order of the actions (hand order, then variants), which the same-seed-same-game contract of
bots relies on. Functions take the game as ``g``; hot tables live per rule set or game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from librt.vecs import vec
from mypy_extensions import i64

from nomercy.core.base import (
    CHOOSE_COLOUR,
    DISCARD_ALL_SUBSET,
    DISCARD_ALL_TOP,
    K_DISCARD_ALL,
    K_DRAW_FOUR,
    K_NUMBER,
    K_REVERSE,
    K_SKIP,
    K_SKIP_EVERYONE,
    K_WILD_COLOUR_ROULETTE,
    K_WILD_DRAW_FOUR,
    K_WILD_REVERSE_DRAW_FOUR,
    OVER,
    PLAY,
    PLAY_DRAWN,
    ROULETTE_COLOUR,
    STACK_OR_ABSORB,
    Phase,
    Wd4,
)
from nomercy.core.cards import ALL_CODES, COLOURS, Card, Colour
from nomercy.core.ids import (
    CARD_OFFSET,
    CHALLENGE_ID,
    COLOUR_BASE,
    DRAW_ID,
    JUMP_BASE,
    PASS_ID,
    PLAY_BASE,
    UNO_ID,
    catch_id,
    play_id,
)
from nomercy.core.rules import RuleSet

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = [
    "AIM_NEXT",
    "AIM_PASSED",
    "AIM_REVERSED",
    "AIM_SELF",
    "aim_penalty",
    "answering_flags",
    "answers_stack",
    "cards_shed",
    "compute_legal",
    "is_playable",
    "matches",
    "playable_flags",
    "stack_floor_after",
    "stack_threshold",
    "tables",
    "turn_after_play",
    "turn_after_resolution",
    "uno_due",
    "variants",
    "wild_draw_allowed",
    "zero_pass_giver",
]

ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(code) for code in ALL_CODES)
NUM_CARDS: Final = len(ALL_CARDS)
_RED: Final = Colour.RED
_YELLOW: Final = Colour.YELLOW
_GREEN: Final = Colour.GREEN
# Per (A08, A11) option pair: (top card, active colour) slot -> playable flag per Card.index,
# packed (librt.vecs: compiled, legality's hand loops read them unboxed); _UNSET until needed.
_PLAYABLE: Final[dict[tuple[bool, bool], list[vec[bool]]]] = {}
_UNSET: Final[vec[bool]] = vec[bool]()


def _colour_slot(colour: Colour | None) -> int:
    """0 for none, 1-4 in ``COLOURS`` order, by identity (an enum's hash is a Python call)."""
    if colour is None:
        return 0
    if colour is _RED:
        return 1
    if colour is _YELLOW:
        return 2
    return 3 if colour is _GREEN else 4


# The plain variants (ids) of each card (None: not worked out yet), per the options they depend
# on (seat-free: a plain variant names no seat), by ``_variant_slot``: ``Card.index`` for a
# play that leaves two or more cards, plus ``NUM_CARDS`` for one that leaves one (its UNO
# call), plus ``2 * NUM_CARDS`` for the last card (A16, C08).
_VARIANTS: Final[dict[tuple[str, str, str, bool, bool, bool, bool], list[list[int] | None]]] = {}
_NO_COLOUR: Final[tuple[Colour | None, ...]] = (None,)
_COLOUR_IDS: Final[tuple[int, ...]] = tuple(COLOUR_BASE + i for i in range(len(COLOURS)))


#: Per rule-set key (see tables()), flags by Card.index: the cards whose variants
#: are never cached, and the wild draw cards restricted by A34 / CL-4.
_CARD_SETS: Final[dict[tuple[bool, bool, bool], tuple[vec[bool], vec[bool]]]] = {}


def _card_sets(r: RuleSet) -> tuple[vec[bool], vec[bool]]:
    seven_zero = r.facts.seven_zero
    special = [c.kind is K_DISCARD_ALL or (seven_zero and c.number in (0, 7)) for c in ALL_CARDS]
    # A34 restricts every wild draw card, classic's CL-4 only the Wild Draw Four.
    restricted_kind = r.facts.wild_draw_restricted
    restricted = [
        bool(
            restricted_kind
            and c.is_wild
            and c.draw_value
            and (not r.is_classic or c.kind is K_WILD_DRAW_FOUR)
        )
        for c in ALL_CARDS
    ]
    return vec[bool](special), vec[bool](restricted)


def tables(
    r: RuleSet,
) -> tuple[list[vec[bool]], list[list[int] | None], vec[bool], vec[bool]]:
    """A game's legality tables, shared by every game of the same options: the playable
    flags per (top card, colour) slot, the plain variants per card, and flags by
    ``Card.index`` for the cards whose variants are never cached and the restricted wild
    draw cards (A34 / CL-4)."""
    # The matching table depends only on these two options (A08, A11).
    playable = _PLAYABLE.setdefault(
        (r.discard_all_symbol_match, r.plus4_symbols_shared), [_UNSET] * (NUM_CARDS * 5)
    )
    # Plain variants (no 7/0, no Discard All, no jump-in) depend only on these options (what a
    # wild names, and for the last card what it ends: A16, C08).
    key7 = (
        r.roulette_chooser,
        r.roulette_active_colour,
        r.wild_colour_timing,
        r.last_card_effect != "resolve_effects",
        r.challenge_on_winning_card,
        r.wd4_challenge,
        r.is_classic,
    )
    base = _VARIANTS.setdefault(key7, [None] * (NUM_CARDS * 3))
    facts = r.facts
    key = (r.is_classic, facts.seven_zero, facts.wild_draw_restricted)
    sets = _CARD_SETS.get(key)
    if sets is None:
        sets = _CARD_SETS[key] = _card_sets(r)
    return playable, base, sets[0], sets[1]


def compute_legal(g: Game, seat: int) -> list[int]:
    """The legal ids of ``seat``: the one place legality is decided (objects and ids)."""
    if g.phase is OVER or not 0 <= seat < g.n or g.out[seat]:
        return []
    # ``turn`` read into a narrowed local: ``seat == g.turn`` compares boxed objects.
    turn = g.turn
    to_act = turn is not None and seat == turn
    acts: list[int] = turn_actions(g) if to_act else []
    if g.jump_in and not to_act and g.phase is PLAY and not g.pending_total:
        top = g.discard[-1]
        if top.index in g.hand_ids[seat]:  # C04: an identical card, offered once
            _add_ids(acts, variants(g, seat, top, jump=True))
    if uno_due(g, seat):
        acts.append(UNO_ID)
    if len(g.uno_window):  # a set's truth value is a generic call, its len() is not
        n = g.n
        for t in sorted(g.uno_window):
            if t != seat and uno_due(g, t):
                acts.append(catch_id((t - seat) % n))
    return acts


def uno_due(g: Game, seat: int) -> bool:
    """NM-37: ``seat`` holds one card and has not called UNO: it may call, and (in the UNO
    window) others may catch it."""
    return len(g.hand_ids[seat]) == 1 and not g.uno_called[seat]


def playable_flags(g: Game) -> vec[bool]:
    """Whether each card (by ``Card.index``) matches the top card and active colour now
    (cached per pair and matching options)."""
    key = g.discard[-1].index * 5 + _colour_slot(g.colour)
    found = g.playable_table[key]
    if len(found) == 0:  # _UNSET
        found = g.playable_table[key] = vec[bool]([is_playable(g, c) for c in ALL_CARDS])
    return found


def is_playable(g: Game, card: Card) -> bool:
    """NM-12 / CL-4 matching with nothing pending."""
    return matches(card, g.discard[-1], g.colour, g.rules)


def matches(card: Card, top: Card, colour: Colour | None, rules: RuleSet) -> bool:
    """NM-12 / CL-4: whether ``card`` may go on ``top`` under the active ``colour``, with
    nothing pending (for callers that hold no game, such as the re-deal's positions)."""
    if card.is_wild:
        return True
    if card.colour is colour:
        return True
    if card.kind is K_NUMBER:
        return card.number == top.number
    if card.kind is top.kind:
        return card.kind is not K_DISCARD_ALL or rules.discard_all_symbol_match
    # A11: a coloured +4 and a Wild Reverse +4 share the symbol only with the option.
    return (
        rules.plus4_symbols_shared
        and card.kind is K_DRAW_FOUR
        and top.kind is K_WILD_REVERSE_DRAW_FOUR
    )


def wild_draw_allowed(g: Game, seat: int, card: Card) -> bool:
    """A34 / CL-4: a restricted wild draw needs no card of the active colour in hand."""
    if not g.restricted_cards[card.index]:  # which cards the options restrict: _card_sets
        return True
    return not holds_colour(g, seat, g.colour)


def holds_colour(g: Game, seat: int, colour: Colour | None) -> bool:
    """Whether ``seat``'s hand holds a card of ``colour`` (``None``: a wild)."""
    for i in g.hand_ids[seat]:  # noqa: SIM110 (a loop: no generator per call)
        if ALL_CARDS[i].colour is colour:
            return True
    return False


def wd4_played(g: Game, seat: int, colour: Colour | None) -> Wd4:
    """CL-8: the record of the Wild +4 ``seat`` played on the active ``colour``: guilty if
    its hand (the Wild +4 gone) holds a card of that colour (a wild has none; no active
    colour, no guilt). The play (``Game``) and a re-deal that gives the accused new cards
    (``nomercy.core.redeal``) both make it here."""
    return Wd4(seat, colour is not None and holds_colour(g, seat, colour), colour)


def turn_actions(g: Game) -> list[int]:
    seat = g.turn
    assert seat is not None
    phase = g.phase
    hand: vec[i64] = g.hand_ids[seat]
    acts: list[int] = []
    out: list[Any] = acts  # the same list, its ids appended as read (see _add_ids)
    if phase is PLAY:
        playable = playable_flags(g)
        restricted = g.restricted_cards
        special = g.special_cards
        base = g.plain_variants  # variants' cache, inlined
        offset = _variant_slot(len(hand), 0)
        found = False
        # Each card once, in hand order: a card is seen when its mark is this epoch's.
        g.mark_epoch += 1
        epoch: i64 = g.mark_epoch
        mark: vec[i64] = g.card_marks  # unboxed reads and writes when compiled
        for i in hand:
            if playable[i] and mark[i] != epoch:
                mark[i] = epoch
                if restricted[i] and not wild_draw_allowed(g, seat, ALL_CARDS[i]):
                    continue
                found = True
                cached = None if special[i] else base[offset + i]
                ids: list[Any] = cached if cached is not None else variants(g, seat, ALL_CARDS[i])
                if len(ids) == 1:  # most cards have one play: no call (Any: no unboxing)
                    out.append(ids[0])
                else:
                    _add_ids(acts, ids)
        if not found or g.may_draw:
            acts.append(DRAW_ID)
    elif phase is STACK_OR_ABSORB:
        acts = stack_actions(g, seat)
    elif phase is PLAY_DRAWN:
        assert g.drawn is not None
        _add_ids(acts, variants(g, seat, g.drawn))
        if may_keep_drawn(g):
            acts.append(PASS_ID)
    elif phase is ROULETTE_COLOUR or phase is CHOOSE_COLOUR:
        acts.extend(_COLOUR_IDS)
    elif phase is DISCARD_ALL_TOP:
        colour = g.discard[-1].colour
        for card in _distinct(hand):
            if card.colour is colour:
                _add_ids(acts, variants(g, seat, card, on_da=True))
        acts.append(PASS_ID)
    elif phase is DISCARD_ALL_SUBSET:
        colour = g.discard[-1].colour
        size = len(hand)
        for card in _distinct(hand):
            if card.colour is colour:
                acts.append(play_id(card, None, 0, False, False))
                if size == 2:
                    acts.append(play_id(card, None, 0, True, False))
        acts.append(PASS_ID)
    return acts


def _add_ids(acts: list[int], ids: list[Any]) -> None:
    """``acts.extend(ids)``, cheaper compiled: a list's ``extend`` is a generic slice
    assignment, and ids read as ``int`` would be unboxed and boxed again (``Any`` is not)."""
    out: list[Any] = acts
    for i in ids:
        out.append(i)


def _distinct(hand: vec[i64]) -> list[Card]:
    """The cards of ``hand`` (indices), each once, in hand order."""
    return [ALL_CARDS[i] for i in dict.fromkeys(hand)]


def may_keep_drawn(g: Game) -> bool:
    if g.classic or g.draw_mode == "draw_until_playable":
        return not g.must_play_drawn
    return True


def _answers(
    card: Card, floor: int, top: Card, colour: Colour | None, deflect: bool, match: bool
) -> bool:
    """:func:`answers_stack` with the options read: ``deflect`` A07, ``match`` A05."""
    if card.draw_value >= floor:  # NM-18: at least the floor (A04 says which)
        return not match or card.is_wild or card.colour is colour or card.kind is top.kind
    # A07 skip_reverse_deflect: a Skip or Reverse matching the pile passes the penalty on.
    return (
        deflect
        and (card.kind is K_SKIP or card.kind is K_REVERSE)
        and (card.colour is colour or card.kind is top.kind)
    )


def answers_stack(rules: RuleSet, card: Card, floor: int, top: Card, colour: Colour | None) -> bool:
    """Whether ``card`` may be stacked on a pending penalty whose floor is ``floor``.

    NM-18: a Draw Card of at least the floor (the last card's value or, under A04
    ``running_total``, the total: :attr:`PlayerView.stack_floor
    <nomercy.core.views.PlayerView.stack_floor>`, :func:`stack_floor_after`); under A05
    ``stack_requires_match`` it must also be wild or match ``colour`` (the active colour) or
    ``top``'s symbol; under A07 ``skip_reverse_deflect`` a Skip or Reverse of the active
    colour or the top's symbol deflects it. The same test the engine's stack decision
    applies to every card of the hand (:func:`compute_legal`).

    >>> from nomercy import Card, Colour, make_rules
    >>> rules = make_rules("no-mercy")
    >>> answers_stack(rules, Card("B+4"), 4, Card("WR+4"), Colour.RED)
    True
    >>> answers_stack(rules, Card("R+2"), 4, Card("WR+4"), Colour.RED)
    False
    """
    deflect = rules.stack_deflection == "skip_reverse_deflect"
    return _answers(card, floor, top, colour, deflect, rules.stack_requires_match)


#: answering_flags' tables by (A07 deflection, A05 match, floor, top index, colour slot).
_ANSWERING: Final[dict[tuple[bool, bool, int, int, int], list[bool]]] = {}


def answering_flags(rules: RuleSet, floor: int, top: Card, colour: Colour | None) -> list[bool]:
    """:func:`answers_stack` for every card at once, by :attr:`Card.index` (cached): for code
    that weighs many cards against one stack, e.g. the unseen cards a seat may hold.

    >>> from nomercy import Card, Colour, make_rules
    >>> flags = answering_flags(make_rules("no-mercy"), 4, Card("R+4"), Colour.RED)
    >>> flags[Card("W+6").index], flags[Card("R+2").index]
    (True, False)
    """
    deflect = rules.stack_deflection == "skip_reverse_deflect"
    match = rules.stack_requires_match
    key = (deflect, match, floor, top.index, _colour_slot(colour))
    found = _ANSWERING.get(key)
    if found is None:
        found = _ANSWERING[key] = [
            _answers(c, floor, top, colour, deflect, match) for c in ALL_CARDS
        ]
    return found


def stack_floor_after(rules: RuleSet, total: int, card: Card) -> int:
    """The floor of the stack once ``card`` is stacked on a penalty of ``total`` cards (or
    opens one, ``total`` 0): its own draw value, or under A04 ``running_total`` the new total
    (NM-18). The next seat answers with a card :func:`answers_stack` accepts on that floor.

    >>> from nomercy import Card, make_rules
    >>> stack_floor_after(make_rules("no-mercy"), 6, Card("W+4"))
    4
    """
    value = card.draw_value
    return rules.facts.stack_floor(total + value, value)


#: Where :func:`aim_penalty` sends a Draw Card's penalty, by the rule the engine's event cites.
AIM_NEXT: Final = 0
"""NM-16: the next player in the direction of play."""
AIM_REVERSED: Final = 1
"""NM-24: a Wild Reverse +4 reverses the direction; the next player in the new one."""
AIM_SELF: Final = 2
"""NM-24 (in a stack A28 ``"self"``): with two players, the Wild Reverse +4's own player."""
AIM_PASSED: Final = 3
"""A28 ``"opponent"``: stacked with two players, the Wild Reverse +4 passes the penalty on."""


def aim_penalty(
    rules: RuleSet,
    card: Card,
    seat: int,
    direction: int,
    out: Sequence[bool],
    two_player: bool,
    stacked: bool,
    last: bool,
) -> tuple[int, int, int]:
    """Who faces the penalty of the Draw Card ``card`` that ``seat`` plays now, as
    ``(target, direction after the play, aim)``, ``aim`` one of the ``AIM_*`` constants.

    The engine aims every penalty with it (``Game._open_stack``, the last-card penalty) and
    :meth:`PlayerView.penalty_target <nomercy.core.views.PlayerView.penalty_target>` asks it
    for a seat, so no shell restates the rule. NM-16: the next active seat (``out`` marks the
    seats knocked out) in ``direction``. NM-24: a Wild Reverse +4 first reverses the
    direction and hits the next seat in the new one, except under the two-player rules
    (``two_player``, A29), where one that opens a chain (not ``stacked``) hits its own
    player; A28 ``wrd4_two_player_in_stack`` says whether one stacked into a chain does the
    same (``"self"``) or passes the penalty on (``"opponent"``). ``last``: the player's last
    card (A16 ``apply_draw_penalty`` or ``resolve_effects``, A17): the hand ends, so the next
    seat in the (new) direction draws.

    >>> from nomercy import Card, make_rules
    >>> rules = make_rules("no-mercy")
    >>> wr4 = Card("WR+4")
    >>> aim_penalty(rules, wr4, 0, 1, [False] * 3, False, False, False) == (2, -1, AIM_REVERSED)
    True
    >>> aim_penalty(rules, wr4, 0, 1, [False] * 2, True, False, False) == (0, -1, AIM_SELF)
    True
    >>> aim_penalty(rules, wr4, 0, 1, [False] * 2, True, True, False) == (1, -1, AIM_PASSED)
    True
    """
    if card.kind is K_WILD_REVERSE_DRAW_FOUR:
        direction = -direction
        if last:
            aim = AIM_REVERSED
        elif two_player and (not stacked or rules.wrd4_two_player_in_stack == "self"):
            return seat, direction, AIM_SELF
        elif two_player:
            aim = AIM_PASSED
        else:
            aim = AIM_REVERSED
    else:
        aim = AIM_NEXT
    n = len(out)
    q = (seat + direction) % n
    while out[q]:
        q = (q + direction) % n
    return q, direction, aim


def _after(seat: int, direction: int, out: list[bool]) -> int:
    """RULES.md §2 ``next``: the first active seat after ``seat`` in ``direction``."""
    n = len(out)
    q = (seat + direction) % n
    while out[q]:
        q = (q + direction) % n
    return q


def turn_after_play(
    rules: RuleSet,
    card: Card,
    seat: int,
    direction: int,
    out: list[bool],
    two_player: bool,
    stacked: bool,
) -> tuple[int, int]:
    """The seat the engine asks next once ``seat`` has played ``card`` (not its last card),
    and the direction after the play, as ``(seat, direction)``.

    The engine passes the turn with it (``Game._resolve``) and
    :meth:`PlayerView.seat_after_play <nomercy.core.views.PlayerView.seat_after_play>` reads
    it, so no shell restates who plays after a card. ``out`` marks the seats knocked out;
    ``two_player`` is whether the two-player rules apply (A29); ``stacked``: the card goes
    onto a pending penalty (NM-18; a Skip or Reverse there deflects it, A07).

    - A Draw Card: the seat that faces its penalty (:func:`aim_penalty`: NM-16, NM-24, A28).
    - A07 deflection: the next seat (a Reverse first reverses the direction).
    - NM-23 Skip: ``next(next(p))``, which with two players is ``p`` itself.
    - NM-25 Reverse: the direction reverses and ``next(p)`` in the new one plays; with two
      players (A29) ``p`` plays again.
    - NM-26 Skip Everyone: ``p`` takes another turn.
    - NM-30 Wild Colour Roulette: the victim ``next(p)``, who names the colour (A20
      ``"player"``: who reveals at once; the turn then passes on, see
      :func:`turn_after_resolution`).
    - Anything else (NM-22 numbers, NM-27 Discard All, NM-29 0, NM-31 7, a Wild): ``next(p)``.

    >>> from nomercy import Card, make_rules
    >>> rules = make_rules("no-mercy")
    >>> turn_after_play(rules, Card("RR"), 0, 1, [False] * 3, False, False)
    (2, -1)
    >>> turn_after_play(rules, Card("RR"), 0, 1, [False] * 2, True, False)
    (0, -1)
    >>> turn_after_play(rules, Card("RS"), 0, 1, [False, False, True, False], False, False)
    (3, 1)
    """
    kind = card.kind
    if kind is K_NUMBER:  # the most frequent play first
        return _after(seat, direction, out), direction
    if card.draw_value:
        target, direction, _ = aim_penalty(
            rules, card, seat, direction, out, two_player, stacked, False
        )
        return target, direction
    if kind is K_REVERSE:
        direction = -direction
        if two_player and not stacked:
            return seat, direction
    elif stacked:  # A07: the Skip skips its player out of the penalty
        pass
    elif kind is K_SKIP:
        return _after(_after(seat, direction, out), direction, out), direction
    elif kind is K_SKIP_EVERYONE:
        return seat, direction
    return _after(seat, direction, out), direction


def turn_after_resolution(seat: int, direction: int, out: list[bool]) -> int:
    """The seat that plays after ``seat`` absorbs a penalty (NM-17, CL-6) or reveals for a
    Roulette (NM-30): ``seat`` loses its turn, and ``next(seat)`` plays (the engine's
    ``Game._absorb`` and ``Game._reveal`` pass the turn with it).

    >>> turn_after_resolution(1, 1, [False] * 2)
    0
    """
    return _after(seat, direction, out)


def zero_pass_giver(seat: int, direction: int, out: list[bool]) -> int:
    """NM-29, A26: the seat whose hand ``seat`` receives in a 0-pass, every active hand
    passing to the next active seat in ``direction``: the previous active seat.

    >>> zero_pass_giver(0, 1, [False, False, True, False])
    3
    """
    return _after(seat, -direction, out)


def cards_shed(rules: RuleSet, hand: Sequence[Card], card: Card, phase: Phase) -> list[Card]:
    """The cards that leave ``hand`` when its holder plays ``card`` (in ``hand``) in
    ``phase``, ``card`` first, as the engine applies the play (``Game._play_card``).

    NM-7: the card alone, except for a Discard All played by matching (phase ``play`` or
    ``play_drawn``; stacked, A07, it is one card), which sheds every other card of its colour
    with it (NM-27; wilds have no colour and stay). Under A09 ``choose_top_and_fire`` and
    ``optional_subset`` a Discard All that leaves other cards of its colour sheds only itself
    now: the engine asks next (phases ``discard_all_top``, ``discard_all_subset``) which go.
    In phase ``discard_all_top`` the chosen card goes on top with every other card of its
    colour under it; in ``discard_all_subset`` each play sheds one card.

    >>> from nomercy import Card, make_rules
    >>> from nomercy.core.base import Phase
    >>> hand = [Card("RDA"), Card("R5"), Card("B5"), Card("W+6"), Card("R+2")]
    >>> [c.code for c in cards_shed(make_rules("no-mercy"), hand, hand[0], Phase.PLAY)]
    ['RDA', 'R5', 'R+2']
    """
    if sheds_alone(rules, card, phase, others=False):
        return [card]
    colour = card.colour
    shed = [card]
    played = False  # one copy is the card played (cards are shared objects)
    for c in hand:
        if c.colour is colour:
            if c is card and not played:
                played = True
            else:
                shed.append(c)
    if len(shed) > 1 and sheds_alone(rules, card, phase, others=True):
        return [card]
    return shed


def sheds_alone(rules: RuleSet, card: Card, phase: Phase, *, others: bool) -> bool:
    """Whether ``card`` played in ``phase`` leaves its holder's hand alone
    (:func:`cards_shed`), ``others``: whether the hand holds other cards of its colour."""
    if phase is DISCARD_ALL_TOP:
        return False
    if card.kind is not K_DISCARD_ALL or not (phase is PLAY or phase is PLAY_DRAWN):
        return True
    return others and rules.discard_all_mode != "bury_no_effects"


def stack_threshold(g: Game) -> int | None:
    """NM-18 / A04: the smallest draw value a card needs to be stacked on the pending penalty
    (the last card's value, or the running total), ``None`` when no card may be stacked: a
    last card's penalty (A17), or classic without C04 ``classic_stacking``."""
    if g.pending_win is not None or not g.can_stack:
        return None
    return g.pending_total if g.stack_on_total else g.pending_last


def stack_actions(g: Game, seat: int) -> list[int]:
    r = g.rules
    acts: list[int] = []
    threshold = stack_threshold(g)
    if threshold is not None:
        top = g.discard[-1]
        colour = g.colour
        deflect = g.deflect
        match = g.stack_match
        # Each card once, in hand order (epoch marks, as in turn_actions).
        g.mark_epoch += 1
        epoch: i64 = g.mark_epoch
        mark: vec[i64] = g.card_marks  # unboxed reads and writes when compiled
        for i in g.hand_ids[seat]:
            if mark[i] == epoch:
                continue  # seen: a card answers or not whichever copy it is
            mark[i] = epoch
            card = ALL_CARDS[i]
            if _answers(card, threshold, top, colour, deflect, match):
                _add_ids(acts, variants(g, seat, card, stacking=True))
    if g.wd4 is not None and r.wd4_challenge:
        acts.append(CHALLENGE_ID)
    if not (acts and g.stack_mandatory):
        acts.append(DRAW_ID)
    return acts


def variants(  # noqa: C901 (measured in tests/test_complexity.py)
    g: Game,
    seat: int,
    card: Card,
    *,
    jump: bool = False,
    stacking: bool = False,
    on_da: bool = False,
) -> list[int]:
    """The ids of every play of ``card``: colours for a wild, targets for a 7, UNO."""
    hand: vec[i64] = g.hand_ids[seat]
    i = card.index
    cacheable = not on_da and not jump and not g.special_cards[i]
    slot = _variant_slot(len(hand), i)
    if cacheable:
        cached = g.plain_variants[slot]
        if cached is not None:
            return cached
    r = g.rules
    # Cards left once the play (and any Discard All shedding) is done.
    if on_da or (card.kind is K_DISCARD_ALL and not stacking):
        colour = card.colour
        same = 0
        for j in hand:
            if ALL_CARDS[j].colour is colour:
                same += 1
        # NM-27, A09: what the play sheds (played by matching, or chosen to go on top): all
        # of its colour, or itself alone (cards_shed).
        alone = sheds_alone(r, card, DISCARD_ALL_TOP if on_da else PLAY, others=same > 1)
        shed = 1 if alone else same
        # Fewer than its colour: a Discard All choice follows; UNO is called there.
        remaining = len(hand) - shed if shed == same else -1
    else:
        remaining = len(hand) - 1
    ends = remaining == 0 and g.last_card_ends
    # -1 for no number: comparing the Optional ``card.number`` itself boxes the int.
    number = card.number if card.number is not None else -1
    if not card.is_wild and not (number == 7 and not ends and g.seven_zero):
        # A coloured card other than a 7-swap names no colour and no target: one play, and
        # the same play with an UNO call when it leaves one card (for a 0, the hand it
        # receives: the previous player's, NM-29).
        size = remaining
        if number == 0 and not ends and g.seven_zero:
            size = len(g.hand_ids[zero_pass_giver(seat, g.direction, g.out)])
        pid = (JUMP_BASE if jump else PLAY_BASE) + CARD_OFFSET[i]
        acts = [pid, pid + 1] if size == 1 else [pid]
        if cacheable:
            g.plain_variants[slot] = acts
        return acts
    colours = _NO_COLOUR
    if card.is_wild:
        if ends:
            # A classic winning Wild +4 still names a colour when it may be challenged (C08).
            if (
                card.kind is K_WILD_DRAW_FOUR
                and r.challenge_on_winning_card
                and (r.wd4_challenge and g.classic)
            ):
                colours = COLOURS
        elif card.kind is K_WILD_COLOUR_ROULETTE:
            if r.roulette_chooser == "player" or r.roulette_active_colour == "player_names":
                colours = COLOURS
        elif not (g.colour_on_resolution and card.draw_value):
            colours = COLOURS
    acts = []
    if number == 7 and not ends and g.seven_zero:  # NM-31: one play per target, in seat order
        n = g.n
        out = g.out
        hands = g.hand_ids
        for target in range(n):
            if target != seat and not out[target]:
                _add_plays(acts, card, colours, (target - seat) % n, len(hands[target]), jump)
    else:
        _add_plays(acts, card, colours, 0, remaining, jump)
    if cacheable:  # depends only on the rules, the card and what the play leaves
        g.plain_variants[slot] = acts
    return acts


def _add_plays(
    acts: list[int],
    card: Card,
    colours: tuple[Colour | None, ...],
    rel: int,
    size: int,
    jump: bool,
) -> None:
    """Append the plays of ``card`` naming each of ``colours`` (and the target at offset
    ``rel``), each followed by its UNO call when the hand it leaves has one card (NM-37)."""
    for colour in colours:
        acts.append(play_id(card, colour, rel, False, jump))
        if size == 1:
            acts.append(play_id(card, colour, rel, True, jump))


def _variant_slot(size: int, index: int) -> int:
    """Where the plain variants of the card ``index`` played from a hand of ``size`` cards
    are cached (see ``_VARIANTS``): what matters is whether one card, none or more remain."""
    if size > 2:
        return index
    return index + (NUM_CARDS if size == 2 else 2 * NUM_CARDS)
