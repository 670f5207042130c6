"""The ``rlcard`` deal priors: RLCard's rule agent read exactly (its Wild +4 names the colour
it holds most; a plain wild's colour tells nothing; the priors hold in every deal)."""

from __future__ import annotations

import random

from nomercy import Game, new_game
from nomercy.bots import ISMCTSBot, make_bot
from nomercy.bots.determinize import PRIORS, RLCARD_RULE, _by_wild_draw_four, search_sampler
from nomercy.bots.driver import Driver
from nomercy.bots.knowledge import play_hints
from nomercy.core.cards import COLOURS, Kind
from nomercy.core.views import PlayerView


def _after_wild_draw_four(seed: int) -> tuple[Game, PlayerView]:
    """A classic heads-up game of two ``rlcard-rule`` bots, at seat 0's first turn after
    seat 1 named a colour with a Wild +4 (seed 7: six actions in)."""
    game = new_game(2, rules="classic", seed=seed)
    driver = Driver([make_bot("rlcard-rule", seed=seed * 2 + s) for s in range(2)])
    while not game.is_over:
        if game.turn == 0 and game.phase.value == "play":
            view = game.view(0)
            wild = play_hints(view).named_with.get(1)
            if wild is not None and wild.kind is Kind.WILD_DRAW_FOUR:
                return game, view
        game.apply(driver.next_action(game))
    raise AssertionError(f"seed {seed}: no Wild +4 from seat 1")


def _holds_named_most(deal: Game, view: PlayerView) -> bool:
    """Whether seat 1's hand in ``deal``, with the cards it played since, holds the colour it
    named with its Wild +4 at least as often as any other."""
    hints = play_hints(view)
    colour, at = hints.named[1]
    counts = dict.fromkeys(COLOURS, 0)
    for card in [*deal.hands[1], *hints.played[1][at:]]:
        if card.colour is not None:
            counts[card.colour] += 1
    return counts[colour] == max(counts.values())


def test_rlcard_priors_deal_the_wild_draw_fours_colour_as_held_most() -> None:
    assert RLCARD_RULE in PRIORS and ISMCTSBot(priors="rlcard").priors == "rlcard"
    game, view = _after_wild_draw_four(7)
    assert _holds_named_most(game, view)  # the real hand: RLCard's agent named its majority
    rng = random.Random(1)
    counts = {}
    for priors in ("choices", "rlcard"):
        sample = search_sampler(view, priors)
        counts[priors] = sum(_holds_named_most(sample(rng), view) for _ in range(200))
    # "choices" keeps a share of plain deals and doubts a named colour softly; "rlcard"
    # keeps the hint in (almost) every deal.
    assert counts["rlcard"] >= 190 and counts["choices"] < counts["rlcard"]


def test_a_plain_wilds_colour_is_no_hint_for_rlcard() -> None:
    # RLCard's agent names a random colour with a plain wild: the "rlcard" priors read the
    # named colour of a Wild +4 only (hints record which wild named it).
    for seed in range(40):
        game = new_game(2, rules="classic", seed=seed)
        driver = Driver([make_bot("rlcard-rule", seed=seed * 2 + s) for s in range(2)])
        while not game.is_over:
            if game.turn == 0 and game.phase.value == "play":
                hints = play_hints(game.view(0))
                wild = hints.named_with.get(1)
                if wild is not None and wild.kind is Kind.WILD:
                    assert 1 in hints.named and not _by_wild_draw_four(hints, 1)
                    return
            game.apply(driver.next_action(game))
    raise AssertionError("no plain wild from seat 1 in 40 games")
