"""Seeds derived from one master seed: :mod:`nomercy.core.seeds`, under its arena name.

The tournaments and simulations of the arena were its first users; the derivation lives in the
core so that every layer (the RL self-play data too) derives seeds the same way.
"""

from __future__ import annotations

from nomercy.core.seeds import bot_seed, bot_seeds, derive_seed, game_seed

__all__ = ["bot_seed", "bot_seeds", "derive_seed", "game_seed"]
