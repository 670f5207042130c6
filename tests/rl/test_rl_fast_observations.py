"""The fast observer (events off, read from the Game) writes the reference encoder's vectors.

Two copies of each random game are played in lockstep: the reference keeps events on and
encodes ``Game.view(seat, history=False)`` / ``Game.snapshot(seat)`` with the events fed to a
:class:`PublicTracker`; the fast side steps by id through :class:`TableObserver`. Every seat's
vector must be equal after every step, under random option sets, both presets and 2-6 seats,
with option sets chosen so that every observer mode (none, infer, events) is exercised.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from rlkit import random_options

import nomercy
from nomercy.core.game import Game
from nomercy.encoding.fast import TableObserver
from nomercy.encoding.observations import OBS_SIZE, ObservationEncoder, PublicTracker
from nomercy.rl._common import apply_tracked, start_tracking

# Rules under which a draw proves a colour gap and Mercy acts at once: the "infer" mode.
_INFORMATIVE = {
    "voluntary_draw": "off",
    "no_playable_action": "draw_until_playable",
    "mercy_timing": "immediate",
    "scoring_enabled": False,
}


def _options(preset: str, rng: random.Random, k: int) -> dict[str, Any]:
    kind = k % 5
    if kind == 0:
        return {}
    options = random_options(preset, rng)
    if kind in (1, 2):  # infer mode, with random other options
        options.update(_INFORMATIVE)
        if rng.random() < 0.5:
            options["no_playable_action"] = "draw_one_may_play"
    if kind == 2 and preset == "no-mercy":
        # A small deck and a high threshold: the pool runs dry, draws take nothing.
        options["deck_counts"] = {"R1": 6, "Y2": 6, "G3": 5, "B4": 5, "W": 3, "R+2": 2}
        options["mercy_threshold"] = 40
    return options


def _lockstep(
    preset: str,
    games: int,
    seed: int,
    max_steps: int = 300,
    options_of: Callable[[str, random.Random, int], dict[str, Any]] = _options,
) -> tuple[int, set[str]]:
    checked = 0
    modes: set[str] = set()
    for k in range(games):
        rng = random.Random(seed * 1000 + k)
        n = rng.randint(2, 6)
        options = options_of(preset, rng, k)
        try:
            ref = nomercy.new_game(n, rules=preset, options=options, seed=seed + k)
        except nomercy.NoMercyError:  # a custom deck too small for this table
            continue
        fast = nomercy.new_game(n, rules=preset, options=options, seed=seed + k)
        encoder = ObservationEncoder(ref.rules, n)
        by_view = ObservationEncoder(ref.rules, n)
        tracker = PublicTracker(ref.rules, n)
        start_tracking(ref, tracker)
        observer = TableObserver(fast.rules, n)
        observer.start(fast)
        modes.add(observer.mode)
        for step in range(max_steps):
            for seat in range(n):
                expected = encoder.encode_snapshot(ref.snapshot(seat), tracker.void)
                got = observer.vector(fast, seat)
                if not np.array_equal(got, expected):
                    bad = np.flatnonzero(got != expected)
                    raise AssertionError(
                        f"game {k} ({n} seats, {options}) step {step} seat {seat}: "
                        f"entries {bad.tolist()} differ: {got[bad]} != {expected[bad]}"
                    )
                if step % 7 == 0:  # the view-based path gives the same vector
                    view = by_view.encode(ref.view(seat, history=False), tracker.void)
                    np.testing.assert_array_equal(view, expected)
                checked += 1
            if ref.is_over:
                break
            seat = ref.to_act
            assert seat is not None
            others = [s for s in range(n) if s != seat and ref.legal_ids(s)]
            if others and rng.random() < 0.3:  # an out-of-turn catch, UNO call or jump-in
                seat = rng.choice(others)
            ids = ref.legal_ids(seat)
            assert fast.legal_ids(seat) == ids
            aid = rng.choice(ids)
            action = dict(zip(ids, ref.legal_actions(seat), strict=True))[aid]
            apply_tracked(ref, action, tracker)
            observer.step(fast, aid, seat)
    return checked, modes


@pytest.mark.parametrize(("preset", "seed"), [("no-mercy", 1), ("no-mercy", 2), ("classic", 3)])
def test_the_fast_observer_writes_the_reference_vectors(preset: str, seed: int) -> None:
    checked, modes = _lockstep(preset, 40, seed)
    assert checked > 5000
    assert "infer" in modes and "none" in modes


def _pile_options(preset: str, rng: random.Random, k: int) -> dict[str, Any]:
    """Knocked-out hands under the discard pile (A27) and every Discard All mode (A09),
    Mercy soon (NM-33): the pile changes below its top."""
    modes = ("bury_no_effects", "choose_top_and_fire", "optional_subset")
    options = {**_INFORMATIVE, "eliminated_cards": "bottom_of_discard", "mercy_threshold": 12}
    return {**options, "discard_all_mode": modes[k % 3]}


def test_the_discard_piles_counts_follow_cards_put_under_it() -> None:
    """The pile's counts are kept incrementally (``TableObserver._follow_pile``); a knocked-out
    hand put at the bottom of the pile, a Discard All burying cards under its top and a
    reshuffle make it count again: the vectors stay the reference's."""
    checked, modes = _lockstep("no-mercy", 24, 9, options_of=_pile_options)
    assert checked > 2500
    assert modes == {"infer"}


