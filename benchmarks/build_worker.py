"""A child process running one build of ``nomercy.core``, for benchmarks that time both.

A process loads one build (``NOMERCY_PURE`` decides), so ``--builds both`` runs each side in
a child started with or without it. The child prints one JSON line about itself (``build``,
``description``, anything else), then answers each line it reads with one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any


def start_worker(build: str, argv: list[str]) -> tuple[Callable[[str], Any], dict[str, Any]]:
    """Start ``python ARGV`` on ``build`` ("pure" or "compiled"); return (ask, its info).

    ``ask(line)`` sends one request line and returns the parsed reply.

    Raises:
        RuntimeError: that build is not available, or the child exited.
    """
    env = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
    if build == "pure":
        env["NOMERCY_PURE"] = "1"
    proc = subprocess.Popen(
        [sys.executable, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    info: dict[str, Any] = json.loads(stdout.readline())
    if info["build"] != build:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"the {build} core is not available: {info['description']}")

    def ask(request: str) -> Any:
        stdin.write(request + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the {build} worker exited ({proc.wait()})")
        return json.loads(line)

    return ask, info
