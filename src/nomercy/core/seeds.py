"""Seeds derived from one master seed, so that a game's seeds depend on its index only.

Every game of a tournament or a simulation gets its shuffle seed and its bots' seeds from
``derive_seed(master, kind, index, ...)``: a hash of the master seed and the game's index
(BLAKE2b, so the value is the same in every process and on every machine, unlike ``hash()``).
A game therefore plays the same whichever worker runs it and in whatever order, which is what
makes ``--jobs 1``, ``--jobs 8`` and a Ray cluster give identical results.
"""

from __future__ import annotations

import hashlib

__all__ = ["bot_seed", "bot_seeds", "derive_seed", "game_seed"]

_BITS = (1 << 63) - 1


def derive_seed(master: int, kind: str, *path: int) -> int:
    """A non-negative 63-bit seed for ``kind`` at ``path`` (e.g. game index, seat).

    >>> derive_seed(7, "game", 0) == derive_seed(7, "game", 0)
    True
    >>> derive_seed(7, "game", 0) != derive_seed(7, "game", 1)
    True
    """
    text = ":".join([str(master), kind, *(str(p) for p in path)])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & _BITS


def game_seed(master: int, index: int) -> int:
    """The shuffle seed of game ``index``."""
    return derive_seed(master, "game", index)


def bot_seed(master: int, index: int, seat: int) -> int:
    """The seed of the bot in ``seat`` of game ``index``."""
    return derive_seed(master, "bot", index, seat)


def bot_seeds(master: int, index: int, seats: int) -> list[int]:
    """``[bot_seed(master, index, s) for s in range(seats)]``, with the text built once.

    >>> bot_seeds(7, 3, 2) == [bot_seed(7, 3, 0), bot_seed(7, 3, 1)]
    True
    """
    prefix = f"{master}:bot:{index}:"
    blake2b = hashlib.blake2b
    return [
        int.from_bytes(blake2b(f"{prefix}{s}".encode(), digest_size=8).digest(), "big") & _BITS
        for s in range(seats)
    ]