def test_every_observer_mode_is_exact_under_its_rules() -> None:
    # Scoring (new deals inside a step) and a deferred Mercy check keep events on.
    rules = nomercy.make_rules("no-mercy", {"scoring_enabled": True})
    assert TableObserver(rules, 3).mode == "events"
    rules = nomercy.make_rules("no-mercy", {"mercy_timing": "end_of_turn"})
    assert TableObserver(rules, 3).mode == "events"
    assert TableObserver(nomercy.make_rules("no-mercy"), 3).mode == "infer"
    assert TableObserver(nomercy.make_rules("classic"), 3).mode == "none"
    rules = nomercy.make_rules("no-mercy", {"mercy_timing": "end_of_turn", "scoring_enabled": True})
    for n in (2, 4, 6):
        ref = nomercy.new_game(n, rules=rules, seed=n)
        fast = nomercy.new_game(n, rules=rules, seed=n)
        tracker = PublicTracker(rules, n)
        start_tracking(ref, tracker)
        encoder = ObservationEncoder(rules, n)
        observer = TableObserver(rules, n)
        observer.start(fast)
        rng = random.Random(n)
        for _ in range(400):
            if ref.is_over:
                break
            ids = ref.legal_ids()
            aid = rng.choice(ids)
            apply_tracked(ref, dict(zip(ids, ref.legal_actions(), strict=True))[aid], tracker)
            observer.step(fast, aid, fast.turn if fast.turn is not None else 0)
            for seat in range(n):
                np.testing.assert_array_equal(
                    observer.vector(fast, seat),
                    encoder.encode_snapshot(ref.snapshot(seat), tracker.void),
                )


def test_write_fills_a_row_in_place() -> None:
    game = nomercy.new_game(3, seed=5)
    observer = TableObserver(game.rules, 3)
    observer.start(game)
    batch = np.full((2, OBS_SIZE), 9.0, dtype=np.float32)
    observer.write(game, 1, memoryview(batch[1]))
    np.testing.assert_array_equal(batch[0], 9.0)  # the other row is untouched
    encoder = ObservationEncoder(game.rules, 3)
    np.testing.assert_array_equal(batch[1], encoder.encode_snapshot(game.snapshot(1)))


