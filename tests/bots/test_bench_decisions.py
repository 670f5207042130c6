"""benchmarks/bench_decisions.py: it plays, times every decision and rejects bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_decisions.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def test_bench_decisions_times_every_decision_of_each_bot() -> None:
    done = run("--games", "2", "--bots", "random,ismcts:iterations=5", "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["bot"] for r in rows] == ["random", "ismcts:iterations=5"]
    for row in rows:
        assert row["games"] == 2 and row["all"]["decisions"] > 0
        assert 0 <= row["all"]["median_ms"] <= row["all"]["p99_ms"] <= row["all"]["max_ms"]
    assert "searched" not in rows[0] and rows[1]["searched"]["decisions"] > 0


def test_bench_decisions_rejects_an_unknown_bot() -> None:
    done = run("--games", "1", "--bots", "nope")
    assert done.returncode == 2 and "unknown bot 'nope'" in done.stderr
