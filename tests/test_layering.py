"""The import-direction contract (docs/architecture.md): every layer imports only downward."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "nomercy"

# package -> the nomercy packages it may import
ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "encoding": {"core", "encoding"},
    "bots": {"core", "encoding", "bots"},
    "rl": {"core", "encoding", "bots", "rl"},
    "tables": {"core", "bots", "tables"},
    "arena": {"core", "bots", "arena"},
    "tui": {"core", "bots", "tables", "tui"},
    "web": {"core", "bots", "tables", "web"},
    # encoding: `nomercy --version` names the observation writer's build (below bots).
    "cli": {"core", "encoding", "bots", "tables", "arena", "tui", "web", "cli"},
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layering_imports_point_downward(package: str) -> None:
    for path in (SRC / package).rglob("*.py"):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "nomercy" and len(parts) > 1:
                assert parts[1] in ALLOWED[package], f"{path.name} imports {name}"


#: What the core may import beyond the standard library: mypy_extensions and librt, base
#: dependencies (pyproject.toml), for native int annotations (``i64``) that mypyc compiles to
#: machine words (deal version 2's generator, core/dealing.py) and librt.vecs' packed vectors
#: (legality's tables, issue 42).
CORE_EXTRAS = ("nomercy", "__future__", "mypy_extensions", "librt")


def test_core_uses_only_the_standard_library() -> None:
    for path in (SRC / "core").rglob("*.py"):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top in CORE_EXTRAS, (
                f"{path.name} imports {name}"
            )
