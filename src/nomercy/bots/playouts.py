"""Search support: playing determinized games forward on ids (the rollouts of ISMCTS).

A search (:mod:`nomercy.bots.ismcts_bot`) plays thousands of games forward per decision from
deals of :meth:`Redealer.sample_for_search <nomercy.core.redeal.Redealer.sample_for_search>`.
This module holds what those playouts run, on the engine's id path
(:meth:`Game.legal_ids <nomercy.core.game.Game.legal_ids>` and :meth:`Game.step
<nomercy.core.game.Game.step>`, no action or event object): two cheap policies over the ids
of the seat to act, the playout loop and the score of an unfinished game. It is the bots'
own, compiled with the engine as a companion of the core's build
(``nomercy.core.COMPANION_FILES``, ``python -m nomercy.core.build``), which made a search
about 1.7 times as fast as the same code run as Python (benchmarks/README.md). It decides
nothing the rules decide: legality stays the engine's, and whom a penalty hits, whose hand
a 0 passes and a stack's floor are the engine's helpers (``legality.aim_penalty``,
``zero_pass_giver``, ``stack_floor_after``), read through the game's state contract. It
reads the whole game: it is only for games dealt for a search, never for a real game.

- :func:`heuristic_action`: a cheap version of the heuristic bot (shed many cards, keep
  Draw Cards for defence unless the victim holds no answer in this deal, knock out when it
  can, swap only for a smaller hand, answer a stack with the smallest Draw Card);
- :func:`greedy_action`: a random playable card with a sensible variant;
- :func:`playout`: play on with one of them up to a depth, calling UNO for every seat, and
  return each seat's reward (:func:`rewards`);
- :func:`decision`, :func:`prune_ids` and :func:`one_per_card`: the ids a search tree
  branches on.

Both policies draw from the generator they are given exactly as the bot's pure-Python
policies did before they moved here, so a seed still makes the same choices.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Final

from librt.vecs import vec
from mypy_extensions import i64

from nomercy.core.base import PLAY, STACK_OR_ABSORB
from nomercy.core.cards import COLOURS, Card, Colour, Kind
from nomercy.core.dealing import randbelow
from nomercy.core.ids import (
    DRAW_ID,
    ID_CARD,
    ID_COLOUR,
    ID_KIND,
    ID_REL,
    ID_UNO,
    K_CATCH,
    K_COLOUR,
    K_DRAW,
    K_PLAY,
    PASS_ID,
    UNO_ID,
)
from nomercy.core.legality import (
    AIM_SELF,
    ALL_CARDS,
    aim_penalty,
    stack_floor_after,
    uno_due,
    zero_pass_giver,
)

if TYPE_CHECKING:
    from nomercy.core.game import Game
    from nomercy.core.rules import RuleSet

__all__ = [
    "auto_uno",
    "decision",
    "greedy_action",
    "heuristic_action",
    "heuristic_choice",
    "one_per_card",
    "playout",
    "prune_ids",
    "rewards",
    "rule_constants",
]

# How much a rollout player values keeping a Draw Card of each value for defence (the
# heuristic bot's _KEEP, in its "cards shed" units).
_ROLL_KEEP: Final = {2: 15.0, 4: 25.0, 6: 40.0, 10: 55.0}

# What heuristic_choice reads of a played card, by action id (no Card attribute per play):
# the card's draw value, points / 25, colour, the value of keeping it (_ROLL_KEEP, wilds
# 1.5x) and its kind for the scoring (_C_*).
_C_OTHER: Final = 0
_C_DISCARD_ALL: Final = 1
_C_SKIP: Final = 3
_C_REVERSE: Final = 4
_C_SKIP_EVERYONE: Final = 5
_C_ROULETTE: Final = 6
_C_WILD: Final = 7
_C_SEVEN: Final = 8
_C_ZERO: Final = 9
_KIND_CODE: Final = {
    Kind.DISCARD_ALL: _C_DISCARD_ALL,
    Kind.SKIP: _C_SKIP,
    Kind.REVERSE: _C_REVERSE,
    Kind.SKIP_EVERYONE: _C_SKIP_EVERYONE,
    Kind.WILD_COLOUR_ROULETTE: _C_ROULETTE,
    Kind.WILD: _C_WILD,
}


def _card_code(card: Card | None) -> int:
    if card is None:
        return _C_OTHER
    if card.number == 7:
        return _C_SEVEN
    if card.number == 0:
        return _C_ZERO
    return _KIND_CODE.get(card.kind, _C_OTHER)


def _keep(card: Card | None) -> float:
    if card is None:
        return 0.0
    return _ROLL_KEEP.get(card.draw_value, 10.0) * (1.5 if card.is_wild else 1.0)


_P_VALUE: Final[tuple[int, ...]] = tuple(0 if c is None else c.draw_value for c in ID_CARD)
_P_BASE: Final[tuple[float, ...]] = tuple(0.0 if c is None else c.points / 25.0 for c in ID_CARD)
_P_COLOUR: Final[tuple[Colour | None, ...]] = tuple(
    None if c is None else c.colour for c in ID_CARD
)
_P_KEEP: Final[tuple[float, ...]] = tuple(_keep(c) for c in ID_CARD)
_P_CODE: Final[tuple[int, ...]] = tuple(_card_code(c) for c in ID_CARD)
_FIRST_COLOUR: Final = COLOURS[0]
_OTHER_COLOURS: Final = COLOURS[1:]
_NO_MERCY: Final = 1 << 20  # the Mercy limit when the rule is off: never reached


def rule_constants(game: Game) -> tuple[int, bool]:
    """What :func:`heuristic_choice` reads of the rules, to read once per search: the Mercy
    limit (NM-33; never reached when the rule is off) and whether a 0 passes the hands
    (NM-29; classic only with C04)."""
    facts = game.rules.facts
    return facts.mercy_limit or _NO_MERCY, facts.seven_zero


def heuristic_action(game: Game, seat: int, actions: list[int], rng: random.Random) -> int:
    """A cheap version of the heuristic bot on the determinized game: one of ``actions``
    (``game.legal_ids(seat)``).

    It reads the sampled game directly, so a rollout seat knows whether its victim holds an
    answer in this deal (a property of the sample, not of the real game). Per distinct card:
    shed many cards, keep Draw Cards for defence unless the victim cannot answer (two
    players: the attacker plays again), knock out when it can (NM-33), swap only for a
    smaller hand (NM-29, NM-31), avoid a self-targeted Wild Reverse +4 (NM-24), keep plain
    wilds for colour changes; facing a stack, answer with the smallest Draw Card (NM-18).
    """
    if len(actions) == 1 and (actions[0] == DRAW_ID or ID_CARD[actions[0]] is not None):
        # Forced (a draw, one play): what the scoring returns, without it. Anything else
        # alone goes to greedy_action, which draws from ``rng`` for it.
        return actions[0]
    mercy, zero = rule_constants(game)
    return heuristic_choice(game, seat, actions, rng, mercy, zero)


def heuristic_choice(  # noqa: C901, PLR0915 (measured in tests/test_complexity.py)
    game: Game, seat: int, actions: list[int], rng: random.Random, mercy: int, zero: bool
) -> int:
    """:func:`heuristic_action` past its forced case, given :func:`rule_constants`.

    It relies on the engine listing each card's plays together (``Game.legal_ids``: each
    card once, in hand order, then its variants), as tests/bots/test_ismcts_bot.py checks.
    """
    cards_of = ID_CARD
    sizes: list[int] = [len(h) for h in game.hand_ids]  # every seat's hand size
    hand = game.hand_of(seat)
    n = game.n
    rules = game.rules
    out = game.out
    direction = game.direction
    two = game.two_player()  # A29: the engine's test, not a count of its own
    phase = game.phase
    stacking = phase is STACK_OR_ABSORB
    nxt = game.next_active(seat)  # the next seat (RULES.md §2)
    prev = zero_pass_giver(seat, direction, out)  # NM-29: whose hand a 0 passes here
    pending = game.pending_total if stacking else 0
    best_card: Card | None = None
    best = -1e9
    last: Card | None = None
    first = -1  # the first play
    size = len(hand)
    colours: list[Colour | None] = []  # the hand's colours, read once when needed
    read = False
    answers: dict[int, int] = {}  # a victim's highest Draw Card value (NM-18)
    score = 0.0
    for a in actions:
        card = cards_of[a]
        # Not a play (no card), or another variant of the card just scored.
        if card is None or card is last:
            continue
        if first < 0:
            first = a
        last = card
        code = _P_CODE[a]
        colour = _P_COLOUR[a]
        shed = 1
        if code == _C_DISCARD_ALL and phase is PLAY:
            if not read:
                colours = [c.colour for c in hand]
                read = True
            shed = colours.count(colour)
        rest = size - shed
        if rest <= 0:
            return _variant(game, seat, [v for v in actions if cards_of[v] is card])
        value = _P_VALUE[a]
        victim = nxt
        back = False  # the penalty comes back to this seat (NM-24)
        if value:
            # Whom the penalty hits (NM-16, NM-24): the engine aims it. The policy reads a
            # stacked card as one that opens a chain (A28 aside), as it always has.
            victim, _, aim = aim_penalty(rules, card, seat, direction, out, two, False, False)
            back = aim == AIM_SELF
        if stacking:
            if not value:
                score = 0.5  # A07: a Skip or Reverse deflects without a Draw Card's cost
            elif back:
                score = -1.0 - value if _follows(rules, hand, card) else -1e6
            else:
                score = -float(value)  # answer with the smallest Draw Card
                if pending + value >= mercy - sizes[victim]:
                    score += 100.0
            if score > best:
                best, best_card = score, card
            continue
        score = 10.0 * shed + _P_BASE[a]
        if colour is not None:
            if not read:
                colours = [c.colour for c in hand]
                read = True
            score += 2.0 * colours.count(colour)
        if value:
            keep = _P_KEEP[a]
            if back:
                score += -keep + (2.0 if _follows(rules, hand, card) else -40.0)
            else:
                vsize = sizes[victim]
                if value >= mercy - vsize:
                    score += 100.0
                else:
                    top = answers.get(victim, -1)
                    if top < 0:
                        top = 0
                        for i in game.hand_ids[victim]:
                            if ALL_CARDS[i].draw_value > top:
                                top = ALL_CARDS[i].draw_value
                        answers[victim] = top
                    if top < value:  # the victim holds no Draw Card of at least this value
                        score += value + (10.0 if two else 0.0) + 12.0 * _threat(vsize)
                score -= keep
        elif code in (_C_SKIP, _C_REVERSE, _C_SKIP_EVERYONE):
            if two or code == _C_SKIP_EVERYONE:
                kind = card.kind
                again = False
                for c in hand:
                    if c is not card and (c.is_wild or c.colour is colour or c.kind is kind):
                        again = True
                        break
                score += 6.0 if again else 1.0
            elif code == _C_SKIP:
                score += 6.0 * _threat(sizes[nxt])
        elif code == _C_ROULETTE:
            score += (14.0 if two else 4.0) + 12.0 * _threat(sizes[nxt]) - 6.0
        elif code == _C_WILD:
            score -= 8.0
        elif code == _C_SEVEN:
            if ID_REL[a]:
                rels = ID_REL
                smallest = _NO_MERCY
                for v in actions:
                    if cards_of[v] is card and rels[v]:
                        other = sizes[(seat + rels[v]) % n]
                        if other < smallest:
                            smallest = other
                score += 10.0 * (rest - smallest)
        elif code == _C_ZERO and zero:
            score += 10.0 * (rest - sizes[prev])
        if score > best:
            best, best_card = score, card
    if first < 0:
        return greedy_action(game, seat, actions, rng)  # no play
    if best_card is None or (stacking and best <= -1e5):
        for other in actions:  # stacking with nothing worth it: take the penalty
            if other == DRAW_ID:
                return other
        if best_card is None:
            return first
    if phase is not PLAY and best < -1.0:
        for other in actions:
            if other == PASS_ID:
                return other  # NM-9: keep a drawn card not worth playing
    return _variant(game, seat, [v for v in actions if cards_of[v] is best_card])


def _follows(rules: RuleSet, hand: list[Card], card: Card) -> bool:
    """Whether ``hand`` holds another Draw Card that reaches the floor ``card`` sets when it
    opens a chain (NM-18, A04: :func:`~nomercy.core.legality.stack_floor_after`; NM-24: with
    two players a Wild Reverse +4 comes back, and its player must follow it up)."""
    floor = stack_floor_after(rules, 0, card)
    for c in hand:  # noqa: SIM110 (a loop: no generator per call)
        if c.draw_value >= floor and c is not card:
            return True
    return False


def _threat(size: int) -> float:
    """How close a hand of ``size`` cards is to emptying: 0 (far) to 1 (one card)."""
    return (8 - size) / 7 if size < 8 else 0.0


def greedy_action(game: Game, seat: int, actions: list[int], rng: random.Random) -> int:
    """A fast greedy policy on the full game: stack, shed, favourite colour, small swaps.

    One of ``actions`` (``game.legal_ids(seat)``): a random card among the distinct
    playable ones (with two players no Wild Reverse +4 while another card is playable,
    NM-24) and its variant by :func:`_pick`; else the favourite colour, a draw, or a random
    action.
    """
    cards_of = ID_CARD
    plays = [a for a in actions if cards_of[a] is not None]  # a card: a play
    if not plays:
        kinds = ID_KIND
        colours = [a for a in actions if kinds[a] == K_COLOUR]
        if colours:
            fav = _favourite(game.hand_of(seat))
            for a in colours:
                if ID_COLOUR[a] is fav:
                    return a
            return colours[0]
        for a in actions:
            if kinds[a] == K_DRAW:
                return a
        return actions[randbelow(rng, len(actions))]
    # One card at random among the distinct playable cards, then a sensible variant.
    cards: list[Card] = []
    for a in plays:
        c = cards_of[a]
        if c is not None and c not in cards:
            cards.append(c)
    if len(cards) > 1 and game.two_player():
        # NM-24: with two players a Wild Reverse +4 comes back to its own player (the engine
        # aims it, legality.aim_penalty): keep the cards that do not.
        rules = game.rules
        out = game.out
        direction = game.direction
        kept = [
            c
            for c in cards
            if not c.draw_value
            or aim_penalty(rules, c, seat, direction, out, True, False, False)[2] != AIM_SELF
        ]
        if kept:
            cards = kept
    card = cards[randbelow(rng, len(cards))]
    return _variant(game, seat, [a for a in plays if cards_of[a] is card])


def _variant(game: Game, seat: int, variants: list[int]) -> int:
    """Among plays of one card: the favourite colour of the rest, the smallest hand, UNO."""
    if len(variants) == 1:
        return variants[0]
    card = ID_CARD[variants[0]]
    assert card is not None
    # A wild has no colour, so the favourite of the rest of the hand is the hand's.
    fav = _favourite(game.hand_of(seat)) if card.is_wild else None
    return _pick(game.hand_ids, seat, game.n, variants, fav)


def _favourite(hand: list[Card]) -> Colour:
    """The colour ``hand`` holds most (the first of COLOURS on a tie)."""
    colours = [card.colour for card in hand]
    best = _FIRST_COLOUR
    most = colours.count(best)
    for colour in _OTHER_COLOURS:
        count = colours.count(colour)
        if count > most:
            best, most = colour, count
    return best


def _pick(hands: vec[vec[i64]], seat: int, n: int, variants: list[int], fav: Colour | None) -> int:
    """Among ``variants``, plays of one card: the one naming ``fav`` (``None`` for a
    coloured card), then the smallest target hand, then the UNO call.

    Ranked by the tuple (names ``fav``, minus the target's hand size, calls UNO), packed
    into one int: ``1024 * names_fav - 2 * size + uno`` (a hand holds fewer than 256 cards).
    """
    colours = ID_COLOUR
    rels = ID_REL
    unos = ID_UNO
    best = variants[0]
    best_key = -(1 << 30)
    for a in variants:
        rel = rels[a]
        key = (1024 if colours[a] is fav else 0) + (1 if unos[a] else 0)
        if rel:
            key -= 2 * len(hands[(seat + rel) % n])
        if key > best_key:
            best_key, best = key, a
    return best


def prune_ids(legal: list[int]) -> list[int]:
    """``legal`` without catches and without plays whose UNO-calling twin (its id + 1,
    :mod:`nomercy.core.ids`) is legal too: the other is dominated. ``legal`` itself when
    nothing is dropped."""
    kinds = ID_KIND
    uno = ID_UNO
    calls: list[int] = []
    for a in legal:
        if uno[a]:
            calls.append(a)
    if not calls:
        for a in legal:
            if kinds[a] == K_CATCH:
                return [a for a in legal if kinds[a] != K_CATCH] or list(legal)
        return legal
    out: list[int] = []
    for a in legal:
        kind = kinds[a]
        if kind == K_CATCH:
            continue
        if kind == K_PLAY and not uno[a] and a + 1 in calls:
            continue
        out.append(a)
    return out or list(legal)


def one_per_card(game: Game, seat: int, actions: list[int]) -> list[int]:
    """``actions`` with each card's plays cut to one (:func:`_pick`'s colour and target).

    A card's plays are adjacent in ``Game.legal_ids`` (each card once, then its variants;
    tests/bots/test_ismcts_bot.py checks it), so each run of one card's plays becomes the
    one chosen, in its place.
    """
    cards = ID_CARD
    size = len(actions)
    i = 0
    out: list[int] = []
    fav: Colour | None = None  # the favourite colour, read once for all the wilds
    while i < size:
        a = actions[i]
        card = cards[a]
        j = i + 1
        if card is not None:  # a play: the run of its card's plays
            while j < size and cards[actions[j]] is card:
                j += 1
            if j - i > 1:
                hands = game.hand_ids
                if card.is_wild:
                    if fav is None:
                        fav = _favourite(game.hand_of(seat))
                    a = _pick(hands, seat, game.n, actions[i:j], fav)
                else:
                    a = _pick(hands, seat, game.n, actions[i:j], None)
        out.append(a)
        i = j
    return out


def auto_uno(game: Game, seat: int) -> bool:
    """Make the UNO call the bots of a search always make, if one is due (NM-37,
    :func:`~nomercy.core.legality.uno_due`): the seat to act's, else that of a seat in the
    UNO window that forgot (only at the root of a determinization). Whether it called."""
    if uno_due(game, seat):
        game.step(UNO_ID, seat)
        return True
    for s in game.uno_window:
        if s != seat and uno_due(game, s):
            game.step(UNO_ID, s)
            return True
    return False


def decision(game: Game, prune: bool, one: bool) -> tuple[int, list[int]]:
    """The seat to act and the ids a search tree branches on, or ``(-1, [])`` after an
    automatic UNO call (of the seat to act, or of a seat that forgot to call).

    ``prune``: :func:`prune_ids` (else every legal id); ``one``: then :func:`one_per_card`.
    """
    seat = game.turn
    assert seat is not None
    if auto_uno(game, seat):
        return -1, []
    legal = game.legal_ids(seat)
    if not prune:
        return seat, legal
    actions = prune_ids(legal)
    return seat, one_per_card(game, seat, actions) if one else actions


def playout(
    game: Game, rng: random.Random, depth: int, heuristic: bool, mercy: int, zero: bool
) -> list[float]:
    """Play ``game`` on up to ``depth`` decisions and return each seat's reward.

    Every seat plays :func:`heuristic_action` (``heuristic``, with :func:`rule_constants`'
    ``mercy`` and ``zero``) or :func:`greedy_action`; every seat calls UNO when it may
    (NM-37), the one to act before it decides. Rewards: :func:`rewards`.
    """
    steps = 0
    cards_of = ID_CARD
    while steps < depth and not game.is_over:
        seat = game.turn
        assert seat is not None
        if auto_uno(game, seat):
            continue
        legal = game.legal_ids(seat)
        if not heuristic:
            action = greedy_action(game, seat, legal, rng)
        elif len(legal) == 1 and (legal[0] == DRAW_ID or cards_of[legal[0]] is not None):
            action = legal[0]  # forced: a draw or one play
        else:
            action = heuristic_choice(game, seat, legal, rng, mercy, zero)
        game.step(action, seat)
        steps += 1
    return rewards(game)


def rewards(game: Game) -> list[float]:
    """1 to the winner, 0 to the others; an unfinished game is scored by hand strength (a
    softmax over hand sizes and Mercy distances)."""
    n = game.n
    if game.is_over:
        winner = game.winner if game.winner is not None else game.hand_winner
        return [1.0 if s == winner else 0.0 for s in range(n)]
    threshold = game.rules.facts.mercy_limit
    mercy = threshold > 0
    out = game.out
    hands = game.hand_ids
    strengths = [0.0] * n
    for s in range(n):
        if out[s]:
            continue
        size: int = len(hands[s])
        value = -0.35 * size
        if mercy:
            distance = threshold - size
            value -= 3.0 / (distance if distance > 1 else 1)
        strengths[s] = math.exp(value)
    total = sum(strengths)
    return [x / total for x in strengths]
