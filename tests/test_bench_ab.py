"""benchmarks/bench_ab.py: two trees play the same games and the report compares them; a tree
without the requested build is refused. (Speed itself is never asserted: benchmarks/README.md.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_ab.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300
    )


def test_one_tree_against_itself_plays_the_same_games() -> None:
    src = str(ROOT / "src")
    done = run(src, src, "--games", "3", "--rounds", "2", "--build", "pure")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"A {src}: ") and lines[1].startswith(f"B {src}: ")
    steps = {line.rsplit("(", 1)[1] for line in lines[:2]}
    assert len(steps) == 1 and steps.pop().endswith(" steps)")  # the same games
    assert lines[2].startswith("B/A: ") and "warning" not in done.stdout
    assert done.stderr.count("round ") == 2


def test_a_tree_without_the_compiled_core_is_refused(tmp_path: Path) -> None:
    # A copy of the sources without _compiled/ runs pure: asking for compiled says so.
    tree = tmp_path / "bench-tree"
    shutil.copytree(
        ROOT / "src" / "nomercy", tree / "nomercy", ignore=shutil.ignore_patterns("_compiled")
    )
    done = run(str(tree), str(tree), "--games", "1", "--rounds", "1")
    assert done.returncode != 0
    assert f"{tree}: the compiled core is not loaded" in done.stderr
