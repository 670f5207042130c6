"""benchmarks/bench_bots.py: the same games and results whatever the number of workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_bots.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def test_bench_bots_gives_the_same_result_with_more_jobs() -> None:
    common = ("--bot", "ismcts", "--param", "iterations=4", "--vs", "heuristic", "--json")
    rows = []
    for jobs in ("1", "2"):
        done = run(*common, "--players", "3", "--games", "6", "--seed", "5", "--jobs", jobs)
        assert done.returncode == 0, done.stderr
        rows.append(json.loads(done.stdout))
    one, two = rows
    assert (one["wins"], one["searched_decisions"], one["forced_decisions"]) == (
        two["wins"],
        two["searched_decisions"],
        two["forced_decisions"],
    )
    assert one["games"] == 6 and one["searched_decisions"] > 0


def test_bench_bots_rejects_bad_jobs() -> None:
    done = run("--games", "1", "--jobs", "0")
    assert done.returncode == 2 and "--jobs must be at least 1" in done.stderr
