"""The generated tables of docs/rl.md (a test checks that the file matches the code).

python -m nomercy.rl.docs docs/rl.md     # rewrite the generated blocks in place
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from nomercy.encoding.actions import action_table_markdown
from nomercy.encoding.observations import OBS_FIELDS, OBS_LAYOUT

__all__ = ["generated_blocks", "observation_table_markdown", "update"]


def observation_table_markdown() -> str:
    """The observation layout as a Markdown table."""
    lines = ["| name | slice | width | meaning |", "| --- | --- | --- | --- |"]
    for name, width, meaning in OBS_FIELDS:
        part = OBS_LAYOUT[name]
        lines.append(f"| `{name}` | {part.start}:{part.stop} | {width} | {meaning} |")
    return "\n".join(lines) + "\n"


def generated_blocks() -> dict[str, str]:
    """Block name -> its Markdown, as written between ``<!-- NAME:start -->`` markers."""
    return {
        "action-table": action_table_markdown(),
        "observation-table": observation_table_markdown(),
    }


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}:start -->\n)(.*?)(<!-- {name}:end -->)", re.S)


def update(text: str) -> str:
    """``text`` with every generated block replaced by the current one."""
    for name, body in generated_blocks().items():
        found = _pattern(name).search(text)
        if found is None:
            raise ValueError(f"docs/rl.md has no <!-- {name}:start --> ... end block")
        start, end = found.span(2)
        text = text[:start] + body + text[end:]
    return text


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m nomercy.rl.docs docs/rl.md", file=sys.stderr)
        return 2
    path = Path(argv[0])
    path.write_text(update(path.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
