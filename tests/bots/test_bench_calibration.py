"""benchmarks/bench_calibration.py: predictions paired with outcomes, bucketed by tenths."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_calibration.py"
_spec = importlib.util.spec_from_file_location("bench_calibration", SCRIPT)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_buckets_pair_mean_predictions_with_observed_rates() -> None:
    rows = [("no-mercy", 2, 0.05, 0), ("no-mercy", 2, 0.15, 1), ("no-mercy", 2, 0.12, 0)]
    rows += [("classic", 2, 0.95, 1), ("classic", 2, 1.0, 1)]
    table = bench.buckets(rows)
    assert [t["bucket"] for t in table] == ["0-10%", "10-20%", "90-100%"]
    assert table[1] == {
        "bucket": "10-20%",
        "decisions": 2,
        "predicted": 0.135,
        "observed": 0.5,
        "gap_points": 36.5,
    }
    assert table[2]["decisions"] == 2  # a chance of exactly 1 is in the top bucket


def test_a_small_run_writes_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "cal.json"
    code = bench.main(
        [
            "--games",
            "2",
            "--every",
            "4",
            "--iterations",
            "5",
            "--coach",
            "ismcts",
            "--seed",
            "3",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    report = json.loads(out.read_text())
    assert report["decisions"] == sum(t["decisions"] for t in report["buckets"]) > 0
    assert 0.0 <= report["brier"] <= 1.0
