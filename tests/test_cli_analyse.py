"""``nomercy analyse RECORD --seat N``: a seat's costliest decisions in a record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nomercy import GameRecord
from nomercy.cli.analyse import analyse_record
from nomercy.cli.main import main
from nomercy.core.actions import CallUno, Catch

#: A small budget: the tests stay quick and the time cap never cuts a search short.
BUDGET = ["--iterations", "60", "--max-time", "600"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def record_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A short seeded two-player game: heuristic against random."""
    path = tmp_path / "game.json"
    code, _, _ = run(
        capsys,
        "selfplay", "--players", "2", "--bots", "heuristic,random", "--seed", "3",
        "--save", str(path), "--quiet",
    )  # fmt: skip
    assert code == 0
    return path


def test_analyse_lists_the_costliest_decisions_worst_first(
    record_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "analyse", str(record_path), "--seat", "1", "--top", "3", *BUDGET)
    assert code == 0, err
    lines = out.splitlines()
    assert "seat 1 (P1) made" in lines[0] and "decisions with a choice" in lines[0]
    header = next(i for i, line in enumerate(lines) if line.startswith("action  hand"))
    # The listed rows are the (at most 3) decisions that lost something, however many the
    # shipped network's coach finds in this short game.
    record = GameRecord.loads(record_path.read_text())
    decisions = analyse_record(record, 1, iterations=60, max_time=600.0)
    # A loss under half a point shows as "0 pts": it costs nothing as shown, so not listed.
    costly = [d for d in decisions if round(100 * d.loss) > 0]
    listed = min(3, len(costly))
    assert listed >= 1  # seat 1 is the random bot
    rows = lines[header + 1 : header + 1 + listed]
    assert all(row.split()[0].isdigit() for row in rows) and not lines[header + 1 + listed]
    losses = [int(row.split()[-2]) for row in rows]
    assert losses == sorted(losses, reverse=True) and min(losses) > 0
    # Each listed action is the seat's move at that index of the record.
    for row in rows:
        index = int(row.split()[0])
        assert record.actions[index - 1].startswith(("play", "draw", "pass", "colour", "1:"))
    assert sum(line.startswith("action ") and " — " in line for line in lines) == listed
    assert "total estimated loss" in out
    assert "decisions" in err  # the progress bar, on stderr


def test_analyse_json_is_deterministic_and_matches_the_replay(
    record_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["analyse", str(record_path), "--seat", "0", "--json", "--top", "4", *BUDGET]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""  # --json: no progress bar
    first = json.loads(out)
    code, out, _ = run(capsys, *argv)
    assert json.loads(out) == first
    assert first["seat"] == 0 and first["name"] == "P0" and first["coach"]["iterations"] == 60
    worst = first["worst"]
    assert 1 <= len(worst) <= 4
    assert all(round(100 * w["loss"]) > 0 for w in worst)  # only moves that cost something
    assert [w["loss"] for w in worst] == sorted((w["loss"] for w in worst), reverse=True)
    record = GameRecord.loads(record_path.read_text())
    game = record.start_game()
    for number, text in enumerate(record.actions, 1):
        for w in worst:
            if w["index"] == number:
                assert game.to_act == 0
                legal = [str(a) for a in game.legal_actions(0)]
                assert w["played"] in legal and w["best"] in legal
                assert w["played"] != w["best"]
                assert w["loss"] == pytest.approx(w["best_chance"] - w["played_chance"], abs=2e-4)
        game.apply(text)


def test_analyse_record_covers_every_in_turn_decision_with_a_choice(record_path: Path) -> None:
    record = GameRecord.loads(record_path.read_text())
    decisions = analyse_record(record, 1, iterations=40, max_time=600.0)
    game = record.start_game()
    expected = []
    for number, text in enumerate(record.actions, 1):
        choice = game.to_act == 1 and (
            len([a for a in game.legal_actions(1) if not isinstance(a, (CallUno, Catch))]) > 1
        )
        game.apply(text)
        action = game.history[-1]
        if choice and action.seat == 1 and not isinstance(action, (CallUno, Catch)):
            expected.append(number)
    assert [d.index for d in decisions] == expected and expected
    for d in decisions:
        assert d.loss >= 0.0
        # The coach's best is its most visited move, whose estimate need not be the highest
        # (a search's priors steer its visits): a move rated at least as high loses nothing.
        expected_loss = 0.0 if d.played == d.best else max(0.0, d.best_chance - d.played_chance)
        assert d.loss == expected_loss
        assert d.played in [e.action for e in d.estimates]


def test_analyse_usage_errors_exit_2(
    record_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "analyse", str(record_path), "--seat", "2")
    assert code == 2 and "--seat 2: the game has seats 0 to 1" in err
    code, _, err = run(capsys, "analyse", str(record_path), "--seat", "-1")
    assert code == 2 and "seats 0 to 1" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = run(capsys, "analyse", str(bad), "--seat", "0")
    assert code == 2 and "not a game record" in err and "Traceback" not in err
    code, _, err = run(capsys, "analyse", str(tmp_path / "missing.json"), "--seat", "0")
    assert code == 2 and "cannot read" in err
    broken = json.loads(record_path.read_text())
    broken["actions"][3] = "play W+10 Q"
    bad.write_text(json.dumps(broken))
    code, _, err = run(capsys, "analyse", str(bad), "--seat", "0")
    assert code == 2 and "action 4 'play W+10 Q' does not replay" in err
    code, _, err = run(capsys, "analyse", str(record_path), "--seat", "0", "--top", "0")
    assert code == 2 and "--top must be at least 1" in err
    with pytest.raises(SystemExit) as exc:
        main(["analyse", str(record_path)])
    assert exc.value.code == 2
    assert "--seat" in capsys.readouterr().err


def test_analyse_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["analyse", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "nomercy analyse game.json --seat 1" in out
    for flag in ("--seat", "--top", "--json", "--iterations", "--seed", "--quiet"):
        assert flag in out
