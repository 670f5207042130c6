"""The ``nomercy`` command line (argparse, standard library only)."""

from __future__ import annotations

from nomercy.cli.main import main

__all__ = ["main"]
