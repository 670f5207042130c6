"""`nomercy tournament` and `nomercy simulate` on the command line: outputs and errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from nomercy import Action, Card, Colour, Play
from nomercy.bots import BOTS, RandomBot, register_bot
from nomercy.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_tournament_prints_standings_and_writes_json_and_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report, table = tmp_path / "t.json", tmp_path / "t.csv"
    argv = ["tournament", "--bots", "greedy,random", "--games", "8", "--seed", "4", "--quiet"]
    code, out, err = run(capsys, *argv, "--jobs", "1", "--json", str(report), "--csv", str(table))
    assert code == 0, err
    assert "greedy" in out and "random" in out and "ordinal" in out and "8 games" in out
    data = json.loads(report.read_text())
    assert data["schema"] == "nomercy.tournament/1" and data["config"]["games"] == 8
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert {r["bot"] for r in rows} == {"greedy", "random"}
    # --jobs 2 gives the very same report
    other = tmp_path / "t2.json"
    code, _, err = run(capsys, *argv, "--jobs", "2", "--json", str(other))
    assert code == 0, err
    assert json.loads(other.read_text()) == data


class _Picky(RandomBot):
    """A random bot with a parameter, to pass one on the command line."""

    name = "picky"

    def __init__(self, seed: int = 0, *, first: bool = False, depth: int = 1) -> None:
        super().__init__(seed)
        self.first, self.depth = first, depth

    def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
        return legal[0] if self.first else super().choose_action(view, legal)


def test_tournament_bot_parameters_and_unbalanced_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "t.json"
    register_bot("picky", _Picky)
    try:
        code, _, err = run(
            capsys,
            *("tournament", "--bots", "greedy,random,picky:first=true:depth=2", "--players", "3"),
            *("--games", "4", "--jobs", "1", "--json", str(report)),
        )
        assert code == 0, err
        assert "not a multiple of the 6-game line-up block" in err
        bots = json.loads(report.read_text())["config"]["bots"]
        assert bots == ["greedy", "random", "picky:first=true:depth=2"]
        code, _, err = run(capsys, *T[:2], "greedy,picky:width=2", "--games", "2")
        assert code == 2 and "bot 'picky:width=2': bad parameters" in err
    finally:
        del BOTS["picky"]


def test_simulate_writes_csv_json_and_plots(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_dir = tmp_path / "sim"
    code, out, err = run(
        capsys,
        *("simulate", "--games", "6", "--players", "3", "--bots", "random", "--quiet"),
        *("--compare", "stack_threshold=last_card,running_total", "--jobs", "1"),
        *("--out", str(out_dir)),
    )
    assert code == 0, err
    assert "stack_threshold=running_total" in out and "Seat advantage" in out
    rows = list(csv.DictReader(io.StringIO((out_dir / "hands.csv").read_text())))
    assert len(rows) == 12
    summary = json.loads((out_dir / "summary.json").read_text())
    assert [v["label"] for v in summary["variants"]] == [
        "stack_threshold=last_card",
        "stack_threshold=running_total",
    ]
    for name in ("hand_length", "seat_advantage", "penalties", "endings", "points"):
        assert (out_dir / f"{name}.png").stat().st_size > 10_000


def test_help_lists_the_new_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "tournament" in out and "simulate" in out
    for command in ("tournament", "simulate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--backend" in capsys.readouterr().out


class _Cheat(RandomBot):
    """Plays a card it does not hold."""

    name = "cheat"

    def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
        return Play(legal[0].seat, Card("W+10"), Colour.RED)


def test_a_failing_game_is_reported_with_exit_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    register_bot("cheat", _Cheat)
    try:
        code, _, err = run(capsys, *T[:2], "greedy,cheat", *T[3:])
    finally:
        del BOTS["cheat"]
    assert code == 1
    assert err.startswith("nomercy tournament: game 0 failed: bot 'cheat' chose "), err
    assert "which is not legal" in err and "Traceback" not in err


T = ("tournament", "--bots", "greedy,random", "--games", "2", "--jobs", "1", "--quiet")
S = ("simulate", "--games", "2", "--jobs", "1", "--quiet")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("tournament", "--bots", "greedy,nope", "--games", "2"), "unknown bot 'nope'"),
        (("tournament", "--bots", "greedy:depth=3,random"), "bot 'greedy:depth=3': bad param"),
        (("tournament", "--bots", "greedy:seed=3,random"), "the seed is derived per game"),
        (("tournament", "--bots", "greedy:depth,random"), "needs KEY=VALUE"),
        (("tournament", "--bots", "greedy,,random"), "empty entry"),
        (("tournament", "--bots", "greedy,greedy"), "at least two different bots"),
        (("tournament", "--bots", "greedy"), "at least two different bots"),
        ((*T, "--option", "nope=1"), "unknown option 'nope'"),
        ((*T, "--option", "mercy_threshold=lots"), "mercy_threshold"),
        ((*T, "--option", "mercy_threshold"), "--option needs NAME=VALUE"),
        ((*T[:-3], "--games", "0"), "--games must be at least 1, got 0"),
        ((*T[:-3], "--games", "-3"), "--games must be at least 1, got -3"),
        ((*T[:-3], "--jobs", "0"), "--jobs must be at least 1, got 0"),
        ((*T, "--players", "9"), "9 players is outside 2-6"),
        ((*T, "--backend", "ray"), "--backend ray needs --address"),
        ((*T, "--address", "127.0.0.1:6379"), "--address is only used with --backend ray"),
        ((*T, "--json", "/nonexistent-dir/x.json"), "cannot write /nonexistent-dir/x.json"),
        ((*T, "--csv", "/"), "cannot write /: it is a directory"),
        ((*S, "--compare", "mercy_threshold"), "--compare needs NAME=V1,V2"),
        ((*S, "--compare", "=1,2"), "--compare needs NAME=V1,V2"),
        ((*S, "--compare", "mercy_threshold=20"), "at least two values"),
        ((*S, "--compare", "mercy_threshold=20,,30"), "empty value"),
        ((*S, "--compare", "mercy_threshold=20,20"), "lists a value twice"),
        ((*S, "--compare", "mercy_threshold=20,020"), "lists a value twice"),
        ((*S, "--compare", "scoring_enabled=true,TRUE"), "lists a value twice"),
        ((*T, "--bots", "neural:weights=/nonexistent/w.npz,greedy"), "No such file"),
        ((*S, "--compare", "nope=1,2"), "unknown option 'nope'"),
        ((*S, "--compare", "mercy_threshold=a,b"), "mercy_threshold"),
        ((*S, "--compare", "mercy_threshold=20,30", "--option", "mercy_threshold=25"), "both"),
        ((*S, "--compare", "max_players=2,3"), "outside"),
        ((*S, "--bots", "greedy,random"), "--bots lists 2 bots for 4 players"),
        ((*S, "--games", "0"), "--games must be at least 1"),
        ((*S, "--backend", "ray"), "--backend ray needs --address"),
    ],
)
def test_bad_input_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert err.startswith(f"nomercy {argv[0]}: error: "), err
    assert message in err
    assert "Traceback" not in err


def test_tournament_table_says_wins_count_per_seat(capsys: pytest.CaptureFixture[str]) -> None:
    # Two bots, four seats: each bot holds two seats of every game.
    argv = ["tournament", "--bots", "greedy,random", "--games", "4", "--seed", "4", "--quiet"]
    code, out, err = run(capsys, *argv, "--jobs", "1", "--players", "4")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "seats played" in flat and "seats won" in flat and "won/played" in flat
    assert "Wins count per seat played, not per game:" in flat
    assert "held 8 seats in 4 games" in flat
