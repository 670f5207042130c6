"""``scripts/check`` runs every step even after one fails, and reports each (issue 27, point 7).

The tools are stand-ins on ``PATH`` (a shell script each that logs its arguments and exits as
told): a failing step must not stop the later ones, the pure-Python pass of the engine's tests
must still run after a failing test run, and the summary names every step's result; the exit
status is the first failure's.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "scripts" / "check"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="scripts/check is bash")


def _run(
    tmp_path: Path, *, ruff: str = "exit 0", pytest_body: str = "exit 0", build: str = "pure"
) -> tuple[int, str, list[str]]:
    """Run scripts/check with stand-in tools; returns its exit status, output and the calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    log.touch()
    # `python -c ...` asks which build of the core runs: the stand-in answers `build`.
    python = (
        f'case "$*" in *"print(c.BUILD)"*) echo {build};; '
        f'*"sys.exit"*) [ {build} = compiled ];; esac'
    )
    tools = {"ruff": ruff, "mypy": "exit 0", "pytest": pytest_body, "python": python}
    for name, body in tools.items():
        path = bin_dir / name
        path.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$CHECK_LOG"\n{body}\n')
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CHECK_LOG": str(log),
        "NOMERCY_CHROMIUM": shutil.which("true") or "/bin/true",
    }
    proc = subprocess.run(
        ["bash", str(CHECK)], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    calls = [c for c in log.read_text().splitlines() if not c.startswith("python")]
    return proc.returncode, proc.stdout + proc.stderr, calls


def test_the_pure_pass_runs_after_a_failing_test_run_and_both_are_reported(
    tmp_path: Path,
) -> None:
    # The main run fails (exit 1); the pure pass (--core-build=pure) passes.
    body = 'case "$*" in *--core-build=pure*) exit 0;; *) exit 1;; esac'
    code, out, calls = _run(tmp_path, pytest_body=body, build="compiled")
    assert code == 1, out
    assert calls[-2] == "pytest " and calls[-1].startswith("pytest --core-build=pure tests/golden")
    assert "FAILED  pytest (the compiled core) (exit 1" in out
    assert "ok      pytest, the engine's tests on the pure-Python core" in out
    assert "ok      ruff format" in out and "ok      mypy" in out
    assert "==> summary" in out


def test_a_lint_failure_does_not_stop_the_tests(tmp_path: Path) -> None:
    code, out, calls = _run(tmp_path, ruff='case "$1" in check) exit 3;; *) exit 0;; esac')
    assert code == 3, out
    assert "FAILED  ruff check (exit 3" in out
    assert "ok      pytest (the pure core)" in out
    assert "skipped the pure-Python pass: the tests above ran on the pure-Python core" in out
    assert [c.split()[0] for c in calls] == ["ruff", "ruff", "mypy", "pytest"]


def test_all_passing_exits_zero(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, build="compiled")
    assert code == 0, out
    assert out.count("ok      ") == 5
