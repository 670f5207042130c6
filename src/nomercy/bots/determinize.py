"""Determinization: a full game consistent with everything one seat has seen.

Information-set search (:mod:`nomercy.bots.ismcts_bot`) needs concrete games to play forward.
The rules knowledge lives in the core (:mod:`nomercy.core.redeal`): :meth:`Game.from_view`
builds a game from a seat's view alone and :meth:`Game.redealer` deals the cards the seat
has not seen into the places it cannot see, keeping its hand, every hand size, the cards it
knows others hold, the colours they publicly showed they lack, the public piles and
bookkeeping, and a classic Wild +4's ``guilty`` flag consistent with the sampled hand.

This module is the view-level convenience on top: :func:`sample_game` and
:func:`sample_position` take a view (and optionally its :class:`Knowledge`). Nothing but the
view is read, so a determinization never uses hidden state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from nomercy.bots.knowledge import Knowledge, PlayHints, play_hints, rank_of, view_gaps
from nomercy.core.cards import ALL_CODES, COLOURS, Card, Kind
from nomercy.core.errors import NotationError
from nomercy.core.game import Game
from nomercy.core.redeal import DealWeight, Gaps, Redealer
from nomercy.core.views import PlayerView

__all__ = [
    "HONEST_WD4",
    "KEEPS_WILDS",
    "NAMED_DOUBT",
    "PRIORS",
    "PRIOR_TRIES",
    "RANK_DOUBT",
    "RLCARD_RULE",
    "honest_redealer_for",
    "redealer_for",
    "sample_game",
    "sample_position",
    "search_sampler",
]

#: The prior that a classic Wild +4 awaiting a challenge was played honestly (CL-4, CL-8):
#: a player holding the active colour usually plays it rather than risk a 4-card penalty.
#: Uniform deals make the accused guilty most of the time (a hand of five holds a given
#: colour three times in four), which is why a search challenged every second Wild +4 and
#: lost each of those challenges against RLCard's agent, whose Wild +4 is always honest.
#: ``heuristic`` bluffs in about one Wild +4 in six against itself, ``random`` far more often:
#: this is a prior for sensible opponents. The search uses it; the heuristic does not.
HONEST_WD4 = 0.8

#: The prior that a classic player who played a wild (plain or Wild +4) held no card of the
#: colour active then (:func:`~nomercy.bots.knowledge.play_hints`): sensible players keep
#: their wilds for when nothing else fits (RLCard's agent always does; ``heuristic`` mostly).
KEEPS_WILDS = 0.8
#: Deals drawn per search iteration for the priors met by weighing (``"ranks"`` and up):
#: one of them is kept by its weight (sampling-importance-resampling).
PRIOR_TRIES = 6
#: The weight of a deal that gives a player a card of a rank it showed it could not match.
RANK_DOUBT = 0.001
#: The weight of a deal in which a player did not hold the colour it named most: RLCard's
#: agent names a random colour with a plain wild (it holds it most about 6 times in 10,
#: ``heuristic`` 19 in 20), so this prior is soft.
NAMED_DOUBT = 0.3
#: The deal priors a search may use on classic rules, each adding to the ones before (see
#: :func:`search_sampler`): ``"none"`` (the view's gaps and the honest Wild +4 only),
#: ``"wilds"`` (a wild's covered colour), ``"ranks"`` (the ranks a player could not
#: match), ``"named"`` (the colour named with a wild), ``"choices"`` (the cards chosen);
#: ``"rlcard"``: ``"choices"`` read as RLCard's rule agent plays (:data:`RLCARD_RULE`).
PRIORS = ("none", "wilds", "ranks", "named", "choices", "rlcard")
#: RLCard's rule agent (``UNORuleAgentV1``, the ``rlcard-rule`` bot) is public, so its plays
#: can be read exactly: it always keeps its wilds for when nothing else fits (the priors hold
#: in every deal, not a share :data:`KEEPS_WILDS`); it names the colour it holds most (of its
#: non-wild cards) with a Wild +4 and a uniformly random one with a plain wild, so a Wild
#: +4's colour is a near-certain hint (:data:`RANK_DOUBT`) and a plain wild's none; and it
#: plays among its playable non-wild cards uniformly (``"choices"``). docs/ladder.md
#: measures it.
RLCARD_RULE = "rlcard"

_ALL_CARDS = [Card(code) for code in ALL_CODES]


def redealer_for(view: PlayerView, knowledge: Knowledge | None = None) -> Redealer:
    """The core :class:`~nomercy.core.redeal.Redealer` of ``view``'s seat, from the view alone.

    Args:
        view: ``Game.view(seat)`` of a seat (not a spectator), with its history unless
            ``knowledge`` is given.
        knowledge: :func:`~nomercy.bots.knowledge.read_view` of the same view; its colour
            gaps are used instead of reading the history again (without it they are read
            from the history, on classic rules by :func:`~nomercy.bots.knowledge.view_gaps`,
            which counts a turn's draw as forced).

    Raises:
        ValueError: a spectator view, or a view whose card counts do not add up.
    """
    seat = view.seat
    if seat is None:
        raise ValueError("a determinization needs a seat's view, not a spectator's")
    try:
        game = Game.from_view(view)
    except NotationError as exc:
        raise ValueError(str(exc)) from None
    gaps = None  # the Redealer reads them from the game's history (NM-9)
    if knowledge is not None:
        gaps = Gaps(knowledge.lacks, knowledge.lacks_wild, knowledge.colour)
    elif game.rules.is_classic:
        gaps = view_gaps(view, game.rules)  # CL-5: a turn's draw counts as forced
    return Redealer(game, seat, gaps)


def honest_redealer_for(view: PlayerView, redealer: Redealer | None = None) -> Redealer | None:
    """Deals in which a classic Wild +4 awaiting the seat's challenge was honest, or ``None``.

    When the seat may challenge a Wild +4 (CL-8; the view's ``wd4_play``), the accused
    held no card of the colour that was active when it was played (CL-4): the returned
    redealer deals the accused's unseen cards without that colour, on top of the gaps of
    ``redealer`` (:func:`redealer_for` of the same view when not given). A search mixes its
    deals with those of :func:`redealer_for` by the prior :data:`HONEST_WD4`.

    Raises:
        ValueError: as :func:`redealer_for`.
    """
    play = view.wd4_play
    seat = view.seat
    if play is None or play.colour is None or seat is None or play.seat == seat:
        return None
    base = redealer_for(view) if redealer is None else redealer
    gaps = base.gaps
    lacks = {s: set(c) for s, c in gaps.lacks.items()}
    lacks.setdefault(play.seat, set()).add(play.colour)
    return Redealer(Game.from_view(view), seat, Gaps(lacks, set(gaps.no_wild), gaps.colour))


def sample_game(view: PlayerView, rng: random.Random, knowledge: Knowledge | None = None) -> Game:
    """A game consistent with ``view``, with the hidden cards dealt at random.

    For many samples of one view, build :func:`redealer_for` once and call its ``sample``.

    Raises:
        ValueError: a spectator view, or a view whose card counts do not add up.
    """
    return redealer_for(view, knowledge).sample(rng)


def sample_position(
    view: PlayerView, rng: random.Random, knowledge: Knowledge | None = None
) -> dict[str, Any]:
    """:func:`sample_game` as a position (``Game.to_position()``); same arguments."""
    return sample_game(view, rng, knowledge).to_position()


def _by_wild_draw_four(hints: PlayHints, seat: int) -> bool:
    """Whether ``seat`` named its hinted colour with a Wild +4."""
    wild = hints.named_with.get(seat)
    return wild is not None and wild.kind is Kind.WILD_DRAW_FOUR


def search_sampler(view: PlayerView, priors: str = "choices") -> Callable[[random.Random], Game]:
    """The deals a search of ``view`` plays: :func:`redealer_for`'s, tilted by priors.

    A classic Wild +4 awaiting the seat's challenge was honest with the prior
    :data:`HONEST_WD4` (:func:`honest_redealer_for`). On classic rules the priors of
    :data:`PRIORS` up to ``priors`` hold in a share :data:`KEEPS_WILDS` of the deals
    (:data:`HONEST_WD4` when a Wild +4 awaits a challenge: it is such a wild); they are
    read from :func:`~nomercy.bots.knowledge.play_hints`, about each opponent's hand since
    it last received cards nobody saw, and model a sensible player:

    - ``"wilds"``: it plays a wild only when no other card fits, so it held no card of the
      colour active then;
    - ``"ranks"``: nor of the top card's number or symbol, nor when it drew on its turn;
    - ``"named"``: it names the colour it holds most;
    - ``"choices"``: it plays any of its playable coloured cards alike, so a hand with
      fewer of them made each of its plays likelier (weight ``1 / playable`` per play);
    - ``"rlcard"``: the same, for RLCard's rule agent exactly (:data:`RLCARD_RULE`): in
      every deal, the named colour from a Wild +4 only, held most with :data:`RANK_DOUBT`.

    The first is dealt exactly; the others weigh :data:`PRIOR_TRIES` deals and keep one by
    its weight (:data:`RANK_DOUBT`, :data:`NAMED_DOUBT`). No Mercy deals are
    :func:`redealer_for`'s alone (its wilds have other uses).

    The games are made for play, not for show
    (:meth:`~nomercy.core.redeal.Redealer.sample_for_search`): events are off and they keep
    no history; the deals are those of ``sample`` for the same generator.

    Raises:
        ValueError: as :func:`redealer_for`, or ``priors`` not in :data:`PRIORS`.
    """
    if priors not in PRIORS:
        raise ValueError(f"priors must be one of {', '.join(PRIORS)}, not {priors!r}")
    level = PRIORS.index(priors)
    base = redealer_for(view)
    honest = honest_redealer_for(view, base)
    hints = PlayHints()
    if level and view.rules.is_classic:
        hints = play_hints(view)
    ranks = list(hints.ranks.items()) if level >= 2 else []
    exact = priors == RLCARD_RULE
    named = [
        (s, c, hints.played.get(s, [])[at:])
        for s, (c, at) in hints.named.items()
        # RLCard's agent names a random colour with a plain wild: only its Wild +4 tells.
        if level >= 3 and (not exact or _by_wild_draw_four(hints, s))
    ]
    choices = [(s, c, hints.played[s]) for s, c in hints.choices.items() if level >= 4]
    if not hints.lacks and not ranks and not named and not choices:
        if honest is None:
            return base.sample_for_search
        plain, fair = base.sample_for_search, honest.sample_for_search

        def mixed(rng: random.Random) -> Game:
            return fair(rng) if rng.random() < HONEST_WD4 else plain(rng)

        return mixed
    gaps = (honest or base).gaps
    lacks = {s: set(c) for s, c in gaps.lacks.items()}
    for s, colours in hints.lacks.items():
        lacks.setdefault(s, set()).update(colours)
    tilted = Redealer(Game.from_view(view), base.seat, Gaps(lacks, set(gaps.no_wild), gaps.colour))
    share = 1.0 if exact else HONEST_WD4 if honest is not None else KEEPS_WILDS
    plain, prior = base.sample_for_search, tilted.sample_for_search
    # Per hint, what the weight asks of a card, read once per decision (by Card.index): a
    # rank the seat could not match, and the copies of each card known to be in its hand;
    # the colours of the cards it played since it named a colour; for each of its choices
    # the cards that would have been playable then (coloured, of the colour or rank asked
    # for) and which of the cards it played since then were. DealWeight (compiled with the
    # core) evaluates them on each deal's hands.
    size = len(_ALL_CARDS)
    rank_hints = []
    for seat, ranks_ in ranks:
        known = Counter(c.index for c in view.known.get(seat, ()))
        seen = [known[i] for i in range(size)]
        rank_hints.append((seat, [rank_of(c) in ranks_ for c in _ALL_CARDS], seen))
    named_hints = []
    for seat, colour, since in named:
        counts = [0] * len(COLOURS)
        for c in since:
            if c.colour is not None:
                counts[COLOURS.index(c.colour)] += 1
        named_hints.append((seat, COLOURS.index(colour), counts))
    choice_hints = []
    for seat, made, played in choices:
        per_choice = []
        for choice in made:
            fits = [
                not c.is_wild and (c.colour is choice.colour or rank_of(c) == choice.rank)
                for c in _ALL_CARDS
            ]
            after = {c.index for c in played[choice.since :]}
            per_choice.append((fits, [fits[i] and i in after for i in range(size)]))
        choice_hints.append((seat, per_choice))
    named_doubt = RANK_DOUBT if exact else NAMED_DOUBT
    weight = DealWeight(rank_hints, RANK_DOUBT, named_hints, named_doubt, choice_hints).weight
    tries = PRIOR_TRIES if ranks or named or choices else 1
    deal, game_of = tilted.deal, tilted.game_of

    def sample(rng: random.Random) -> Game:
        if rng.random() >= share:
            return plain(rng)
        if tries == 1:
            return prior(rng)
        # Sampling-importance-resampling: one of several deals, by its weight; only the
        # one kept is made a game.
        deals = [deal(rng) for _ in range(tries)]
        weights = [weight(d) for d in deals]
        pick = rng.random() * sum(weights)
        for d, w in zip(deals, weights, strict=True):
            pick -= w
            if pick <= 0:
                return game_of(d)
        return game_of(deals[-1])

    return sample
