"""The package's PEP 517 build backend: setuptools, plus the mypyc-compiled rules engine.

``pip install -e .`` and ``pip install .`` build through setuptools as before. Before that,
when a C compiler and the Python headers are present, this compiles ``nomercy.core`` with mypyc
(``python -m nomercy.core.build``, with mypy added to the isolated build environment) into
``src/nomercy/core/_compiled/``, which ``nomercy.core`` then loads (``NOMERCY_PURE=1`` still
selects the pure-Python modules). The environment variable ``NOMERCY_COMPILE`` decides:

- unset or ``auto``: compile when a compiler is found; if it fails, install pure Python and
  keep the reason in ``src/nomercy/core/_compiled/build-error.txt`` (``nomercy --version``
  reports it; pip shows a build's output only with ``-v``);
- ``0``: do not compile (pure Python);
- ``1``: compile, and fail the install if that fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (every hook not defined below)
from setuptools.dist import Distribution

_ROOT = Path(__file__).resolve().parents[1]
_SRC = _ROOT / "src"
_COMPILED = _SRC / "nomercy" / "core" / "_compiled"
_ERROR_FILE = _COMPILED / "build-error.txt"
# The mypy whose mypyc compiles the wheel's core: pinned, so every wheel is built against the
# same librt.vecs header (ABI 1, API 1: it loads with librt 0.11 and later, see pyproject.toml).
_MYPY = "mypy>=2.4.1,<2.5"


def _mode() -> str:
    mode = os.environ.get("NOMERCY_COMPILE", "auto").strip().lower() or "auto"
    if mode not in ("auto", "0", "1"):
        raise ValueError(f"NOMERCY_COMPILE must be auto, 0 or 1, not {mode!r}")
    return mode


def _missing_tools() -> str | None:
    """Why no C extension can be built here, or None when a compiler and headers exist."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler!r} is not on PATH)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no Python headers ({headers} is missing; e.g. Debian's python3-dev)"
    return None


def _wants_compiler() -> bool:
    mode = _mode()
    return mode == "1" or (mode == "auto" and _missing_tools() is None)


def _compile() -> None:
    mode = _mode()
    if mode == "0":
        _ERROR_FILE.unlink(missing_ok=True)
        return
    reason = _missing_tools()
    if reason is None:
        env = dict(os.environ)
        env.pop("NOMERCY_PURE", None)
        # src goes first on sys.path from inside the child: pip's build environment drops
        # from sys.path every entry the venv's .pth files add, an earlier editable install's
        # src included, so PYTHONPATH alone would lose it on a reinstall. mypy comes from the
        # build environment's own path, which stays.
        start = (
            f"import runpy, sys; sys.path.insert(0, {str(_SRC)!r}); "
            "runpy.run_module('nomercy.core.build', run_name='__main__', alter_sys=True)"
        )
        proc = subprocess.run(
            [sys.executable, "-c", start, "--quiet"],
            cwd=_ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode == 0:
            print("nomercy: compiled the rules engine with mypyc", file=sys.stderr)
            return
        reason = (proc.stderr or proc.stdout).strip() or f"exit status {proc.returncode}"
    if mode == "1":
        raise RuntimeError(f"NOMERCY_COMPILE=1, but the rules engine did not compile: {reason}")
    _COMPILED.mkdir(parents=True, exist_ok=True)
    _ERROR_FILE.write_text(reason + "\n", encoding="utf-8")
    print(f"nomercy: installing the pure-Python rules engine: {reason}", file=sys.stderr)


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    extra = [_MYPY] if _wants_compiler() else []
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    extra = [_MYPY] if _wants_compiler() else []
    return [*_setuptools.get_requires_for_build_editable(config_settings), *extra]


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    _compile()
    if not (_COMPILED / "build.json").exists():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    # The compiled core's extensions are package data to setuptools, which would tag the wheel
    # py3-none-any and let pip install it on any Python: a distribution with extension
    # modules gets this interpreter's and platform's tag (cp311-cp311-linux_x86_64).
    original = Distribution.has_ext_modules
    Distribution.has_ext_modules = lambda self: True  # type: ignore[method-assign]
    try:
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    finally:
        Distribution.has_ext_modules = original  # type: ignore[method-assign]


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    _compile()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
