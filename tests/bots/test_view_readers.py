"""The readers of a seat's view read PlayerView attributes and restate no rule (issue 28).

Bots, advice, the coach, the encoders, the RL environments, the arena, the CLI's analysis and
the terminal's rendering read ``view.hand``, not ``view["hand"]``; compare event kinds with
``EventKind``; and take the two-player test, the next seat and the stack's floor from the
engine (``view.two_player``, ``view.seat_after``, ``legality.answers_stack``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nomercy
from nomercy import EventKind

SRC = Path(nomercy.__file__).parent
READERS = [
    *sorted((SRC / "bots").glob("*.py")),
    SRC / "tables" / "advice.py",
    SRC / "tables" / "coach.py",
    *sorted((SRC / "encoding").glob("*.py")),
    *sorted((SRC / "rl").glob("*.py")),
    *sorted((SRC / "arena").glob("*.py")),
    *sorted((SRC / "cli").glob("*.py")),
    SRC / "tui" / "render.py",
]

#: What the old dict view and the shells' own copies of rules looked like.
FORBIDDEN = {
    "a view read by key": re.compile(r"\bview\s*\[\s*[\"']|\bview\.get\(|\[\"engine\"\]"),
    "an event kind as a bare string": re.compile(
        r"kind\s*(==|!=|in)\s*[({]?\s*[\"'](" + "|".join(k.value for k in EventKind) + r")[\"']"
    ),
    "a two-player test of its own (A29)": re.compile(r"two_player_basis|_two_player\("),
    "a next-seat loop of its own": re.compile(r"def _?next_(active|seat)\b"),
    "the stack threshold read from the options (A04)": re.compile(r"stack_threshold\s*=="),
    "advice's old stack test (NM-18)": re.compile(r"_stack_answers"),
}


@pytest.mark.parametrize("path", READERS, ids=lambda p: str(p.relative_to(SRC)))
def test_the_reader_uses_the_typed_view_and_the_engines_rules(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    found = [
        f"{what}: line {source.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for what, pattern in FORBIDDEN.items()
        for m in pattern.finditer(source)
    ]
    assert not found, found
