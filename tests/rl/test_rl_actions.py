"""Action ids: the fixed table, round trips, and masks equal to the engine's legal actions."""

from __future__ import annotations

import pytest
from rlkit import random_states

from nomercy.core.actions import CallUno, Catch, Draw, Play, parse_action
from nomercy.rl import (
    ACTION_SPACE_VERSION,
    NUM_ACTIONS,
    ActionIdError,
    action_mask,
    action_name,
    action_to_id,
    id_to_action,
    legal_ids,
)


def test_table_size_and_version() -> None:
    assert ACTION_SPACE_VERSION == 1
    assert NUM_ACTIONS == 469


@pytest.mark.parametrize("n", range(2, 7))
def test_every_id_round_trips_for_every_seat(n: int) -> None:
    decodable = 0
    for seat in range(n):
        seen = set()
        for i in range(NUM_ACTIONS):
            try:
                action = id_to_action(i, seat, n)
            except ActionIdError as exc:
                assert "offset" in str(exc)
                continue
            assert action.seat == seat
            assert action_to_id(action, seat, n) == i
            assert action not in seen
            seen.add(action)
            decodable += 1
    # Only the ids naming seat offsets the table lacks fail: 7 targets and catches.
    missing = (6 - n) * (4 * 2 * 2 + 1)  # per offset: 7s (4 colours, play/jump, uno), a catch
    assert decodable == n * (NUM_ACTIONS - missing)


def test_ids_are_relative_to_the_actor() -> None:
    # "swap with the next seat" is the same id whoever plays it.
    a = action_to_id(parse_action("play R7 1", 0), 0, 4)
    b = action_to_id(parse_action("play R7 0", 3), 3, 4)
    assert a == b
    assert action_name(a) == "play R7 +1"
    assert action_to_id(Catch(2, 0), 2, 3) == action_to_id(Catch(0, 1), 0, 3)
    assert action_name(action_to_id(Catch(2, 0), 2, 3)) == "catch +1"


def test_fixed_ids() -> None:
    assert action_to_id(Draw(1), 1, 2) == 0
    assert action_to_id(CallUno(0), 0, 5) == 7
    assert action_name(13) == "play R0"
    assert action_name(14) == "play R0 uno"
    assert action_name(240) == "play W+4 B uno"
    assert action_name(241) == "jump-in R0"
    assert action_name(NUM_ACTIONS - 1) == "jump-in W+4 B uno"


def test_bad_ids_and_actions_raise_clear_errors() -> None:
    with pytest.raises(ActionIdError, match=r"outside 0\.\.468"):
        id_to_action(NUM_ACTIONS, 0, 2)
    with pytest.raises(ActionIdError, match="outside"):
        id_to_action(-1, 0, 2)
    with pytest.raises(ActionIdError, match="2-6 players"):
        id_to_action(0, 0, 7)
    with pytest.raises(ActionIdError, match="no seat 3"):
        action_to_id(Draw(3), 3, 3)
    with pytest.raises(ActionIdError, match="seat 1's action"):
        action_to_id(Draw(1), 0, 3)
    with pytest.raises(ActionIdError, match="not another seat"):
        action_to_id(Catch(0, 0), 0, 3)
    with pytest.raises(ActionIdError, match="offset 4"):
        id_to_action(8 + 3, 0, 4)  # catch +4 at a 4-seat table


@pytest.mark.parametrize(("preset", "games"), [("no-mercy", 60), ("classic", 40)])
def test_mask_equals_the_engines_legal_actions(preset: str, games: int) -> None:
    states = 0
    kinds: set[str] = set()
    for game, _ in random_states(preset, games, seed=7):
        n = game.n
        for seat in range(n):
            legal = game.legal_actions(seat)
            mask = action_mask(legal, seat, n)
            ids = legal_ids(legal, seat, n)
            assert len(ids) == len(legal), "two legal actions share an id"
            assert set(mask.nonzero()[0].tolist()) == set(ids)
            for i, action in ids.items():
                decoded = id_to_action(i, seat, n)
                assert decoded == action
                assert game.is_legal(decoded)
                kinds.add(type(action).__name__ + ("-jump" if getattr(action, "jump", 0) else ""))
                if isinstance(action, Play) and action.uno:
                    kinds.add("uno-play")
        states += 1
    assert states > 2000
    expected = {"Play", "Draw", "Pass", "ChooseColour", "CallUno", "Catch", "uno-play"}
    if preset == "classic":
        expected |= {"Challenge", "Play-jump"}
    assert expected <= kinds, expected - kinds
