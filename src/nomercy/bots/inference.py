"""Policy-based inference of hidden hands: how likely a deal makes the opponents' plays.

A player's choices say something about the cards it holds: a player who leaves the active
colour for a number may hold little of it, one who stacks a +4 instead of a +2 may have no
+2. Card-game programs (Skat's, bridge's) weigh each sampled deal by how likely the
opponents' recent moves are under a model of play given the hands that deal gives them. The
policy-value network of ``puct`` is such a model: it was trained on the searches of
``ismcts`` (docs/puct.md).

:class:`PlayReader` follows one seat through a hand. At each of its decisions it replays,
from its previous view and the action it took there, the public events since (only from the
views: nothing hidden is read), and keeps every in-turn decision another seat made as
evidence: the position before it (a determinized game from the seat's earlier view, with the
cards the others went on to play placed in their hands) and the action taken. Evidence about
a seat lasts while its hand changes only by what it plays and what it draws (drawn cards by
their count: the replay's draws are not the real ones); a swap, a hand pass or a knock-out
ends it. Anything the replay cannot follow exactly (the seat's own draw, a Roulette reveal,
an event it did not reproduce) ends all evidence.

:func:`deal_weights` weighs deals by the evidence: for a deal and a decision, the seat's hand
then is its hand in the deal, less as many of its unknown cards as it drew since, plus the
cards that left it since; the network's policy from that seat's observation then gives the
chance of what it did (for a play, summed over the ways to play the card). A deal's weight is
the product over the evidence of ``floor + (1 - floor) * chance``: the floor keeps deals an
imperfect model calls unlikely. docs/puct.md measures it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nomercy.bots.playouts import decision
from nomercy.core.actions import Action
from nomercy.core.cards import Card
from nomercy.core.errors import NoMercyError
from nomercy.core.events import Event, EventKind
from nomercy.core.game import Game
from nomercy.core.ids import ID_CARD, ID_KIND, K_CATCH, K_UNO, id_action
from nomercy.core.redeal import with_cards
from nomercy.core.views import PlayerView

if TYPE_CHECKING:
    import numpy as np

    from nomercy.bots.pvnet import PVNet
    from nomercy.encoding.fast import TableObserver

__all__ = ["FLOOR", "Evidence", "PlayReader", "deal_weights"]

_EXCHANGES = (EventKind.SWAP, EventKind.PASS_HANDS)

#: The least weight one decision gives a deal: the network models ``ismcts``, not every
#: player.
FLOOR = 0.05


class Evidence:
    """One decision of an opponent: the position before it, what it did, and how its hand
    changed since."""

    __slots__ = ("action", "card", "game", "received", "seat", "since")

    def __init__(self, game: Game, seat: int, action: int) -> None:
        #: The position before the decision (events off), ``seat`` to act in it.
        self.game = game
        self.seat = seat
        #: The id it took; ``card`` the card it played (``None``: not a play).
        self.action = action
        self.card = ID_CARD[action]
        #: Every card that left the seat's hand from this decision on.
        self.since: list[Card] = []
        #: How many cards nobody saw it received since (a draw, an absorbed penalty).
        self.received = 0


def _same_hand(a: PlayerView, b: PlayerView) -> bool:
    """Whether view ``b`` continues view ``a`` (the same seat, game and hand, later)."""
    return (
        a.seat == b.seat
        and a.rules is b.rules
        and a.hand_number == b.hand_number
        and len(a.players) == len(b.players)
        and len(a.history) <= len(b.history)
        and b.history[: len(a.history)] == a.history
    )


class PlayReader:
    """The evidence of one seat's decisions in a hand (see the module docstring).

    Call :meth:`read` with each new view the seat decides at, and :meth:`acted` with the
    action it took there.
    """

    __slots__ = ("_evidence", "_prev")

    def __init__(self) -> None:
        self._prev: tuple[PlayerView, Action] | None = None
        self._evidence: list[Evidence] = []

    def acted(self, view: PlayerView, action: Action) -> None:
        """Remember the seat's decision: ``action`` taken at ``view``."""
        self._prev = (view, action)

    def read(self, view: PlayerView) -> list[Evidence]:
        """The evidence at ``view``: the other seats' decisions still telling of their hands
        (oldest first). Empty when the replay cannot follow the events since the last one."""
        prev, self._prev = self._prev, None
        if prev is None or view.seat is None or not _same_hand(prev[0], view):
            self._evidence = []
            return self._evidence
        try:
            followed = self._replay(prev[0], prev[1], view)
        except (NoMercyError, ValueError):
            followed = False
        if not followed:
            self._evidence = []
        return self._evidence

    def _replay(self, before: PlayerView, action: Action, view: PlayerView) -> bool:
        me = view.seat
        assert me is not None
        new = view.history[len(before.history) :]
        game = Game.from_view(before)
        n = game.n
        # The cards each other seat plays from here on must be in its hand: as far as the
        # view tells, they were (a card it draws and plays at once does not match below).
        plays: dict[int, list[Card]] = {}
        for e in new:
            if e.kind is EventKind.PLAY and e.seat is not None and e.seat != me:
                plays.setdefault(e.seat, []).append(Card(str(e.data["card"])))
        for s, cards in plays.items():
            held = Counter(cards)
            for (_, holder), known in game.known.items():
                if holder == s:
                    held |= Counter(known)  # cards known to be there stay there
            game = with_cards(game, s, held.elements(), keep=(me,))
        evidence = self._evidence
        at = self._advance(game, action, new, 0, me, evidence)
        if at < 0:
            return False
        while at < len(new):
            # The next action: the one of its first event's seat whose events are these.
            event = new[at]
            actor = event.seat
            if actor is None:
                return False
            card = Card(str(event.data["card"])) if event.kind is EventKind.PLAY else None
            for aid in game.legal_ids(actor):
                if ID_CARD[aid] is not card:
                    continue
                trial = game.copy()
                found = list(evidence)
                if actor != me and actor == game.turn and ID_KIND[aid] not in (K_UNO, K_CATCH):
                    found.append(Evidence(game.search_copy(), actor, aid))
                end = self._advance(trial, id_action(aid, actor, n), new, at, me, found)
                if end >= 0:
                    evidence[:] = found
                    game, at = trial, end
                    break
            else:
                return False  # no action reproduces the events (hidden cards differ)
        return game.turn == view.to_act and game.phase == view.phase

    def _advance(
        self,
        game: Game,
        action: Action,
        new: Sequence[Event],
        at: int,
        me: int,
        evidence: list[Evidence],
    ) -> int:
        """Apply ``action`` to ``game``; the index in ``new`` after its events, or -1 when
        they are not the ones seen. Updates ``evidence`` (in place) for the cards that
        left or joined each other seat's hand."""
        before = [Counter(h) for h in game.hands]
        seen = [e.for_seat(me) for e in game.apply(action)]
        end = at + len(seen)
        if tuple(seen) != tuple(new[at:end]):
            return -1
        if any(e.kind in _EXCHANGES for e in seen):
            # Hands changed places (NM-29, NM-31): nobody's hand then is its hand now give or
            # take its own cards, even where the cards compare alike.
            evidence.clear()
            return end
        for s in range(game.n):
            if s == me:
                continue
            now = Counter(game.hand_of(s))
            came = now - before[s]
            gone = before[s] - now
            if game.out[s] or (came and gone):
                # Knocked out (its hand set aside), or cards both came and went: its hand
                # then is no longer its hand now give or take what it played and drew.
                evidence[:] = [e for e in evidence if e.seat != s]
                continue
            if came or gone:
                # The replay drew other cards than the real ones: of those only the count holds.
                count = came.total()
                left = list(gone.elements())
                for e in evidence:
                    if e.seat == s:
                        e.received += count
                        e.since.extend(left)
        return end


