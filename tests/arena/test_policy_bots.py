"""Trained policies in tournaments (``--bots policy:MODULE:ATTR``) and bots listed more than
once (docs/rl.md, docs/ladder.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nomercy.arena.runner import BotSpec, GameSetup, parse_bot_spec
from nomercy.arena.tournament import run_tournament
from nomercy.cli.main import main

np = pytest.importorskip("numpy")

POLICY_MODULE = '''
import numpy as np

CALLS = []


def lowest(obs, mask):
    """The lowest legal id (draw when it may), recording what it was given."""
    CALLS.append((obs.shape, int(mask.sum())))
    return int(np.flatnonzero(mask)[0])


def highest(obs, mask):
    """The highest legal id."""
    return int(np.flatnonzero(mask)[-1])


class Holder:
    policy = staticmethod(lowest)
'''


@pytest.fixture
def policy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "nm_test_policy.py").write_text(POLICY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "nm_test_policy"


def test_policy_specs_parse_build_and_play(policy_module: str) -> None:
    spec = parse_bot_spec(f"policy:{policy_module}:lowest")
    assert spec.label == f"policy:{policy_module}:lowest"
    assert parse_bot_spec(f"policy:{policy_module}:Holder.policy").build(0).name == "policy"
    result = run_tournament([spec, BotSpec("random")], GameSetup.make(2, seed=3), 6, jobs=1)
    assert {s.bot for s in result.standings} == {spec.label, "random"}
    import nm_test_policy  # type: ignore[import-not-found]

    shapes = {shape for shape, _ in nm_test_policy.CALLS}
    assert shapes == {(706,)}  # the flat observation vector, as the env gives it
    assert all(legal >= 2 for _, legal in nm_test_policy.CALLS)  # forced moves skip the policy


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("policy", "policy:MODULE:ATTR"),
        ("policy:onlymodule", "policy:MODULE:ATTR"),
        ("policy:no_such_module_here:x", "cannot import"),
        ("policy:json:no_such_attr", "has no attribute"),
    ],
)
def test_bad_policy_specs_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_bot_spec(text).build(0)


def test_tournament_cli_takes_a_policy_and_a_bot_listed_three_times(
    policy_module: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "t.json"
    bots = f"policy:{policy_module}:lowest,random,random,random"
    argv = ["tournament", "--bots", bots, "--players", "4", "--games", "8", "--seed", "2"]
    code = main([*argv, "--jobs", "1", "--quiet", "--json", str(report)])
    _, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(report.read_text())
    standings = {row["bot"]: row for row in data["standings"]}
    assert set(standings) == {f"policy:{policy_module}:lowest", "random"}
    # One policy seat and three random seats in every game.
    assert standings[f"policy:{policy_module}:lowest"]["seats"] == 8
    assert standings["random"]["seats"] == 24
    assert data["config"]["bots"] == bots.split(",")
    assert all(lu.count("random") == 3 for lu in data["config"]["lineups"])


def test_the_standings_table_tells_two_policies_of_one_module_apart(
    policy_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The bot column once cut both to "policy:nm_t…" (issue 48): it is never cut now.
    bots = f"policy:{policy_module}:lowest,policy:{policy_module}:highest,random"
    argv = ["tournament", "--bots", bots, "--players", "2", "--games", "6", "--jobs", "1"]
    code = main([*argv, "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [line for line in out.splitlines() if "policy:" in line]
    assert len(rows) == 2
    assert any(f"policy:{policy_module}:lowest " in row for row in rows)
    assert any(f"policy:{policy_module}:highest " in row for row in rows)
    assert "…" not in out
