"""Compile the rules engine with mypyc: ``python -m nomercy.core.build``.

The pure-Python core always works. Compiled by mypyc (which ships with mypy) into C
extensions, the same source runs faster, and ``nomercy.core`` then loads the compiled modules
by itself (see :mod:`nomercy.core`; ``NOMERCY_PURE=1`` keeps the pure ones). The build copies
the core's modules to a temporary directory, compiles them there as one group (so they call
each other natively) and puts the extensions in ``nomercy/core/_compiled/`` with a manifest
holding the SHA-256 of the source they came from: edit the core and the stale build is
ignored until you rebuild. The modules of ``nomercy.core.COMPANION_FILES`` (the observation
writer ``nomercy/encoding/fast.py``) are compiled in the same group and go to
``_compiled/<package>/``.

``pip install`` runs this already when a C compiler is present (the package's build backend,
``buildtools/nomercy_backend.py``); run it by hand after editing the core, or to retry.
Needs a C compiler, the Python headers, ``mypy`` and ``setuptools`` (all in the ``dev``
extra; without dev: ``pip install -e '.[fast]'``). Only the package directory must be
writable. Standard library only here: mypyc runs in a child process.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.metadata import version
from pathlib import Path

from nomercy.core import COMPANION_FILES, COMPILED_DIR, compiled_module_files, source_digest

__all__ = ["build", "main"]

_CORE_DIR = Path(__file__).resolve().parent
_PACKAGE_DIR = _CORE_DIR.parent
# The shared library of the group is the module ``nomercy.core._compiled__mypyc``.
_GROUP = "nomercy.core._compiled"

_SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="nomercy-core-compiled",
    ext_modules=mypycify({paths!r}, group_name={group!r}, opt_level="3"),
    script_args=["build_ext", "--inplace"],
)
"""


def _vecs_versions() -> list[int] | None:
    """``[ABI, API]`` versions of ``librt.vecs`` in the header mypyc compiles against (None
    if this mypyc lays its files out otherwise)."""
    spec = importlib.util.find_spec("mypyc")
    if spec is None or not spec.submodule_search_locations:
        return None
    header = Path(spec.submodule_search_locations[0], "lib-rt", "vecs", "librt_vecs.h")
    try:
        text = header.read_text(encoding="utf-8")
    except OSError:
        return None
    found = dict(re.findall(r"#define LIBRT_VECS_(ABI|API)_VERSION (\d+)", text))
    return [int(found["ABI"]), int(found["API"])] if len(found) == 2 else None


