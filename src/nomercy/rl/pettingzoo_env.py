"""PettingZoo AEC environment: every seat is an agent (docs/rl.md).

The agent to act is the engine's ``to_act``. Out-of-turn actions (UNO calls and catches,
NM-37; classic jump-ins, C04) follow ``out_of_turn``:

- ``"to_act"`` (default): only the seat to act takes them, as part of its turn. UNO calls are
  folded into plays (``play … uno`` ids) and a separate ``uno`` id covers a single card
  received without a play; the seat to act may catch any opponent still in an UNO window
  before its in-turn action. Other seats never act out of turn, so jump-ins never happen.
- ``"offered"``: before each turn, every other seat with an out-of-turn action is offered a
  turn of its own (seats that may call UNO first, then the rest, each in seat order from the
  seat to act, as ``nomercy.bots.driver.next_action`` does); its mask holds those actions
  plus ``pass`` (id 1), which lets the chance go until the next in-turn action.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from nomercy.core.actions import Action, CallUno, Catch
from nomercy.core.game import Game, new_game
from nomercy.core.rules import RuleSet
from nomercy.rl._common import (
    IllegalActionIdError,
    apply_tracked,
    check_illegal_mode,
    check_obs_format,
    check_out_of_turn,
    check_render_mode,
    explain_illegal,
    flat_observation_space,
    flat_scale,
    legal_id_map,
    make_ruleset,
    mask_of,
    next_decider,
    observation_space,
    render,
    start_tracking,
)
from nomercy.rl.actions import NUM_ACTIONS, PASS_ID, id_to_action
from nomercy.rl.kernel import COMPILED_MODULE, Kernel, kernel_class, kernel_supports
from nomercy.rl.observations import ObservationEncoder, PublicTracker

__all__ = ["env", "raw_env"]

_NO_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_NO_MASK.setflags(write=False)
_KERNEL_OVER = Kernel.OVER
_F32 = np.dtype(np.float32)
_I8 = np.dtype(np.int8)
_DECLINE = CallUno(-1)  # stands for "pass" on an offered out-of-turn turn (never applied)
ENGINES = ("auto", "kernel", "reference")


def _pick_engine(engine: str, rules: RuleSet, out_of_turn: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be 'auto', 'kernel' or 'reference', not {engine!r}")
    if engine == "reference":
        return engine
    why = kernel_supports(rules, out_of_turn)
    if why is None:
        return "kernel"
    if engine == "kernel":
        raise ValueError(f"engine='kernel' cannot run this environment: {why}")
    return "reference"


Obs = dict[str, npt.NDArray[Any]] | npt.NDArray[np.float32]


class raw_env(AECEnv[str, Obs, int]):
    """No Mercy (or classic) for 2-6 agents ``player_0`` … ``player_{n-1}``.

    Args:
        num_players: seats, 2-6.
        preset: ``"no-mercy"`` or ``"classic"``.
        options: rule options by RULES.md §6 name.
        illegal_action: ``"raise"`` (default): an illegal id raises
            :class:`IllegalActionIdError` naming the id and the engine's reason;
            ``"penalize"``: the agent gets ``illegal_reward`` and acts again (the game is
            unchanged, ``infos[agent]["illegal_action"]`` is ``True``).
        illegal_reward: the penalty in ``"penalize"`` mode.
        max_steps: truncate every agent after this many actions (``None``: never).
        out_of_turn: ``"to_act"`` (default) or ``"offered"``; see the module docstring.
        obs_format: ``"dict"`` (default): ``{"observation": vector, "action_mask": mask}``;
            ``"flat"``: the vector alone, each entry divided by its largest magnitude (a
            ``Box`` in [-1, 1]); the masks are then in ``infos[agent]["action_mask"]`` (kept
            current for every agent after each step) and :meth:`action_mask`.
        render_mode: ``None``; ``"ansi"``: ``render()`` returns the acting seat's view as
            text; ``"human"``: that text is printed after every ``reset()`` and ``step()``
            (and by ``render()``, which returns ``None``); ``"rgb_array"``: ``render()``
            returns a picture of that view (:func:`nomercy.rl._common.render_rgb`).
        engine: ``"auto"`` (default): the fast integer kernel (:mod:`nomercy.rl.kernel`) when
            it supports the rule set and ``out_of_turn``, else the reference engine;
            ``"kernel"``: the kernel or a ``ValueError`` saying why not; ``"reference"``:
            always :class:`~nomercy.core.game.Game`. Both give the same games, observations
            and rewards; :attr:`engine` tells which one runs.

    Rewards: when the game ends the winner gets +1 and every other agent −1. A seat knocked
    out by the Mercy rule (NM-33) is terminated at once with −1 (in a match with scoring on,
    a knocked-out seat rejoins at the next deal, so it is only terminated when the match
    ends). A truncated game gives 0.
    """

    metadata = {  # noqa: RUF012 (PettingZoo reads a class attribute)
        "name": "nomercy_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = 2,
        *,
        preset: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_steps: int | None = None,
        render_mode: str | None = None,
        out_of_turn: str = "to_act",
        engine: str = "auto",
        obs_format: str = "dict",
    ) -> None:
        super().__init__()
        self.out_of_turn = check_out_of_turn(out_of_turn)
        self.rules = make_ruleset(preset, options, num_players)
        self.engine = _pick_engine(engine, self.rules, self.out_of_turn)
        self.num_players = num_players
        self.illegal_action = check_illegal_mode(illegal_action)
        self.illegal_reward = float(illegal_reward)
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, not {max_steps!r}")
        self.max_steps = max_steps
        self.render_mode = check_render_mode(render_mode)
        self.possible_agents = [f"player_{s}" for s in range(num_players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._encoder = ObservationEncoder(self.rules, num_players)
        self.obs_format = check_obs_format(obs_format)
        self._flat = obs_format == "flat"
        # step() has more to do after a move only in these modes (checked once per step).
        self._after_steps = self._flat or render_mode == "human"
        self._scale = flat_scale(self._encoder)
        obs_space: spaces.Space[Any] = (
            flat_observation_space(self._encoder)
            if self._flat
            else observation_space(self._encoder)
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._tracker = PublicTracker(self.rules, num_players)
        self._seed_rng: np.random.Generator | None = None
        self._seed_base: int | None = None  # None: fresh entropy
        self._game: Game | None = None
        self._kernel = kernel_class()(self.rules, num_players) if self.engine == "kernel" else None
        #: ``"mypyc"`` (the compiled kernel), ``"python"`` or ``None`` (reference engine).
        self.kernel_build = (
            None
            if self._kernel is None
            else "mypyc"
            if type(self._kernel).__module__ == COMPILED_MODULE
            else "python"
        )
        self._started = False
        self._game_seed = 0
        self._history: list[int] = []  # kernel path: the ids taken, to rebuild `game`
        self._active = num_players  # kernel path: active seats when last settled
        self._rewarded = True  # kernel path: `rewards` may hold non-zero values
        self._ids: dict[int, Action] | None = None
        self._steps = 0
        self._decider = 0  # the seat whose decision agent_selection is (when it is live)
        self._declined: set[int] = set()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game. ``seed`` fixes the shuffle; without one a fresh seed is drawn
        from a generator that the last explicit seed started."""
        if seed is not None:
            # The generator for later unseeded resets starts from this seed; it is built on
            # the first unseeded reset (building one costs as much as a few steps).
            self._seed_rng = None
            self._seed_base = seed
            game_seed = int(seed)
        else:
            if self._seed_rng is None:
                base = self._seed_base
                if base is not None and base < 0:  # numpy takes non-negative seeds only
                    base &= (1 << 128) - 1
                self._seed_rng = np.random.default_rng(base)
            game_seed = int(self._seed_rng.integers(0, 2**63))
        self._game_seed = game_seed
        if self._kernel is not None:
            self._started = False  # until the deal succeeds (it may refuse, NM-4)
            self._game = None
            self._kernel.reset(game_seed)
            self._started = True
            self._history = []
        else:
            self._started = False  # until the deal succeeds (it may refuse, NM-4)
            self._game = None
            self._game = new_game(self.num_players, rules=self.rules, seed=game_seed)
            self._started = True
            start_tracking(self._game, self._tracker)
        self._steps = 0
        self._ids = None
        self._active = self.num_players
        self._rewarded = True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._was_out = [False] * self.num_players
        self._declined = set()
        self._choose_decider()
        if self._flat:
            self._publish_masks()
        if self.render_mode == "human":
            self.render()

    @property
    def game(self) -> Game | None:
        """The game as a reference :class:`~nomercy.core.game.Game` (``None`` before
        ``reset()``). On the kernel path it is a copy rebuilt from the seed and the ids taken
        so far, for inspection: changing it does not change the environment."""
        if self._kernel is None:
            return self._game
        replayed = self._replayed()
        return None if replayed is None else replayed.copy()

    def _replayed(self) -> Game | None:
        """Kernel path: the reference game of the current state (kept, caught up on demand)."""
        if not self._started:
            return None
        game = self._game
        history = self._history
        if game is None or len(game.history) > len(history):
            game = self._game = new_game(self.num_players, rules=self.rules, seed=self._game_seed)
        n = self.num_players
        for action_id in history[len(game.history) :]:
            seat = game.to_act
            assert seat is not None
            game.apply(id_to_action(action_id, seat, n))
        return game

    def _choose_decider(self) -> None:
        """Point ``agent_selection`` at the seat to decide next (module docstring)."""
        kernel = self._kernel
        if kernel is not None:
            self._decider = kernel.turn
            self.agent_selection = self.possible_agents[kernel.turn]
            return
        game = self._require_game()
        decider = next_decider(game, self.out_of_turn == "offered", self._declined)
        self._decider = decider
        self.agent_selection = self.possible_agents[decider]

    def _legal(self) -> dict[int, Action]:
        ids = self._ids
        if ids is None:
            game = self._require_game()
            seat = self._decider
            ids = legal_id_map(game, seat)
            if seat != game.to_act:
                ids[PASS_ID] = _DECLINE
            self._ids = ids
        return ids

    def _require_game(self) -> Game:
        game = self._game if self._kernel is None else self._replayed()
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return game

    def observe(self, agent: str) -> Obs:
        """The agent's observation vector and action mask (zeros unless it is to act); with
        ``obs_format="flat"`` the scaled vector alone."""
        if self._flat:
            return self._vector(agent) * self._scale
        kernel = self._kernel
        if kernel is not None and self._started:
            return self._observe_kernel(kernel, agent)
        return self._observe_reference(agent)

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        """The agent's legal-action mask now: its legal ids if it is the seat to act (or is
        offered an out-of-turn action), else zeros. The same in both ``obs_format``s."""
        kernel = self._kernel
        if kernel is not None and self._started:
            return self._kernel_mask(kernel, agent, None)
        return self._reference_mask(self._require_game(), agent)

    def _vector(self, agent: str) -> npt.NDArray[np.float32]:
        kernel = self._kernel
        if kernel is not None and self._started:
            return np.frombuffer(kernel.observation(self._seat[agent]), _F32)
        game = self._require_game()
        view = game.view(self._seat[agent], history=False)
        return self._encoder.encode(view, self._tracker.void)

    def _publish_masks(self) -> None:
        """``obs_format="flat"``: every agent's current mask into its ``infos`` entry."""
        for agent in self.agents:
            self.infos[agent]["action_mask"] = self.action_mask(agent)

    # The mask belongs to the seat to decide, not to agent_selection: while a knocked-out
    # agent waits for its step(None), the live seat's mask must not change.
    def _reference_mask(self, game: Game, agent: str) -> npt.NDArray[np.int8]:
        if (
            self._seat[agent] == self._decider
            and not game.is_over
            and not (self.terminations.get(agent, True) or self.truncations.get(agent, True))
        ):
            return mask_of(self._legal())
        return _NO_MASK.copy()

    def _kernel_mask(self, kernel: Kernel, agent: str, dead: bool | None) -> npt.NDArray[np.int8]:
        if dead is None:
            dead = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        if self._seat[agent] == self._decider and not dead and kernel.phase != _KERNEL_OVER:
            buf = bytearray(NUM_ACTIONS)
            for i in kernel.legal():
                buf[i] = 1
            return np.frombuffer(buf, _I8)
        return _NO_MASK.copy()

    def _observe_reference(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        game = self._require_game()
        seat = self._seat[agent]
        obs = self._encoder.encode(game.view(seat, history=False), self._tracker.void)
        return {"observation": obs, "action_mask": self._reference_mask(game, agent)}

    def _observe_kernel(
        self, kernel: Kernel, agent: str, dead: bool | None = None
    ) -> dict[str, npt.NDArray[Any]]:
        obs = np.frombuffer(kernel.observation(self._seat[agent]), _F32)
        # _kernel_mask inlined: this runs at every last() of the kernel path.
        if dead is None:
            dead = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        if self._seat[agent] == self._decider and not dead and kernel.phase != _KERNEL_OVER:
            buf = bytearray(NUM_ACTIONS)
            for i in kernel.legal():
                buf[i] = 1
            mask = np.frombuffer(buf, _I8)
        else:
            mask = _NO_MASK.copy()
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Obs | None, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``: the acting agent's observation, cumulative reward, flags, info."""
        agent = self.agent_selection
        kernel = self._kernel
        terminated = self.terminations[agent]
        truncated = self.truncations[agent]
        obs: Obs | None
        if not observe:
            obs = None
        elif kernel is not None and self._started and not self._flat:
            obs = self._observe_kernel(kernel, agent, terminated or truncated)
        else:
            obs = self.observe(agent)
        return obs, self._cumulative_rewards[agent], terminated, truncated, self.infos[agent]

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """``AECEnv.agent_iter``: yields ``agent_selection`` until no agent is left (or
        ``max_iter`` agents); a generator, which costs less per step than PettingZoo's
        ``AECIterator`` class."""
        while self.agents and max_iter > 0:
            max_iter -= 1
            yield self.agent_selection

    def step(self, action: int | None) -> None:
        """Take ``action`` (an id) for ``agent_selection``; ``None`` for a finished agent."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        kernel = self._kernel
        if kernel is not None:  # the kernel path, with the common case kept short
            self._cumulative_rewards[agent] = 0.0
            if self._rewarded:  # rewards are non-zero only after a knock-out, end, penalty
                self._clear_rewards()
                self._rewarded = False
            action_id = action
            if type(action_id) is not int:
                if isinstance(action, np.integer):
                    action_id = int(action)
                elif not isinstance(action, int) or isinstance(action, bool):
                    action_id = -1
            if action_id not in kernel.legal():
                self._refuse(agent, action)
                return
            if self.infos[agent]:
                self.infos[agent] = {}
            kernel.apply(action_id)
            self._history.append(action_id)
            self._steps += 1
            if (
                kernel.n_active == self._active
                and kernel.phase != _KERNEL_OVER
                and self.max_steps is None
            ):
                turn = kernel.turn
                self._decider = turn
                self.agent_selection = self.possible_agents[turn]
                if self._after_steps:
                    self._after_step()
                return
            self._active = kernel.n_active
            self._rewarded = True
            self._settle()
            self._accumulate_rewards()
            if self._after_steps:
                self._after_step()
            return
        game = self._require_game()
        seat = self._seat[agent]
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        chosen = None
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            chosen = self._legal().get(int(action))
        if chosen is None:
            why = explain_illegal(game, seat, action, agent)
            if self.illegal_action == "raise":
                raise IllegalActionIdError(why)
            self.rewards[agent] = self.illegal_reward
            self.infos[agent] = {"illegal_action": True, "reason": why}
            self._accumulate_rewards()
            if self._flat:
                self._publish_masks()
            return
        if self.infos[agent]:
            self.infos[agent] = {}
        self._ids = None
        if chosen is _DECLINE:
            self._declined.add(seat)
        else:
            apply_tracked(game, chosen, self._tracker)
            kind = type(chosen)
            if kind is not CallUno and kind is not Catch:
                self._declined.clear()  # an in-turn action or a jump-in: new chances for all
        self._steps += 1
        self._settle()
        self._accumulate_rewards()
        if self._after_steps:
            self._after_step()

    def _after_step(self) -> None:
        """After a step that changed the game: publish the masks (``obs_format="flat"``),
        print the view (``render_mode="human"``). A dead agent's ``step(None)`` changes
        neither: the masks belong to the seat to act."""
        if self._flat and self.agents:
            self._publish_masks()
        if self.render_mode == "human":
            self.render()

    def _refuse(self, agent: str, action: Any) -> None:
        """An illegal id on the kernel path: raise, or penalise (the game is unchanged)."""
        why = explain_illegal(self._require_game(), self._seat[agent], action, agent)
        if self.illegal_action == "raise":
            raise IllegalActionIdError(why)
        self.rewards[agent] = self.illegal_reward
        self._rewarded = True
        self.infos[agent] = {"illegal_action": True, "reason": why}
        self._accumulate_rewards()
        if self._flat:
            self._publish_masks()

    def _settle(self) -> None:
        """Rewards, terminations and the next agent after a step."""
        kernel = self._kernel
        state: Game | Kernel = self._require_game() if kernel is None else kernel
        scoring = kernel is None and self.rules.scoring_enabled
        agents = self.possible_agents
        dead = False
        over = state.is_over
        if not scoring and not over:
            out = state.out
            for s in range(self.num_players):
                if out[s] and not self._was_out[s]:
                    self._was_out[s] = True
                    self.rewards[agents[s]] = -1.0
                    self.terminations[agents[s]] = True
                    dead = True
        if over:
            winner = state.winner
            for a in self.agents:
                if not self.terminations[a]:
                    self.rewards[a] = 1.0 if self._seat[a] == winner else -1.0
                    self.terminations[a] = True
            return
        self._choose_decider()
        if self.max_steps is not None and self._steps >= self.max_steps:
            for a in self.agents:
                self.truncations[a] = True
            return
        if dead:
            self._deads_step_first()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The acting seat's view (the spectator's once the game is over): text for
        ``"ansi"``, printed for ``"human"`` (returns ``None``), a picture for ``"rgb_array"``;
        ``None`` without a render mode."""
        if self.render_mode is None:
            return None
        game = self._require_game()
        return render(game.view(game.to_act, history=False), self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> raw_env:
    """The environment (same arguments as :class:`raw_env`).

    No PettingZoo wrapper is added: :class:`raw_env` already refuses to step or observe
    before ``reset()``, clips nothing (illegal ids raise or are penalised, see
    ``illegal_action``), and ``OrderEnforcingWrapper``'s attribute forwarding costs 10-15%
    of a random-play step. Wrap it yourself if you want PettingZoo's wrappers.
    """
    return raw_env(**kwargs)
