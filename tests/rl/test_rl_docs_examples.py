"""The Python quick start in docs/rl.md runs."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_quick_start_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert blocks
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)
    env = namespace["env"]
    assert env.unwrapped.opponents == ["heuristic", "random"]  # type: ignore[attr-defined]
