"""The long commands' progress bar (nomercy.cli.progress): silent when quiet, a counting line
without rich, and absolute updates and increments agree."""

from __future__ import annotations

import sys

import pytest

from nomercy.cli.progress import progress_bar


def test_quiet_draws_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bar("simulate", "games", total=4, quiet=True) as bar:
        bar.advance(4)
    assert capsys.readouterr().err == ""


def test_without_rich_a_line_counts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("rich", "rich.console", "rich.progress"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails: rich is "not installed"
    with progress_bar("simulate", "games", total=4) as bar:
        bar.advance(1)
        bar.advance(3)
    with progress_bar("analyse", "decisions") as bar:
        bar.update(2, 2)
    err = capsys.readouterr().err
    assert "simulate: 1/4 games" in err
    assert "simulate: 4/4 games" in err
    assert "analyse: 2/2 decisions" in err
    assert err.endswith("s\n")
