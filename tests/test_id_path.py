"""The id path (``Game.legal_ids`` / ``Game.step``) is the object path: same rules, same games."""

from __future__ import annotations

import random
from typing import Any

import pytest

import nomercy
from nomercy import EngineError, Game, IllegalActionError, NoMercyError
from nomercy.core import ids
from nomercy.core.errors import ActionIdError
from test_engine_paths import random_game


def _random_game(k: int) -> Game:
    return random_game(k, seed_base=31_000, wide=True)


def _state(game: Game, *, log: bool = True) -> dict[str, Any]:
    position = game.to_position()
    if not log:  # a game with events off keeps no log
        for key in ("log", "hand_log_start"):
            position.pop(key, None)
    return position


def _all_moves(game: Game) -> list[tuple[int, int]]:
    """Every (seat, id) legal now, the seat to act first, then out-of-turn ones."""
    moves = [(game.to_act, i) for i in game.legal_ids()] if game.to_act is not None else []
    for seat in range(game.n):
        if seat != game.to_act:
            moves += [(seat, i) for i in game.legal_ids(seat)]
    return moves


@pytest.mark.parametrize("k", range(80))
def test_id_path_and_object_path_play_in_lockstep(k: int) -> None:
    objects = _random_game(k)
    by_ids = objects.copy()
    quiet = objects.copy()
    quiet.record_events = False
    rng = random.Random(k)
    n = objects.n
    for _ in range(400):
        if objects.is_over:
            break
        for seat in range(n):
            legal = objects.legal_actions(seat)
            legal_ids = by_ids.legal_ids(seat)
            assert legal_ids == [ids.action_id(a, n) for a in legal]
            assert [ids.id_action(i, seat, n) for i in legal_ids] == legal
            assert quiet.legal_ids(seat) == legal_ids
            if n <= ids.MAX_PLAYERS:
                assert all(i < ids.NUM_ACTIONS for i in legal_ids)
            mask = bytearray(ids.NUM_IDS)
            assert by_ids.fill_mask(mask, seat) == len(legal_ids)
            assert [i for i, bit in enumerate(mask) if bit] == sorted(set(legal_ids))
        seat, chosen = rng.choice(_all_moves(objects))
        try:
            events = objects.apply(ids.id_action(chosen, seat, n))
        except EngineError:  # A13 "raise": the same refusal on both paths, nothing changed
            with pytest.raises(EngineError):
                by_ids.step(chosen, seat)
            assert _state(by_ids) == _state(objects)
            break
        log_before = len(by_ids.log)
        assert by_ids.step(chosen, seat) is None
        quiet.step(chosen, None if seat == quiet.to_act else seat)
        assert by_ids.log[log_before:] == events
        assert _state(by_ids) == _state(objects)
        assert _state(quiet, log=False) == _state(objects, log=False)
        assert quiet.history == objects.history == by_ids.history
    assert by_ids.is_over == objects.is_over == quiet.is_over


@pytest.mark.parametrize("k", range(40))
def test_illegal_ids_raise_what_apply_raises_and_change_nothing(k: int) -> None:
    game = _random_game(k)
    rng = random.Random(100 + k)
    n = game.n
    for _ in range(60):
        if game.is_over:
            break
        before = _state(game)
        seat = rng.randrange(n)
        legal = set(game.legal_ids(seat))
        for candidate in rng.sample(range(ids.NUM_IDS), 25):
            if candidate in legal:
                continue
            try:
                action = ids.id_action(candidate, seat, n)
            except ActionIdError:  # an offset this table lacks
                with pytest.raises(ActionIdError):
                    game.step(candidate, seat)
                continue
            with pytest.raises(IllegalActionError) as by_id:
                game.step(candidate, seat)
            with pytest.raises(IllegalActionError) as by_object:
                game.apply(action)
            assert str(by_id.value) == str(by_object.value)
            assert by_id.value.rule == by_object.value.rule and by_id.value.rule
        assert _state(game) == before
        seat, chosen = rng.choice(_all_moves(game))
        try:
            game.step(chosen, seat)
        except EngineError:  # A13 "raise": the pool ran dry
            break


def test_malformed_ids_and_seats_are_refused() -> None:
    game = nomercy.new_game(3, seed=4)
    before = game.to_position()
    for bad in (-1, ids.NUM_IDS, 1.0, "0", None, True):
        with pytest.raises(ActionIdError, match="action id"):
            game.step(bad)
    with pytest.raises(NoMercyError, match="no seat"):
        game.step(0, 3)
    with pytest.raises(NoMercyError, match="integer"):
        game.legal_ids("0")
    game.step(game.legal_ids()[0])  # a seat that is no seat has nothing, before and after
    for seat in (-1, -2, 3, 99):
        assert game.legal_ids(seat) == [] and game.legal_actions(seat) == []
    before = game.to_position()
    assert game.to_position() == before
    assert issubclass(ActionIdError, ValueError)


def test_a_finished_game_has_no_ids_and_refuses_steps() -> None:
    game = nomercy.new_game(2, seed=1)
    game.record_events = False
    rng = random.Random(1)
    while not game.is_over:
        game.step(rng.choice(game.legal_ids()))
    assert game.legal_ids() == [] and game.fill_mask(bytearray(ids.NUM_IDS)) == 0
    with pytest.raises(IllegalActionError, match="NM-38"):
        game.step(ids.DRAW_ID)


@pytest.mark.parametrize("n", range(2, 11))
def test_every_id_round_trips_at_every_table_size(n: int) -> None:
    for seat in range(n):
        for i in range(ids.NUM_IDS):
            try:
                action = ids.id_action(i, seat, n)
            except ActionIdError:
                assert ids.ID_REL[i] >= n  # only offsets the table lacks have no action
                continue
            assert ids.action_id(action, n) == i
            assert ids.id_action(i, seat, n) is action  # one object per action
    assert ids.NUM_ACTIONS == 469 and ids.NUM_IDS == 537


def test_ids_name_their_actions() -> None:
    assert ids.id_name(ids.DRAW_ID) == "draw"
    assert ids.id_name(ids.CATCH_BASE) == "catch +1"
    assert ids.id_name(ids.NUM_ACTIONS) == "catch +6"
    assert ids.id_name(ids.NUM_IDS - 1) == "jump-in B7 +9 uno"
    with pytest.raises(ActionIdError):
        ids.id_name(ids.NUM_IDS)