def build(*, quiet: bool = False) -> list[Path]:
    """Compile the core; returns the files written to ``nomercy/core/_compiled/``.

    Raises:
        RuntimeError: mypyc or setuptools is missing, or the compilation failed (with its
            output).
    """
    for module in ("mypyc", "setuptools"):
        if importlib.util.find_spec(module) is None:
            raise RuntimeError(
                f"{module} is not installed: pip install 'mypy>=1.10' 'setuptools>=68' "
                "(in the dev extra, or pip install -e '.[fast]')"
            )
    files = compiled_module_files()
    digest = source_digest()
    suffix = EXTENSION_SUFFIXES[0]
    out = Path(COMPILED_DIR)
    with tempfile.TemporaryDirectory(prefix="nomercy-core-") as tmp:
        root = Path(tmp)
        package = root / "nomercy" / "core"
        package.mkdir(parents=True)
        # An empty nomercy/__init__.py and core/__init__.py: only the modules are compiled,
        # and the chooser in the real __init__ must not run inside the build.
        (root / "nomercy" / "__init__.py").write_text("", encoding="utf-8")
        (package / "__init__.py").write_text("", encoding="utf-8")
        # Every module goes into the copy, the pure-Python ones too (uncompiled), so mypy finds
        # what the compiled ones import there, whatever sys.path the build runs with (pip's
        # build environment drops an earlier editable install's src from it).
        for source in _CORE_DIR.glob("*.py"):
            if source.name not in ("__init__.py", "build.py"):
                shutil.copy2(source, package / source.name)
        # The companions' packages likewise, with empty __init__ files (theirs import the
        # chooser, which must not run inside the build).
        for companion in {Path(name).parent for name in COMPANION_FILES}:
            target = root / "nomercy" / companion
            target.mkdir(parents=True, exist_ok=True)
            for source in (_PACKAGE_DIR / companion).glob("*.py"):
                if source.name != "__init__.py":
                    shutil.copy2(source, target / source.name)
            (target / "__init__.py").write_text("", encoding="utf-8")
        paths = [f"nomercy/core/{name}" for name in files]
        paths += [f"nomercy/{name}" for name in COMPANION_FILES]
        (root / "setup.py").write_text(_SETUP.format(paths=paths, group=_GROUP), encoding="utf-8")
        # No pyproject.toml in the copy: the repository's [tool.mypy] files setting would
        # make mypyc check the whole tree and build nothing. The companions import numpy,
        # which pip's isolated build environment lacks: without it numpy's names are Any
        # (they are not on the hot paths) and the build still compiles.
        (root / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n", encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "setup.py"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"mypyc failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
        # Extensions by their path under _compiled/: the core's at the top, a companion's
        # in its package's directory (encoding/fast.so).
        built = {p.name: p for p in package.iterdir() if p.name.endswith(suffix)}
        for name in COMPANION_FILES:
            ext = root / "nomercy" / (name[:-3] + suffix)
            if ext.exists():
                built[name[:-3] + suffix] = ext
        expected = {name[:-3] + suffix for name in files} | {"_compiled__mypyc" + suffix}
        expected |= {name[:-3] + suffix for name in COMPANION_FILES}
        if set(built) != expected:
            raise RuntimeError(f"mypyc built {sorted(built)}, expected {sorted(expected)}")
        out.mkdir(exist_ok=True)
        manifest = out / "build.json"
        # The manifest goes first and comes back last: a half-copied build is never chosen.
        manifest.unlink(missing_ok=True)
        for old in out.rglob("*"):
            relative = old.relative_to(out).as_posix()
            if old.name.endswith(tuple(EXTENSION_SUFFIXES)) and relative not in expected:
                old.unlink()
        written = []
        for relative, ext in sorted(built.items()):
            target = out / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            # Copy, then rename over the old file: a process that has the old build loaded
            # keeps its mapping (writing into a loaded library crashes it).
            partial = target.with_name(target.name + ".partial")
            shutil.copy2(ext, partial)
            os.replace(partial, target)
            written.append(target)
        partial = manifest.with_name("build.json.partial")
        partial.write_text(
            json.dumps(
                {
                    "source_sha256": digest,
                    "ext_suffix": suffix,
                    "modules": [name[:-3] for name in files],
                    "companions": list(COMPANION_FILES),
                    "mypy_version": version("mypy"),
                    # The companions use librt.vecs, mypyc's runtime library. Their
                    # extensions load with any librt whose vecs ABI version equals, and
                    # whose API version is at least, those of mypyc's header they were
                    # compiled with (recorded here); the librt installed at build time is
                    # for the record.
                    "librt_version": version("librt"),
                    "librt_vecs_abi_api": _vecs_versions(),
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )
        os.replace(partial, manifest)
        written.append(manifest)
        # A failure recorded by an earlier install no longer applies.
        (out / "build-error.txt").unlink(missing_ok=True)
    if not quiet:
        print(f"compiled {len(files) + len(COMPANION_FILES)} modules with mypyc")
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: build, then check in a fresh interpreter that the core uses the build."""
    parser = argparse.ArgumentParser(
        prog="python -m nomercy.core.build",
        description=(
            "Compile the rules engine (nomercy.core) with mypyc. Afterwards nomercy.core "
            "loads the compiled modules unless NOMERCY_PURE=1 is set; `nomercy --version` "
            "says which build runs."
        ),
    )
    parser.add_argument("--quiet", action="store_true", help="print only errors")
    args = parser.parse_args(argv)
    try:
        written = build(quiet=args.quiet)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    # A fresh interpreter (this one has imported the pure modules), without NOMERCY_PURE.
    env = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            # This source tree first (pip's build environment may have dropped it from
            # sys.path); then the check imports exactly what was just built.
            f"import sys; sys.path.insert(0, {str(_CORE_DIR.parents[1])!r}); "
            "import nomercy.core as c, nomercy.core.game as g; "
            "print(c.BUILD, g.__file__, c.BUILD_REASON)",
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if not check.stdout.startswith("compiled ") or not check.stdout.split()[1].startswith(
        COMPILED_DIR
    ):
        print(f"error: the build is not picked up:\n{check.stdout}{check.stderr}", file=sys.stderr)
        return 1
    if not args.quiet:
        for path in written:
            print(f"wrote {path}")
        print("nomercy.core now runs compiled (NOMERCY_PURE=1 selects the pure-Python modules)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
