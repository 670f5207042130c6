"""Observation vectors: :mod:`nomercy.encoding.observations`, re-exported here.

The layout and encoder live in :mod:`nomercy.encoding`, below both the environments and the
``neural`` bot; this module keeps their public names importable from
``nomercy.rl.observations``.
"""

from __future__ import annotations

from nomercy.encoding.observations import (
    CARD_KINDS,
    OBS_FIELDS,
    OBS_LAYOUT,
    OBS_SIZE,
    ObservationEncoder,
    PublicTracker,
)

__all__ = [
    "CARD_KINDS",
    "OBS_FIELDS",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "ObservationEncoder",
    "PublicTracker",
]
