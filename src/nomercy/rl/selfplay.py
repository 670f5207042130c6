"""Self-play data for training the ``neural`` bot: the parts that need no torch.

:mod:`nomercy.rl.train_neural` runs masked PPO over the PettingZoo environment
(``obs_format="flat"``). This module holds what it needs besides torch, tested without torch:

- :class:`TableMix`: which table a new game uses (players, preset) and who sits at the other
  seats (the learner itself, a past self from the pool, ``heuristic`` or ``random``);
- :class:`Lane`: one environment stepped until one of the learner's seats must decide,
  recording each learner seat's trajectory and its final reward;
- :func:`gae`: advantages of finished trajectories;
- :func:`evaluate`: the shipped bot code (:class:`~nomercy.bots.neural_bot.NeuralBot`)
  against registry bots through the driver, as tournaments play it, with the win rate's
  Wilson interval (:func:`nomercy.core.stats.wilson_interval`).

The learner's input is the env's flat vector times ``VIEW_KEEP`` (``opp_void`` zeroed: it
comes from the env's event tracker, not from a view, so the bot could not rebuild it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy.bots.base import Bot
from nomercy.bots.driver import play_out
from nomercy.bots.neural_bot import NeuralBot, Policy
from nomercy.bots.neural_features import VIEW_KEEP, action_id
from nomercy.bots.registry import make_bot
from nomercy.core.game import new_game
from nomercy.core.stats import wilson_interval
from nomercy.rl.pettingzoo_env import raw_env

__all__ = [
    "KINDS",
    "Finished",
    "Lane",
    "TableMix",
    "evaluate",
    "gae",
]

#: Who fills the other seats of a training game.
KINDS = ("self", "pool", "heuristic", "random")


@dataclass(frozen=True)
class TableMix:
    """The distribution of training tables (each a weight, normalised when drawn).

    ``players``: weights of 2..6 seats; ``classic``: the share of classic games; ``kinds``:
    weights of :data:`KINDS` for the other seats (``self``: every seat is the learner).
    """

    players: tuple[float, ...] = (0.6, 0.1, 0.15, 0.075, 0.075)
    classic: float = 0.15
    kinds: tuple[float, ...] = (0.35, 0.25, 0.3, 0.1)

    def __post_init__(self) -> None:
        if len(self.players) != 5 or len(self.kinds) != len(KINDS):
            raise ValueError("players needs 5 weights (2..6 seats), kinds one per kind")
        if min(self.players) < 0 or min(self.kinds) < 0 or not sum(self.players) > 0:
            raise ValueError("weights must be non-negative with a positive sum")
        if not sum(self.kinds) > 0 or not 0 <= self.classic <= 1:
            raise ValueError("kinds need a positive sum and classic a share in [0, 1]")

    def draw(self, rng: random.Random) -> tuple[int, str, str]:
        """``(players, preset, kind)`` for a new game."""
        n = rng.choices(range(2, 7), weights=self.players)[0]
        preset = "classic" if rng.random() < self.classic else "no-mercy"
        kind = rng.choices(KINDS, weights=self.kinds)[0]
        return n, preset, kind


@dataclass
class Finished:
    """One learner seat's decisions in one game and the reward it got at the end."""

    obs: list[npt.NDArray[np.float32]] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logps: list[float] = field(default_factory=list)
    reward: float = 0.0
    kind: str = ""
    players: int = 2


PoolPick = Callable[[random.Random], Policy | None]


