"""Per-hand statistics the engine keeps as it plays, whether it records events or not.

A :class:`Tally` counts what happened in one hand. The engine updates
:attr:`Game.tally <nomercy.core.game.Game.tally>` at the very points where it emits the
corresponding events (``draw``, ``absorb``, ``stack``, ``knockout``, ...), so simulations and
tournaments read their statistics without events (``game.record_events = False``). When a
hand ends its tally is complete (winner, how, points) and joins
:attr:`Game.hand_tallies <nomercy.core.game.Game.hand_tallies>`; in a match the next deal then
starts a new one, inside the same action. The counts cover the game from where it began (a
new game, or the position it was loaded from: nothing before it is known).

Each update is a few native integer operations; the lists of a hand (penalties taken,
knock-outs) are tuples, so :meth:`Tally.copy` (run by every :meth:`Game.copy
<nomercy.core.game.Game.copy>`) makes one object and the finished records are shared.
"""

from __future__ import annotations

from typing import Final

from nomercy.core.base import PLAY, STACK_OR_ABSORB, Phase
from nomercy.core.ids import ID_KIND, K_CHALLENGE, K_DRAW, K_PASS, K_PLAY

__all__ = ["TURN_KINDS", "Tally"]

#: Id kinds that start a player's turn when taken in the ``play`` or ``stack_or_absorb``
#: phase: a play (a classic jump-in too, C04), a draw or taking the penalty, a pass, a
#: classic challenge. Follow-up choices (a wild's colour, playing the drawn card, a Discard
#: All choice) and UNO calls and catches belong to the turn they are part of.
TURN_KINDS: Final = (K_PLAY, K_DRAW, K_PASS, K_CHALLENGE)
_STARTS_TURN: Final[tuple[bool, ...]] = tuple(kind in TURN_KINDS for kind in ID_KIND)


