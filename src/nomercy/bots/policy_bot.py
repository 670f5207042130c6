"""Trained policies as bots: ``policy:MODULE:ATTR`` in tournaments (docs/rl.md).

:func:`as_policy` turns what RL users train into one callable ``(obs, mask) -> id``: a
function as it is, a Stable-Baselines3 model or policy (PPO, MaskablePPO, ...), or a torch
module returning one logit per action id. :class:`PolicyBot` plays such a policy from a seat's
view, encoding it as the RL environments do (:mod:`nomercy.encoding`); ``nomercy tournament
--bots policy:mypkg.agents:model,heuristic`` loads ``model`` from ``mypkg.agents``.

Torch and SB3 are never imported here: an object is recognised by what it has (``predict``,
``policy`` and ``learn``; ``get_distribution``), and torch is imported only once such an
object arrives. Gymnasium is not imported either.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from nomercy.core.actions import Action
from nomercy.core.events import Event
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView
from nomercy.encoding.actions import NUM_ACTIONS, fast_ids
from nomercy.encoding.observations import (
    FLAT_BOUNDS,
    ObservationEncoder,
    PublicTracker,
    flat_scale,
)

__all__ = ["Policy", "PolicyBot", "PolicyFn", "as_policy", "load_target"]

Obs = Any  # the env's observation: the flat vector or {"observation": ..., "action_mask": ...}


@runtime_checkable
class Policy(Protocol):
    """Anything that picks a legal id: ``policy(obs, mask) -> id`` (``mask[id] == 1``)."""

    def __call__(self, obs: Obs, mask: npt.NDArray[np.int8]) -> int: ...


class PolicyFn:
    """A policy wrapped by :func:`as_policy`: call it as ``policy(obs, mask) -> id``.

    Attributes:
        obs_format: the observation format the policy was built for (``"flat"`` or
            ``"dict"``); :func:`evaluate` and :class:`~nomercy.rl.SelfPlayEnv` give it that.
        name: a label for reports.
        flat_bounds: the ``"flat"`` scaling it was trained with (``"fixed"`` or ``"rules"``):
            :func:`evaluate`, :class:`~nomercy.rl.SelfPlayEnv` and :class:`PolicyBot` scale
            its flat observations so.
    """

    def __init__(
        self,
        fn: Callable[[Obs, npt.NDArray[np.int8]], int],
        obs_format: str,
        name: str,
        flat_bounds: str = "fixed",
    ) -> None:
        if flat_bounds not in FLAT_BOUNDS:
            raise ValueError(f"flat_bounds must be 'fixed' or 'rules', not {flat_bounds!r}")
        self._fn = fn
        self.obs_format = obs_format
        self.name = name
        self.flat_bounds = flat_bounds

    def __call__(self, obs: Obs, mask: npt.NDArray[np.int8]) -> int:
        return int(self._fn(obs, mask))

    def __repr__(self) -> str:
        return (
            f"PolicyFn({self.name}, obs_format={self.obs_format!r}, "
            f"flat_bounds={self.flat_bounds!r})"
        )

    def with_flat_bounds(self, flat_bounds: str) -> PolicyFn:
        """The same policy, marked as trained with ``flat_bounds``."""
        return PolicyFn(self._fn, self.obs_format, self.name, flat_bounds)


def _masked_pick(
    logits: npt.NDArray[Any], mask: npt.NDArray[np.int8], rng: np.random.Generator | None
) -> int:
    """The legal id with the largest logit (``rng`` None), or one sampled from the masked
    softmax."""
    legal = np.flatnonzero(mask)
    if len(legal) == 0:
        raise ValueError("the mask has no legal id: nothing to choose")
    values = np.asarray(logits, dtype=np.float64).reshape(-1)[legal]
    if rng is None:
        return int(legal[int(np.argmax(values))])
    values = values - values.max()
    p = np.exp(values)
    return int(legal[rng.choice(len(legal), p=p / p.sum())])


def _is_sb3_model(obj: Any) -> bool:
    return hasattr(obj, "predict") and hasattr(obj, "policy") and hasattr(obj, "learn")


def _is_sb3_policy(obj: Any) -> bool:
    return hasattr(obj, "get_distribution") and hasattr(obj, "obs_to_tensor")


def _is_torch_module(obj: Any) -> bool:
    try:
        import torch
    except ImportError:
        return False
    return isinstance(obj, torch.nn.Module)


def _space_format(space: Any) -> str:
    # A gymnasium.spaces.Dict, recognised without importing gymnasium (not a bots dependency).
    return "dict" if isinstance(getattr(space, "spaces", None), Mapping) else "flat"


def as_policy(
    policy: Any,
    *,
    deterministic: bool = True,
    seed: int | None = None,
    frozen: bool = False,
    obs_format: str | None = None,
    flat_bounds: str | None = None,
) -> PolicyFn:
    """``policy`` as a :class:`PolicyFn` ``(obs, mask) -> id``.

    Args:
        policy: a callable ``(obs, mask) -> id`` (kept as it is; its answer is checked against
            the mask); an SB3 model (``PPO``, ``MaskablePPO``, ``DQN`` ...: anything with
            ``predict``, ``policy`` and ``learn``) or its ``.policy``; a torch module mapping a
            float tensor of shape ``(1, 706)``, the flat observation, to logits ``(1, 469)``;
            or a :class:`PolicyFn` (returned as it is unless ``frozen``).
        deterministic: play the legal id with the largest logit; ``False``: sample from the
            softmax over the legal ids (for snapshots playing opponents in self-play).
        seed: seeds the sampling.
        frozen: copy the network now, so later training does not change this policy (a
            snapshot of the learner).
        obs_format: the format a plain callable expects (default ``"flat"``); for SB3 it is
            read from the model's observation space.
        flat_bounds: the ``"flat"`` scaling the policy was trained with (``"fixed"``, the
            environments' default, or ``"rules"``), carried with it (:attr:`PolicyFn.flat_bounds`)
            so that :func:`~nomercy.rl.evaluate` and tournaments scale its observations as
            training did; ``None`` keeps a :class:`PolicyFn`'s own, else ``"fixed"``.

    SB3 and torch policies are run on the CPU under ``torch.no_grad()``; the mask is applied to
    the logits, so a policy trained without masking still plays legal ids only.
    """
    if flat_bounds is not None and flat_bounds not in FLAT_BOUNDS:
        raise ValueError(f"flat_bounds must be 'fixed' or 'rules', not {flat_bounds!r}")
    fn = _as_policy(policy, deterministic, seed, frozen, obs_format)
    if flat_bounds is not None and flat_bounds != fn.flat_bounds:
        fn = fn.with_flat_bounds(flat_bounds)
    return fn


def _as_policy(
    policy: Any, deterministic: bool, seed: int | None, frozen: bool, obs_format: str | None
) -> PolicyFn:
    """:func:`as_policy` but for ``flat_bounds``."""
    rng = None if deterministic else np.random.default_rng(seed)
    if isinstance(policy, PolicyFn):
        return policy if not frozen else copy.deepcopy(policy)
    if _is_sb3_model(policy):
        policy = policy.policy
    if _is_sb3_policy(policy):
        return _sb3_policy(policy, rng, frozen)
    if _is_torch_module(policy):
        return _torch_policy(policy, rng, frozen)
    if callable(policy):
        fmt = obs_format or "flat"
        if fmt not in ("flat", "dict"):
            raise ValueError(f"obs_format must be 'flat' or 'dict', not {obs_format!r}")
        fn = policy

        def checked(obs: Obs, mask: npt.NDArray[np.int8]) -> int:
            choice = fn(obs, mask)
            if not isinstance(choice, (int, np.integer)) or isinstance(choice, bool):
                raise TypeError(f"policy {fn!r} returned {choice!r}, not an action id")
            if not 0 <= int(choice) < len(mask) or not mask[int(choice)]:
                raise ValueError(f"policy {fn!r} chose id {int(choice)}, which the mask forbids")
            return int(choice)

        return PolicyFn(checked, fmt, getattr(policy, "__name__", type(policy).__name__))
    raise TypeError(
        f"cannot use {type(policy).__name__} as a policy: give a callable (obs, mask) -> id, "
        "an SB3 model or a torch module"
    )


def _sb3_policy(policy: Any, rng: np.random.Generator | None, frozen: bool) -> PolicyFn:
    import torch

    if frozen:
        policy = copy.deepcopy(policy).to("cpu")
    policy.set_training_mode(False)
    fmt = _space_format(policy.observation_space)

    def act(obs: Obs, mask: npt.NDArray[np.int8]) -> int:
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(tensor)
            logits = dist.distribution.logits[0].cpu().numpy()
        return _masked_pick(logits, mask, rng)

    return PolicyFn(act, fmt, type(policy).__name__)


def _torch_policy(module: Any, rng: np.random.Generator | None, frozen: bool) -> PolicyFn:
    import torch

    if frozen:
        module = copy.deepcopy(module)
    module.eval()
    params = list(module.parameters())
    device = params[0].device if params else torch.device("cpu")

    def act(obs: Obs, mask: npt.NDArray[np.int8]) -> int:
        vector = obs["observation"] if isinstance(obs, Mapping) else obs
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(vector, dtype=np.float32), device=device)[None]
            logits = module(x)
            if isinstance(logits, tuple):  # (logits, value) networks
                logits = logits[0]
            out = logits.reshape(-1).cpu().numpy()
        if out.shape != mask.shape:
            raise ValueError(
                f"the module returned {out.shape[0]} logits; the env has {mask.shape[0]} ids"
            )
        return _masked_pick(out, mask, rng)

    return PolicyFn(act, "flat", type(module).__name__)


_LOADED: dict[str, Any] = {}


def load_target(target: str) -> Any:
    """The object ``MODULE:ATTR`` names (``ATTR`` may be dotted), imported once per process.

    Raises:
        ValueError: not ``MODULE:ATTR``, a module that does not import, or a missing attribute.
    """
    found = _LOADED.get(target)
    if found is not None:
        return found
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise ValueError(f"a policy is named MODULE:ATTR (e.g. mypkg.agents:model), not {target!r}")
    try:
        obj: Any = importlib.import_module(module_name.strip())
    except ImportError as exc:
        raise ValueError(f"policy {target!r}: cannot import {module_name!r} ({exc})") from None
    for part in attr.strip().split("."):
        if not hasattr(obj, part):
            raise ValueError(f"policy {target!r}: {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    _LOADED[target] = obj
    return obj


class PolicyBot:
    """A trained policy playing as a bot (module docstring).

    Args:
        seed: seeds the sampling when ``deterministic`` is false.
        target: ``"MODULE:ATTR"``, the policy to load (see :func:`load_target`).
        policy: the policy itself, instead of ``target`` (anything :func:`as_policy` takes).
        deterministic: play the legal id with the largest logit (default) or sample.
        flat_bounds: the ``"flat"`` scaling the policy was trained with (``"fixed"``, the
            environments' default, or ``"rules"``); ``policy:M:A:flat_bounds=rules``.
            ``None`` (default): the policy's own (:attr:`PolicyFn.flat_bounds`, ``"fixed"``
            unless :func:`as_policy` was told otherwise).

    The policy gets the observation the RL environments give (``obs_format`` of the policy:
    the scaled flat vector, or the Dict with the mask), built from the seat's view, and the
    mask of the seat's legal actions. ``opp_void`` (which colours each opponent could not
    play) comes from a :class:`~nomercy.encoding.observations.PublicTracker` fed the table's
    public events, as in the environments, when whoever runs the game reports them
    (:meth:`start_public`, then :meth:`observe_public` after every action): the arena does
    (tournaments, simulations), so a policy there sees exactly the observations of
    :func:`nomercy.rl.evaluate`. A game that does not report them (a bot driven by
    ``nomercy.bots.driver`` alone) leaves ``opp_void`` 0, as for the ``neural`` bots.

    Raises:
        ValueError: neither or both of ``target`` and ``policy``, or a target that does not
            load.
    """

    name = "policy"
    #: The encoder reads the view without its event history.
    view_mode = "no_history"

    def __init__(
        self,
        seed: int = 0,
        target: str | None = None,
        policy: Any = None,
        deterministic: bool = True,
        flat_bounds: str | None = None,
    ) -> None:
        if flat_bounds is not None and flat_bounds not in FLAT_BOUNDS:
            raise ValueError(f"flat_bounds must be 'fixed' or 'rules', not {flat_bounds!r}")
        if (target is None) == (policy is None):
            raise ValueError("a policy bot needs a target (MODULE:ATTR) or a policy, not both")
        obj = load_target(target) if target is not None else policy
        self.seed = seed
        self.target = target
        self.policy = as_policy(
            obj, deterministic=deterministic, seed=seed, flat_bounds=flat_bounds
        )
        self.flat_bounds = self.policy.flat_bounds
        self._encoders: dict[tuple[RuleSet, int], tuple[ObservationEncoder, npt.NDArray[Any]]] = {}
        self._tracker: PublicTracker | None = None
        self._tracked: tuple[RuleSet, int] | None = None

    def __repr__(self) -> str:
        return f"PolicyBot({self.target or self.policy.name!r}, seed={self.seed})"

    # ------------------------------------------------------------------ public history
    def start_public(self, rules: RuleSet, n: int, opening: list[Event], phase: str) -> None:
        """A new game of ``n`` seats under ``rules``: its deal's events (``opening_events``)
        and the phase after the deal. Only public facts are read (``event.for_seat(None)``)."""
        self._tracker = PublicTracker(rules, n)
        self._tracked = (rules, n)
        self._tracker.update(opening, colour=None, phase="play", next_phase=phase)

    def observe_public(
        self, events: list[Event], *, colour: str | None, phase: str, next_phase: str
    ) -> None:
        """One action's events, with the active colour (its value, ``None`` before one is
        named) and the phase before it and the phase after: what every seat saw."""
        if self._tracker is not None:
            self._tracker.update(events, colour=colour, phase=phase, next_phase=next_phase)

    # ------------------------------------------------------------------ playing
    def _encoder(self, view: PlayerView) -> tuple[ObservationEncoder, npt.NDArray[Any]]:
        key = (view.rules, len(view.players))
        found = self._encoders.get(key)
        if found is None:
            encoder = ObservationEncoder(*key)
            found = self._encoders[key] = (encoder, flat_scale(encoder, self.flat_bounds))
        return found

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """The legal action the policy picks."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        ids = fast_ids(legal, len(view.players))
        if len(ids) == 1:
            return legal[0]
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(ids)] = 1
        encoder, scale = self._encoder(view)
        tracked = self._tracker is not None and self._tracked == (view.rules, len(view.players))
        vector = encoder.encode(view, self._tracker.void if tracked else None)  # type: ignore[union-attr]
        obs: Any = (
            vector * scale
            if self.policy.obs_format == "flat"
            else {"observation": vector, "action_mask": mask}
        )
        return ids[self.policy(obs, mask)]
