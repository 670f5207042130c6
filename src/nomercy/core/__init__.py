"""The pure rules engine: the standard library (and mypy_extensions' ``i64``), no I/O.

The same source runs either as plain Python or compiled by mypyc (``pip install`` with a C
compiler present, or ``python -m nomercy.core.build``, writes the extensions to ``_compiled/``
beside this file). This module
chooses once, when ``nomercy.core`` is first imported: the compiled modules are used when they
were built from exactly the current source for this Python, unless ``NOMERCY_PURE`` is set to
anything but ``""`` or ``"0"``. They keep the modules' own names (``nomercy.core.game``, ...),
so ``Card``, pickles and records are the same either way. :data:`BUILD` and
:data:`BUILD_REASON` say which build runs and why.

A compiled build never loses its speed silently: when one was made (or tried at install) but
cannot run here (built from other source or for another Python, partial, failed at install,
or its extensions refuse to load, e.g. an incompatible ``librt``), the core runs as pure
Python and says so with a :class:`CompiledCoreWarning` at import and in ``nomercy --version``.
``NOMERCY_PURE=1`` chooses the pure build on purpose, without the warning.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import warnings
from importlib.machinery import EXTENSION_SUFFIXES

__all__ = [
    "BUILD",
    "BUILD_REASON",
    "COMPANION_FILES",
    "COMPILED_DIR",
    "CompiledCoreWarning",
    "build_description",
    "compiled_module_files",
    "source_digest",
    "warn_lost_speed",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
#: Where ``python -m nomercy.core.build`` puts the compiled modules and their manifest.
COMPILED_DIR = os.path.join(_HERE, "_compiled")
_MANIFEST = os.path.join(COMPILED_DIR, "build.json")
_INSTALL_ERROR = os.path.join(COMPILED_DIR, "build-error.txt")
# Files of this package that are never compiled: this chooser and the build tool, and three
# modules whose public classes would behave differently compiled: the actions' dataclasses
# accept any value (``Draw("0")`` is an illegal action, not an error), where compiled fields
# refuse a wrong type; the frozen RuleSet and OptionSpec copy and pickle by restoring their
# fields, which a compiled frozen dataclass refuses; a compiled exception loses the extra
# attributes (``IllegalActionError.rule``) when copied or pickled.
_NOT_COMPILED = frozenset({"__init__.py", "actions.py", "build.py", "errors.py", "rules.py"})
#: Modules above the core that the build compiles in the same group, so they read the
#: ``Game``'s fields natively (paths from the ``nomercy`` package): the observation writer the
#: RL environments and ``puct`` run on every step, the search bots' playouts and the
#: simulator's loop for bots that pick by ids (``bots/fastplay.py``). Only the
#: build and this chooser name them; their extensions go to ``_compiled/<package>/`` and their
#: package puts that directory first on its ``__path__`` when the core runs compiled
#: (``nomercy.encoding``, ``nomercy.bots``).
COMPANION_FILES: tuple[str, ...] = ("encoding/fast.py", "bots/playouts.py", "bots/fastplay.py")
_PACKAGE = os.path.dirname(_HERE)


def compiled_module_files() -> list[str]:
    """The core's module files that the compiled build covers, sorted by name."""
    return sorted(
        name for name in os.listdir(_HERE) if name.endswith(".py") and name not in _NOT_COMPILED
    )


def source_digest() -> str:
    """SHA-256 over the names and contents of :func:`compiled_module_files` and
    :data:`COMPANION_FILES`."""
    digest = hashlib.sha256()
    paths = [(name, os.path.join(_HERE, name)) for name in compiled_module_files()]
    paths += [(name, os.path.join(_PACKAGE, name)) for name in COMPANION_FILES]
    for name, path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


class CompiledCoreWarning(RuntimeWarning):
    """A compiled build of the core (or of a companion) exists but cannot run here, so the
    pure-Python one runs instead, about three times slower."""


# The reasons for a pure build that are no loss: chosen on purpose, or never compiled.
_PURE_ON_PURPOSE = "NOMERCY_PURE is set"
_NEVER_COMPILED = "not compiled (python -m nomercy.core.build)"


