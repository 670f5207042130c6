"""The policy-value network of the ``puct`` bot, run with numpy (docs/puct.md).

An MLP over the ``neural`` bot's input (:mod:`nomercy.bots.neural_features`: the seat's
view encoded as the environments' flat vector, ``opp_void`` left 0) with ReLU hidden layers
and two heads:

- **policy**: one logit per action id (:mod:`nomercy.core.ids`, the seat's own ids), trained
  on the visit counts of ``ismcts``'s searches; only the ids a search considers get mass
  (:meth:`ISMCTSBot.search_candidates <nomercy.bots.ismcts_bot.ISMCTSBot.search_candidates>`:
  one way to play each card);
- **value**: one logit per seat, counted from the seat whose view it reads (0 = that seat, 1
  = the next, ...), softmaxed over the table's seats: the chance that each wins the hand.

It needs numpy only; torch trains it (:mod:`nomercy.rl.train_puct`). The weights ship as
``bots/data/puct.npz``.
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

try:
    import numpy as np
    import numpy.typing as npt
except ImportError as _exc:  # pragma: no cover - depends on the install
    raise ImportError("the puct bot needs numpy: pip install 'uno-no-mercy[neural]'") from _exc

from nomercy.bots.neural_features import MAX_PLAYERS, NUM_ACTIONS, OBS_SIZE

__all__ = ["DEFAULT_WEIGHTS", "FORMAT", "PVNet", "load_pvnet"]

#: The weights file format this code reads.
FORMAT: Final = 1
#: The shipped weights, inside the package.
DEFAULT_WEIGHTS: Final = "data/puct.npz"

_Array = npt.NDArray[np.float32]


class PVNet:
    """The network (module docstring) with its weights.

    Args:
        hidden: ``[(W, b), ...]`` of the hidden layers, ``W`` of shape (inputs, outputs).
        policy, value: the heads' ``(W, b)``: (width, NUM_ACTIONS) and (width, MAX_PLAYERS).
        meta: facts about the training, written into the weights file.

    Raises:
        ValueError: shapes that do not chain or do not fit the input and the heads.
    """

    def __init__(
        self,
        hidden: list[tuple[_Array, _Array]],
        policy: tuple[_Array, _Array],
        value: tuple[_Array, _Array],
        meta: dict[str, Any] | None = None,
    ) -> None:
        if not hidden:
            raise ValueError("a network needs at least one hidden layer")
        width = OBS_SIZE
        for w, b in hidden:
            if w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(f"layer shape {w.shape} does not follow width {width}")
            width = w.shape[1]
        if policy[0].shape != (width, NUM_ACTIONS) or value[0].shape != (width, MAX_PLAYERS):
            raise ValueError("the heads do not fit the hidden width, actions and seats")
        self.hidden = [
            (np.ascontiguousarray(w, np.float32), b.astype(np.float32)) for w, b in hidden
        ]
        # The policy head by rows (one per id): a search reads the logits of a few ids only.
        self.policy_rows = np.ascontiguousarray(policy[0].T, np.float32)
        self.policy_bias = policy[1].astype(np.float32)
        self.value = (np.ascontiguousarray(value[0], np.float32), value[1].astype(np.float32))
        self.meta = dict(meta or {})
        # One position at a time (a search's leaves): both heads as one matrix of rows (one
        # per id, then one per seat), of which a leaf multiplies only the rows it reads (a
        # few ids and the table's seats); the first layer is read row by row for the inputs
        # that are not 0 (an observation is mostly zeros).
        self._head_rows = np.ascontiguousarray(
            np.concatenate([policy[0], value[0]], axis=1).T, np.float32
        )
        self._head_bias = np.concatenate([self.policy_bias, self.value[1]]).tolist()
        self._seat_rows = [
            list(range(NUM_ACTIONS, NUM_ACTIONS + n)) for n in range(MAX_PLAYERS + 1)
        ]

    def body(self, obs: _Array) -> _Array:
        """The last hidden layer's output for ``obs`` (shape (..., OBS_SIZE))."""
        h = obs
        for w, b in self.hidden:
            h = h @ w
            h += b
            np.maximum(h, 0.0, out=h)
        return h

    def logits(self, obs: _Array) -> _Array:
        """Every id's policy logit, shape (..., NUM_ACTIONS)."""
        return self.body(obs) @ self.policy_rows.T + self.policy_bias

    def win_chances(self, h: _Array, n: int) -> _Array:
        """Each seat's chance to win, counted from the observing seat, for a table of ``n``."""
        w, b = self.value
        z = (h @ w + b)[..., :n]
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        return z / z.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]

    def evaluate(self, obs: _Array, ids: list[int], n: int) -> tuple[list[float], list[float]]:
        """One position: the softmax of ``ids``' policy logits, and each of the ``n`` seats'
        chance to win counted from the observing seat (:meth:`win_chances`)."""
        (w1, b1), *rest = self.hidden
        nz = obs.nonzero()[0]  # one dimension: flatnonzero without its two wrapper calls
        h = obs[nz] @ w1[nz]
        h += b1
        np.maximum(h, 0.0, out=h)
        for w, b in rest:
            h = h @ w
            h += b
            np.maximum(h, 0.0, out=h)
        rows = ids + self._seat_rows[n]
        bias = self._head_bias
        z = (self._head_rows.take(rows, axis=0) @ h).tolist()
        k = len(ids)
        logits = [z[i] + bias[r] for i, r in enumerate(ids)]
        top = max(logits)
        exp = math.exp
        p = [exp(x - top) for x in logits]
        total = sum(p)
        values = [z[k + s] + bias[NUM_ACTIONS + s] for s in range(n)]
        top = max(values)
        chances = [exp(x - top) for x in values]
        mass = sum(chances)
        return [x / total for x in p], [x / mass for x in chances]

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The weights as named arrays (the ``.npz`` layout)."""
        out: dict[str, npt.NDArray[Any]] = {}
        for i, (w, b) in enumerate(self.hidden):
            out[f"h{i}_w"], out[f"h{i}_b"] = w, b
        out["pi_w"], out["pi_b"] = self.policy_rows.T, self.policy_bias
        out["v_w"], out["v_b"] = self.value
        out["meta"] = np.array(json.dumps({"format": FORMAT, **self.meta}))
        return out

    def save(self, path: Path) -> None:
        """Write the weights to ``path`` (a compressed ``.npz``)."""
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **self.arrays())  # type: ignore[arg-type]


def _from_npz(data: Any, where: str) -> PVNet:
    try:
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{where}: weights format {meta.get('format')!r}, expected {FORMAT}")
        hidden = []
        i = 0
        while f"h{i}_w" in data:
            hidden.append((data[f"h{i}_w"], data[f"h{i}_b"]))
            i += 1
        return PVNet(hidden, (data["pi_w"], data["pi_b"]), (data["v_w"], data["v_b"]), meta)
    except KeyError as exc:
        raise ValueError(f"{where}: not a puct weights file (missing {exc})") from exc


def load_pvnet(path: str | Path | None = None) -> PVNet:
    """Load weights from ``path``, or the shipped ones when ``None`` (cached).

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: the file is not a weights file of this format.
    """
    if path is None:
        return _shipped()
    with np.load(Path(path), allow_pickle=False) as data:
        return _from_npz(data, str(path))


@cache
def _shipped() -> PVNet:
    ref = resources.files("nomercy.bots").joinpath(DEFAULT_WEIGHTS)
    with ref.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
        return _from_npz(data, f"nomercy/bots/{DEFAULT_WEIGHTS}")
