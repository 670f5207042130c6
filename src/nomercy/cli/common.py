"""What every ``nomercy`` subcommand module shares: the program name, exit codes, the usage
error and the rule arguments. ``main``, ``arena`` and ``analyse`` import it; none of them
imports another's private names."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nomercy.core.dealing import DEAL_VERSION, DEAL_VERSIONS
from nomercy.core.errors import NoMercyError
from nomercy.core.rules import PRESETS, parse_option_value

__all__ = [
    "EXIT_FAILURE",
    "EXIT_USAGE",
    "PROG",
    "UsageError",
    "add_deal_version_argument",
    "add_rules_arguments",
    "check_writable",
    "parse_options",
]

PROG = "nomercy"
EXIT_USAGE = 2
EXIT_FAILURE = 1


class UsageError(Exception):
    """A user error: reported on one line, exit status 2."""


def install_hint(extra: str) -> str:
    """How to install an extra: from a checkout of the repository, since the package is not
    on PyPI.

    >>> install_hint("tui")
    "pip install '.[tui]' in a checkout of the repository (the package is not on PyPI)"
    """
    return f"pip install '.[{extra}]' in a checkout of the repository (the package is not on PyPI)"


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """--preset and --option, shared by the commands that start a game."""
    parser.add_argument(
        "--preset", choices=PRESETS, default=PRESETS[0], help="rule set (default: %(default)s)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a rule option (repeatable); see `nomercy rules`",
    )


def add_deal_version_argument(parser: argparse.ArgumentParser) -> None:
    """--deal-version, for the commands that deal a game from --seed (docs/notation.md)."""
    parser.add_argument(
        "--deal-version",
        type=int,
        choices=DEAL_VERSIONS,
        default=DEAL_VERSION,
        metavar="V",
        help=(
            "the shuffles' generator: 1 (random.Random) or 2 (xoshiro128++, cheaper); "
            "a seed deals another game under each, and records name it (default: %(default)s)"
        ),
    )


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` items as option values (a UsageError names a bad one)."""
    options: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--option needs NAME=VALUE, got {item!r}")
        if name in options:
            raise UsageError(f"--option {name} is given twice")
        try:
            options[name] = parse_option_value(name, text.strip())
        except NoMercyError as exc:
            raise UsageError(str(exc)) from None
    return options


def check_writable(*paths: str | None) -> None:
    """Fail before a long run or a whole game, not after it, when an output file cannot be
    created."""
    for path in paths:
        if path is None:
            continue
        parent = Path(path).parent
        if not parent.is_dir():
            raise UsageError(f"cannot write {path}: no directory {str(parent)!r}")
        if Path(path).is_dir():
            raise UsageError(f"cannot write {path}: it is a directory")
