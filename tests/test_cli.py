"""The command line (nomercy.cli): selfplay, replay and rules, in-process and as a module."""

from __future__ import annotations

import doctest
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nomercy import OPTIONS, Game, GameRecord
from nomercy.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------------------ selfplay


def test_selfplay_narrates_every_event_and_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "selfplay", "--players", "3", "--seed", "2")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("no-mercy, 3 players, seed 2; bots: P0 greedy")
    assert any("[NM-4]" in line for line in lines)  # the opening flip is narrated
    assert "1. P" in out and "[NM-12]" in out
    assert any(line.startswith("Result: P") and " wins after " in line for line in lines)
    # NM-39: a single hand is not scored: the result says who held how many cards.
    assert any(line.startswith("Cards left: P0 ") for line in lines)
    assert not any(line.startswith("Scores:") for line in lines)


def test_selfplay_match_prints_the_scores(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "selfplay", "--players", "2", "--seed", "3", "--quiet",
        "--option", "scoring_enabled=true", "--option", "score_target=100",
    )  # fmt: skip
    assert code == 0, err
    assert any(line.startswith("Scores: P0 ") for line in out.splitlines())
    assert "Cards left" not in out


def test_selfplay_quiet_prints_only_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "selfplay", "--players", "3", "--seed", "2", "--quiet")
    assert code == 0
    assert out.splitlines()[0].startswith("Result: ")
    assert "[NM-" not in out


def test_python_m_nomercy_selfplay_runs_as_a_subprocess(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["selfplay", "--players", "3", "--seed", "2", "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-m", "nomercy", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Result: ")
    _, out, _ = run(capsys, *argv)
    assert proc.stdout == out  # same seed, same game


def test_selfplay_mixes_bots_presets_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "selfplay",
        "--preset",
        "classic",
        "--players",
        "3",
        "--seed",
        "4",
        "--bots",
        "random,greedy,random",
        "--option",
        "classic_stacking=true",
    )
    assert code == 0, err
    assert "bots: P0 random, P1 greedy, P2 random" in out
    assert "[CL-" in out


def test_a04_selfplay_option_changes_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "selfplay", "--quiet", "--option", "stack_threshold=running_total", "--seed", "3"
    )
    assert code == 0, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--option", "foo=1"], "unknown option 'foo'"),
        (
            ["--option", "stack_threshold=bogus"],
            "invalid value 'bogus' for option 'stack_threshold'",
        ),
        (["--option", "mercy_threshold=many"], "invalid value 'many' for option 'mercy_threshold'"),
        (["--option", "stack_threshold"], "--option needs NAME=VALUE"),
        (["--players", "9"], "9 players is outside 2-6"),
        (["--players", "1"], "1 players is outside 2-6"),
        (["--bots", "greedy,nope,random,random"], "unknown bot 'nope'"),
        (["--bots", "greedy,random"], "--bots lists 2 bots for 4 players"),
        (["--preset", "classic", "--option", "mercy_threshold=30"], "unknown option"),
        (["--bots", "ismcts:budget=5"], "bad parameters"),
        (["--option", "mercy_threshold=25", "--option", "mercy_threshold=30"], "given twice"),
        (["--save", "/nonexistent-dir/g.json"], "no directory '/nonexistent-dir'"),
        (["--bots", "ismcts:iterations"], "needs KEY=VALUE"),
    ],
)
def test_selfplay_usage_errors_exit_2_without_a_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "selfplay", *argv)
    assert code == 2
    assert err.startswith("nomercy selfplay: error: ")
    assert message in err
    assert "Traceback" not in err and out == ""


def test_selfplay_takes_bot_parameters_as_the_arena_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "selfplay", "--players", "2", "--seed", "5", "--bots", "ismcts:iterations=8,greedy"
    )
    assert code == 0, err
    assert out.splitlines()[0].endswith("bots: P0 ismcts, P1 greedy")


@pytest.mark.parametrize(
    "argv",
    [
        ["selfplay", "--quiet"],
        ["tournament", "--players", "2", "--games", "2"],
        ["simulate", "--players", "2", "--games", "2"],
    ],
)
def test_a_bot_that_cannot_play_the_preset_is_refused_before_any_game(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    pytest.importorskip("rlcard")
    bots = "rlcard-rule" if argv[0] != "tournament" else "rlcard-rule,greedy"
    code, out, err = run(capsys, *argv, "--bots", bots)
    assert code == 2, err
    assert err == (
        f"nomercy {argv[0]}: error: bot 'rlcard-rule' plays the classic preset only, "
        "not 'no-mercy'\n"
    )
    assert out == ""


def test_a04_bad_option_value_lists_the_valid_values(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, "selfplay", "--option", "stack_threshold=bogus")
    assert "last_card" in err and "running_total" in err


# ------------------------------------------------------------------------------ replay


@pytest.mark.parametrize(
    "extra",
    [
        ["--players", "3", "--seed", "2"],
        ["--players", "2", "--seed", "7", "--bots", "random"],
        [
            "--preset",
            "classic",
            "--players",
            "4",
            "--seed",
            "5",
            "--bots",
            "random,greedy,random,greedy",
        ],
        ["--players", "3", "--seed", "1", "--option", "scoring_enabled=true", "--bots", "greedy"],
    ],
)
def test_selfplay_save_then_replay_gives_the_same_narration(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str]
) -> None:
    path = tmp_path / "game.json"
    code, played, err = run(capsys, "selfplay", *extra, "--save", str(path))
    assert code == 0, err
    record = json.loads(path.read_text())
    assert record["format"] == "nomercy-record" and record["actions"]
    code, replayed, err = run(capsys, "replay", str(path))
    assert code == 0 and err == ""
    # Everything after the header line is identical: opening, every action and event, result.
    assert played.splitlines()[1:] == replayed.splitlines()[1:]
    assert any(line.startswith("Result: ") for line in replayed.splitlines()[-3:])