class Lane:
    """One game at a time, advanced until one of the learner's seats must act.

    Args:
        rng: draws tables, seats and opponents (seeded by the caller).
        mix: the table distribution.
        pool: returns a past policy for ``pool`` games (``None``: none yet, play ``self``).
        env_seed: seeds the first deal; later deals draw from the env's own generator.
    """

    def __init__(self, rng: random.Random, mix: TableMix, pool: PoolPick, env_seed: int) -> None:
        self.rng = rng
        self.mix = mix
        self.pool = pool
        self._envs: dict[tuple[int, str, bool], raw_env] = {}
        self._env_seed = env_seed
        self.finished: list[Finished] = []
        self.games = 0
        self.pending: tuple[int, npt.NDArray[np.float32], npt.NDArray[np.int8]] | None = None
        self._new_game()

    def _env(self, n: int, preset: str, reference: bool) -> raw_env:
        key = (n, preset, reference)
        env = self._envs.get(key)
        if env is None:
            env = self._envs[key] = raw_env(
                num_players=n,
                preset=preset,
                obs_format="flat",
                flat_bounds="rules",  # the scaling the shipped neural bot reads (version 1)
                engine="reference" if reference else "auto",
            )
            env.reset(seed=self._env_seed + 7919 * len(self._envs))
        return env

    def _new_game(self) -> None:
        n, preset, kind = self.mix.draw(self.rng)
        opponent: Policy | None = None
        if kind == "pool":
            opponent = self.pool(self.rng)
            if opponent is None:
                kind = "self"
        # Only the heuristic reads a Game (its view); the other seats need ids alone.
        self.env = env = self._env(n, preset, kind == "heuristic")
        env.reset()
        self.n, self.kind, self.opponent = n, kind, opponent
        learner = self.rng.randrange(n)
        self.learners = set(range(n)) if kind == "self" else {learner}
        self.bots: dict[int, Bot] = {}
        if kind == "heuristic":
            self.bots = {
                s: make_bot("heuristic", seed=self.rng.randrange(2**31))
                for s in range(n)
                if s != learner
            }
        self.trajectories = {s: Finished(kind=kind, players=n) for s in self.learners}

    def advance(self) -> None:
        """Play other seats (and start new games) until a learner seat is to act; then
        :attr:`pending` holds ``(seat, observation, mask)``."""
        env = self.env
        while True:
            agent = env.agent_selection
            seat = int(agent[7:])  # "player_k"
            _, reward, terminated, truncated, info = env.last(observe=False)
            if terminated or truncated:
                trajectory = self.trajectories.pop(seat, None)
                if trajectory is not None and trajectory.actions:
                    trajectory.reward = float(reward)
                    self.finished.append(trajectory)
                env.step(None)
                if not env.agents:
                    self.games += 1
                    self._new_game()
                    env = self.env
                continue
            mask = info["action_mask"]
            if seat in self.learners:
                obs = _flat(env, agent)
                self.pending = (seat, obs, mask)
                return
            env.step(self._opponent_id(seat, agent, mask))

    def _opponent_id(self, seat: int, agent: str, mask: npt.NDArray[np.int8]) -> int:
        ids = np.flatnonzero(mask)
        if len(ids) == 1:
            return int(ids[0])
        if self.kind == "heuristic":
            game = self.env.game
            assert game is not None
            action = self.bots[seat].choose_action(game.view(seat), game.legal_actions(seat))
            return action_id(action, self.n)
        if self.kind == "random":
            return int(ids[self.rng.randrange(len(ids))])
        assert self.opponent is not None
        obs = _flat(self.env, agent)
        return int(ids[self.opponent.best(obs, [int(i) for i in ids])])

    def act(self, action: int, logp: float) -> None:
        """Take the learner's ``action`` for the pending decision and record it."""
        assert self.pending is not None
        seat, obs, mask = self.pending
        t = self.trajectories[seat]
        t.obs.append(obs)
        t.masks.append(mask)
        t.actions.append(action)
        t.logps.append(logp)
        self.pending = None
        self.env.step(action)

    def take_finished(self) -> list[Finished]:
        """The trajectories finished since the last call."""
        out, self.finished = self.finished, []
        return out


def _flat(env: raw_env, agent: str) -> npt.NDArray[np.float32]:
    """The learner's input: the env's flat vector with ``opp_void`` zeroed."""
    obs = env.observe(agent)
    assert isinstance(obs, np.ndarray)  # obs_format="flat"
    return obs * VIEW_KEEP


def gae(
    rewards: Sequence[float],
    values: npt.NDArray[np.float32],
    lengths: Sequence[int],
    gamma: float,
    lam: float,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Advantages and returns of whole trajectories laid end to end.

    Trajectory ``i`` has ``lengths[i]`` steps in ``values`` (in order) and its only reward,
    ``rewards[i]``, comes after its last step (the game's end); nothing is bootstrapped.
    """
    adv = np.zeros(len(values), dtype=np.float32)
    start = 0
    for reward, length in zip(rewards, lengths, strict=True):
        running = 0.0
        for t in range(start + length - 1, start - 1, -1):
            last = t == start + length - 1
            next_v = 0.0 if last else float(values[t + 1])
            delta = (reward if last else 0.0) + gamma * next_v - float(values[t])
            running = delta + gamma * lam * running
            adv[t] = running
        start += length
    if start != len(values):
        raise ValueError(f"lengths add up to {start}, but there are {len(values)} values")
    return adv, adv + values


def evaluate(
    policy: Policy,
    opponent: str,
    games: int,
    *,
    players: int = 2,
    preset: str = "no-mercy",
    seed: int = 0,
) -> dict[str, Any]:
    """The policy, as the ``neural`` bot, against ``players - 1`` ``opponent`` bots.

    Game ``i`` is dealt from ``seed + i`` and the neural bot sits at seat ``i % players``, so
    every seat gets its share. Returns wins, games, the win rate and its Wilson interval.

    Raises:
        ValueError: ``games`` is not a positive integer.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, not {games!r}")
    bot = NeuralBot(weights=policy)
    wins = 0
    for i in range(games):
        seat = i % players
        bots: list[Bot] = [
            make_bot(opponent, seed=seed + 1000 * i + s) if s != seat else bot
            for s in range(players)
        ]
        game = new_game(players, rules=preset, seed=seed + i)
        play_out(game, bots)
        wins += game.winner == seat
    low, high = wilson_interval(wins, games)
    return {
        "opponent": opponent,
        "players": players,
        "preset": preset,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "low": low,
        "high": high,
    }
