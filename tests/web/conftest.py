"""The web suite runs on both stores: every test of a ``test_web_*`` module that is not marked
``sqlite_only`` runs once on SQLite and once on PostgreSQL (a private cluster started for the
session, one fresh database per test; :mod:`pgcluster`).

Without PostgreSQL's server binaries the PostgreSQL runs are skipped, saying why; under
``CI=true`` they fail instead (CI installs Debian's ``postgresql``: ``.ci/run``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import realserver
from pgcluster import PgCluster, find_bin_dir

STORES = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: a test of the SQLite store itself (not run on PostgreSQL)"
    )
    config.addinivalue_line("markers", "postgres: needs PostgreSQL (a private cluster)")
    config.addinivalue_line("markers", "no_store: uses no database (runs once)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if "web_store" not in metafunc.fixturenames or not module.startswith("test_web_"):
        return
    if metafunc.definition.get_closest_marker("sqlite_only") is not None:
        return
    for marker in ("postgres", "no_store"):
        if metafunc.definition.get_closest_marker(marker) is not None:
            return
    metafunc.parametrize("web_store", STORES, indirect=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A private PostgreSQL cluster on 127.0.0.1 for the whole session."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        message = (
            "PostgreSQL's server (initdb, pg_ctl) is not installed: apt-get install postgresql, "
            "or set NOMERCY_PG_BIN to its bin directory"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    cluster = PgCluster(bin_dir)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_database(pg_cluster: PgCluster) -> Iterator[str]:
    """The URL of a fresh, empty database (dropped after the test)."""
    url = pg_cluster.database()
    yield url
    pg_cluster.drop(url)


@pytest.fixture(autouse=True)
def web_store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Which store the test's servers use: with ``postgresql`` each SQLite path a test gives
    (to the in-process harness or a server process) stands for a fresh PostgreSQL database."""
    kind = getattr(request, "param", "sqlite")
    if kind != "postgresql":
        yield kind
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    urls: dict[str, str] = {}

    def database_for(path: Any) -> str:
        text = str(path)
        if text.startswith("postgresql://") or text == ":memory:":
            return text
        if text not in urls:
            urls[text] = cluster.database()
        return urls[text]

    from nomercy.web import rooms, sqlcore
    from nomercy.web.database import open_store as real_open

    def open_store(database: Any, **kw: Any) -> sqlcore.StoreBase:
        return real_open(database_for(database), **kw)

    monkeypatch.setattr(rooms, "open_store", open_store)
    monkeypatch.setattr(realserver, "database_for", database_for)
    yield kind
    for url in urls.values():
        cluster.drop(url)
