"""The install's build backend (buildtools/nomercy_backend.py): when it compiles the core.

A real ``pip install`` with a compiler is what CI runs (.ci/run, ``NOMERCY_COMPILE=1``, and
tests/test_core_build.py then requires the compiled core); here the backend runs on a copy of
the package, so what it writes lands in a temporary directory.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _backend_copy(tmp_path: Path) -> ModuleType:
    """The backend loaded from a copy of the project (without any compiled build)."""
    (tmp_path / "buildtools").mkdir()
    shutil.copy2(ROOT / "buildtools" / "nomercy_backend.py", tmp_path / "buildtools")
    shutil.copytree(
        ROOT / "src" / "nomercy",
        tmp_path / "src" / "nomercy",
        ignore=shutil.ignore_patterns("__pycache__", "_compiled"),
    )
    spec = importlib.util.spec_from_file_location(
        f"nomercy_backend_{tmp_path.name}", tmp_path / "buildtools" / "nomercy_backend.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _version_line(src: Path) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
    environ["PYTHONPATH"] = str(src)
    out = subprocess.run(
        [sys.executable, "-m", "nomercy", "--version"],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
        cwd=src,
        timeout=60,
    )
    return out.stdout.splitlines()[1]


def test_pyproject_uses_the_backend() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'build-backend = "nomercy_backend"' in text
    assert 'backend-path = ["buildtools"]' in text
    assert '"core/_compiled/*"' in text


def test_mypy_joins_the_build_requirements_only_when_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (get_requires_for_build_* add the pinned mypy to setuptools' list when this is true.)
    backend = _backend_copy(tmp_path)
    monkeypatch.setenv("CC", sys.executable)  # any executable passes for "a compiler"
    monkeypatch.setenv("NOMERCY_COMPILE", "0")
    assert not backend._wants_compiler()
    monkeypatch.setenv("NOMERCY_COMPILE", "auto")
    assert backend._wants_compiler() == (backend._missing_tools() is None)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert "no C compiler" in backend._missing_tools()
    assert not backend._wants_compiler()
    monkeypatch.setenv("NOMERCY_COMPILE", "1")
    assert backend._wants_compiler()
    monkeypatch.setenv("NOMERCY_COMPILE", "yes")
    with pytest.raises(ValueError, match="NOMERCY_COMPILE must be auto, 0 or 1"):
        backend._wants_compiler()


def test_without_a_compiler_the_install_is_pure_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = _backend_copy(tmp_path)
    missing = tmp_path / "no-such-cc"
    monkeypatch.setenv("CC", str(missing))
    monkeypatch.setenv("NOMERCY_COMPILE", "1")
    with pytest.raises(RuntimeError, match="NOMERCY_COMPILE=1, but the rules engine did not"):
        backend._compile()
    monkeypatch.setenv("NOMERCY_COMPILE", "auto")
    backend._compile()
    error = tmp_path / "src" / "nomercy" / "core" / "_compiled" / "build-error.txt"
    assert error.read_text(encoding="utf-8").startswith("no C compiler")
    assert _version_line(tmp_path / "src") == (
        f"core: pure (not compiled at install: no C compiler ({str(missing)!r} is not on PATH))"
    )
    monkeypatch.setenv("NOMERCY_COMPILE", "0")
    backend._compile()
    assert not error.exists()
    assert _version_line(tmp_path / "src") == (
        "core: pure (not compiled (python -m nomercy.core.build))"
    )


def _wheel_of_a_copy(tmp_path: Path, *, compiled: bool) -> str:
    """The backend's build_wheel on a copy of the project (NOMERCY_COMPILE=0: no mypyc run);
    ``compiled`` leaves a manifest in core/_compiled as a compiled build would."""
    copy = tmp_path / "project"
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "buildtools", copy / "buildtools")
    shutil.copytree(
        ROOT / "src",
        copy / "src",
        ignore=shutil.ignore_patterns("__pycache__", "_compiled", "*.egg-info"),
    )
    if compiled:
        (copy / "src" / "nomercy" / "core" / "_compiled").mkdir()
        (copy / "src" / "nomercy" / "core" / "_compiled" / "build.json").write_text("{}\n")
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environ["NOMERCY_COMPILE"] = "0"
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, 'buildtools'); import nomercy_backend as b; "
            "print(b.build_wheel(sys.argv[1]))",
            str(tmp_path / "dist"),
        ],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
        cwd=copy,
        timeout=300,
    )
    return out.stdout.strip().splitlines()[-1]


def test_a_wheel_with_the_compiled_core_is_tagged_for_its_python(tmp_path: Path) -> None:
    """Extensions make a platform wheel (pip must not install it on another Python); without
    them the wheel stays pure."""
    import sysconfig

    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert _wheel_of_a_copy(tmp_path / "a", compiled=True).endswith(f"-{tag}-{tag}-{platform}.whl")
    assert _wheel_of_a_copy(tmp_path / "b", compiled=False).endswith("-py3-none-any.whl")
