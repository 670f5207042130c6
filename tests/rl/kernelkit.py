"""Lockstep differential play: the kernel path of ``raw_env`` against the reference engine.

``lockstep`` drives two environments built alike except for ``engine`` through the same
random game and asserts, at every step, that everything an agent or a trainer can see is
identical: the agent to act, every agent's observation and mask (values and dtypes), the
reward, termination, truncation and info dicts, the live agents, and ``last()``. It counts
which rules the games exercised (from the reference game's event log), so a test can prove
that the rules it claims to cover really happened.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy.rl import IllegalActionIdError, raw_env
from nomercy.rl.actions import CATCH_BASE, DRAW_ID, NUM_ACTIONS, UNO_ID, action_name
from nomercy.rl.observations import OBS_LAYOUT

#: Non-integer or out-of-range "ids" every engine must refuse with the same message.
BAD_IDS: tuple[Any, ...] = (469, -1, 10_000, "draw", 1.5, None, True, 0.0, np.float64(13))

#: Ids that call UNO (the ``uno`` id and every play with the call folded in, NM-37).
_CALLS_UNO = np.array(
    [i == UNO_ID or action_name(i).endswith(" uno") for i in range(NUM_ACTIONS)], dtype=bool
)
_CATCHES = np.zeros(NUM_ACTIONS, dtype=bool)
_CATCHES[CATCH_BASE : CATCH_BASE + 5] = True
_NOT_DRAW = np.ones(NUM_ACTIONS, dtype=bool)
_NOT_DRAW[DRAW_ID] = False

#: Seat policies for ``lockstep(policy="mixed")``, by seat modulo 3.
MIXED = ("uniform", "careless", "eager")


def choose(ids: npt.NDArray[np.intp], style: str, rng: random.Random) -> int:
    """An id among the legal ``ids`` for a seat playing ``style``:

    - ``uniform``: any legal id alike;
    - ``careless``: never calls UNO and never catches when it can help it, and takes a
      penalty rather than stacking (hands grow: knock-outs, catches, reshuffles);
    - ``eager``: catches whenever it can, calls UNO whenever it can, stacks when it can.
    """
    if style == "careless":
        keep = ids[~(_CALLS_UNO[ids] | _CATCHES[ids])]
        if DRAW_ID in keep and rng.random() < 0.8:
            return DRAW_ID
        ids = keep if keep.size else ids
    elif style == "eager":
        for prefer in (_CATCHES, _CALLS_UNO, _NOT_DRAW):
            wanted = prefer[ids]
            if wanted.any():
                ids = ids[wanted]
    return int(ids[rng.randrange(len(ids))])


def make(engine: str, **kwargs: Any) -> raw_env:
    """``raw_env(engine=engine, **kwargs)``, checking that the engine asked for is used."""
    env = raw_env(engine=engine, **kwargs)
    assert env.engine == engine, (engine, env.engine)
    return env


class Mismatch(AssertionError):
    """The two engines disagreed; the message says where (seed, step, agent, field)."""


def obs_diff(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> str:
    """Which named observation slices differ, with the first differing entries of each."""
    if a.shape != b.shape:
        return f"shapes {a.shape} != {b.shape}"
    parts = []
    for name, part in OBS_LAYOUT.items():
        x, y = a[part], b[part]
        bad = np.flatnonzero(x != y)
        if bad.size:
            shown = ", ".join(f"[{i}] {x[i].item()} vs {y[i].item()}" for i in bad[:6])
            parts.append(f"{name}: {shown}")
    return "; ".join(parts) or "no slice differs (NaN?)"


@dataclass
class Coverage:
    """What the lockstep games exercised (reference game's events, phases, game ends)."""

    events: Counter[str] = field(default_factory=Counter)
    games: int = 0
    steps: int = 0
    illegal_checked: int = 0

    def add_step(self, env: raw_env) -> None:
        game = env.game
        assert game is not None
        self.steps += 1
        self.events[f"phase:{game.phase.value}"] += 1

    def add_game(self, env: raw_env, *, truncated: bool = False) -> None:
        game = env.game
        assert game is not None
        self.games += 1
        self.events["truncated"] += truncated
        previous = None
        for event in game.log:
            kind = event.kind
            self.events[kind] += 1
            if kind == "hand_end":
                self.events[f"hand_end:{event.data['how']}"] += 1
            elif kind == "knockout" and previous is not None:
                self.events[f"knockout after {previous}"] += 1
            elif kind == "draw" and event.data["count"] > 1:
                self.events["draw several"] += 1
            elif kind == "catch":
                self.events[f"catch draws {event.data['count']}"] += 1
            if kind != "knockout":
                previous = kind

    def missing(self, wanted: list[str]) -> list[str]:
        return [kind for kind in wanted if not self.events[kind]]


def _same_value(what: str, a: Any, b: Any, where: str) -> None:
    if a != b:
        raise Mismatch(f"{where}: {what} differ\n  reference: {a!r}\n  kernel:    {b!r}")


def _same_observation(
    ref: Mapping[str, npt.NDArray[Any]], fast: Mapping[str, npt.NDArray[Any]], where: str
) -> None:
    if set(ref) != set(fast):
        raise Mismatch(f"{where}: observation keys {sorted(ref)} vs {sorted(fast)}")
    for key in ref:
        a, b = ref[key], fast[key]
        if (
            not isinstance(b, np.ndarray)
            or a.dtype != b.dtype
            or a.shape != b.shape
            or a.flags.writeable != b.flags.writeable
        ):
            raise Mismatch(
                f"{where}: {key} is {type(b).__name__} {getattr(b, 'dtype', None)} "
                f"{getattr(b, 'shape', None)} "
                f"writeable={getattr(getattr(b, 'flags', None), 'writeable', None)}, "
                f"reference {a.dtype} {a.shape} writeable={a.flags.writeable}"
            )
        if not np.array_equal(a, b):
            if key == "observation":
                raise Mismatch(f"{where}: observation differs: {obs_diff(a, b)}")
            raise Mismatch(
                f"{where}: {key} differs: reference ids {np.flatnonzero(a).tolist()}, "
                f"kernel ids {np.flatnonzero(b).tolist()}"
            )


def compare(ref: raw_env, fast: raw_env, where: str) -> dict[str, dict[str, Any]]:
    """Assert that everything observable is equal now; returns the kernel's observations."""
    _same_value("agent_selection", ref.agent_selection, fast.agent_selection, where)
    _same_value("agents", ref.agents, fast.agents, where)
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        _same_value(name, getattr(ref, name), getattr(fast, name), where)
    expected = {}
    seen = {}
    for agent in ref.possible_agents:
        obs = fast.observe(agent)
        expected[agent] = ref.observe(agent)
        _same_observation(expected[agent], obs, f"{where}, observe({agent})")
        seen[agent] = obs
    if ref.agents:
        a, b = ref.last(), fast.last()
        _same_observation(a[0], b[0], f"{where}, last()")
        _same_value("last()[1:]", a[1:], b[1:], where)
        _same_value("last(observe=False)", ref.last(False), fast.last(False), where)
    # Observing one agent (or calling last()) must not overwrite what another one was given.
    for agent, obs in seen.items():
        _same_observation(expected[agent], obs, f"{where}, observe({agent}) after other observes")
    return seen


def _scribble(seen: dict[str, dict[str, Any]]) -> list[tuple[Any, dict[str, Any]]]:
    """Overwrite the observations handed out (a user may normalise in place); the env must
    not care. Returns them with copies, to check that stepping leaves them alone."""
    for obs in seen.values():
        for value in obs.values():
            if value.flags.writeable:
                value[...] = 3
    return [(obs, {k: v.copy() for k, v in obs.items()}) for obs in seen.values()]


def _check_not_aliased(kept: list[tuple[Any, dict[str, Any]]], where: str) -> None:
    """Observations handed out earlier must not change when the environment steps."""
    for obs, copy in kept:
        for key, value in copy.items():
            if not np.array_equal(obs[key], value):
                raise Mismatch(f"{where}: an observation returned earlier changed ({key})")


def _illegal_ids(mask: npt.NDArray[np.int8], rng: random.Random) -> list[Any]:
    free = np.flatnonzero(mask == 0)
    picks: list[Any] = [int(free[rng.randrange(len(free))])] if free.size else []
    picks.append(rng.choice(BAD_IDS))
    return picks


def _reset_error(env: raw_env, seed: int | None) -> tuple[str, str] | None:
    try:
        env.reset(seed=seed)
    except Exception as exc:  # any error: compared by the caller
        return type(exc).__name__, str(exc)
    return None


def _same_error(ref: raw_env, fast: raw_env, action: Any, where: str) -> None:
    """``step(action)`` raises the same exception type and message on both envs."""
    errors = []
    for env in (ref, fast):
        try:
            env.step(action)
        except Exception as exc:  # any error: compared below
            errors.append((type(exc).__name__, str(exc)))
        else:
            errors.append(("no error", ""))
    _same_value(f"errors for step({action!r})", errors[0], errors[1], where)


def _try_illegal(ref: raw_env, fast: raw_env, action: Any, where: str, cov: Coverage) -> None:
    """Both engines treat an illegal id alike: same message (raise) or same penalty."""
    if ref.illegal_action == "raise":
        errors = []
        for env in (ref, fast):
            try:
                env.step(action)
            except IllegalActionIdError as exc:
                errors.append(str(exc))
            else:
                raise Mismatch(f"{where}: {env.engine} accepted illegal id {action!r}")
        _same_value(f"messages for illegal id {action!r}", errors[0], errors[1], where)
    else:
        ref.step(action)
        fast.step(action)
    cov.illegal_checked += 1
    game = ref.game
    assert game is not None
    cov.events[f"illegal in {game.phase.value}"] += 1


def lockstep(
    ref: raw_env,
    fast: raw_env,
    seed: int | None,
    cov: Coverage,
    *,
    choice_seed: int,
    illegal_every: int = 0,
    position_every: int = 0,
    stop_after: int | None = None,
    policy: str = "uniform",
    fresh: bool = True,
    limit: int = 20_000,
) -> int:
    """Play one random game on both environments at once, comparing at every step.

    Args:
        seed: passed to both ``reset``; ``None`` continues each env's own seed sequence.
        choice_seed: seeds the ``random.Random`` that picks actions (and illegal probes).
        illegal_every: about every this many steps also try an illegal id first (0: never).
        position_every: about every this many steps compare ``game.to_position()`` (0: only
            at the end; the kernel rebuilds its ``Game`` by replay, so this is costly).
        stop_after: abandon the game after this many steps (the next reset must not care).
        policy: ``"uniform"`` for every seat, or ``"mixed"``: seat ``s`` plays
            ``MIXED[s % 3]`` (see :func:`choose`).
        fresh: reset both envs first (``False``: play on from where they are; ``seed`` then
            only labels messages).

    Returns the number of steps taken.
    """
    rng = random.Random(choice_seed)
    label = (
        f"seed={seed} players={ref.num_players} preset={ref.rules.preset} "
        f"options={_options(ref)} choice_seed={choice_seed}"
    )
    if fresh:
        refused = [_reset_error(env, seed) for env in (ref, fast)]
        _same_value("reset() errors", refused[0], refused[1], label)
        if refused[0] is not None:  # a deal no card can start (NM-4): refused alike
            cov.games += 1
            cov.events["refused deal"] += 1
            return 0
    seen = compare(ref, fast, f"{label} at the start")
    kept = _scribble(seen)
    steps = 0
    truncated = False
    # Both envs' own agent_iter (the kernel path has its own generator) must agree.
    ref_agents = ref.agent_iter(limit)
    fast_agents = fast.agent_iter(limit)
    while True:
        agent = next(ref_agents, None)
        where = f"{label} step {steps} ({agent})"
        _same_value("agent_iter() items", agent, next(fast_agents, None), where)
        if agent is None:
            break
        obs, _, term, trunc, _ = ref.last()
        if term or trunc:
            action: Any = None
            if rng.randrange(10) == 0:  # a dead agent given an id: PettingZoo's error, alike
                _same_error(ref, fast, 0, where)
        else:
            mask = obs["action_mask"]
            if illegal_every and rng.randrange(illegal_every) == 0:
                for bad in _illegal_ids(mask, rng):
                    _try_illegal(ref, fast, bad, f"{where}, illegal {bad!r}", cov)
                    compare(ref, fast, f"{where}, after illegal {bad!r}")
            style = MIXED[ref.possible_agents.index(agent) % 3] if policy == "mixed" else policy
            action = choose(np.flatnonzero(mask), style, rng)
            if rng.randrange(8) == 0:
                action = np.int64(action)  # numpy integers are ids too
        ref.step(action)
        fast.step(action)
        steps += 1
        cov.add_step(ref)
        truncated = truncated or any(ref.truncations.values())
        where = f"{label} step {steps} (after {agent} took {action})"
        _check_not_aliased(kept, where)
        kept = _scribble(compare(ref, fast, where))
        if position_every and rng.randrange(position_every) == 0:
            same_position(ref, fast, where)
        if stop_after is not None and steps >= stop_after and ref.agents:
            cov.events["abandoned"] += 1
            break
    if ref.agents and not (stop_after is not None and steps >= stop_after):
        raise AssertionError(f"{label}: no end within {limit} steps")
    same_position(ref, fast, f"{label} at the end")
    if not ref.agents:  # stepping a finished game fails the same way on both
        _same_error(ref, fast, None, f"{label} after the end")
    cov.add_game(ref, truncated=truncated)
    return steps


def _options(env: raw_env) -> dict[str, Any]:
    """The rule options of ``env`` that differ from its preset's defaults (for messages)."""
    options: dict[str, Any] = env.rules.to_json()["options"]
    return options


def same_position(ref: raw_env, fast: raw_env, where: str) -> None:
    """The kernel's rebuilt ``Game`` equals the reference game, whole state and log."""
    a = ref.game
    b = fast.game
    assert a is not None and b is not None
    pa, pb = a.to_position(), b.to_position()
    if pa != pb:
        keys = sorted(k for k in pa if pa.get(k) != pb.get(k))
        raise Mismatch(f"{where}: game.to_position() differs in {keys}")
