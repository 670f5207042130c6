"""What a source file imports, read from its syntax tree: the one scanner of the import tests
(tests/web/test_web_imports.py, test_web_routes.py; issue 47).

An import is at module level (``runtime``), in an ``if TYPE_CHECKING:`` block (``typing``) or
inside a function (``inner``). A module's runtime imports form the package's import graph;
an import inside a function, or a type-only one, *dodges a cycle* when the module it names
imports the importer back at runtime (directly or not): written at module level, it would be
a cycle. :func:`dodged_cycles` lists them for a whole source tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: The repository's ``src`` directory.
SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass
class Imports:
    """The modules one file imports (each ``from M import N`` gives ``M`` and ``M.N``: the
    name is a module's or one of ``M``'s)."""

    runtime: set[str] = field(default_factory=set)
    typing: set[str] = field(default_factory=set)
    inner: set[str] = field(default_factory=set)

    @property
    def top(self) -> set[str]:
        """The module-level imports, type-only ones included."""
        return self.runtime | self.typing


def module_name(path: Path, src: Path = SRC) -> str:
    """The dotted name of the module at ``path`` under ``src``."""
    parts = list(path.resolve().relative_to(src.resolve()).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _names(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The absolute names an import statement names (relative ones resolved in ``package``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def scan(path: Path, src: Path = SRC) -> Imports:
    """What the file at ``path`` imports of the ``nomercy`` package, by where."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path, src) if path.resolve().is_relative_to(src.resolve()) else ""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = Imports()

    def visit(node: ast.AST, where: set[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, found.inner)
            elif (
                isinstance(child, ast.If) and _is_type_checking(child) and where is not found.inner
            ):
                for sub in child.body:
                    visit_one(sub, found.typing)
                for sub in child.orelse:
                    visit_one(sub, where)
            else:
                visit_one(child, where)

    def visit_one(child: ast.AST, where: set[str]) -> None:
        if isinstance(child, ast.Import | ast.ImportFrom):
            where.update(n for n in _names(child, package) if n.split(".")[0] == "nomercy")
        else:
            visit(child, where)

    visit(tree, found.runtime)
    return found


def modules(src: Path = SRC) -> dict[str, Path]:
    """Every module under ``src`` by its dotted name."""
    return {module_name(path, src): path for path in sorted(src.rglob("*.py"))}


def _targets(names: set[str], importer: str, known: dict[str, Path]) -> set[str]:
    """The modules that importing ``names`` from ``importer`` runs: each named module and the
    packages above it that are not ``importer``'s own (those are being imported already)."""
    own = {*_ancestors(importer), importer}
    out: set[str] = set()
    for name in names:
        if name not in known or name in own:
            continue
        out.add(name)
        out.update(a for a in _ancestors(name) if a not in own and a in known)
    return out


def _ancestors(name: str) -> Iterator[str]:
    parts = name.split(".")
    for i in range(1, len(parts)):
        yield ".".join(parts[:i])


def runtime_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Module -> the modules importing it runs at once (its module-level runtime imports)."""
    known = modules(src)
    return {
        name: _targets(scan(path, src).runtime, name, known) - {name}
        for name, path in known.items()
    }


def _path(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A chain of runtime imports from ``start`` to ``goal``, if any (breadth first)."""
    previous: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        following: list[str] = []
        for module in frontier:
            for nxt in sorted(graph.get(module, ())):
                if nxt in seen:
                    continue
                previous[nxt] = module
                if nxt == goal:
                    chain = [goal]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return chain[::-1]
                seen.add(nxt)
                following.append(nxt)
        frontier = following
    return None


def dodged_cycles(src: Path = SRC) -> list[str]:
    """Every import inside a function or under ``TYPE_CHECKING`` whose module imports the
    importer back at runtime: ``"a.b -> a.c (inside a function): a.c -> ... -> a.b"``."""
    known = modules(src)
    graph = runtime_graph(src)
    found: list[str] = []
    for name, path in known.items():
        imports = scan(path, src)
        for where, names in (("inside a function", imports.inner), ("type-only", imports.typing)):
            for target in sorted(_targets(names, name, known) - {name}):
                chain = _path(graph, target, name)
                if chain is not None:
                    found.append(f"{name} -> {target} ({where}): {' -> '.join(chain)}")
    return found
