"""The web package's storage and cluster modules import one way (issue 47): the SQL core at
the bottom, each dialect on it, the lobby over the cluster, and no import hidden inside a
function to dodge a cycle. psycopg stays an optional extra: a SQLite server never loads it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.no_store

WEB = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "web"

#: module -> the nomercy.web modules it may import (module level, type-only blocks included).
ALLOWED: dict[str, set[str]] = {
    "sqlcore": set(),
    "store": {"sqlcore"},
    "postgres": {"sqlcore", "store"},
    "database": {"sqlcore", "store"},
    "writer": {"sqlcore"},
    "presence": set(),
    "cluster": {"config", "presence", "protocol", "room", "sqlcore", "writer"},
}
#: Imports inside a function that are allowed, and why: (module, imported) pairs.
LAZY = {("database", "nomercy.web.postgres")}  # psycopg is optional (the web-pg extra)


def _imports(module: str) -> tuple[set[str], set[str]]:
    """The nomercy.web modules ``module`` imports at module level, and the nomercy modules
    it imports inside functions."""
    tree = ast.parse((WEB / f"{module}.py").read_text())
    nested = {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for sub in ast.walk(node)
    }
    top: set[str] = set()
    inner: set[str] = set()
    for node in ast.walk(tree):
        name = node.module or "" if isinstance(node, ast.ImportFrom) else ""
        if not name.startswith("nomercy"):
            continue
        if id(node) in nested:
            inner.add(name)
        elif name.startswith("nomercy.web."):
            top.add(name.split(".")[2])
    return top, inner


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_storage_and_cluster_import_one_way(module: str) -> None:
    top, inner = _imports(module)
    assert top <= ALLOWED[module], f"{module}.py imports {sorted(top - ALLOWED[module])}"
    hidden = {name for name in inner if (module, name) not in LAZY}
    assert not hidden, f"{module}.py imports {sorted(hidden)} inside a function"


def test_the_lobby_imports_the_cluster_never_the_reverse() -> None:
    rooms, rooms_inner = _imports("rooms")
    cluster, _ = _imports("cluster")
    assert "cluster" in rooms and "rooms" not in cluster
    assert not rooms_inner, f"rooms.py imports {sorted(rooms_inner)} inside a function"
    source = (WEB / "cluster.py").read_text()
    assert "psycopg" not in {
        alias.name.split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    # What the cluster asks of a room is its public API, not its private methods.
    private = {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "room"
        and node.attr.startswith("_")
    }
    assert not private, f"cluster.py calls Room's {sorted(private)}"


def test_a_sqlite_server_loads_no_postgresql_driver() -> None:
    code = (
        "import sys\n"
        "from nomercy.web.app import create_app\n"
        "from nomercy.web.database import open_store\n"
        "open_store(':memory:').close()\n"
        "print('psycopg' in sys.modules, 'nomercy.web.postgres' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["False", "False"]
