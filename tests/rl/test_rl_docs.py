"""docs/rl.md's generated tables match the code."""

from __future__ import annotations

from pathlib import Path

from nomercy.rl.docs import generated_blocks, update

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_docs_tables_match_the_code() -> None:
    text = DOC.read_text()
    assert update(text) == text, "docs/rl.md is stale: run python -m nomercy.rl.docs docs/rl.md"
    for body in generated_blocks().values():
        assert body in text


def test_action_table_lists_every_id_once() -> None:
    from nomercy.encoding.actions import action_table
    from nomercy.rl import NUM_ACTIONS

    covered: list[int] = []
    for first, last, _ in action_table():
        covered.extend(range(first, last + 1))
    assert covered == list(range(NUM_ACTIONS))
