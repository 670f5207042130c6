"""Compile the RL kernel with mypyc: ``python -m nomercy.rl.build_kernel``.

:mod:`nomercy.rl.kernel` is plain Python and always works. Compiled by mypyc (which ships
with mypy) into a C extension, the same source runs about twice as fast; the environments
then use it automatically (``raw_env(...).kernel_build == "mypyc"``). The build copies
``kernel.py`` to ``_kernel_mypyc.py`` with the source's SHA-256 appended, compiles the copy
in a temporary directory and puts the extension next to ``kernel.py``. At import time
:func:`nomercy.rl.kernel.kernel_class` uses the extension only if that digest matches the
current ``kernel.py``: edit the kernel and the stale build is ignored (with a warning) until
you rebuild.

Needs a C compiler, the Python headers, ``mypy`` and ``setuptools`` (the ``fast`` extra:
``pip install -e '.[rl,fast]'``). Only the package directory must be writable.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from nomercy.rl.kernel import COMPILED_MODULE, source_digest

__all__ = ["build", "main"]

_PACKAGE_DIR = Path(__file__).resolve().parent


def build(*, quiet: bool = False) -> list[Path]:
    """Compile the kernel; returns the extension files written next to ``kernel.py``.

    Raises:
        RuntimeError: mypyc is missing or the compilation failed (its output is included).
    """
    try:
        import mypyc  # noqa: F401 (only checks that it is there)
    except ImportError as exc:
        raise RuntimeError(
            "mypyc is not installed: pip install 'mypy>=1.10' setuptools "
            "(or the fast extra: pip install -e '.[rl,fast]')"
        ) from exc
    source = _PACKAGE_DIR / "kernel.py"
    name = COMPILED_MODULE.rsplit(".", 1)[1]
    with tempfile.TemporaryDirectory(prefix="nomercy-kernel-") as tmp:
        root = Path(tmp)
        # A copy of the whole package, so mypyc type-checks the kernel against the same core.
        shutil.copytree(
            _PACKAGE_DIR.parent,
            root / "nomercy",
            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"),
        )
        text = source.read_text(encoding="utf-8")
        (root / "nomercy" / "rl" / f"{name}.py").write_text(
            text + f'\n\nSOURCE_SHA256: Final = "{source_digest()}"\n', encoding="utf-8"
        )
        proc = subprocess.run(
            [sys.executable, "-m", "mypyc", f"nomercy/rl/{name}.py"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"mypyc failed:\n{proc.stdout}\n{proc.stderr}")
        if not quiet:
            print(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "compiled")
        written = []
        for ext in sorted((root / "nomercy" / "rl").glob(f"{name}*")):
            if ext.suffix in (".so", ".pyd"):
                target = _PACKAGE_DIR / ext.name
                # Copy, then rename over the old file: a process that has the old build
                # loaded keeps its mapping (writing into a loaded library crashes it).
                partial = target.with_name(target.name + ".partial")
                shutil.copy2(ext, partial)
                os.replace(partial, target)
                written.append(target)
    if not written:
        raise RuntimeError("mypyc produced no extension module")
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: build, then check that the environments will use the build."""
    parser = argparse.ArgumentParser(
        prog="python -m nomercy.rl.build_kernel",
        description="Compile nomercy.rl.kernel with mypyc for faster RL environments.",
    )
    parser.add_argument("--quiet", action="store_true", help="print only errors")
    args = parser.parse_args(argv)
    try:
        written = build(quiet=args.quiet)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    # A fresh interpreter: this one has already imported the pure-Python kernel.
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "from nomercy.rl.kernel import kernel_class; print(kernel_class().__module__)",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if check.stdout.strip() != COMPILED_MODULE:
        print(f"error: the build is not picked up:\n{check.stdout}{check.stderr}", file=sys.stderr)
        return 1
    if not args.quiet:
        for path in written:
            print(f"wrote {path}")
        print(f"the RL environments now use {COMPILED_MODULE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
