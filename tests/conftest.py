"""Shared pytest configuration: ``--soak`` for long random-play runs, ``--core-build``."""

from __future__ import annotations

import os

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
    import nomercy.core as core

    if build != "auto" and build != core.BUILD:
        raise pytest.UsageError(
            f"--core-build={build}, but nomercy.core runs {core.BUILD}: {core.BUILD_REASON}"
        )


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
