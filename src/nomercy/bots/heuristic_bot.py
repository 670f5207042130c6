"""HeuristicBot: hand-written judgement from a player's view and legal actions only.

It scores every legal action and takes the best; ties break deterministically (the legal
list's order). What it weighs, with the rules behind it:

- **Stacks** (NM-17, NM-18): facing a penalty it stacks whenever it can rather than absorb,
  with the Draw Card it can best spare (the smallest legal one, keeping the big ones for the
  stacks that only they can answer), unless a bigger one is much less likely to be answered
  by the next target (estimated from the unseen cards and the target's hidden hand size); a
  stack that reaches the target's Mercy limit is taken first (NM-33). With two players a
  Wild Reverse +4 stacked into a chain goes on to the opponent (A28's default), like any +4;
  under A28 ``"self"`` it comes back to its own player and is stacked only with a follow-up.
  A lone stack (no follow-up that could answer an
  answer) is a gamble: when the victim probably answers, so that the penalty would come back
  bigger, it absorbs the small penalty now instead (NM-17), even if the stack would knock
  the victim out unanswered (a knock-out, NM-33, weighs like the game on both sides).
- **Keeping defence**: outside a stack, Draw Cards are kept to answer stacks (wild ones most)
  unless the attack is worth it: the victim is close to winning or to its Mercy limit.
- **Shedding**: it prefers plays that shed many cards (a Discard All sheds its whole colour,
  NM-27, each card beyond itself counted at 0.6: the cards it would shed stay sheddable later)
  and high-point cards (RULES.md §1.3), and keeps a wild for its last cards.
- **Unanswerable attacks**: a Colour Roulette (NM-30) cannot be stacked, so it is played as
  soon as it can be (with two players its player also goes again); a two-player Wild Reverse
  +4 opening a chain hits its own player (NM-24), so it is played only with a follow-up of 4
  or more, scored as one attack of 4 + the follow-up on the opponent.
- **Colour**: a colour change goes where its hand is strong and where the next player
  showed it has nothing (a player who drew without a voluntary draw lacked the active colour,
  see :mod:`nomercy.bots.knowledge`).
- **Targets**: a 7 swaps with the opponent holding the fewest cards (NM-31), a 0 passes the
  hands on (NM-29); either is judged by the hand it receives against the hand it gives away,
  each counted as its cards less the worth of its Draw Cards (a known card's own, a hidden
  card's the unseen cards' average): a hand of Draw Cards is an arsenal, not a burden, and
  giving one away arms the opponent. Attacks (Draw Cards, Roulette, Skip) are worth more
  against the leader. Its own Mercy distance
  (``mercy_distance`` in the view) makes shedding and swapping away a big hand urgent.
- **Roulette victim** (NM-30): it names the colour most likely to come up soon (the most
  unseen cards of that colour), then the one its hand holds most.
- **Drawn card** (NM-9, A02): it keeps a drawn card when that is allowed and the card is a
  wild Draw Card worth saving or a 7/0 that would hurt it, else plays it.
- **UNO** (NM-37): it always calls, and catches every opponent who forgot.
- **Classic**: it challenges a Wild +4 (CL-8) when the accused probably held the colour.

It is deterministic: the same view and legal list give the same action, whatever the seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from nomercy.bots.knowledge import Knowledge, colour_counts, read_view
from nomercy.core.actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColour,
    Draw,
    Pass,
    Play,
)
from nomercy.core.base import Phase
from nomercy.core.cards import COLOURS, Card, Colour, Kind
from nomercy.core.views import PlayerView

__all__ = ["HeuristicBot"]

_A = TypeVar("_A", bound=Action)

# How much a Draw Card is worth keeping for defence (in "cards shed" units).
# Weights tuned on seeded 2-player games against random and greedy.
_ATTACK = 1.0  # per card of an unanswered penalty
_EXTRA_TURN = 20.0  # two players: an unanswered Draw Card gives us the next turn too
_ANSWER = 12.0  # stacking: cost of the next target being able to answer
_URGENT_AT = 15.0  # Mercy distance below which shedding grows urgent
_URGENT_SLOPE = 4.0
_ROULETTE = 10.0  # scale of a Roulette attack's worth
_STACK_KEEP = 10.0  # stacking: how much an answer spares its bigger Draw Cards
_KEEP = {2: 1.5, 4: 2.5, 6: 4.0, 10: 5.5}
_ABSORB_MARGIN = 3.0  # cards: absorbing must beat a lone stack by this much
_COMBO = 1.0  # weight of a two-player Wild Reverse +4 with its follow-up (NM-24)
_DA_EXTRA = 0.6  # worth of each card a Discard All sheds beyond itself
_LACK_COLOUR = 5.0  # naming a colour the next player probably lacks
_LACKS_NEXT = 6.0  # playing into a colour the next player showed it lacks
_WILD_LAST = 12.0  # keeping a wild for the last cards
_AGAIN = 6.0  # two players: a Skip or Reverse with a follow-up in hand
_KNOCKOUT = 100.0  # a Mercy knock-out (NM-33) that ends a two-player hand, in cards
_KNOCKS_ONE = 60.0  # knocking out one opponent of several
_SWAP_KEEP = 0.6  # share of a Draw Card's keep value that lightens a hand in a 7/0 swap


class _Context:
    """The parts of a view every scoring rule needs, computed once per decision."""

    def __init__(self, view: PlayerView, knowledge: Knowledge) -> None:
        assert view.seat is not None, "a bot plays a seat, not a spectator's view"
        self.view = view
        self.k = knowledge
        self.rules = knowledge.rules
        self.seat: int = view.seat
        self.hand = knowledge.hand
        self.players = view.players
        self.n = len(self.players)
        self.active: list[int] = [p.seat for p in self.players if not p.out]
        self.n_active = len(self.active)
        self.sizes: list[int] = [p.hand_size for p in self.players]
        # NM-33: knocking out the last opponent wins the hand; one of several, less.
        self.knockout = _KNOCKOUT if self.n_active == 2 else _KNOCKS_ONE
        me = self.players[self.seat].mercy_distance
        self.my_distance: int = 1 << 20 if me is None else me
        self.next_seat = view.seat_after  # RULES.md §2 "next": the engine's, not ours
        # NM-16, NM-24, A28: who a Draw Card's penalty hits, aimed by the engine.
        self.target = view.penalty_target

    def plays_again(self, card: Card) -> bool:
        """Whether our next turn follows ``card`` (NM-23, NM-25, NM-26, two-player Draw Cards
        and Roulette: :meth:`~nomercy.core.views.PlayerView.seat_after_play`)."""
        return self.view.seat_after_play(card) == self.seat

    def hits_self(self, card: Card, *, stacked: bool | None = None) -> bool:
        """Whether ``card``'s penalty would hit its own player (NM-24, A28: the engine's
        :meth:`~nomercy.core.views.PlayerView.penalty_target`)."""
        return self.target(card, stacked=stacked) == self.seat

    def victim(self, card: Card) -> int:
        """The seat ``card``'s penalty hits, or (for a card that hits its own player or
        carries none) the next seat, who plays on the colour it leaves."""
        target = self.target(card)
        return self.next_seat(self.seat) if target is None or target == self.seat else target

    def follow_ups(self, rest: Sequence[Card], total: int, card: Card) -> list[Card]:
        """The Draw Cards of ``rest`` the engine would let us stack on ``card`` played onto
        a penalty of ``total`` (NM-18, A04 via :meth:`PlayerView.stack_floor_after`, A05),
        naming each one's own colour (:meth:`PlayerView.answers_stack`)."""
        floor = self.view.stack_floor_after(card, total)
        answers = self.view.answers_stack
        return [c for c in rest if c.draw_value and answers(c, floor, card, c.colour)]

    def distance(self, seat: int) -> int:
        d = self.players[seat].mercy_distance
        return 1 << 20 if d is None else d

    def threat(self, seat: int) -> float:
        """How close ``seat`` is to emptying its hand: 0 (far) to 1 (one card)."""
        return max(0.0, (8 - int(self.sizes[seat])) / 7)

    def hidden_count(self, seat: int) -> int:
        return max(0, int(self.sizes[seat]) - len(self.k.known.get(seat, [])))

    def match_probability(self, seat: int, colour: Colour) -> float:
        """Chance that ``seat`` holds a card of ``colour`` or a wild."""
        if any(c.colour is colour or c.is_wild for c in self.k.known.get(seat, [])):
            return 1.0
        unseen = self.k.unseen
        total = sum(unseen.values())
        if total == 0:
            return 0.0
        lacks = self.k.lacks.get(seat, set())
        no_wild = seat in self.k.lacks_wild
        good = 0
        for card, count in unseen.items():
            if card.colour is None:
                good += 0 if no_wild else count
            elif card.colour is colour and colour not in lacks:
                good += count
        return 1.0 - (1.0 - good / total) ** self.hidden_count(seat)

    def hand_weight(self, seat: int) -> float:
        """The expected :func:`_weight` of ``seat``'s hand: known cards, then unseen ones."""
        unseen = self.k.unseen
        total = sum(unseen.values())
        mean = sum(n * _card_weight(c) for c, n in unseen.items()) / total if total else 1.0
        return _weight(self.k.known.get(seat, [])) + mean * self.hidden_count(seat)

    def answer_probability(self, seat: int, floor: int, top: Card) -> float:
        """Chance that ``seat`` holds a card that answers a stack of ``floor`` once ``top`` is
        played (the engine's test, :meth:`PlayerView.answers_stack`: NM-18, A05, A07; a wild
        ``top``'s colour is not known yet, so it is taken as none)."""
        answers = self.view.answering_flags(floor, top, top.colour)
        if any(answers[c.index] for c in self.k.known.get(seat, [])):
            return 1.0
        unseen = self.k.unseen
        total = sum(unseen.values())
        if total == 0:
            return 0.0
        lacks = self.k.lacks.get(seat, set())
        no_wild = seat in self.k.lacks_wild
        good = 0
        for card, count in unseen.items():
            if not answers[card.index]:
                continue
            if card.colour is None and no_wild:
                continue
            if card.colour is not None and card.colour in lacks:
                continue
            good += count
        q = good / total
        return 1.0 - (1.0 - q) ** self.hidden_count(seat)