class Tally:
    """The counters of one hand (``hand``, ``dealer``, ``winner``, ``how`` and ``points`` are
    set when it ends; ``winner`` is -1 before).

    Attributes:
        actions: every applied action, out-of-turn UNO calls and catches included.
        turns: actions that start a player's go (:data:`TURN_KINDS`; NM-6, NM-7, CL-4).
        cards_drawn: cards that entered a hand from the draw pile: draws (NM-9, A02, CL-5),
            penalties taken (NM-17, CL-6, A15, A17; a classic start Draw Two, CL-3), UNO
            catches (NM-37), classic challenges (CL-8) and Colour Roulette reveals (NM-30):
            the cards actually drawn (the events of a successful challenge and of a start
            Draw Two say 4 and 2 even if the pile ran dry, which a full deck never does).
        draws: voluntary or forced draws from the pile (NM-9, A02, A03, CL-5).
        stacks: the total of every penalty taken, in order (NM-17: the pending total, even
            when the Mercy rule stopped the draw early, A15; A17 the cards the last card
            made its target draw, as its event gives no total; CL-3 a classic start Draw
            Two).
        max_pending: the biggest pending total built (NM-16, NM-18; C08 a challengeable
            winning card), taken or not.
        knockouts: seats knocked out by the Mercy rule, in order (NM-33, NM-34).
        knockout_steps: for each knock-out, the game's action count at that action
            (two knocked out by one action share it).
        catches: UNO catches (NM-37). uno_calls: UNO calls (NM-37), folded into a play or not.
        reshuffles: discard piles turned into a draw pile (NM-35, CL-11).
        swaps: 7-swaps (NM-31). rotations: 0-passes (NM-29).
        before: the game's actions before this hand.
    """

    def __init__(self, before: int = 0) -> None:
        self.hand = 0
        self.dealer = -1
        self.winner = -1
        self.how = ""
        self.points = 0
        self.before = before
        self.actions = 0
        self.turns = 0
        self.cards_drawn = 0
        self.draws = 0
        self.max_pending = 0
        self.catches = 0
        self.uno_calls = 0
        self.reshuffles = 0
        self.swaps = 0
        self.rotations = 0
        self.stacks: tuple[int, ...] = ()
        self.knockouts: tuple[int, ...] = ()
        self.knockout_steps: tuple[int, ...] = ()

    def copy(self) -> Tally:
        """An independent copy (the tuples are shared: they never change)."""
        t = Tally(self.before)
        t.hand = self.hand
        t.dealer = self.dealer
        t.winner = self.winner
        t.how = self.how
        t.points = self.points
        t.actions = self.actions
        t.turns = self.turns
        t.cards_drawn = self.cards_drawn
        t.draws = self.draws
        t.max_pending = self.max_pending
        t.catches = self.catches
        t.uno_calls = self.uno_calls
        t.reshuffles = self.reshuffles
        t.swaps = self.swaps
        t.rotations = self.rotations
        t.stacks = self.stacks
        t.knockouts = self.knockouts
        t.knockout_steps = self.knockout_steps
        return t

    def next_hand(self) -> Tally:
        """The empty tally of the hand dealt after this one (NM-41)."""
        return Tally(self.before + self.actions)

    # ---------------------------------------------------------------- updates (the engine's)
    def act(self, action_id: int, phase: Phase) -> None:
        """An action with id ``action_id`` is applied in ``phase`` (before it changes it)."""
        self.actions += 1
        if _STARTS_TURN[action_id] and (phase is PLAY or phase is STACK_OR_ABSORB):
            self.turns += 1

    def drew(self, count: int) -> None:
        """A draw from the pile of ``count`` cards (NM-9, A02, A03, CL-5)."""
        self.draws += 1
        self.cards_drawn += count

    def absorbed(self, count: int, total: int) -> None:
        """A penalty of ``total`` taken, ``count`` cards drawn (NM-17, CL-6, A15, A17, CL-3)."""
        self.cards_drawn += count
        # A concatenation makes one tuple; unpacking builds a list first (compiled).
        self.stacks = self.stacks + (total,)  # noqa: RUF005

    def pending(self, total: int) -> None:
        """A pending penalty now totals ``total`` (NM-16, NM-18, C08)."""
        if total > self.max_pending:
            self.max_pending = total

    def knocked_out(self, seat: int) -> None:
        """``seat`` is knocked out by the Mercy rule (NM-33, NM-34)."""
        self.knockouts = (*self.knockouts, seat)
        self.knockout_steps = (*self.knockout_steps, self.before + self.actions)

    def caught(self, count: int) -> None:
        """A seat caught not calling UNO draws ``count`` cards (NM-37)."""
        self.catches += 1
        self.cards_drawn += count

    def ended(self, hand: int, dealer: int, winner: int, how: str, points: int) -> None:
        """Hand ``hand`` (dealt by ``dealer``) is won by ``winner``: ``how`` is ``"empty hand"``
        (NM-38, CL-10) or ``"last standing"`` (NM-34); ``points`` its score (NM-40, CL-13;
        0 under classic ``lowest_wins``, where the winner scores nothing)."""
        self.hand = hand
        self.dealer = dealer
        self.winner = winner
        self.how = how
        self.points = points

    def _key(self) -> tuple[object, ...]:
        return (
            self.hand,
            self.dealer,
            self.winner,
            self.how,
            self.points,
            self.before,
            self.actions,
            self.turns,
            self.cards_drawn,
            self.draws,
            self.max_pending,
            self.catches,
            self.uno_calls,
            self.reshuffles,
            self.swaps,
            self.rotations,
            self.stacks,
            self.knockouts,
            self.knockout_steps,
        )

    def __eq__(self, other: object) -> bool:
        """Tallies are values: equal when every counter is (a copy equals its original)."""
        if not isinstance(other, Tally):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return (
            f"Tally(hand={self.hand}, winner={self.winner}, how={self.how!r}, "
            f"actions={self.actions}, turns={self.turns}, cards_drawn={self.cards_drawn})"
        )