def test_replay_prints_every_action_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    run(capsys, "selfplay", "--players", "2", "--seed", "3", "--quiet", "--save", str(path))
    actions = json.loads(path.read_text())["actions"]
    _, out, _ = run(capsys, "replay", str(path))
    numbered = [line for line in out.splitlines() if line[:1].isdigit()]
    assert [line.split(": ", 1)[1] for line in numbered] == actions


def test_replay_step_waits_for_enter_and_stops_on_q(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    run(capsys, "selfplay", "--players", "2", "--seed", "3", "--quiet", "--save", str(path))
    total = len(json.loads(path.read_text())["actions"])
    assert total > 6
    # enter, enter, "3" (three ahead), q: actions 1, 2, 3, then 4-6, then stop
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n3\nq\n"))
    code, out, _ = run(capsys, "replay", str(path), "--step")
    assert code == 0
    numbered = [line for line in out.splitlines() if line[:1].isdigit() or "] stop: " in line]
    shown = [line.split(".", 1)[0] for line in out.splitlines() if line[:1].isdigit()]
    assert shown == ["1", "2", "3", "4", "5", "6"], numbered
    assert out.count("[enter] next") == 4
    assert f"Stopped after action 6 of {total}" in out and "Result:" not in out
    # bad input is named and asked again; the end of input stops too
    monkeypatch.setattr("sys.stdin", io.StringIO("x\n"))
    _, out, _ = run(capsys, "replay", str(path), "--step")
    assert "not understood: 'x'" in out and "Stopped after action 1" in out


def test_replay_seat_shows_the_game_as_that_seat_saw_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    run(capsys, "selfplay", "--players", "3", "--seed", "2", "--quiet", "--save", str(path))
    record = GameRecord.loads(path.read_text())
    _, full, _ = run(capsys, "replay", str(path))
    code, seen, _ = run(capsys, "replay", str(path), "--seat", "1")
    assert code == 0
    assert "as seen by seat 1 (P1)" in seen.splitlines()[0]
    game = record.start_game()
    assert f"P1's hand (7): {' '.join(sorted(c.code for c in game.hands[1]))}" in seen
    # what P0 and P2 drew is hidden from P1; P1's own draws are shown
    for action in record.actions:
        events = game.apply(action)
        for event in events:
            if event.secret and event.seat != 1:
                assert event.text in full and event.text not in seen
                assert event.for_seat(1).text in seen
            elif event.secret:
                assert event.text in seen
    assert f"P1's hand ({len(game.hands[1])})" in seen
    code, _, err = run(capsys, "replay", str(path), "--seat", "3")
    assert code == 2 and "--seat 3: the game has seats 0 to 2" in err


def test_replay_of_a_record_that_starts_from_a_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    g = Game.from_position(
        {"players": [{"hand": ["R9", "G2"]}, {"hand": ["B1", "B2"]}], "discard": ["R5"]}
    )
    g.apply("play R9 uno")
    path = tmp_path / "position.json"
    path.write_text(GameRecord.from_game(g).dumps())
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "no-mercy, 2 players, from a position; 1 action"
    assert lines[1:4] == [
        "1. P0: play R9 uno",
        "    P0 plays red 9 [NM-12]",
        "    P0 calls UNO [NM-37]",
    ]
    assert lines[-2].startswith("Result: not over after 1 actions; seat 1 to act")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("not json", "a game record must be JSON"),
        ("{}", "not a nomercy game record"),
        ('{"actions": ["play XX"]}', "action 1 'play XX' does not replay"),
        ('{"actions": [], "players": 12}', "cannot be set up"),
        ('{"actions": [], "rules": "bridge"}', "unknown preset 'bridge'"),
    ],
)
def test_replay_bad_file_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "record.json"
    if content is not None:
        path.write_text(content)
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2
    assert err.startswith("nomercy replay: error: ") and message in err
    assert "Traceback" not in err


# ------------------------------------------------------------------------------ rules


def test_a04_rules_lists_stack_threshold_with_default_and_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("stack_threshold "))
    assert row.split()[:3] == ["stack_threshold", "A04", "last_card"]
    assert "running_total" in row
    for spec in OPTIONS:
        assert any(line.startswith(spec.name + " ") for line in out.splitlines()), spec.name


def test_rules_for_one_preset(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "--preset", "classic")
    names = {line.split()[0] for line in out.splitlines()[3:] if line and not line[0].isspace()}
    assert "wd4_challenge" in names and "stack_threshold" not in names


def test_rules_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) == {spec.name for spec in OPTIONS}
    row = rows["stack_threshold"]
    assert row["rule"] == "A04"
    assert row["defaults"] == {"no-mercy": "last_card"}
    assert row["values"] == ["last_card", "running_total"]
    _, out, _ = run(capsys, "rules", "--json", "--preset", "no-mercy")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["mercy_threshold"]["default"] == 25


# ------------------------------------------------------------------------------ help, docs


@pytest.mark.parametrize("command", [[], ["selfplay"], ["replay"], ["rules"]])
def test_help_has_examples(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "nomercy " in out


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


@pytest.mark.parametrize("name", ["README.md", "docs/notation.md"])
def test_docs_examples_run(name: str) -> None:
    result = doctest.testfile(
        str(ROOT / name), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted > 0 and result.failed == 0
