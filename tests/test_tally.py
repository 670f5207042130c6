"""The engine's per-hand counters (nomercy.core.tally): the same with events on or off, kept
per hand across a match's deals, independent in copies, and in agreement with the game."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import nomercy
from nomercy.core.game import Game
from nomercy.core.tally import Tally


def _fields(t: Tally) -> tuple[object, ...]:
    return (
        t.hand,
        t.dealer,
        t.winner,
        t.how,
        t.points,
        t.before,
        t.actions,
        t.turns,
        t.cards_drawn,
        t.draws,
        t.max_pending,
        t.catches,
        t.uno_calls,
        t.reshuffles,
        t.swaps,
        t.rotations,
        t.stacks,
        t.knockouts,
        t.knockout_steps,
    )


def _random_game(players: int, seed: int, *, ids: bool, **options: object) -> Game:
    game = nomercy.new_game(players, seed=seed, options=options)
    choice = random.Random(seed).choice
    if ids:
        game.record_events = False
        while not game.is_over:
            game.step(choice(game.legal_ids()))
    else:
        while not game.is_over:
            game.apply(choice(game.legal_actions()))
    return game


MATCH = {"scoring_enabled": True, "score_target": 300}


@pytest.mark.parametrize("options", [{}, MATCH, {"mercy_timing": "end_of_action", **MATCH}])
def test_events_off_counts_what_events_on_counts(options: dict[str, object]) -> None:
    for seed in range(12):
        players = 2 + seed % 5
        on = _random_game(players, seed, ids=False, **options)
        off = _random_game(players, seed, ids=True, **options)
        assert off.log == off.opening_events and len(on.log) > len(on.opening_events)
        assert [_fields(t) for t in off.hand_tallies] == [_fields(t) for t in on.hand_tallies]


def test_a_match_keeps_one_finished_record_per_hand() -> None:
    game = _random_game(3, 0, ids=True, scoring_enabled=True, score_target=1000)
    records = game.hand_tallies
    assert len(records) == game.hand_number > 1
    assert [t.hand for t in records] == list(range(1, game.hand_number + 1))
    before = 0
    for t in records:
        assert t.winner >= 0 and t.how in ("empty hand", "last standing")
        assert t.before == before  # the hand that ended and the next deal share an action
        before += t.actions
        assert t.turns <= t.actions
        assert len(t.knockouts) == len(t.knockout_steps)
        assert all(t.before < s <= t.before + t.actions for s in t.knockout_steps)
        assert max(t.stacks, default=0) <= t.max_pending
    assert before == len(game.history)
    assert game.tally is records[-1]  # the game is over: no hand was dealt after the last
    assert sum(t.points for t in records) == sum(game.scores)


def test_the_record_of_a_hand_outlives_the_next_deal() -> None:
    game = nomercy.new_game(2, seed=9, options=MATCH)
    choice = random.Random(1).choice
    game.record_events = False
    while not game.hand_tallies:
        game.step(choice(game.legal_ids()))
    (first,) = game.hand_tallies
    assert game.hand_number == 2 and game.tally is not first
    frozen = _fields(first)
    assert game.tally.actions == 0 and game.tally.before == first.actions
    for _ in range(10):
        game.step(choice(game.legal_ids()))
    assert _fields(first) == frozen and game.tally.actions == 10


def test_copies_count_on_their_own() -> None:
    game = nomercy.new_game(4, seed=3)
    choice = random.Random(3).choice
    for _ in range(20):
        game.apply(choice(game.legal_actions()))
    twin = game.copy()
    assert _fields(twin.tally) == _fields(game.tally) and twin.tally is not game.tally
    frozen = _fields(game.tally)
    while not twin.is_over:
        twin.step(choice(twin.legal_ids()))
    assert _fields(game.tally) == frozen and twin.tally.actions > game.tally.actions
    for clone in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert _fields(clone.tally) == frozen


def test_counts_agree_with_the_game() -> None:
    for seed in range(10):
        game = _random_game(4, seed, ids=False)
        (t,) = game.hand_tallies
        log = game.log
        assert t.actions == len(game.history)
        assert t.draws == sum(e.kind == "draw" for e in log)
        assert t.uno_calls == sum(e.kind == "uno" for e in log)
        assert sorted(t.knockouts) == [s for s in range(4) if game.out[s]]
        assert (t.hand, t.dealer, t.winner) == (1, game.dealer, game.winner)
        # Every card is dealt, drawn, or still in the pile or the discard pile.
        in_hands = sum(len(h) for h in game.hands)
        assert in_hands + len(game.set_aside) <= 4 * 7 + t.cards_drawn


def test_a_position_starts_counting_afresh() -> None:
    game = nomercy.new_game(3, seed=5)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    loaded = Game.from_position(game.to_position())
    assert loaded.tally.actions == 0 and loaded.hand_tallies == ()
    loaded.apply(loaded.legal_actions()[0])
    assert loaded.tally.actions == 1
