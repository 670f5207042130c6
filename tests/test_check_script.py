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
    tmp_path: Path,
    *,
    ruff: str = "exit 0",
    pytest_body: str = "exit 0",
    coverage: str = "exit 0",
    build: str = "pure",
    args: tuple[str, ...] = (),
    workers: str | None = None,
    wheel: str | None = None,
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
    tools = {
        "ruff": ruff,
        "mypy": "exit 0",
        "pytest": pytest_body,
        "python": python,
        "coverage": coverage,
        "check-wheel": "exit 0",
    }
    for name, body in tools.items():
        path = bin_dir / name
        path.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$CHECK_LOG"\n{body}\n')
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CHECK_LOG": str(log),
        "NOMERCY_CHROMIUM": shutil.which("true") or "/bin/true",
        # The check starts by deleting the coverage data: not the real run's.
        "COVERAGE_FILE": str(tmp_path / ".coverage"),
        # The wheel step's stand-in (the real one builds and installs a wheel).
        "NOMERCY_CHECK_WHEEL": str(bin_dir / "check-wheel"),
    }
    env.pop("NOMERCY_TEST_WORKERS", None)
    if workers is not None:
        env["NOMERCY_TEST_WORKERS"] = workers
    if wheel is not None:
        env["NOMERCY_CHECK_WHEEL"] = wheel
    proc = subprocess.run(
        ["bash", str(CHECK), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    calls = [c for c in log.read_text().splitlines() if not c.startswith("python")]
    return proc.returncode, proc.stdout + proc.stderr, calls


XDIST = f"-n {min(8, 2 * (os.cpu_count() or 1))} --dist loadfile --no-loadscope-reorder"


def _tool(calls: list[str], name: str) -> list[str]:
    return [c for c in calls if c.split()[0] == name]


def test_the_pure_pass_runs_after_a_failing_test_run_and_both_are_reported(
    tmp_path: Path,
) -> None:
    # The main run fails (exit 1); the pure pass (--core-build=pure) passes.
    body = 'case "$*" in *--core-build=pure*) exit 0;; *) exit 1;; esac'
    code, out, calls = _run(tmp_path, pytest_body=body, build="compiled")
    assert code == 1, out
    main, pure = _tool(calls, "pytest")
    cov = "--cov --cov-report= --cov-fail-under=0"
    assert main == f"pytest {XDIST} {cov}"
    assert pure.startswith(f"pytest {XDIST} {cov} --cov-append --core-build=pure ")
    assert " tests/golden " in pure and " tests/test_doctests.py " in pure
    assert "FAILED  pytest (the compiled core) (exit 1" in out
    assert "ok      pytest, the engine's tests on the pure-Python core" in out
    assert "ok      ruff format" in out and "ok      mypy" in out
    # Coverage is still reported after a failing test run; the core's check comes last.
    assert (
        _tool(calls, "coverage")[-1]
        == "coverage report --include=src/nomercy/core/* --skip-covered"
    )
    assert calls[-2].startswith("coverage report")
    # The compiled wheel is checked last, after a failing test run too.
    assert calls[-1] == "check-wheel "
    assert "==> summary" in out


def test_a_lint_failure_does_not_stop_the_tests(tmp_path: Path) -> None:
    code, out, calls = _run(tmp_path, ruff='case "$1" in check) exit 3;; *) exit 0;; esac')
    assert code == 3, out
    assert "FAILED  ruff check (exit 3" in out
    assert "ok      pytest (the pure core)" in out
    assert "skipped the pure-Python pass: the tests above ran on the pure-Python core" in out
    tools = ["ruff", "ruff", "mypy", "pytest", "coverage", "coverage", "check-wheel"]
    assert [c.split()[0] for c in calls] == tools


def test_core_coverage_below_the_bar_fails_the_check(tmp_path: Path) -> None:
    # `coverage report` exits 2 when the total is under fail_under (the core's report only).
    below = 'case "$*" in *nomercy/core*) exit 2;; *) exit 0;; esac'
    code, out, _ = _run(tmp_path, coverage=below, build="compiled")
    assert code == 2, out
    assert "FAILED  coverage (the package; the core's lines >= fail_under) (exit 2" in out


def test_arguments_go_to_pytest_without_coverage(tmp_path: Path) -> None:
    code, out, calls = _run(tmp_path, args=("-k", "stack"), build="compiled", workers="0")
    assert code == 0, out
    assert _tool(calls, "pytest") == ["pytest -k stack"]
    assert not _tool(calls, "coverage") and not _tool(calls, "check-wheel")
    assert "skipped coverage and the wheel check (pytest arguments were given)" in out


def test_all_passing_exits_zero(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, build="compiled")
    assert code == 0, out
    assert out.count("ok      ") == 7
    assert "ok      the compiled wheel in a fresh venv" in out


def test_the_wheel_check_can_be_skipped_and_says_so(tmp_path: Path) -> None:
    # NOMERCY_CHECK_WHEEL=0 (offline, say): every other step runs; the summary says why.
    code, out, calls = _run(tmp_path, build="compiled", wheel="0")
    assert code == 0, out
    assert not _tool(calls, "check-wheel")
    assert "skipped the compiled wheel check (NOMERCY_CHECK_WHEEL=0)" in out


def test_the_check_deletes_only_its_own_coverage_data(tmp_path: Path) -> None:
    stale = tmp_path / ".coverage.host.1.x"
    stale.write_text("stale")
    keep = tmp_path / "keep"
    keep.write_text("")
    code, out, _ = _run(tmp_path)
    assert code == 0, out
    assert not stale.exists() and keep.exists()


def test_the_slow_files_exist_and_are_marked(pytestconfig: pytest.Config) -> None:
    # tests/conftest.py marks these files slow and starts them first: a renamed file must
    # not silently drop out of the list.
    import importlib.util

    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "tests" / "conftest.py")
    assert spec is not None and spec.loader is not None
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    assert conftest.SLOW_FILES
    for path in conftest.SLOW_FILES:
        assert (ROOT / path).is_file(), path
    assert list(conftest.SLOW_FILES.values()) == sorted(conftest.SLOW_FILES.values(), reverse=True)
    assert "slow" in "".join(pytestconfig.getini("markers"))
