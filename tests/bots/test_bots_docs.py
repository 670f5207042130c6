"""docs/bots.md: its examples (the bot API and a user adding a bot) run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

from nomercy.bots import BOTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def test_bots_md_examples_run() -> None:
    before = set(BOTS)
    try:
        result = doctest.testfile(str(DOC), module_relative=False, verbose=False)
    finally:
        for name in set(BOTS) - before:
            del BOTS[name]
    assert result.attempted >= 8
    assert result.failed == 0


def test_bots_md_lists_every_registered_bot() -> None:
    text = DOC.read_text()
    for name in BOTS:
        assert f"| `{name}` |" in text, f"docs/bots.md does not describe the {name!r} bot"
