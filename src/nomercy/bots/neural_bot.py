"""``neural-ppo``: a policy network trained by masked PPO self-play, run with numpy
(docs/neural.md).

Until the policy-value network's policy beat it (issue 29), this was the ``neural`` bot;
``neural`` now plays that network (:class:`~nomercy.bots.puct_bot.PolicyNetBot`), and
``neural:weights=FILE`` still plays a file of this format (:func:`is_ppo_weights`).

The network is a small MLP (observation → hidden layers → one logit per action id, plus a
value head used only in training) trained with masked PPO by ``python -m
nomercy.rl.train_neural``. At play time the bot encodes its seat's view the way the training
environment did (:mod:`nomercy.bots.neural_features`), runs the MLP with numpy and plays the
legal action with the largest logit (ties: the lowest id). It needs numpy (the ``neural``
extra) and nothing else: the weights ship in the package as ``bots/data/neural.npz``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

try:
    import numpy as np
    import numpy.typing as npt
except ImportError as _exc:  # pragma: no cover - depends on the install
    raise ImportError("the neural bot needs numpy: pip install 'uno-no-mercy[neural]'") from _exc

from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE, FeatureEncoder, action_id
from nomercy.core.actions import Action
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView

__all__ = ["DEFAULT_WEIGHTS", "FORMAT", "NeuralBot", "Policy", "is_ppo_weights", "load_policy"]

#: The weights file format this code reads (bumped when the layout changes).
FORMAT: Final = 1
#: The shipped weights, inside the package.
DEFAULT_WEIGHTS: Final = "data/neural.npz"


class Policy:
    """An MLP with tanh hidden layers, a policy head and a value head, in numpy.

    Args:
        layers: ``[(W, b), ...]``: the hidden layers, then the policy head, then the value
            head; ``W`` has shape (inputs, outputs).
        meta: free-form facts about the training (written into the weights file).

    Raises:
        ValueError: shapes that do not chain, or do not fit the observation and action sizes.
    """

    def __init__(
        self,
        layers: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
        meta: dict[str, Any] | None = None,
    ) -> None:
        if len(layers) < 3:
            raise ValueError("a policy needs at least one hidden layer and two heads")
        *hidden, pi, v = layers
        width = OBS_SIZE
        for w, b in hidden:
            if w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(f"layer shape {w.shape} does not follow width {width}")
            width = w.shape[1]
        if pi[0].shape != (width, NUM_ACTIONS) or v[0].shape != (width, 1):
            raise ValueError("the heads do not fit the hidden width and the action space")
        self.hidden = [(w.astype(np.float32), b.astype(np.float32)) for w, b in hidden]
        self.pi = (pi[0].astype(np.float32), pi[1].astype(np.float32))
        self.v = (v[0].astype(np.float32), v[1].astype(np.float32))
        self.meta = dict(meta or {})

    def _body(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        h = obs
        for w, b in self.hidden:
            h = np.tanh(h @ w + b)
        return h

    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Unmasked logits, shape (..., NUM_ACTIONS)."""
        w, b = self.pi
        return self._body(obs) @ w + b

    def value(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The value head: the expected reward (+1 win, -1 loss), shape (...)."""
        w, b = self.v
        return (self._body(obs) @ w + b)[..., 0]

    def best(self, obs: npt.NDArray[np.float32], ids: list[int]) -> int:
        """Index into ``ids`` of the id with the largest logit (the first on a tie)."""
        logits = self.logits(obs)
        return int(np.argmax(logits[ids]))

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The weights as named arrays (the ``.npz`` layout)."""
        out: dict[str, npt.NDArray[Any]] = {}
        for i, (w, b) in enumerate(self.hidden):
            out[f"h{i}_w"] = w
            out[f"h{i}_b"] = b
        out["pi_w"], out["pi_b"] = self.pi
        out["v_w"], out["v_b"] = self.v
        out["meta"] = np.array(json.dumps({"format": FORMAT, **self.meta}))
        return out

    def save(self, path: Path) -> None:
        """Write the weights to ``path`` (a compressed ``.npz``)."""
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **self.arrays())  # type: ignore[arg-type]


def _from_npz(data: Any, where: str) -> Policy:
    try:
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{where}: weights format {meta.get('format')!r}, expected {FORMAT}")
        layers = []
        i = 0
        while f"h{i}_w" in data:
            layers.append((data[f"h{i}_w"], data[f"h{i}_b"]))
            i += 1
        layers.append((data["pi_w"], data["pi_b"]))
        layers.append((data["v_w"], data["v_b"]))
    except KeyError as exc:
        raise ValueError(f"{where}: not a neural-bot weights file (missing {exc})") from exc
    return Policy(layers, meta)


def load_policy(path: str | Path | None = None) -> Policy:
    """Load weights from ``path``, or the shipped ones when ``None`` (cached).

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: the file is not a weights file of this format.
    """
    if path is None:
        return _shipped()
    with np.load(Path(path), allow_pickle=False) as data:
        return _from_npz(data, str(path))


def is_ppo_weights(path: str | Path) -> bool:
    """Whether ``path`` holds this format's weights (a masked-PPO policy, one value output),
    not the policy-value network's (:mod:`nomercy.bots.pvnet`: a value per seat). Both
    formats name their arrays alike; the value head's width tells them apart.

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: not a weights file of either kind.
    """
    neither = f"{path}: not a weights file (neither a policy-value network nor a PPO policy)"
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            width = data["v_w"].shape[-1]
    except FileNotFoundError:
        raise
    except (KeyError, OSError, ValueError, AttributeError, TypeError) as exc:
        raise ValueError(neither) from exc
    return bool(width == 1)


@cache
def _shipped() -> Policy:
    ref = resources.files("nomercy.bots").joinpath(DEFAULT_WEIGHTS)
    with ref.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
        return _from_npz(data, f"nomercy/bots/{DEFAULT_WEIGHTS}")


class NeuralBot:
    """Plays the legal action the trained policy rates highest (module docstring).

    Args:
        seed: kept for the bot protocol; the choice is deterministic (argmax).
        weights: a weights file, or a :class:`Policy` already loaded; ``None`` (default)
            loads the shipped ``neural.npz``.
    """

    name = "neural-ppo"
    #: The encoder reads the view without its event history.
    view_mode = "no_history"

    def __init__(self, seed: int = 0, weights: str | Path | Policy | None = None) -> None:
        self.seed = seed
        self.policy = weights if isinstance(weights, Policy) else load_policy(weights)
        self._encoders: dict[tuple[RuleSet, int], FeatureEncoder] = {}

    def __repr__(self) -> str:
        return f"NeuralBot(seed={self.seed})"

    def _encoder(self, view: PlayerView) -> FeatureEncoder:
        key = (view.rules, len(view.players))
        found = self._encoders.get(key)
        if found is None:
            found = self._encoders[key] = FeatureEncoder(*key)
        return found

    def observe(self, view: PlayerView) -> npt.NDArray[np.float32]:
        """The network's input for ``view`` (the env's flat observation, ``opp_void`` 0)."""
        return self._encoder(view).encode(view)

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """The element of ``legal`` with the largest logit."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        if len(legal) == 1:
            return legal[0]
        n = len(view.players)
        ids = [action_id(a, n) for a in legal]
        # Equal ids cannot occur (one id per action), but order the tie-break by id so the
        # choice does not depend on the order of the legal list.
        order = sorted(range(len(ids)), key=ids.__getitem__)
        pick = self.policy.best(self.observe(view), [ids[i] for i in order])
        return legal[order[pick]]
