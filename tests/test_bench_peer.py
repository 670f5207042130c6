"""benchmarks/bench_peer.py: without the peer it says why and runs the other sides; with
--require-peer that is an error. (Speed itself is never asserted: benchmarks/README.md.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_peer.py"


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--cache", str(tmp_path / "cache"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_a_peer_checkout_the_other_sides_still_run(tmp_path: Path) -> None:
    out = tmp_path / "runs.json"
    done = run(
        tmp_path,
        *("--peer", str(tmp_path / "no-checkout"), "--sides", "peer,rlcard"),
        *("--games", "3", "--rounds", "2", "--warmup", "1", "--json", str(out)),
    )
    assert done.returncode == 0, done.stderr
    assert f"# peer skipped: {tmp_path / 'no-checkout'} holds no packages/engine/src" in (
        done.stdout
    )
    record = json.loads(out.read_text(encoding="utf-8"))
    assert list(record["runs"]) == ["rlcard"]
    assert [r["games"] for r in record["runs"]["rlcard"]] == [3, 3]
    assert record["summary"]["rlcard"]["x_rlcard_steps_per_s"]["median"] == 1.0
    assert record["infos"]["rlcard"]["label"] == "rlcard UnoGame reused"


def test_require_peer_makes_a_missing_peer_an_error(tmp_path: Path) -> None:
    done = run(tmp_path, "--peer", str(tmp_path), "--require-peer", "--sides", "peer")
    assert done.returncode == 2
    assert "error: the peer cannot run" in done.stderr


def test_unknown_sides_are_refused(tmp_path: Path) -> None:
    done = run(tmp_path, "--sides", "peer,nope")
    assert done.returncode == 2 and "unknown sides ['nope']" in done.stderr
