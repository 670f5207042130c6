"""Every ``>>>`` example in the package's docstrings runs, on the build of the core in use.

The examples are read from the source files (``ast`` finds each module, class and function
docstring; :class:`doctest.DocTestParser` parses it) and run in the namespace of the module
as imported. So under the compiled core the examples of ``nomercy.core.game`` run against
the mypyc-compiled module: :class:`doctest.DocTestFinder` on a compiled module would skip
its compiled functions (they are not Python functions and carry no source line), and the
two builds would not run the same examples. ``scripts/check`` runs this file on both builds.
A new module with examples is collected without registering it here.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import nomercy.core

PACKAGE = Path(nomercy.core.__file__).resolve().parent.parent
OPTIONS = doctest.ELLIPSIS


@dataclass(frozen=True)
class Docstring:
    """One docstring with examples: where it is and its text."""

    module: str
    qualname: str
    path: Path
    lineno: int  # 0-based line of the docstring's first line, as doctest counts
    text: str

    @property
    def name(self) -> str:
        return f"{self.module}.{self.qualname}" if self.qualname else self.module


def _docstrings(path: Path, module: str) -> Iterator[Docstring]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def visit(node: ast.AST, prefix: str) -> Iterator[Docstring]:
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text and ">>>" in text:
                first = body[0] if body else node
                yield Docstring(module, prefix, path, first.lineno - 1, text)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from visit(child, f"{prefix}.{child.name}" if prefix else child.name)

    yield from visit(tree, "")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def collect() -> list[Docstring]:
    """Every docstring with ``>>>`` examples under ``src/nomercy``, in path order."""
    found: list[Docstring] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            found.extend(_docstrings(path, _module_name(path)))
    return found


DOCSTRINGS = collect()


def _doctest(doc: Docstring) -> doctest.DocTest:
    module = importlib.import_module(doc.module)
    return doctest.DocTestParser().get_doctest(
        doc.text, dict(vars(module)), doc.name, str(doc.path), doc.lineno
    )


def test_examples_are_collected() -> None:
    # 25 modules carried examples when this test was written (issue 28): a collector that
    # silently finds none would make the test below pass vacuously.
    modules = {doc.module for doc in DOCSTRINGS}
    assert len(modules) >= 25
    assert {"nomercy", "nomercy.core.game", "nomercy.core.views"} <= modules


@pytest.mark.parametrize("doc", DOCSTRINGS, ids=lambda doc: doc.name)
def test_docstring_examples(doc: Docstring) -> None:
    test = _doctest(doc)
    assert test.examples, f"{doc.name}: '>>>' in the docstring but no example parses"
    runner = doctest.DocTestRunner(optionflags=OPTIONS, verbose=False)
    report: list[str] = []
    runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


def test_runs_on_the_build_in_use() -> None:
    # Under the compiled build the core's examples run against the extension modules.
    game = importlib.import_module("nomercy.core.game")
    compiled = not str(game.__file__).endswith(".py")
    assert compiled == (nomercy.core.BUILD == "compiled")
