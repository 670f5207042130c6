"""The web package's modules import one way (issue 47): the SQL core at the bottom, each
dialect on it, the lobby over the cluster, the room's layers each over the one below, and no
import hidden inside a function (or a type-only block) to dodge a cycle, here or anywhere in
``src/``. psycopg stays an optional extra: a SQLite server never loads it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from importscan import SRC, Imports, dodged_cycles, scan

pytestmark = pytest.mark.no_store

WEB = SRC / "nomercy" / "web"

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
#: The room's layers (room.py's docstring), lowest first: each imports only those below it.
ROOM_LAYERS = ["roomstate", "broadcast", "gameflow", "seating", "following", "room"]


def _imports(module: str) -> tuple[set[str], set[str]]:
    """The nomercy.web modules ``module`` imports at module level, and the nomercy modules
    it imports inside functions."""
    found = scan(WEB / f"{module}.py")
    return _web(found.top), found.inner


def _web(names: set[str]) -> set[str]:
    """The nomercy.web modules among ``names`` (by their short names)."""
    return {n.split(".")[2] for n in names if n.startswith("nomercy.web.")}


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_storage_and_cluster_import_one_way(module: str) -> None:
    top, inner = _imports(module)
    assert top <= ALLOWED[module], f"{module}.py imports {sorted(top - ALLOWED[module])}"
    # ``from M import N`` names M and M.N: either being lazy-allowed lets it be.
    hidden = {n for n in inner if not {(module, n), (module, n.rpartition(".")[0])} & LAZY}
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


@pytest.mark.parametrize("layer", ROOM_LAYERS)
def test_each_layer_of_the_room_imports_only_those_below(layer: str) -> None:
    top, inner = _imports(layer)
    above = set(ROOM_LAYERS[ROOM_LAYERS.index(layer) + 1 :])
    assert not top & above, f"{layer}.py imports {sorted(top & above)}, a layer above it"
    assert not top & {"rooms", "cluster", "app", "routes"}, f"{layer}.py imports upward"
    assert not inner, f"{layer}.py imports {sorted(inner)} inside a function"


def test_no_web_module_dodges_a_cycle_by_a_type_only_or_late_import() -> None:
    dodges = [d for d in dodged_cycles() if d.startswith("nomercy.web")]
    assert not dodges, "\n".join(dodges)


def test_no_import_inside_a_function_dodges_a_cycle_anywhere_in_src() -> None:
    dodges = [d for d in dodged_cycles() if "(inside a function)" in d]
    assert not dodges, "\n".join(dodges)


def test_the_scanner_finds_a_cycle_dodged_and_leaves_an_optional_import_be(
    tmp_path: Path,
) -> None:
    package = tmp_path / "nomercy"
    package.mkdir()
    files = {
        "__init__.py": "",
        "low.py": "from nomercy.high import X\n",
        "high.py": "X = 1\n\ndef late():\n    from nomercy.low import X\n    import json\n",
        "extra.py": "def plot():\n    from nomercy.optional import Y\n",
        "optional.py": "Y = 2\n",
        "typed.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from nomercy.uses import Z\n"
        ),
        "uses.py": "from nomercy.typed import TYPE_CHECKING as Z\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    found = scan(package / "high.py", tmp_path)
    assert found == Imports(runtime=set(), typing=set(), inner={"nomercy.low", "nomercy.low.X"})
    assert dodged_cycles(tmp_path) == [
        "nomercy.high -> nomercy.low (inside a function): nomercy.low -> nomercy.high",
        "nomercy.typed -> nomercy.uses (type-only): nomercy.uses -> nomercy.typed",
    ]


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
