"""Shared pytest configuration: ``--soak`` for long random-play runs, ``--core-build``, and the
``slow`` marker with the order test files start in (the longest first, for pytest-xdist)."""

from __future__ import annotations

import os
import warnings

import pytest

#: How much ``--soak`` multiplies game counts and Hypothesis examples.
SOAK_MULTIPLIER = 20
#: Environment variable the test modules read at import time (set by ``--soak``).
SOAK_ENV = "NOMERCY_SOAK_FACTOR"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help=f"long random-play soak runs: about {SOAK_MULTIPLIER}x more games",
    )
    parser.addoption(
        "--core-build",
        choices=["auto", "pure", "compiled"],
        default="auto",
        help=(
            "which build of nomercy.core the tests (and the processes they start) run: pure "
            "sets NOMERCY_PURE=1, compiled clears it and fails unless the mypyc build is "
            "current (python -m nomercy.core.build); auto (default) takes the environment's"
        ),
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "soak: long random-play soak runs (run with --soak)")
    # Runs before test modules are imported, so module-level Hypothesis settings can see it.
    if config.getoption("soak"):
        os.environ[SOAK_ENV] = str(SOAK_MULTIPLIER)
    # Also before any test module imports nomercy.core, which chooses its build once.
    build = config.getoption("core_build")
    if build == "pure":
        os.environ["NOMERCY_PURE"] = "1"
    elif build == "compiled":
        os.environ.pop("NOMERCY_PURE", None)
    # A compiled build that cannot run here (stale after an edit, say) warns at import
    # (CompiledCoreWarning), which the suite's filterwarnings = error would turn into an
    # internal error. The report header names the build and the reason instead, and the
    # processes the tests start run pure on purpose, as this one does, without the warning.
    with warnings.catch_warnings(record=True) as lost:
        warnings.simplefilter("always")
        import nomercy.core as core
    if lost and core.BUILD == "pure":
        os.environ["NOMERCY_PURE"] = "1"

    if build != "auto" and build != core.BUILD:
        raise pytest.UsageError(
            f"--core-build={build}, but nomercy.core runs {core.BUILD}: {core.BUILD_REASON}"
        )


#: The long test files (seconds measured serially with the compiled core, 2026-12-03, two cores
#: shared with other work: `pytest --durations=0`), longest first. Their tests are marked
#: ``slow`` (``-m "not slow"`` skips them; CI runs them), and they start first: pytest-xdist
#: (``--dist loadfile --no-loadscope-reorder``, scripts/check) hands files to the workers in
#: collection order, so the longest files do not end the run alone on one worker.
SLOW_FILES: dict[str, float] = {
    # With the rl-train extra (CI installs it): its three training recipes, measured serially
    # on 2026-12-07 at a load average of about 10 (92 s of CPU).
    "tests/rl/test_rl_recipes.py": 227.0,
    "tests/web/test_web_bounds.py": 91.6,
    "tests/golden/test_golden.py": 80.4,
    "tests/web/test_browser.py": 65.4,
    "tests/web/test_web_resilience.py": 56.8,
    "tests/tui/test_play.py": 51.4,
    "tests/web/test_web_api.py": 50.4,
    "tests/web/test_web_game.py": 43.2,
    "tests/web/test_browser_phone.py": 37.5,
    "tests/test_invariants.py": 36.4,
    "tests/web/test_web_cluster.py": 27.0,
    "tests/web/test_web_leaks.py": 21.5,
    "tests/web/test_web_hints.py": 11.1,
    "tests/web/test_browser_feel.py": 10.9,
    "tests/rl/test_rl_observations.py": 10.6,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = pytest.mark.slow
    rank: dict[str, int] = {path: i for i, path in enumerate(SLOW_FILES)}
    last = len(rank)
    for item in items:
        if item.nodeid.split("::", 1)[0] in rank:
            item.add_marker(slow)
    # A stable sort: the order inside a file, and of the other files, stays as collected.
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], last))


def pytest_report_header(config: pytest.Config) -> str:
    import nomercy.core as core

    return f"nomercy {core.build_description()}"


@pytest.fixture
def soak(request: pytest.FixtureRequest) -> int:
    """The game-count multiplier: 1 normally, ``SOAK_MULTIPLIER`` with ``--soak``."""
    return SOAK_MULTIPLIER if request.config.getoption("soak") else 1


@pytest.fixture(autouse=True)
def _isolated_data_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games saved by default (``nomercy play``) land in a temporary XDG data dir, not ~."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture(autouse=True)
def _no_wall_clock_search_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search bots' wall-clock safety net (5 s a decision) only catches runaway searches;
    on a loaded machine it would cut a search of fixed iterations short and change its choice,
    so the tests raise it out of reach (a test of the cap passes ``max_time`` itself).
    Imported here, not at the top: the core's build is chosen in ``pytest_configure``."""
    import nomercy.bots.ismcts_bot as ismcts_bot

    monkeypatch.setattr(ismcts_bot, "SAFETY_TIME", 600.0)
