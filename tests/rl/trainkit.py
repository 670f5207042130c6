"""The training stack for the tests that need it: torch, stable-baselines3 and sb3-contrib
(the ``rl-train`` extra; torch pinned to the CPU build ``torch==2.13.0``).

Where a module is missing its test is skipped, saying what to install. Under ``CI=true`` it
fails instead: ``.ci/run`` installs the extra's pins, so a CI run that lost them must not pass
with the training paths quietly skipped (issue 47).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

INSTALL = "pip install -e '.[dev,rl-train]' (torch==2.13.0: the CPU build, see README)"


def needs(module: str) -> Any:
    """``module`` imported, or the test skipped (failed under ``CI=true``) saying why."""
    __tracebackhide__ = True  # a skip or failure is reported at the test's line
    message = f"{module} is not installed: {INSTALL}"
    if os.environ.get("CI") == "true":
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            pytest.fail(f"{message}; CI installs it (.ci/run): {exc}")
    return pytest.importorskip(module, reason=message)
