"""What the ``neural`` bot feeds its network, built from a seat's view.

The policy was trained on the PettingZoo environment's ``obs_format="flat"`` vector with
``flat_bounds="rules"`` (docs/rl.md, "Observations"): the view encoded field by field, each
entry divided by its largest magnitude under the rule set in force. The bot builds the same
vector from ``Game.view(seat, history=False)`` with the encoding the environments use
(:mod:`nomercy.encoding`, below both), and names its actions with the same ids. One field is
left out: ``opp_void`` comes from the env's ``PublicTracker``, which follows the event stream
and which a view does not carry, so training zeroes it too (:data:`VIEW_KEEP`).
``tests/rl/test_neural_observation.py`` checks, game moment by game moment, that
:func:`encode_view` equals the env's flat observation times :data:`VIEW_KEEP`.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.core.actions import Action
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView
from nomercy.encoding.actions import MAX_PLAYERS, NUM_ACTIONS, fast_id
from nomercy.encoding.observations import OBS_LAYOUT, OBS_SIZE, ObservationEncoder, flat_scale

__all__ = [
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "VIEW_KEEP",
    "FeatureEncoder",
    "action_id",
    "encode_view",
]

#: 1 for the entries a view determines, 0 for ``opp_void`` (tracked from events, not a view).
VIEW_KEEP: Final[npt.NDArray[np.float32]] = np.ones(OBS_SIZE, dtype=np.float32)
VIEW_KEEP[OBS_LAYOUT["opp_void"]] = 0.0
VIEW_KEEP.setflags(write=False)


def action_id(action: Action, n: int) -> int:
    """The env's id of ``action`` (taken by its own seat) at an ``n``-player table.

    Raises:
        ValueError: an action the table has no id for (a seat offset beyond 5).
    """
    return fast_id(action, n)


class FeatureEncoder:
    """Encodes views of one rule set and table size as the scaled flat vector.

    Args:
        rules: the rule set in force (the view's ``rules``).
        n: seats at the table, 2-6.

    Raises:
        ValueError: ``n`` outside 2-6.
    """

    def __init__(self, rules: RuleSet, n: int) -> None:
        if not 2 <= n <= MAX_PLAYERS:
            raise ValueError(f"the neural bot plays 2-{MAX_PLAYERS} players, not {n}")
        self.n = n
        self._encoder = ObservationEncoder(rules, n)
        self.scale = flat_scale(self._encoder) * VIEW_KEEP

    def encode(self, view: PlayerView) -> npt.NDArray[np.float32]:
        """The scaled observation of ``view`` (``opp_void`` left 0)."""
        return self._encoder.encode(view) * self.scale


def encode_view(view: PlayerView, rules: RuleSet) -> npt.NDArray[np.float32]:
    """:meth:`FeatureEncoder.encode` for a single view (builds the encoder each call)."""
    return FeatureEncoder(rules, len(view.players)).encode(view)
