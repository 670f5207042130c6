"""benchmarks/bench_bots.py: the same games and results whatever the number of workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_bench_bots_speed_reports_each_sides_build() -> None:
    # A pure baseline (the worktree's own HEAD, extracted by git archive) beside this
    # checkout: each side says which core build it ran on.
    import nomercy.core as core

    inside = subprocess.run(
        ["git", "-C", str(SCRIPT.parent), "rev-parse", "HEAD"], capture_output=True, check=False
    )
    if inside.returncode:
        pytest.skip("--baseline needs a git checkout (git archive)")
    done = run(
        "--speed",
        "--baseline",
        "HEAD",
        "--baseline-build",
        "pure",
        "--decisions",
        "2",
        "--repeat",
        "1",
        "--param",
        "iterations=5",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    sides = json.loads(done.stdout)["sides"]
    assert sides["baseline HEAD"]["build"] == "pure"
    assert sides["this checkout"]["build"] == core.BUILD
    assert all(1 <= side["searched"] <= 2 for side in sides.values())
