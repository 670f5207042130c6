"""Self-play as a single-agent Gymnasium env: one learner seat, the others snapshots of the
learner or bots (docs/rl.md, "Self-play").

Each episode is one game seen from the learner's seat. Between two of the learner's
decisions the other seats play: a seat marked ``"self"`` plays a snapshot of the learner taken
with :meth:`SelfPlayEnv.add_snapshot`, a registry name plays that bot, a policy plays itself.
The reward of a step is everything the learner's seat was credited with since its previous
decision (PettingZoo's cumulative reward), so a −1 for losing reaches the learner when another
seat's last card ends the game, and a Mercy knock-out's −1 (NM-33) reaches the seat knocked
out, whoever's move caused it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from nomercy.bots.base import Bot
from nomercy.bots.driver import NO_VIEW, view_mode
from nomercy.bots.policy_bot import PolicyFn, as_policy
from nomercy.bots.registry import make_bot
from nomercy.core.actions import Action
from nomercy.core.dealing import DEAL_VERSION
from nomercy.encoding.actions import NUM_ACTIONS, PASS_ID, fast_id
from nomercy.encoding.observations import flat_scale
from nomercy.rl._common import (
    LegalDiscrete,
    check_learner_seat,
    check_max_steps,
    check_render_mode,
    outcome_info,
    render,
)
from nomercy.rl.pettingzoo_env import Obs, raw_env

__all__ = ["SelfPlayEnv"]

#: The opponent kind that plays a snapshot of the learner.
SELF = "self"


def _spec(entry: Any) -> list[Any]:
    """One opponent seat's alternatives: names stay names, anything else becomes a policy."""
    alternatives = list(entry) if isinstance(entry, (list, tuple)) else [entry]
    if not alternatives:
        raise ValueError("an opponent seat needs at least one alternative")
    out: list[Any] = []
    for alt in alternatives:
        if isinstance(alt, str):
            if alt != SELF:
                make_bot(alt)  # fail now on an unknown name (the error lists the valid ones)
            out.append(alt)
        else:
            out.append(as_policy(alt))
    return out


