"""Deal version 2 from the command line and the table layer (issue 42 point 3).

Version 2 is opt-in (``--deal-version 2``). Every place that shows a seed shows a version
other than 1 beside it, and every saved game names its version, so that a seed shown or
saved deals the same game again: ``selfplay``'s header and record, ``replay``'s header, a
table's record and its resume, the terminal app's ``play`` command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nomercy import GameRecord, new_game
from nomercy.cli.main import build_parser, main
from nomercy.tables import Table


def test_selfplay_deals_saves_and_replays_version_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    argv = ["selfplay", "--players", "3", "--seed", "2", "--deal-version", "2"]
    assert main([*argv, "--save", str(path)]) == 0
    played = capsys.readouterr().out
    assert played.startswith("no-mercy, 3 players, seed 2, deal version 2; bots:")
    record = json.loads(path.read_text())
    assert record["deal_version"] == 2 and record["seed"] == 2
    game = GameRecord.loads(path.read_text()).replay()
    assert game.deal_version == 2
    assert game.opening_events == new_game(3, seed=2, deal_version=2).opening_events
    assert main(["replay", str(path)]) == 0
    replayed = capsys.readouterr().out
    assert replayed.startswith("no-mercy, 3 players, seed 2, deal version 2; ")
    assert played.splitlines()[1:] == replayed.splitlines()[1:]


def test_selfplay_without_the_flag_deals_version_1_as_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["selfplay", "--players", "3", "--seed", "2", "--quiet"]) == 0
    assert main(["selfplay", "--players", "3", "--seed", "2", "--deal-version", "1", "-q"]) == 0
    first, second = capsys.readouterr().out.split("Result")[1:3]
    assert first == second


def test_an_unknown_deal_version_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["selfplay", "--deal-version", "3"])
    assert exit_.value.code == 2
    assert "--deal-version: invalid choice: 3" in capsys.readouterr().err


def test_a_table_of_version_2_resumes_and_names_its_version() -> None:
    table = Table.new(2, bots=["greedy"], human=None, seed=8, deal_version=2)
    assert table.deal_version == 2
    for _ in range(6):
        table.bot_step()
    text = table.dumps()
    assert json.loads(text)["deal_version"] == 2
    resumed = Table.loads(text)
    assert resumed.deal_version == 2
    assert resumed.game.to_position() == table.game.to_position()


def test_the_play_command_deals_version_2_and_says_so() -> None:
    from nomercy.cli.main import _play_config
    from nomercy.tui.app import play_command

    args = build_parser().parse_args(["play", "--seed", "9", "--deal-version", "2"])
    table = _play_config(args).table
    assert (table.seed, table.deal_version) == (9, 2)
    assert play_command(table, 0) == "nomercy play --seed 9 --deal-version 2"
    again = _play_config(build_parser().parse_args(play_command(table, 0).split()[1:])).table
    assert again.game.to_position() == table.game.to_position()
    one = _play_config(build_parser().parse_args(["play", "--seed", "9"])).table
    assert play_command(one, 0) == "nomercy play --seed 9"


def test_simulate_deals_version_2_and_its_summary_names_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = ["simulate", "--games", "4", "--players", "3", "--bots", "random", "--jobs", "1"]
    summaries = []
    for version in ("1", "2"):
        out_dir = tmp_path / version
        argv = [*base, "--seed", "3", "--deal-version", version, "--out", str(out_dir)]
        assert main(argv) == 0
        summaries.append(json.loads((out_dir / "summary.json").read_text()))
        hands = (out_dir / "hands.csv").read_text()
        summaries[-1]["hands"] = hands
    out = capsys.readouterr().out
    assert "seed 3, deal version 2" in out
    assert [s["config"]["deal_version"] for s in summaries] == [1, 2]
    assert summaries[0]["hands"] != summaries[1]["hands"]  # the same seeds, other deals


def test_a_tournament_report_names_its_deal_version_and_sprt_deals_version_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "t.json"
    argv = ["tournament", "--bots", "greedy,random", "--games", "4", "--jobs", "1", "--quiet"]
    assert main([*argv, "--deal-version", "2", "--json", str(report)]) == 0
    assert json.loads(report.read_text())["config"]["deal_version"] == 2
    capsys.readouterr()
    sprt = ["tournament", "--bots", "greedy,random", "--sprt", "--max-games", "4"]
    assert main([*sprt, "--deal-version", "2"]) == 2
    assert "--sprt deals with deal version 1 only" in capsys.readouterr().err
