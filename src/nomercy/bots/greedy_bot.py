"""GreedyBot: one-step rules of thumb read from the view and the legal actions only.

In order of priority:

1. play a card that empties the hand (NM-38);
2. call UNO (NM-37): the ``play … uno`` variant of a play, or ``N:uno`` when offered;
3. catch an opponent who did not call UNO (NM-37);
4. facing a penalty, stack when it can (NM-18), else draw (NM-17);
5. otherwise play rather than draw, and play a drawn card when allowed (NM-9);
6. among plays: avoid a card that would target its own player if it opened a chain (a
   Wild Reverse +4 with two players, NM-24, as the engine aims it:
   :meth:`~nomercy.core.views.PlayerView.penalty_target`; kept back inside a chain too)
   and a 7 that would swap for a bigger hand (NM-31); play a Draw Card whose penalty reaches
   the target's Mercy limit (NM-33); keep wild Draw Cards for stacking unless they knock out;
   stack with the smallest legal Draw Card (NM-18); then shed the most card points
   (RULES.md §1.3; a Discard All counts every card it sheds, NM-27);
7. name the colour it holds most of for a wild (NM-14) and as the Roulette victim (NM-30);
8. swap with the active opponent holding the fewest cards (NM-31).

Ties break deterministically (colour order R, Y, G, B; lower seat; the legal list's order).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from nomercy.core.actions import Action, CallUno, Catch, ChooseColour, Draw, Pass, Play
from nomercy.core.base import Phase
from nomercy.core.cards import COLOURS, Card, Colour, Kind
from nomercy.core.views import PlayerView

__all__ = ["GreedyBot", "favourite_colour"]


def favourite_colour(hand: Sequence[Card]) -> Colour:
    """The colour ``hand`` holds most of (ties: R, Y, G, B order; all wilds: red)."""
    counts = {colour: 0 for colour in COLOURS}
    for card in hand:
        if card.colour is not None:
            counts[card.colour] += 1
    return max(COLOURS, key=lambda c: (counts[c], -COLOURS.index(c)))


class GreedyBot:
    """A deterministic one-step greedy player (see the module docstring for its rules).

    >>> from nomercy import Game
    >>> g = Game.from_position({"players": [{"hand": ["R1", "R9", "W+6", "G5"]},
    ...     {"hand": ["B2", "B3"]}], "turn": 0, "discard": ["R5"]})
    >>> str(GreedyBot().choose_action(g.view(0), g.legal_actions()))
    'play R9'
    """

    name = "greedy"
    #: It reads the current position only, never the event history (nomercy.bots.driver).
    view_mode = "no_history"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        # Owned for the protocol; the greedy rules are deterministic and never draw from it.
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"GreedyBot(seed={self.seed})"

    # ------------------------------------------------------------------ protocol
    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """The greedy choice among ``legal`` for the seat to act."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        hand = list(view.hand)
        plays = [a for a in legal if isinstance(a, Play)]
        winning = [a for a in plays if self._remaining(view, hand, a) == 0]
        if winning:
            return self._pick_variant(view, hand, winning)
        urgent = self.choose_out_of_turn(view, legal)
        if urgent is not None:
            return urgent
        colours = [a for a in legal if isinstance(a, ChooseColour)]
        if colours:
            best = favourite_colour(hand)
            return next((a for a in colours if a.colour is best), colours[0])
        if plays:
            return self._best_play(view, hand, plays)
        for kind in (Draw, Pass):
            for action in legal:
                if isinstance(action, kind):
                    return action
        return legal[0]  # e.g. a classic challenge that is the only choice

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        """Call UNO (NM-37) or catch an opponent; let everything else go."""
        for action in legal:
            if isinstance(action, CallUno):
                return action
        catches = [a for a in legal if isinstance(a, Catch)]
        if catches:
            return min(catches, key=lambda a: a.target)
        return None

    # ------------------------------------------------------------------ helpers
    def _remaining(self, view: PlayerView, hand: list[Card], action: Play) -> int:
        """Cards left in hand once ``action`` is played: the engine says what the play sheds
        (a Discard All its colour, NM-27, A09: :meth:`PlayerView.cards_shed`)."""
        return len(hand) - len(view.cards_shed(action.card))

    def _best_play(self, view: PlayerView, hand: list[Card], plays: list[Play]) -> Play:
        players = view.players
        seat = view.seat
        stacking = view.phase is Phase.STACK_OR_ABSORB
        pending = view.pending.total if stacking and view.pending is not None else 0
        index = {a: i for i, a in enumerate(plays)}

        def key(action: Play) -> tuple[int, ...]:
            card = action.card
            # NM-24: a card whose penalty would hit its own player opening a chain (the engine
            # aims it) is played last; inside a chain too, where A28 may pass it on.
            self_target = view.penalty_target(card, stacked=False) == seat
            bad_swap = False
            if card.number == 7 and action.target is not None:
                target = self._swap_target(view, plays, card)
                bad_swap = players[target].hand_size > self._remaining(view, hand, action)
            # A penalty that reaches the target's Mercy limit knocks them out (NM-33).
            kill = bool(card.draw_value) and pending + card.draw_value >= self._victim_distance(
                view, card
            )
            # Wild draw cards are the best stack answers (NM-18): keep them unless they kill.
            hold = not stacking and card.is_wild and bool(card.draw_value)
            if card.kind is Kind.DISCARD_ALL:
                points = sum(c.points for c in view.cards_shed(card))  # NM-27
            else:
                points = card.points
            keep = sum(1 for c in hand if card.colour is not None and c.colour is card.colour)
            # Stacking: answer with the smallest card that is legal, saving the big ones.
            small = -card.draw_value if stacking else 0
            return (
                not self_target,
                not bad_swap,
                kill,
                not hold,
                small,
                points,
                keep,
                -index[action],
            )

        best = max(plays, key=key)
        return self._pick_variant(view, hand, [a for a in plays if a.card is best.card])

    def _victim_distance(self, view: PlayerView, card: Card) -> int:
        """Cards the seat a Draw Card would hit can still take before the Mercy rule."""
        seat = view.seat
        assert seat is not None
        target = view.penalty_target(card)  # NM-16, NM-24, A28: the engine aims it
        if target is None or target == seat:
            return 1 << 30
        distance = view.players[target].mercy_distance
        if distance is None:
            return 1 << 30
        return distance

    def _swap_target(self, view: PlayerView, plays: list[Play], card: Card) -> int:
        players = view.players
        targets = {a.target for a in plays if a.card is card and a.target is not None}
        return min(targets, key=lambda t: (players[t].hand_size, t))

    def _pick_variant(self, view: PlayerView, hand: list[Card], plays: list[Play]) -> Play:
        """Among plays of one card: the favourite colour, the smallest swap target, UNO."""
        card = plays[0].card
        options = [a for a in plays if a.card is card]
        if any(a.colour is not None for a in options):
            colour = favourite_colour(hand)
            named = [a for a in options if a.colour is colour]
            options = named or options
        if any(a.target is not None for a in options):
            target = self._swap_target(view, options, card)
            options = [a for a in options if a.target == target]
        with_uno = [a for a in options if a.uno]
        return with_uno[0] if with_uno else options[0]