class HeuristicBot:
    """A deterministic rule-of-thumb player (see the module docstring).

    >>> from nomercy import Game
    >>> g = Game.from_position({"players": [{"hand": ["R1", "R9", "W+6", "G5"]},
    ...     {"hand": ["B2", "B3"]}], "turn": 0, "discard": ["R5"]})
    >>> str(HeuristicBot().choose_action(g.view(0), g.legal_actions()))
    'play R9'
    """

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        # Owned for the protocol; every choice here is deterministic.
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"HeuristicBot(seed={self.seed})"

    # ------------------------------------------------------------------ protocol
    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """The best-scoring element of ``legal`` for the seat to act."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        urgent = self.choose_out_of_turn(view, [a for a in legal if not _is_jump(a)])
        if urgent is not None:
            return urgent
        if len(legal) == 1:
            return legal[0]
        ctx = _Context(view, read_view(view))
        phase = view.phase
        if phase is Phase.ROULETTE_COLOUR:
            return self._roulette_colour(ctx, legal)
        if phase is Phase.CHOOSE_COLOUR:
            colour = self.best_colour(ctx, ctx.hand)
            return next(a for a in legal if isinstance(a, ChooseColour) and a.colour is colour)
        if phase is Phase.STACK_OR_ABSORB:
            return self._stack(ctx, legal)
        if phase is Phase.DISCARD_ALL_SUBSET:
            plays = [a for a in legal if isinstance(a, Play)]
            return _prefer_uno(plays) if plays else legal[-1]
        return self._play(ctx, legal)

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        """Call UNO when it may (NM-37), catch whoever forgot; jump in with a number (C04)."""
        for action in legal:
            if isinstance(action, CallUno):
                return action
        catches = [a for a in legal if isinstance(a, Catch)]
        if catches:
            sizes = {p.seat: p.hand_size for p in view.players}
            return min(catches, key=lambda a: (sizes.get(a.target, 0), a.target))
        jumps = [a for a in legal if _is_jump(a)]
        numbers = [a for a in jumps if isinstance(a, Play) and a.card.is_number]
        if numbers:
            return _prefer_uno(numbers)
        return None

    def one_per_card(self, view: PlayerView, legal: list[Action]) -> list[Action]:
        """``legal`` with each card's plays cut to the one this bot would make.

        A wild's colour, a 7's target and the UNO call (NM-14, NM-31, NM-37) are chosen as
        :meth:`choose_action` chooses them; every other action is kept, in order. A search
        that branches only on the card then spends its budget on what to play.
        """
        by_card: dict[Card, list[Play]] = {}
        for action in legal:
            if isinstance(action, Play) and not action.jump:
                by_card.setdefault(action.card, []).append(action)
        if all(len(v) == 1 for v in by_card.values()):
            return list(legal)
        ctx = _Context(view, read_view(view))
        stacking = view.phase is Phase.STACK_OR_ABSORB
        chosen = {card: self._variant(ctx, v, stacking=stacking) for card, v in by_card.items()}
        out: list[Action] = []
        for action in legal:
            if isinstance(action, Play) and not action.jump:
                if chosen[action.card] is action:
                    out.append(action)
            else:
                out.append(action)
        return out

    # ------------------------------------------------------------------ colours
    def best_colour(
        self, ctx: _Context, hand_after: Sequence[Card], *, next_seat: int | None = None
    ) -> Colour:
        """The colour to name: strong in ``hand_after``, missing from the next player."""
        counts = colour_counts(list(hand_after))
        victim = ctx.next_seat(ctx.seat) if next_seat is None else next_seat

        def score(colour: Colour) -> tuple[float, int]:
            value = 3.0 * counts[colour]
            if victim != ctx.seat:
                # A victim without the colour draws until it finds one (NM-9).
                value += _LACK_COLOUR * (1.0 - ctx.match_probability(victim, colour))
            for other in ctx.active:
                if other not in (ctx.seat, victim) and colour in ctx.k.lacks.get(other, set()):
                    value += 1.0
            return value, -COLOURS.index(colour)

        return max(COLOURS, key=score)

    def _roulette_colour(self, ctx: _Context, legal: list[Action]) -> Action:
        """NM-30: name the colour most likely to turn up soon (fewest cards revealed).

        The named colour stays active for the player after us (with two players, the one
        who played the Roulette), so a colour that player probably lacks is worth a little.
        """
        total = sum(ctx.k.unseen.values())
        counts = colour_counts(ctx.hand)
        after = ctx.next_seat(ctx.seat)

        def score(action: Action) -> tuple[float, int]:
            assert isinstance(action, ChooseColour)
            c = action.colour
            expected = (total + 1) / (ctx.k.unseen_of(c) + 1)
            value = -expected + 0.3 * counts[c]
            if after != ctx.seat:
                value += 1.5 * (1.0 - ctx.match_probability(after, c))
            return value, -COLOURS.index(c)

        return max((a for a in legal if isinstance(a, ChooseColour)), key=score)

    # ------------------------------------------------------------------ stacks
    def _stack(self, ctx: _Context, legal: list[Action]) -> Action:
        plays = [a for a in legal if isinstance(a, Play)]
        pending = ctx.view.pending
        total = pending.total if pending is not None else 0
        if any(isinstance(a, Challenge) for a in legal) and self._should_challenge(ctx):
            return next(a for a in legal if isinstance(a, Challenge))
        best: tuple[float, int] | None = None
        choice: Play | None = None
        for index, action in enumerate(plays):
            score = self._stack_score(ctx, action, total)
            if score is None:
                continue
            if best is None or (score, -index) > best:
                best, choice = (score, -index), action
        if choice is not None and self._absorb_better(ctx, choice.card, total):
            choice = None
        if choice is not None:
            return self._variant(ctx, [a for a in plays if a.card is choice.card], stacking=True)
        for other in legal:
            if isinstance(other, Draw):
                return other
        return plays[0] if plays else legal[0]  # A06 stack_mandatory leaves no Draw

    def _stack_score(self, ctx: _Context, action: Play, total: int) -> float | None:
        card = action.card
        value = card.draw_value
        rest = list(ctx.hand)
        rest.remove(card)
        if not rest:
            return 1e6  # the last card wins inside a chain (NM-21)
        if not value:
            # A07 deflection with a Skip or Reverse: it passes the penalty without a card cost.
            return 0.5
        victim = ctx.victim(card)
        if ctx.hits_self(card):
            # A28 "self": with two players a Wild Reverse +4 targets its own player even
            # inside a chain; worth it only with a follow-up.
            if not ctx.follow_ups(rest, total, card):
                return None
            return 1.0 + self._victim_bonus(ctx, victim, total + value + 4)
        answer = ctx.answer_probability(victim, ctx.view.stack_floor_after(card, total), card)
        score = 10.0 - _ANSWER * answer - _STACK_KEEP * _KEEP.get(value, 1.0)
        score += self._victim_bonus(ctx, victim, total + value)
        return score

    def _absorb_better(self, ctx: _Context, card: Card, total: int) -> bool:
        """Whether absorbing ``total`` now beats a lone stack with ``card`` (NM-17, NM-18).

        A stack with no follow-up in hand is a gamble: unanswered, the victim takes
        ``total + value``; answered (with at least ``value``, NM-18), it comes back bigger and
        we absorb it all. When the victim probably holds an answer, absorbing now is cheaper.
        """
        if total >= ctx.my_distance or len(ctx.hand) == 1 or not card.draw_value:
            return False  # absorbing would knock us out (NM-33), or the stack wins (NM-21)
        if ctx.hits_self(card):
            return False  # NM-24, A28: scored by _stack_score, which demands a follow-up
        pending = ctx.view.pending
        chain = pending.chain if pending is not None else ()
        top = ctx.view.top
        if len(chain) == 1 and top is not None and ctx.hits_self(top, stacked=False):
            # NM-24: a one-card chain aimed at us by a card that hits its own player is our
            # own Wild Reverse +4; the follow-up was the plan.
            return False
        rest = list(ctx.hand)
        rest.remove(card)
        sent = total + card.draw_value
        # The smallest answer is a card like ours; a follow-up answers that answer (NM-18).
        if ctx.follow_ups(rest, sent, card):
            return False  # a follow-up: we can answer an answer
        victim = ctx.victim(card)
        answer = ctx.answer_probability(victim, ctx.view.stack_floor_after(card, total), card)
        back = sent + card.draw_value  # the smallest answer
        # A knock-out (NM-33) weighs like the game: a victim who probably answers makes even
        # a stack that would knock it out a bad gamble.
        knocks = sent >= ctx.distance(victim)
        gain = sent + (ctx.knockout if knocks else 0.0)
        loss = back + (_KNOCKOUT if back >= ctx.my_distance else 0.0)
        stack_value = (1.0 - answer) * gain - answer * loss
        return -total > stack_value + _ABSORB_MARGIN

    def _victim_bonus(self, ctx: _Context, victim: int, penalty: int) -> float:
        """Extra worth of sending ``penalty`` cards to ``victim``."""
        if victim == ctx.seat:
            return -20.0
        bonus = 4.0 * ctx.threat(victim)
        if penalty >= ctx.distance(victim):
            bonus += ctx.knockout  # NM-33
        return bonus

    def _should_challenge(self, ctx: _Context) -> bool:
        """CL-8: challenge when the accused probably held the previous active colour."""
        play = ctx.view.wd4_play
        if play is None or play.colour is None:
            return False
        accused, c = play.seat, play.colour
        if c in ctx.k.lacks.get(accused, set()):
            return False
        if any(card.colour is c for card in ctx.k.known.get(accused, [])):
            return True
        total = sum(ctx.k.unseen.values())
        if not total:
            return False
        q = ctx.k.unseen_of(c) / total
        guilty = 1.0 - (1.0 - q) ** ctx.hidden_count(accused)
        # Guilty: the accused draws 4 instead of us; innocent: we draw 6 instead of 4.
        return guilty * 8 > (1 - guilty) * 2 + 2

    # ------------------------------------------------------------------ playing
    def _play(self, ctx: _Context, legal: list[Action]) -> Action:
        plays = [a for a in legal if isinstance(a, Play) and not a.jump]
        if not plays:
            for action in legal:
                if isinstance(action, Draw):
                    return action
            return legal[0]
        drawn_phase = ctx.view.phase is Phase.PLAY_DRAWN
        by_card: dict[Card, list[Play]] = {}
        for action in plays:
            by_card.setdefault(action.card, []).append(action)
        scored: list[tuple[float, int, Card]] = []
        for index, (card, variants) in enumerate(by_card.items()):
            scored.append((self._play_score(ctx, card, variants), -index, card))
        score, _, card = max(scored)
        may_pass = any(isinstance(a, Pass) for a in legal)
        if drawn_phase and may_pass and score < -1.0:
            return next(a for a in legal if isinstance(a, Pass))
        if ctx.view.phase is Phase.DISCARD_ALL_TOP and may_pass and score < 1.0:
            return next(a for a in legal if isinstance(a, Pass))
        return self._variant(ctx, by_card[card])

    def _remaining(self, ctx: _Context, card: Card) -> list[Card]:
        """The hand once ``card`` is played: the engine says what the play sheds (a Discard
        All its colour, NM-27, A09: :meth:`~nomercy.core.views.PlayerView.cards_shed`)."""
        rest = list(ctx.hand)
        for c in ctx.view.cards_shed(card):
            rest.remove(c)
        return rest

    def _play_score(self, ctx: _Context, card: Card, variants: list[Play]) -> float:  # noqa: C901 (measured in tests/test_complexity.py)
        rest = self._remaining(ctx, card)
        if not rest:
            return 1e6  # NM-38: the hand is empty
        shed = len(ctx.hand) - len(rest)
        # Near the Mercy limit (NM-33) every card shed counts more.
        urgency = 1.0 + max(0.0, (_URGENT_AT - ctx.my_distance) / _URGENT_SLOPE)
        score = 10.0 * (1.0 + _DA_EXTRA * (shed - 1)) * urgency
        gone = list((Counter(ctx.hand) - Counter(rest)).elements())
        score += sum(c.points for c in gone) / 25.0
        # Defence lost: Draw Cards leaving the hand (buried under a Discard All too).
        for c in gone:
            score -= 10.0 * _keep_value(c)

        nxt = ctx.next_seat(ctx.seat)
        # Flexibility: cards still playable next turn once the colour is set.
        wilds_left = sum(1 for c in rest if c.is_wild)
        if card.is_wild and card.kind is not Kind.WILD_COLOUR_ROULETTE:
            colour: Colour | None = self.best_colour(ctx, rest)
            if len(rest) <= 3 and any(not c.is_wild for c in ctx.hand if c is not card):
                score -= _WILD_LAST  # keep a wild for the last cards
        else:
            colour = card.colour
        if colour is not None:
            same = sum(1 for c in rest if c.colour is colour)
            score += 2.0 * (same + wilds_left)
            if colour in ctx.k.lacks.get(nxt, set()):
                score += _LACKS_NEXT
        kind = card.kind
        if card.draw_value:
            if ctx.hits_self(card):
                # NM-24: it targets its own player, who stacks a follow-up on it, so the
                # opponent faces both (A28 "opponent"; NM-18). Under A28 "self" a Wild
                # Reverse +4 stacked into a chain would come back too: not worth the risk.
                follows = ctx.follow_ups(rest, 0, card)
                if not follows or ctx.hits_self(card, stacked=True):
                    score -= 40.0
                else:
                    follow = min(follows, key=lambda c: (c.draw_value, c.is_wild))
                    victim = nxt
                    total = card.draw_value + follow.draw_value
                    floor = ctx.view.stack_floor_after(follow, card.draw_value)
                    answer = ctx.answer_probability(victim, floor, follow)
                    gain = _ATTACK * total + 12.0 * ctx.threat(victim) + _EXTRA_TURN
                    score += _COMBO * (
                        10.0 * urgency
                        + (1.0 - answer) * gain
                        + self._victim_bonus(ctx, victim, total)
                        - 10.0 * _keep_value(follow)
                    )
            else:
                victim = ctx.victim(card)
                floor = ctx.view.stack_floor_after(card, 0)  # it opens a stack
                answer = ctx.answer_probability(victim, floor, card)
                # Unanswered, the victim takes the cards and (two players) we play again.
                gain = _ATTACK * card.draw_value + 12.0 * ctx.threat(victim)
                if ctx.plays_again(card):
                    gain += _EXTRA_TURN
                attack = (1.0 - answer) * gain
                score += attack + self._victim_bonus(ctx, victim, card.draw_value)
        elif kind in (Kind.SKIP, Kind.REVERSE, Kind.SKIP_EVERYONE):
            if ctx.plays_again(card):
                # Another turn at once: a free shed when a follow-up is in hand.
                again = any(
                    c.is_wild or c.colour is card.colour or c.kind is card.kind for c in rest
                )
                score += _AGAIN if again else 1.0
            elif kind is Kind.SKIP:
                score += 6.0 * ctx.threat(nxt)  # the next player loses a turn (NM-23)
            else:  # NM-25: the previous player plays instead of the next one
                prev = ctx.view.seat_after_play(card)
                assert prev is not None  # the hand goes on (``rest`` is not empty)
                score += 6.0 * (ctx.threat(nxt) - ctx.threat(prev))
        elif kind is Kind.WILD_COLOUR_ROULETTE:
            # NM-30: an attack nobody can stack; the victim names its best colour, so it
            # keeps a few cards (about the unseen cards per colour's share).
            victim = nxt
            reveal = sum(ctx.k.unseen.values()) / max(1, max(ctx.k.unseen_of(c) for c in COLOURS))
            gain = _ATTACK * reveal + 12.0 * ctx.threat(victim)
            if ctx.plays_again(card):
                gain += _EXTRA_TURN  # with two players the Roulette's player goes again
            if ctx.distance(victim) <= reveal + 1:
                gain += 10.0
            score += _ROULETTE * gain - 6.0  # a wild: worth keeping for a colour change
        elif kind is Kind.WILD:
            score -= 8.0
        seven_zero = ctx.rules.facts.seven_zero
        if seven_zero and card.number == 7 and any(v.target is not None for v in variants):
            # NM-31: we give ``rest`` away and receive the target's hand.
            target = self._swap_target(ctx, variants)
            gain = _weight(rest) - ctx.hand_weight(target)
            score += 10.0 * gain * urgency
        elif seven_zero and card.number == 0:
            # NM-29: we pass ``rest`` on and receive the previous player's hand.
            prev = ctx.view.zero_pass_giver()
            gain = _weight(rest) - ctx.hand_weight(prev)
            score += 10.0 * gain * urgency
        return score

    def _swap_target(self, ctx: _Context, variants: list[Play]) -> int:
        """NM-31: the opponent with the fewest cards (the leader), lower seat on ties."""
        targets = sorted({v.target for v in variants if v.target is not None})
        return min(targets, key=lambda t: (ctx.sizes[t], t))

    def _variant(self, ctx: _Context, variants: list[Play], *, stacking: bool = False) -> Play:
        """The colour, target and UNO call to play ``variants[0].card`` with."""
        card = variants[0].card
        options = variants
        if any(v.target is not None for v in options):
            target = self._swap_target(ctx, options)
            options = [v for v in options if v.target == target]
        if any(v.colour is not None for v in options):
            rest = list(ctx.hand)
            rest.remove(card)
            colour = self.best_colour(ctx, rest, next_seat=ctx.victim(card))
            named = [v for v in options if v.colour is colour]
            options = named or options
        return _prefer_uno(options)


def _keep_value(card: Card) -> float:
    """How many shed cards a Draw Card is worth keeping for defence (0 for other cards)."""
    if not card.draw_value:
        return 0.0
    return _KEEP.get(card.draw_value, 1.0) * (1.5 if card.is_wild else 1.0)


def _card_weight(card: Card) -> float:
    """A card's burden in a swapped hand: one card, less part of a Draw Card's worth."""
    return 1.0 - _SWAP_KEEP * _keep_value(card)


def _weight(cards: Sequence[Card]) -> float:
    """A hand's burden in cards for a swap (NM-29, NM-31): the sum of :func:`_card_weight`."""
    return sum(_card_weight(c) for c in cards)


def _prefer_uno(options: Sequence[_A]) -> _A:
    """The variant that calls UNO (NM-37) if there is one, else the first."""
    for action in options:
        if isinstance(action, Play) and action.uno:
            return action
    return options[0]


def _is_jump(action: Action) -> bool:
    return isinstance(action, Play) and action.jump
