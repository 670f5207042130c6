"""Bot levels (nomercy.bots.levels): one mapping per preset, by the ladder's measured
strength, accepted wherever a bot name is."""

from __future__ import annotations

import doctest

import pytest

from nomercy.bots import BOTS, levels
from nomercy.bots.levels import LEVEL_BOTS, LEVELS, level_bot, level_label, level_of, resolve_level
from nomercy.core.rules import PRESETS
from nomercy.tables.table import Table


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(levels).failed == 0


def test_every_preset_maps_every_level_to_a_bot_here() -> None:
    assert set(LEVEL_BOTS) == set(PRESETS)
    for preset in PRESETS:
        assert list(LEVEL_BOTS[preset]) == list(LEVELS)
        for level in LEVELS:
            assert level_bot(level, preset) in BOTS
        assert level_bot("expert", preset) == "best"  # the registry's strongest at the table


def test_levels_follow_the_ladder_weakest_first() -> None:
    """docs/ladder.md: greedy < heuristic < ismcts < puct in No Mercy; classic: heuristic
    52-54%, puct 61-62.5%, ismcts 62-65% against rlcard-rule."""
    assert [level_bot(lv, "no-mercy") for lv in LEVELS[:3]] == ["greedy", "heuristic", "ismcts"]
    expected_hard = "puct" if "puct" in BOTS else "ismcts"
    assert level_bot("hard", "classic") == expected_hard


def test_names_and_levels_resolve_and_bad_ones_are_refused() -> None:
    assert resolve_level("EXPERT", "no-mercy") == "best"
    assert resolve_level(" medium ", "classic") == "heuristic"
    for name in ("greedy", "ismcts:iterations=50", "policy:m:a"):
        assert resolve_level(name, "no-mercy") == name
    assert level_of("heuristic") == "medium" and level_of("random") is None
    assert level_label("easy", "classic") == "Easy (greedy)"
    with pytest.raises(ValueError, match="levels: easy, medium, hard, expert"):
        level_bot("impossible")


@pytest.mark.parametrize("preset", PRESETS)
def test_a_table_seats_the_level_bot_and_records_its_name(preset: str) -> None:
    table = Table.new(3, bots=["easy", "Hard"], human=0, rules=preset, seed=3)
    seats = table.meta["seats"]
    assert seats[1:] == ["greedy", level_bot("hard", preset)]
    assert table.bots[1] is not None and table.bots[1].name == "greedy"


def test_the_command_line_takes_levels(capsys: pytest.CaptureFixture[str]) -> None:
    from nomercy.cli.main import main

    code = main(["selfplay", "--players", "3", "--bots", "easy,medium,Easy", "--seed", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "bots: P0 greedy, P1 heuristic, P2 greedy" in out
    code = main(["selfplay", "--players", "2", "--bots", "legendary", "--quiet"])
    assert code != 0
    assert "unknown bot 'legendary'" in capsys.readouterr().err
