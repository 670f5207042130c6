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
from typing import Any, overload

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec, turn_based_aec_to_parallel

from nomercy.core.dealing import DEAL_VERSION
from nomercy.core.game import Game, new_game
from nomercy.core.ids import ID_KIND, K_CATCH, K_UNO
from nomercy.encoding.actions import NUM_ACTIONS, PASS_ID
from nomercy.encoding.fast import TableObserver, TurnCore
from nomercy.encoding.observations import ObservationEncoder, flat_scale
from nomercy.rl._common import (
    IllegalActionIdError,
    LegalDiscrete,
    as_int,
    check_env_deal_version,
    check_flat_bounds,
    check_illegal_mode,
    check_illegal_reward,
    check_max_steps,
    check_obs_format,
    check_out_of_turn,
    check_render_mode,
    check_reward,
    check_seed,
    draw_game_seed,
    end_rewards,
    explain_illegal,
    flat_observation_space,
    hand_rewards,
    make_ruleset,
    next_decider,
    observation_space,
    outcome_info,
    render,
)

__all__ = ["env", "parallel_env", "raw_env"]

ENGINES = ("auto", "reference")


def _check_engine(engine: str) -> str:
    if engine == "kernel":
        raise ValueError(
            "engine='kernel' is gone: the separate RL kernel was retired and every "
            "environment runs on the one rules engine, nomercy.core (docs/rl.md#speed)"
        )
    if engine not in ENGINES:
        raise ValueError(f"engine must be 'auto' or 'reference', not {engine!r}")
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
            ``"flat"``: the vector alone, each entry divided by a bound (``flat_bounds``; a
            ``Box`` in [-1, 1]); the masks are then in ``infos[agent]["action_mask"]`` (kept
            current for every agent after each step) and :meth:`action_mask`.
        flat_bounds: the ``"flat"`` divisors: ``"fixed"`` (default), the same for every
            preset and option set; ``"rules"``, each entry's bound under this rule set (the
            scaling before version 2, which the shipped ``neural`` bot was trained on).
        render_mode: ``None``; ``"ansi"``: ``render()`` returns the acting seat's view as
            text; ``"human"``: that text is printed after every ``reset()`` and ``step()``
            (and by ``render()``, which returns ``None``); ``"rgb_array"``: ``render()``
            returns a picture of that view (:func:`nomercy.rl._common.render_rgb`).
        engine: ``"auto"`` (default) or ``"reference"``, the same thing: the game runs on
            :class:`~nomercy.core.game.Game` (compiled when the core's compiled build is
            installed, ``nomercy --version`` says). Kept for compatibility; ``"kernel"``
            (the retired RL kernel) is a ``ValueError``.
        reward: ``"win_loss"`` (default): when the game ends the winner gets +1 and every
            other agent −1; ``"points"``: the winner gets the points the hand is worth
            (NM-40/CL-13) / ``points_scale``, every other agent still in minus its own card
            points / ``points_scale``; in a match (scoring on) so at the end of every hand.
        points_scale: the divisor of ``"points"`` rewards.
        knockout_bonus: added to every agent still in when another is knocked out.
        deal_version: the generator of every deal's shuffles, as :func:`nomercy.new_game`
            (docs/notation.md, "Deal versions"): 1 (default: a seed deals the games it
            always has) or 2 (cheaper deals compiled: docs/rl.md, "Speed").

    A seat knocked out by the Mercy rule (NM-33) is terminated at once with −1 in either
    scheme (in a match with scoring on, a knocked-out seat rejoins at the next deal, so it is
    only terminated when the match ends). A truncated game gives 0. When an agent's episode
    ends its info holds the outcome (:func:`nomercy.rl._common.outcome_info`).

    ``action_space(agent).sample()`` without a mask draws one of the agent's legal ids
    (:class:`~nomercy.rl._common.LegalDiscrete`), so checkers that sample blindly play legal
    games. ``state()`` is every seat's observation vector, concatenated (``state_space``).
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
        reward: str = "win_loss",
        points_scale: float = 100.0,
        knockout_bonus: float = 0.0,
        flat_bounds: str = "fixed",
        deal_version: int = DEAL_VERSION,
    ) -> None:
        super().__init__()
        #: The deal version of every game this env deals (``deal_version``).
        self.deal_version = check_env_deal_version(deal_version)
        self.reward = check_reward(reward, points_scale, knockout_bonus)
        self.points_scale = float(points_scale)
        self.knockout_bonus = float(knockout_bonus)
        self.out_of_turn = check_out_of_turn(out_of_turn)
        self.rules = make_ruleset(preset, options, num_players)
        self.engine = _check_engine(engine)
        self.num_players = num_players
        self.illegal_action = check_illegal_mode(illegal_action)
        self.illegal_reward = check_illegal_reward(illegal_reward)
        self.max_steps = check_max_steps(max_steps)
        self.render_mode = check_render_mode(render_mode)
        self.possible_agents = [f"player_{s}" for s in range(num_players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._encoder = ObservationEncoder(self.rules, num_players)
        self.obs_format = check_obs_format(obs_format)
        self._flat = obs_format == "flat"
        # step() has more to do after a move only in these modes (checked once per step).
        self._after_steps = self._flat or render_mode == "human"
        self.flat_bounds = check_flat_bounds(flat_bounds)
        self._scale = flat_scale(self._encoder, flat_bounds)
        obs_space: spaces.Space[Any] = (
            flat_observation_space(self._encoder, flat_bounds)
            if self._flat
            else observation_space(self._encoder)
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces: dict[str, spaces.Space[Any]] = {}
        self._attach_masks()
        unit = obs_space
        if isinstance(obs_space, spaces.Dict):
            unit = obs_space["observation"]
        assert isinstance(unit, spaces.Box)
        self.state_space = spaces.Box(
            np.tile(unit.low, num_players), np.tile(unit.high, num_players), dtype=np.float32
        )
        self._seed_rng: np.random.Generator | None = None
        self._seed_base: int | None = None  # None: fresh entropy
        #: Always ``None``: the RL kernel this named is retired (kept for compatibility).
        self.kernel_build: str | None = None
        self._started = False
        self._game_seed = 0
        self._rewarded = True  # `rewards` may hold non-zero values
        # step()'s short path needs no _settle(): turn-taking, no truncation, no scoring.
        # reward="points" in a match: every hand's points when the hand ends.
        self._per_hand = self.reward == "points" and self.rules.scoring_enabled
        self._plain = (
            self.out_of_turn == "to_act" and max_steps is None and not self.rules.scoring_enabled
        )
        self._observer = TableObserver(self.rules, num_players, events=self._per_hand)
        # The game, the decider and its legal ids, in compiled code (the properties below).
        self._core = TurnCore(self._observer)
        self._steps = 0
        self._declined: set[int] = set()

    # The game and the decision state live in the compiled TurnCore; these read and write it.
    @property
    def _game(self) -> Game | None:
        return self._core.game

    @_game.setter
    def _game(self, game: Game | None) -> None:
        self._core.game = game

    @property
    def _decider(self) -> int:
        """The seat whose decision ``agent_selection`` is (when it is live)."""
        return self._core.decider

    @_decider.setter
    def _decider(self, seat: int) -> None:
        self._core.decider = seat

    @property
    def _ids(self) -> list[int] | None:
        """The decider's legal ids (``None``: not computed yet in this state); on an offered
        out-of-turn decision, ``PASS_ID`` (last) lets the chance go."""
        return self._core.ids

    @_ids.setter
    def _ids(self, ids: list[int] | None) -> None:
        self._core.ids = ids

    @property
    def _offered(self) -> bool:
        return self._core.offered

    def _attach_masks(self) -> None:
        """Action spaces whose blind ``sample()`` draws the agent's legal ids."""
        self.action_spaces = {
            a: LegalDiscrete(NUM_ACTIONS, self._sample_mask(a)) for a in self.possible_agents
        }

    def _sample_mask(self, agent: str) -> Any:
        def masks() -> npt.NDArray[np.int8] | None:
            if self._game is None or agent not in getattr(self, "terminations", {}):
                return None
            return self.action_mask(agent)

        return masks

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickling and deepcopy turn the action spaces into plain Discrete ones (they must not
        # carry the env along): give them their masks back.
        self.__dict__.update(state)
        self._attach_masks()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game. ``seed`` fixes the shuffle (with :attr:`deal_version`); without
        one a fresh seed is drawn from a generator that the last explicit seed started."""
        seed = check_seed(seed)
        if seed is not None:
            # The generator for later unseeded resets starts from this seed; it is built on
            # the first unseeded reset (building one costs as much as a few steps).
            self._seed_rng = None
            self._seed_base = seed
            game_seed = seed
        else:
            if self._seed_rng is None:
                base = self._seed_base
                if base is not None and base < 0:  # numpy takes non-negative seeds only
                    base &= (1 << 128) - 1
                self._seed_rng = np.random.default_rng(base)
            game_seed = draw_game_seed(self._seed_rng)
        self._game_seed = game_seed
        self._started = False  # until the deal succeeds (it may refuse, NM-4)
        self._game = None
        self._game = new_game(
            self.num_players, rules=self.rules, seed=game_seed, deal_version=self.deal_version
        )
        self._started = True
        self._observer.start(self._game)
        self._steps = 0
        self._ids = None
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
        """The environment's :class:`~nomercy.core.game.Game` (``None`` before ``reset()``).
        Read it; changing it changes the environment. It runs with ``record_events`` off
        unless the rules need events for the observation or the rewards (docs/rl.md,
        "Speed"): its ``log`` may then stay empty; ``history`` holds every action."""
        return self._game

    def _not_playing(self) -> RuntimeError:
        """The error of ``step``/``last``/``agent_iter`` before ``reset()`` or once every agent
        is done (PettingZoo's reset-before-use, which this env enforces itself)."""
        if not hasattr(self, "agent_selection"):
            return RuntimeError("call reset() before using the environment")
        return RuntimeError("every agent is done: call reset() to play again")

    def _choose_decider(self) -> None:
        """Point ``agent_selection`` at the seat to decide next (module docstring)."""
        game = self._require_game()
        decider = next_decider(game, self.out_of_turn == "offered", self._declined)
        self._decider = decider
        self.agent_selection = self.possible_agents[decider]

    def _legal(self) -> list[int]:
        return self._core.legal()

    def _require_game(self) -> Game:
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return game

    def observe(self, agent: str) -> Obs:
        """The agent's observation vector and action mask (zeros unless it is to act); with
        ``obs_format="flat"`` the scaled vector alone."""
        if self._flat:
            return self._vector(agent) * self._scale
        return {"observation": self._vector(agent), "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        """The agent's legal-action mask now: its legal ids if it is the seat to act (or is
        offered an out-of-turn action), else zeros. The same in both ``obs_format``s."""
        # The mask belongs to the seat to decide, not to agent_selection: while a knocked-out
        # agent waits for its step(None), the live seat's mask must not change.
        self._require_game()  # before reset(): say so
        dead = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        return self._core.mask(self._seat[agent], dead)

    @property
    def steps(self) -> int:
        """Steps taken in this game (illegal ids in ``"penalize"`` mode count)."""
        return self._steps

    @property
    def flat_scale(self) -> npt.NDArray[np.float32]:
        """The factors from the Dict format's vector to the ``"flat"`` one."""
        return self._scale

    def raw_vector(self, agent: str) -> npt.NDArray[np.float32]:
        """The agent's observation vector, unscaled (the Dict format's ``"observation"``)."""
        return self._vector(agent)

    def state(self) -> npt.NDArray[np.float32]:
        """The full state for a centralised critic: every seat's observation vector (so every
        hand), seat 0 first, in the observation format's scale. Never give it to a policy:
        it holds the other seats' cards."""
        game = self._require_game()
        parts = [self._observer.vector(game, s) for s in range(self.num_players)]
        out = np.concatenate(parts)
        if self._flat:
            out *= np.tile(self._scale, self.num_players)
        return out

    def _vector(self, agent: str) -> npt.NDArray[np.float32]:
        return self._observer.vector(self._require_game(), self._seat[agent])

    def _publish_masks(self) -> None:
        """``obs_format="flat"``: every agent's current mask into its ``infos`` entry."""
        for agent in self.agents:
            self.infos[agent]["action_mask"] = self.action_mask(agent)

    def last(self, observe: bool = True) -> tuple[Obs | None, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``: the acting agent's observation, cumulative reward, flags, info."""
        try:  # free in the common case; before reset() or after the end, say so
            agent = self.agent_selection
            terminated = self.terminations[agent]
            truncated = self.truncations[agent]
        except (AttributeError, KeyError):
            raise self._not_playing() from None
        obs: Obs | None
        if not observe:
            obs = None
        elif self._flat:
            obs = self.observe(agent)
        else:
            obs = self._core.observe(self._seat[agent], terminated or truncated)
        return obs, self._cumulative_rewards[agent], terminated, truncated, self.infos[agent]

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """``AECEnv.agent_iter``: yields ``agent_selection`` until no agent is left (or
        ``max_iter`` agents); a generator, which costs less per step than PettingZoo's
        ``AECIterator`` class."""
        if not hasattr(self, "agents"):
            raise self._not_playing()
        while self.agents and max_iter > 0:
            max_iter -= 1
            yield self.agent_selection

    def step(self, action: int | None) -> None:
        """Take ``action`` (an id) for ``agent_selection``; ``None`` for a finished agent."""
        try:  # free in the common case; before reset() or after the end, say so
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            raise self._not_playing() from None
        if dead:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # rewards are non-zero only after a knock-out, the end, a penalty
            self._clear_rewards()
            self._rewarded = False
        if self._plain:
            # Turn-taking without scoring (nobody is offered or declines a chance): the
            # compiled core takes a legal int id, and says who decides next.
            if type(action) is not int:
                found = as_int(action)  # numpy integers, 0-d integer arrays
                action = found if found is not None else action
            turn = self._core.step(action)  # no game: -2, and _refuse raises
            if turn != -2:
                if self.infos[agent]:
                    self.infos[agent] = {}
                self._steps += 1
                if turn >= 0:  # the common case: nobody out or rewarded
                    self.agent_selection = self.possible_agents[turn]
                else:
                    self._finish_step()
                    return
                if self._after_steps:
                    self._after_step()
                return
            self._refuse(agent, action)
            return
        self._step_offered(agent, action)

    def _step_offered(self, agent: str, action: Any) -> None:
        """:meth:`step` where out-of-turn chances are offered, or with scoring or a step limit."""
        game = self._require_game()
        found = as_int(action)
        aid = found if found is not None and found in self._legal() else -1
        if aid < 0:
            self._refuse(agent, action)
            return
        if self.infos[agent]:
            self.infos[agent] = {}
        self._ids = None
        seat = self._decider
        if self._offered and aid == PASS_ID:  # lets the out-of-turn chance go
            self._declined.add(seat)
        else:
            if self._per_hand:
                events = self._observer.step_events(game, aid, seat)
                per_hand = hand_rewards(events, self.num_players, self.points_scale)
                if per_hand is not None:
                    for s, r in enumerate(per_hand):
                        if r:
                            self.rewards[self.possible_agents[s]] += r
            else:
                self._observer.step(game, aid, seat)
            if self._declined:
                kind = ID_KIND[aid]
                if kind != K_UNO and kind != K_CATCH:
                    self._declined.clear()  # an in-turn action or a jump-in: new chances
        self._steps += 1
        self._finish_step()

    def _finish_step(self) -> None:
        """After a step that needs settling: rewards, terminations, the next decider."""
        self._rewarded = True
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
        """An illegal id: raise, or penalise (the game is unchanged)."""
        why = explain_illegal(self._require_game(), self._seat[agent], action, agent)
        if self.illegal_action == "raise":
            raise IllegalActionIdError(why)
        self.rewards[agent] = self.illegal_reward
        self._rewarded = True
        self.infos[agent] = {"illegal_action": True, "reason": why}
        self._steps += 1  # an illegal step counts towards max_steps
        if self.max_steps is not None and self._steps >= self.max_steps:
            game = self._require_game()
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a].update(outcome_info(game, self._steps))
        self._accumulate_rewards()
        if self._flat:
            self._publish_masks()

    def _settle(self) -> None:
        """Rewards, terminations and the next agent after a step."""
        state = self._require_game()
        scoring = self.rules.scoring_enabled
        agents = self.possible_agents
        dead = False
        over = state.is_over
        if not scoring:
            out = state.out
            bonus = self.knockout_bonus
            knocked = [s for s in range(self.num_players) if out[s] and not self._was_out[s]]
            for s in knocked:
                self._was_out[s] = True
                self.rewards[agents[s]] = -1.0
                self.terminations[agents[s]] = True
                dead = True
            if knocked and bonus:
                for s in range(self.num_players):
                    if not out[s]:
                        self.rewards[agents[s]] += bonus * len(knocked)
            if dead and not over:
                info = outcome_info(state, self._steps)
                for s in knocked:
                    self.infos[agents[s]].update(info)
        if over:
            # Per-hand points (a match) came with each hand's end, the last one included.
            ends = (
                [0.0] * self.num_players
                if self._per_hand
                else end_rewards(state, self.reward, self.points_scale)
            )
            info = outcome_info(state, self._steps)
            for a in self.agents:
                if not self.terminations[a] or not self._was_out[self._seat[a]]:
                    self.rewards[a] += ends[self._seat[a]]
                    self.terminations[a] = True
                self.infos[a].update(info)
            return
        self._choose_decider()
        if self.max_steps is not None and self._steps >= self.max_steps:
            info = outcome_info(state, self._steps)
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a].update(info)
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


@overload
def env(*, max_cycles: None = None, **kwargs: Any) -> raw_env: ...


@overload
def env(*, max_cycles: int, **kwargs: Any) -> AECEnv[str, Obs, int]: ...


def env(*, max_cycles: int | None = None, **kwargs: Any) -> AECEnv[str, Obs, int]:
    """The environment (same arguments as :class:`raw_env`, plus ``max_cycles``).

    No PettingZoo wrapper is added: :class:`raw_env` already refuses to step or observe
    before ``reset()``, clips nothing (illegal ids raise or are penalised, see
    ``illegal_action``), and ``OrderEnforcingWrapper``'s attribute forwarding costs 10-15%
    of a random-play step. Wrap it yourself if you want PettingZoo's wrappers.

    ``max_cycles`` counts cycles as PettingZoo means them, each live agent acting once per
    cycle (``max_cycles_test``): in this turn-based game that is :func:`parallel_env`, where
    a cycle is one game step, seen as an AEC env through PettingZoo's ``parallel_to_aec``:
    every live agent is selected once per cycle, the one to act's action is played and the
    others' are ignored, and every agent is truncated after ``max_cycles`` cycles. Without
    it (the default) the env is :class:`raw_env`, whose ``max_steps`` counts its steps.
    """
    if max_cycles is None:
        return raw_env(**kwargs)
    return parallel_to_aec(parallel_env(max_cycles=max_cycles, **kwargs))


def parallel_env(*, max_cycles: int | None = None, **kwargs: Any) -> ParallelEnv[str, Obs, int]:
    """The environment as a PettingZoo ``ParallelEnv`` (same arguments as :class:`raw_env`):
    PettingZoo's ``turn_based_aec_to_parallel``, so one parallel step is one game step. Every
    live agent gets an action; only the one to act (the one whose mask is not all zeros) is
    used. ``state()`` and ``state_space`` are the AEC env's. ``max_cycles`` (PettingZoo's
    name) truncates every agent after that many parallel steps: ``max_steps`` by its other
    name (give one of the two)."""
    if max_cycles is not None:
        if kwargs.get("max_steps") is not None:
            raise ValueError("give max_cycles or max_steps, not both (here they are one limit)")
        kwargs["max_steps"] = _check_max_cycles(max_cycles)
    return turn_based_aec_to_parallel(raw_env(**kwargs))


def _check_max_cycles(max_cycles: int) -> int:
    """A positive number of cycles."""
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1:
        raise ValueError(f"max_cycles must be a positive integer or None, not {max_cycles!r}")
    return max_cycles