def deal_weights(
    deals: Sequence[Game],
    evidence: Sequence[Evidence],
    net: PVNet,
    observer: TableObserver,
    scale: np.ndarray,
    buffer: np.ndarray,
    floor: float = FLOOR,
) -> list[float]:
    """Each deal's weight by ``evidence`` (see the module docstring); ``buffer`` is a float32
    array of the observation's size, ``scale`` the network's input scale."""
    out = buffer.data
    cards_of = ID_CARD
    weights = []
    for deal in deals:
        w = 1.0
        for e in evidence:
            seat = e.seat
            hand = deal.hand_of(seat)
            # The cards it received since are any of its unknown ones (dealt last): a deal's
            # hidden cards are in random order, so dropping the last ones is a fair guess.
            kept = hand[: len(hand) - e.received] if e.received else hand
            then = [*kept, *e.since]
            if len(then) != len(e.game.hand_of(seat)):
                continue  # not the hand it had then (cannot happen while the evidence holds)
            try:
                game = with_cards(e.game, seat, then)
            except ValueError:
                continue
            s, ids = decision(game, True, True)
            while s < 0:  # an automatic UNO call was applied first
                s, ids = decision(game, True, True)
            observer.write(game, seat, out)
            buffer *= scale
            ps, _ = net.evaluate(buffer, ids, game.n)
            card = e.card
            if card is None:
                took = e.action
                chance = sum(p for a, p in zip(ids, ps, strict=True) if a == took)
            else:  # a card played in any way
                chance = sum(p for a, p in zip(ids, ps, strict=True) if cards_of[a] is card)
            w *= floor + (1.0 - floor) * chance
        weights.append(w)
    return weights
