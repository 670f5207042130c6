"""``Game.forget``: a game lets go of the record of its past and plays on exactly as before.

A web room holds its game for as long as people play it; its record is in the database, so the
room keeps only the newest events of the hand (issue 43). These tests play a forgetful game
next to one that remembers everything and check that play, counts and the held history agree,
and that what needs the whole past (records, positions, views with history) refuses clearly.
"""

from __future__ import annotations

import random

import pytest

from nomercy import new_game
from nomercy.core.errors import NoMercyError
from nomercy.core.game import Game
from nomercy.core.records import GameRecord


def _pair(seed: int, **kw: object) -> tuple[Game, Game]:
    return new_game(3, seed=seed, **kw), new_game(3, seed=seed, **kw)  # type: ignore[arg-type]


def _play(whole: Game, lean: Game, moves: int, keep: int, seed: int) -> int:
    """Play random legal actions on both games (the same ones), the lean one forgetting
    everything but ``keep`` events every few moves; returns the most events it held."""
    rng = random.Random(seed)
    most = 0
    for i in range(moves):
        if whole.is_over:
            break
        seat = whole.to_act
        assert seat is not None
        action = rng.choice(whole.legal_actions(seat))
        assert [str(e) for e in whole.apply(action)] == [str(e) for e in lean.apply(str(action))]
        if i % 7 == 0:
            lean.forget(keep)
        most = max(most, len(lean.log))
        assert lean.moves == whole.moves == len(whole.history)
        assert lean.hand_number == whole.hand_number
        held = lean.public_history()
        full = whole.public_history()
        assert len(full) == lean.hand_forgotten + len(held)
        assert full[lean.hand_forgotten :] == held
    return most


def test_a_forgetful_game_plays_on_exactly_like_one_that_remembers() -> None:
    # A match of hands (NM-41): the counts follow every hand, and a new deal forgets nothing.
    whole, lean = _pair(5, options={"scoring_enabled": True, "score_target": 3000})
    most = _play(whole, lean, 3000, keep=40, seed=1)
    assert whole.hand_number > 5 and whole.is_over
    assert most <= 40 + 7 * 12  # the kept events and a few moves' worth
    lean.forget(40)
    assert lean.history == [] and lean.forgotten == whole.moves
    assert len(lean.log) <= 40
    # The state itself is untouched: the same view (without history) for every seat (its
    # bookkeeping for the re-deal API, which never leaves the process, counts in ``log``).
    for seat in (None, 0, 1, 2):
        view = lean.view(seat, history=False).to_json()
        assert view == whole.view(seat, history=False).to_json()
    assert lean.legal_ids() == whole.legal_ids()


def test_a_copy_keeps_the_counts() -> None:
    whole, lean = _pair(9)
    _play(whole, lean, 200, keep=10, seed=2)
    lean.forget(10)
    copy = lean.copy()
    assert (copy.moves, copy.hand_forgotten) == (lean.moves, lean.hand_forgotten)
    assert copy.public_history() == lean.public_history()


def test_what_needs_the_whole_past_refuses_a_forgetful_game() -> None:
    whole, lean = _pair(3)
    _play(whole, lean, 120, keep=5, seed=3)
    lean.forget(5)
    assert lean.hand_forgotten > 0
    for make in (
        lambda: GameRecord.from_game(lean),
        lean.to_position,
        lambda: lean.view(0),
        lambda: lean.redealer(0),
    ):
        with pytest.raises(NoMercyError, match=r"Game\.forget"):
            make()
    # Without history a view is whole; the game that remembers still gives all of them.
    lean.view(0, history=False)
    assert GameRecord.from_game(whole).replay().to_position() == whole.to_position()


def test_forget_refuses_a_negative_count_and_keeps_a_short_hand() -> None:
    game = new_game(2, seed=4)
    with pytest.raises(ValueError, match="keep"):
        game.forget(-1)
    hand = game.public_history()
    game.forget(1000)  # the whole hand fits: nothing of it goes, the view stays whole
    assert (game.hand_forgotten, game.public_history()) == (0, hand)
    game.view(0)
