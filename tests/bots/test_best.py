"""``best`` is the strongest bot at each table (nomercy.bots.registry.BEST_AT), wherever a
bot is built by name: make_bot, tournaments and sequential tests, ``nomercy selfplay``, the
tables (the terminal app's and the web's rooms)."""

from __future__ import annotations

from typing import Any

import pytest

from nomercy.arena.runner import BotSpec, GameSetup, play_game
from nomercy.bots import BEST, BEST_AT, BOTS, Bot, GreedyBot, make_bot, resolve_best
from nomercy.bots.spec import for_table, parse_bot_spec
from nomercy.cli.main import main
from nomercy.core.rules import PRESETS
from nomercy.tables.table import Table


def test_each_table_names_its_measured_bot() -> None:
    # docs/ladder.md#best-at-each-table: puct in No Mercy, ismcts in classic
    assert resolve_best("no-mercy", 2) == "puct" == BEST
    assert resolve_best("no-mercy", 4) == "puct"
    assert resolve_best("no-mercy", 3) == "puct"  # the preset's choice where not measured
    assert resolve_best("classic", 2) == "ismcts"
    assert resolve_best("classic", 4) == "ismcts"
    for (preset, _players), name in BEST_AT.items():
        assert preset in PRESETS and name in BOTS and name != "best"
    assert {preset for preset, _ in BEST_AT} == set(PRESETS)


def test_a_bot_missing_here_falls_back_to_ismcts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(BOTS, "puct")  # as without numpy
    assert resolve_best("no-mercy", 2) == "ismcts"


def test_make_bot_best_takes_the_table() -> None:
    assert make_bot("best").name == "puct"
    assert make_bot("best", preset="classic", players=2).name == "ismcts"
    assert make_bot("best", seed=2, preset="no-mercy", players=4, iterations=10).name == "puct"


def test_for_table_keeps_parameters_and_other_bots() -> None:
    spec = for_table(parse_bot_spec("best:iterations=50"), "classic", 2)
    assert spec == BotSpec("ismcts", (("iterations", 50),))
    assert for_table(parse_bot_spec("heuristic"), "classic", 2) == BotSpec("heuristic")


class _Tracer(GreedyBot):
    """A greedy bot that counts how often it is built."""

    built = 0

    def __init__(self, seed: int = 0, **params: Any) -> None:
        super().__init__(seed)
        type(self).built += 1


@pytest.fixture
def tracer(monkeypatch: pytest.MonkeyPatch) -> type[_Tracer]:
    """``best`` at classic tables is the tracer for this test."""
    monkeypatch.setitem(BOTS, "tracer", _Tracer)
    monkeypatch.setitem(BEST_AT, ("classic", 2), "tracer")
    monkeypatch.setitem(BEST_AT, ("classic", 3), "tracer")
    _Tracer.built = 0
    return _Tracer


def test_tournament_games_build_the_tables_best(tracer: type[_Tracer]) -> None:
    result = play_game(GameSetup(2, "classic", seed=1), [BotSpec("best"), BotSpec("random")], 0)
    assert tracer.built == 1 and result.lineup == ("best", "random")  # labelled as written
    play_game(GameSetup(2, "no-mercy", seed=1), [BotSpec("best"), BotSpec("random")], 0)
    assert tracer.built == 1  # No Mercy: puct, not the tracer


def test_selfplay_builds_the_tables_best(tracer: type[_Tracer]) -> None:
    argv = ["selfplay", "--preset", "classic", "--players", "2", "--bots", "best,greedy"]
    assert main([*argv, "--seed", "3", "--quiet"]) == 0
    assert tracer.built == 1


def test_tables_seat_the_tables_best(tracer: type[_Tracer]) -> None:
    table = Table.new(3, bots=["best"], human=0, rules="classic", seed=4)
    assert tracer.built >= 2  # each bot seat, checked when seated
    bot = table.bots[1]
    assert isinstance(bot, Bot) and table.kinds == ["human", "best", "best"]
    assert table.seat_bot(1).name == "greedy"
    # the stand-in for an away person is the table's best too
    away = Table(table.game, [None, None, None], stand_in="best")
    before = tracer.built
    assert away.seat_bot(0).name == "greedy" and tracer.built > before