def _choose() -> tuple[str, str]:
    """Return ``(build, reason)``; ``build`` is ``"compiled"`` or ``"pure"``."""
    if os.environ.get("NOMERCY_PURE", "") not in ("", "0"):
        return "pure", _PURE_ON_PURPOSE
    try:
        with open(_MANIFEST, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except FileNotFoundError:
        try:
            # Left by the install's build backend (buildtools/nomercy_backend.py) when the
            # compilation failed or could not run.
            with open(_INSTALL_ERROR, encoding="utf-8") as handle:
                lines = handle.read().strip().splitlines() or ["no reason given"]
        except OSError:
            return "pure", _NEVER_COMPILED
        more = f" (more in {_INSTALL_ERROR})" if len(lines) > 1 else ""
        return "pure", f"not compiled at install: {lines[0]}{more}"
    except (OSError, ValueError) as exc:
        return "pure", f"unreadable compiled-build manifest {_MANIFEST}: {exc}"
    suffix = EXTENSION_SUFFIXES[0]
    if manifest.get("ext_suffix") != suffix:
        return "pure", (
            f"compiled for another Python ({manifest.get('ext_suffix')!r}, this one needs "
            f"{suffix!r}): rebuild with python -m nomercy.core.build"
        )
    modules = [name[:-3] for name in compiled_module_files()]
    expected = [m + suffix for m in modules] + [name[:-3] + suffix for name in COMPANION_FILES]
    missing = [f for f in expected if not os.path.exists(os.path.join(COMPILED_DIR, f))]
    if (
        missing
        or manifest.get("modules") != modules
        or manifest.get("companions") != list(COMPANION_FILES)
    ):
        return "pure", "the compiled build does not cover every module: rebuild it"
    if manifest.get("source_sha256") != source_digest():
        return "pure", "the source changed since it was compiled: rebuild it"
    librt = manifest.get("librt_version")
    return "compiled", f"mypyc {manifest.get('mypy_version', '?')}" + (
        f", built with librt {librt}" if librt else ""
    )


def _load_compiled() -> str | None:
    """Import every compiled module now; ``None``, or why one refused to load.

    An extension checks what it links against as it loads: a module using ``librt`` refuses
    a ``librt`` whose ABI version differs from the one it was compiled for, or whose API
    version is older (mypyc's ``import_librt_*``); a damaged file does not load at all. Found
    here, at import, the core can still run as pure Python.
    """
    before = set(sys.modules)
    # The extensions carry the modules' real names, so putting their directory first makes
    # ``import nomercy.core.game`` load the compiled one; every module of the core then comes
    # from the same build (the compiled modules call each other natively).
    __path__.insert(0, COMPILED_DIR)
    try:
        for name in compiled_module_files():
            importlib.import_module(f"{__name__}.{name[:-3]}")
    except Exception as exc:  # any failure to load means: not this build
        __path__.remove(COMPILED_DIR)
        # Forget every module this attempt imported, the pure ones too (they may hold the
        # compiled classes): the pure build then imports afresh.
        # Their attributes on this package too: ``from nomercy.core import game`` reads them.
        for module in set(sys.modules) - before:
            if module.startswith(f"{__name__}."):
                del sys.modules[module]
                globals().pop(module.rpartition(".")[2], None)
        return f"{type(exc).__name__}: {exc}"
    return None


def build_description() -> str:
    """One line for ``nomercy --version``: which build runs and why."""
    return f"core: {BUILD} ({BUILD_REASON})"


def warn_lost_speed(what: str, reason: str) -> None:
    """Warn (:class:`CompiledCoreWarning`) that a compiled build runs as pure Python."""
    warnings.warn(
        f"nomercy: {what} runs as pure Python, about 3x slower: {reason} "
        "(set NOMERCY_PURE=1 to choose the pure build without this warning)",
        CompiledCoreWarning,
        stacklevel=3,
    )


BUILD, BUILD_REASON = _choose()
if BUILD == "compiled":
    _failure = _load_compiled()
    if _failure is not None:
        BUILD, BUILD_REASON = "pure", f"the compiled build cannot load: {_failure}"
if BUILD == "pure" and BUILD_REASON not in (_PURE_ON_PURPOSE, _NEVER_COMPILED):
    warn_lost_speed("the rules engine (nomercy.core)", BUILD_REASON)