def test_the_observer_shows_no_hidden_card() -> None:
    # Two games that differ only in another seat's hand (same public state) look the same.
    game = nomercy.new_game(3, seed=8)
    other = Game.from_position(game.to_position())
    hands = other.hands  # new lists, given back below
    a, b = hands[1], hands[2]
    a[0], b[0] = b[0], a[0]  # swap one card between two hidden hands
    if a[0] is b[0]:
        pytest.skip("the swapped cards are alike")
    other.hands = hands
    for g in (game, other):
        g.known = {}
    first = TableObserver(game.rules, 3)
    first.start(game)
    second = TableObserver(other.rules, 3)
    second.start(other)
    np.testing.assert_array_equal(first.vector(game, 0), second.vector(other, 0))
    assert not np.array_equal(first.vector(game, 1), second.vector(other, 1))


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_play_others_plays_the_game_the_bots_would(preset: str) -> None:
    """play_others with RandomBot id choosers: the moves choose_action makes, one by one."""
    from nomercy.bots.random_bot import RandomBot

    for n in (2, 3, 5):
        rules = nomercy.make_rules(preset)
        fast = nomercy.new_game(n, rules=rules, seed=40 + n)
        ref = nomercy.new_game(n, rules=rules, seed=40 + n)
        ref.record_events = False  # as the observer's game (mode "none" or "infer")
        observer = TableObserver(rules, n)
        observer.start(fast)
        choosers = [RandomBot(seed=s).id_chooser() if s else None for s in range(n)]
        bots = [RandomBot(seed=s) for s in range(n)]
        learner = random.Random(n)
        while not fast.is_over and not fast.out[0]:
            if fast.turn == 0:
                aid = learner.choice(fast.legal_ids(0))
                observer.step(fast, aid, 0)
                ref.step(aid, 0)
            moves = observer.play_others(fast, 0, choosers)
            played = 0
            while not ref.is_over and not ref.out[0] and ref.turn not in (None, 0):
                turn = ref.turn
                ref.step(bots[turn].choose_action(None, ref.legal_ids(turn)), turn)  # type: ignore[arg-type]
                played += 1
            assert moves == played
            assert fast.history == ref.history and fast.hands == ref.hands
        assert observer.play_others(fast, 0, choosers) == 0  # nothing left to play


def test_play_others_needs_a_chooser_for_each_seat_to_act() -> None:
    game = nomercy.new_game(2, seed=3)
    observer = TableObserver(game.rules, 2)
    observer.start(game)
    learner = 1 - game.turn if game.turn is not None else 0
    with pytest.raises(ValueError, match="has no chooser"):
        observer.play_others(game, learner, [None, None])


def test_a_pickled_observer_follows_the_game_on() -> None:
    import pickle

    game = nomercy.new_game(3, seed=9)
    observer = TableObserver(game.rules, 3)
    observer.start(game)
    rng = random.Random(9)
    for _ in range(30):
        observer.step(game, rng.choice(game.legal_ids()), game.turn or 0)
    twin_game, twin = pickle.loads(pickle.dumps((game, observer)))
    assert twin.mode == observer.mode and twin.n == 3
    for _ in range(60):
        if game.is_over:
            break
        aid = rng.choice(game.legal_ids())
        seat = game.turn or 0
        observer.step(game, aid, seat)
        twin.step(twin_game, aid, seat)
        for s in range(3):
            np.testing.assert_array_equal(observer.vector(game, s), twin.vector(twin_game, s))


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_the_writers_encodings_are_float32_of_every_whole_number(preset: str) -> None:
    """The writer's vectors hold float32 encodings from a table bounded by the deck; a value
    past it (a stack that a reshuffle in mid-stack fed) is encoded without the table."""
    observer = TableObserver(nomercy.make_rules(preset), 2)
    for value in [*range(-200, 700), 10**6, -(10**6)]:
        encoded = np.array([observer._encode(value)], dtype=np.int32).view(np.float32)[0]
        assert encoded == np.float32(value)
