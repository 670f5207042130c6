"""The table's seams the interfaces share: the decision order, timeouts, hint gating, seating,
away seats and the bots' per-move seeding."""

from __future__ import annotations

import pytest

from nomercy import Game, new_game
from nomercy.bots import make_bot
from nomercy.core.actions import CallUno, Catch, Draw, Pass
from nomercy.core.decisions import decision_order
from nomercy.tables import Table, TableError
from nomercy.tables.table import HintRefusal, bot_seed, hint_seed


def _positions(seed: int) -> list[Game]:
    """Every position of a three-player game of greedy bots (copies)."""
    table = Table.new(3, bots=["greedy"], human=None, seed=seed)
    seen = [table.game.copy()]
    while table.bot_step() is not None:
        seen.append(table.game.copy())
    return seen


@pytest.mark.parametrize("seed", [6, 10])
def test_questions_follow_decision_order_for_the_robot_seats(seed: int) -> None:
    for game in _positions(seed):
        table = Table(game, [None] * game.n)
        for robot in (lambda s: s != 0, lambda s: True, lambda s: False):
            order = [(d.seat, d.in_turn) for d in decision_order(game, asked=robot)]
            asked = [(d.seat, d.in_turn) for d in table.questions(robot)]
            assert asked == [x for x in order if robot(x[0])]


def test_nm37_a_person_to_act_who_may_call_uno_is_asked_alone() -> None:
    # greedy seed 6 reaches, after 98 actions, seat 0 to act with one card and no UNO call.
    game = next(g for g in _positions(6) if len(g.history) == 98)
    assert CallUno(0) in game.legal_actions(0)
    assert any(isinstance(a, Catch) and a.target == 0 for a in game.legal_actions(1))
    table = Table(game, [None] * 3)
    assert table.questions(lambda s: s != 0) == []  # no bot is asked before the person


def test_timeout_choice_draws_else_passes_else_lets_a_bot_choose_the_in_turn_actions() -> None:
    kinds = set()
    for game in _positions(6):
        if game.is_over:
            continue
        table = Table(game, [None] * 3)
        seat = table.to_act
        assert seat is not None
        legal = game.legal_actions(seat)
        action, choices = table.timeout_choice(seat)
        if any(isinstance(a, Draw) for a in legal):
            assert isinstance(action, Draw) and choices == []
        elif any(isinstance(a, Pass) for a in legal):
            assert isinstance(action, Pass) and choices == []
        else:
            assert action is None
            assert choices == [a for a in legal if not isinstance(a, (CallUno, Catch))]
        kinds.add(type(action))
        with pytest.raises(TableError):
            table.timeout_choice((seat + 1) % 3)
    assert {Draw, type(None)} <= kinds


def test_hint_refusal_and_seed() -> None:
    table = Table(new_game(3, seed=1), [None] * 3)
    seat = table.to_act
    assert seat is not None
    assert table.hint_refusal(seat) is None
    assert table.hint_refusal((seat + 1) % 3) is HintRefusal.NOT_YOUR_TURN
    assert table.hint_seed(seat) == hint_seed(1, 0, seat) != table.hint_seed((seat + 1) % 3)


def test_the_seating_block_round_trips_through_a_record() -> None:
    table = Table.new(3, bots=["greedy", "random"], human=1, seed=5, uno_forget=0.25)
    record = table.record()
    assert record.result["table"] == Table.seating(["greedy", "human", "random"], 0.25)
    again = Table.from_record(record)
    assert again.humans == [1] and again.record().result["table"] == record.result["table"]


def test_an_away_person_is_played_by_the_stand_in_seeded_per_move() -> None:
    game = new_game(3, seed=3)
    table = Table(game, [None, None, None], stand_in="random")
    seat = table.to_act
    assert seat is not None and table.kinds == ["human"] * 3
    assert not table.robot(seat) and table.bot_step() is None  # the person decides
    table.set_away(seat, True)
    assert table.is_away(seat) and table.robot(seat)
    (question,) = [q for q in table.bot_questions() if q.in_turn]
    assert question.seat == seat and question.bot.name == "random"
    # The stand-in for this move is the registry's bot seeded by bot_seed.
    seed = bot_seed(3, 0, seat)
    assert table.bot_seed(seat) == seed
    expected = make_bot("random", seed=seed).choose_action(table.view(seat), question.legal)
    step = table.bot_step()
    assert step is not None and step.action == expected
    table.set_away(seat, False)
    assert not table.robot(seat)


def test_only_a_person_is_away_and_only_with_a_stand_in() -> None:
    table = Table.new(3, bots=["greedy"], human=0, seed=1)
    with pytest.raises(TableError, match="no bot to play"):
        table.set_away(0, True)  # the terminal's table has no stand-in
    table = Table(table.game, table.bots, stand_in="greedy")
    with pytest.raises(TableError, match="a bot's"):
        table.set_away(1, True)
    with pytest.raises(TableError):
        Table(new_game(3, seed=1), [None] * 3, stand_in="no-such-bot")
    assert table.kinds == ["human", "greedy", "greedy"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_resumed_table_decides_as_the_uninterrupted_one(seed: int) -> None:
    # Bots seated by name decide each move afresh (bot_seed): a table resumed from its record
    # halfway plays on exactly as the table that never stopped (random bots: every choice
    # depends on the seed).
    length = len(_played(Table.new(3, bots=["random"], human=None, seed=seed)).game.history)
    whole = Table.new(3, bots=["random"], human=None, seed=seed)
    for _ in range(length // 2):
        assert whole.bot_step() is not None
    resumed = _played(Table.from_record(whole.record()))
    assert resumed.game.history == _played(whole).game.history
    assert len(resumed.game.history) == length and resumed.is_over


def _played(table: Table) -> Table:
    """``table`` after its bots played on to the end."""
    while table.bot_step() is not None:
        pass
    return table