class SelfPlayEnv(gym.Env[Obs, np.int64]):
    """One learner against snapshots of itself, bots or fixed policies (module docstring).

    Args:
        opponents: one entry per other seat, in seat order after the learner: ``"self"``
            (a snapshot of the learner: the latest with probability ``latest_share``, else
            one drawn from the pool; uniform random legal play until the first snapshot), a
            bot name from the registry, a policy (anything :func:`nomercy.rl.as_policy`
            takes), or a list of these, one drawn at every reset.
        preset, options: the rules.
        learner_seat: the learner's seat, or ``None`` (default) to draw it at every reset.
        obs_format: ``"flat"`` (default: the scaled vector, a ``Box``, as ``MlpPolicy``
            takes) or ``"dict"``; the mask is in ``info["action_mask"]`` and
            :meth:`action_masks` either way.
        illegal_action, illegal_reward: as :class:`nomercy.rl.NoMercyEnv` (``"penalize"`` by
            default, so Gymnasium's ``check_env`` passes; ``"raise"`` on request); an illegal
            id in ``"penalize"`` mode costs ``illegal_reward`` and counts as a step.
        max_steps: truncate after this many learner steps (``None``: never).
        out_of_turn: as :class:`nomercy.rl.raw_env`; bots answer offered chances through
            ``choose_out_of_turn`` (a bot without it lets them go).
        reward, points_scale, knockout_bonus: the reward scheme, as
            :class:`nomercy.rl.raw_env`.
        flat_bounds: the ``"flat"`` scaling, as :class:`nomercy.rl.raw_env`.
        pool_size: how many snapshots are kept (the oldest is dropped).
        latest_share: the probability that a ``"self"`` seat plays the latest snapshot.
        render_mode: as :class:`nomercy.rl.NoMercyEnv`, from the learner's view.
        deal_version: the generator of every deal's shuffles, as :class:`nomercy.rl.raw_env`
            (1 by default).

    ``info`` holds ``seat`` and ``action_mask`` after every reset and step, and at the
    episode's end the outcome (docs/rl.md, "Infos": winner, knock-outs, hand sizes, points,
    episode length).
    """

    metadata = {  # noqa: RUF012 (read by Gymnasium)
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 1,
    }

    def __init__(
        self,
        opponents: Sequence[Any] = (SELF,),
        *,
        preset: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        learner_seat: int | None = None,
        obs_format: str = "flat",
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        max_steps: int | None = None,
        out_of_turn: str = "to_act",
        reward: str = "win_loss",
        points_scale: float = 100.0,
        knockout_bonus: float = 0.0,
        flat_bounds: str = "fixed",
        pool_size: int = 8,
        latest_share: float = 0.5,
        render_mode: str | None = None,
        deal_version: int = DEAL_VERSION,
    ) -> None:
        if isinstance(opponents, str):
            opponents = [opponents]
        self._specs = [_spec(entry) for entry in opponents]
        n = len(self._specs) + 1
        self.aec = raw_env(
            num_players=n,
            preset=preset,
            options=options,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            out_of_turn=out_of_turn,
            obs_format=obs_format,
            reward=reward,
            points_scale=points_scale,
            knockout_bonus=knockout_bonus,
            flat_bounds=flat_bounds,
            deal_version=deal_version,
        )
        #: The deal version of every game this env deals (``deal_version``).
        self.deal_version = self.aec.deal_version
        self.n = n
        self.learner_seat = check_learner_seat(learner_seat, n)
        self.max_steps = check_max_steps(max_steps)
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise ValueError(f"pool_size must be a positive integer, not {pool_size!r}")
        if not 0.0 <= latest_share <= 1.0:
            raise ValueError(f"latest_share must be in [0, 1], not {latest_share!r}")
        self.pool_size = pool_size
        self.latest_share = float(latest_share)
        self.render_mode = check_render_mode(render_mode)
        self.obs_format = self.aec.obs_format
        self.observation_space: spaces.Space[Any] = self.aec.observation_space("player_0")
        self.action_space: spaces.Space[Any] = LegalDiscrete(NUM_ACTIONS, self.action_masks)
        self.snapshots: list[PolicyFn] = []
        self._scales: dict[str, npt.NDArray[np.float32]] = {}  # opponents' flat scalings
        self.seat = 0
        self._agent = "player_0"
        self._players: dict[int, Any] = {}
        self._labels: list[str] = []
        self._steps = 0
        self._over = True

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickling and deepcopy make the action space a plain Discrete: re-attach the mask.
        self.__dict__.update(state)
        self.action_space = LegalDiscrete(NUM_ACTIONS, self.action_masks)

    # ------------------------------------------------------------------ snapshots
    def add_snapshot(self, policy: Any) -> None:
        """Add a frozen copy of ``policy`` (anything :func:`nomercy.rl.as_policy` takes: an
        SB3 model or its ``.policy``, a torch module, a callable) to the pool that ``"self"``
        seats play from; it samples its moves from its masked softmax."""
        seed = int(self.np_random.integers(0, 2**31))
        # The learner was trained on this env's scaling: its snapshots carry it.
        snapshot = as_policy(
            policy, deterministic=False, frozen=True, seed=seed, flat_bounds=self.aec.flat_bounds
        )
        self.snapshots.append(snapshot)
        del self.snapshots[: -self.pool_size]

    def _draw_self(self) -> PolicyFn | None:
        if not self.snapshots:
            return None
        if self.np_random.random() < self.latest_share:
            return self.snapshots[-1]
        return self.snapshots[int(self.np_random.integers(0, len(self.snapshots)))]

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game, draw the learner's seat and its opponents, and play until the
        learner is to act."""
        super().reset(seed=seed)
        rng = self.np_random
        while True:
            seat = (
                self.learner_seat if self.learner_seat is not None else int(rng.integers(0, self.n))
            )
            self.seat = seat
            self._agent = f"player_{seat}"
            self._players = {}
            self._labels = []
            others = [(seat + k) % self.n for k in range(1, self.n)]
            for other, alternatives in zip(others, self._specs, strict=True):
                choice = alternatives[int(rng.integers(0, len(alternatives)))]
                if choice == SELF:
                    self._players[other] = self._draw_self()
                    self._labels.append(SELF if self.snapshots else "self (random)")
                elif isinstance(choice, str):
                    self._players[other] = make_bot(choice, seed=int(rng.integers(0, 2**31)))
                    self._labels.append(choice)
                else:
                    self._players[other] = choice
                    self._labels.append(choice.name)
            self.aec.reset(seed=int(rng.integers(0, 2**63)))
            self._steps = 0
            self._over = False
            self._play_others()
            # A game the others finish before the learner's first turn is dealt again.
            if not self._learner_done():
                break
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info(False)

    def step(self, action: int | np.integer[Any]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action`` id, then the other seats until the learner is to act
        again or its episode ends."""
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        self.aec.step(action)  # type: ignore[arg-type]  # raises IllegalActionIdError in "raise" mode
        self._steps += 1
        self._play_others()
        env = self.aec
        terminated = bool(env.terminations.get(self._agent, True))
        reward = float(env._cumulative_rewards.get(self._agent, 0.0))
        truncated = not terminated and bool(env.truncations.get(self._agent, False))
        if not (terminated or truncated) and self.max_steps is not None:
            truncated = self._steps >= self.max_steps
        self._over = terminated or truncated
        if self.render_mode == "human":
            self.render()
        info = self._info(self._over)
        if self.aec.infos.get(self._agent, {}).get("illegal_action"):
            info["illegal_action"] = True
            info["reason"] = self.aec.infos[self._agent]["reason"]
        return self._observe(), reward, terminated, truncated, info

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The learner's legal-action mask now (for maskable algorithms)."""
        if self._over or self._learner_done():
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self.aec.action_mask(self._agent)

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The learner's view, as :meth:`nomercy.rl.NoMercyEnv.render`."""
        if self.render_mode is None:
            return None
        game = self.aec.game
        if game is None:
            raise RuntimeError("call reset() before render()")
        return render(game.view(self.seat, history=False), self.render_mode)

    def state(self) -> npt.NDArray[np.float32]:
        """The full state (every seat's hand and view), as :meth:`nomercy.rl.raw_env.state`:
        for a centralised critic, never for the policy."""
        return self.aec.state()

    # ------------------------------------------------------------------ internals
    def _learner_done(self) -> bool:
        env = self.aec
        agent = self._agent
        return agent not in env.agents or env.terminations[agent] or env.truncations[agent]

    def _play_others(self) -> None:
        env = self.aec
        me = self._agent
        while env.agents:
            if env.terminations.get(me, True) or env.truncations.get(me, True):
                return
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            if agent == me:
                return
            env.step(self._other_id(int(agent[7:]), agent))

    def _other_id(self, seat: int, agent: str) -> int:
        env = self.aec
        mask = env.action_mask(agent)
        player = self._players[seat]
        if player is None:  # "self" before the first snapshot: uniform random legal play
            legal = np.flatnonzero(mask)
            return int(legal[int(self.np_random.integers(0, len(legal)))])
        if isinstance(player, PolicyFn):
            return player(self._obs_for(agent, player, mask), mask)
        return self._bot_id(player, seat)

    def _bot_id(self, bot: Bot, seat: int) -> int:
        game = self.aec.game
        assert game is not None
        legal = game.legal_actions(seat)
        mode = view_mode(bot)
        # A view_mode "none" bot never reads its view: it gets None (nomercy.bots.base).
        view = NO_VIEW if mode == "none" else game.view(seat, history=mode == "full")
        action: Action | None
        if seat == game.to_act:
            action = bot.choose_action(view, legal)
        else:  # an out-of-turn chance (out_of_turn="offered")
            choose = getattr(bot, "choose_out_of_turn", None)
            action = choose(view, legal) if callable(choose) else None
            if action is None:
                return PASS_ID
        if action not in legal:
            raise RuntimeError(f"bot {bot.name!r} chose illegal {action}")
        return fast_id(action, self.n)

    def _obs_for(self, agent: str, policy: PolicyFn, mask: npt.NDArray[np.int8]) -> Obs:
        """``agent``'s observation in ``policy``'s format and flat scaling."""
        env = self.aec
        fmt = policy.obs_format
        if fmt == env.obs_format and (fmt == "dict" or policy.flat_bounds == env.flat_bounds):
            return env.observe(agent)
        vector = env.raw_vector(agent)
        if fmt == "dict":
            return {"observation": vector, "action_mask": mask}
        scale = self._scales.get(policy.flat_bounds)
        if scale is None:
            scale = self._scales[policy.flat_bounds] = flat_scale(env._encoder, policy.flat_bounds)
        return vector * scale

    def _observe(self) -> Obs:
        return self.aec.observe(self._agent)

    def _info(self, final: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "seat": self.seat,
            "action_mask": self.action_masks(),
            "opponents": list(self._labels),
        }
        if final:
            game = self.aec.game
            assert game is not None
            info.update(outcome_info(game, self.aec.steps))
        return info
