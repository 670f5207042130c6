"""Pieces shared by the PettingZoo and Gymnasium environments."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from nomercy.core.actions import Action
from nomercy.core.dealing import check_deal_version
from nomercy.core.decisions import decision_order
from nomercy.core.errors import ActionIdError, IllegalActionError
from nomercy.core.events import Event, EventKind
from nomercy.core.game import Game
from nomercy.core.rules import RuleSet, make_rules
from nomercy.core.views import PlayerView
from nomercy.encoding.actions import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    action_name,
    id_to_action,
)
from nomercy.encoding.observations import (
    FLAT_BOUNDS,
    OBS_SIZE,
    ObservationEncoder,
    PublicTracker,
    flat_scale,
)

ILLEGAL_MODES = ("raise", "penalize")


class IllegalActionIdError(ValueError):
    """An environment was given an action id that is not legal now; the message says why."""


def make_ruleset(preset: str, options: Mapping[str, Any] | None, n: int) -> RuleSet:
    """The rule set for an environment, checking the player count against the id table."""
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"the environments seat 2-{MAX_PLAYERS} players, not {n!r}")
    rules = make_rules(preset, options)
    if not rules.min_players <= n <= rules.max_players:
        raise ValueError(
            f"{n} players is outside {rules.min_players}-{rules.max_players} for preset "
            f"{rules.preset!r}"
        )
    return rules


def check_learner_seat(seat: int | None, n: int) -> int | None:
    """``None`` (a seat drawn at every reset) or a seat of an ``n``-seat table (a numpy
    integer is read as its int)."""
    if seat is None:
        return None
    found = as_int(seat)
    if found is None or not 0 <= found < n:
        raise ValueError(f"learner_seat must be None or a seat 0..{n - 1}, not {seat!r}")
    return found


def check_illegal_reward(reward: float) -> float:
    """The penalty of an illegal id in ``"penalize"`` mode: a finite number."""
    if isinstance(reward, bool) or not (
        isinstance(reward, (int, float, np.integer, np.floating)) and math.isfinite(reward)
    ):
        raise ValueError(f"illegal_reward must be a finite number, not {reward!r}")
    return float(reward)


def check_seed(seed: object) -> int | None:
    """A reset's seed: ``None`` or an integer (a numpy integer is read as its int); a float or
    a string would be truncated or fail later, so it is refused here."""
    if seed is None:
        return None
    found = as_int(seed)
    if found is None:
        raise TypeError(f"seed must be an integer or None, not {seed!r}")
    return found


def _raw_game_seeds_match() -> bool:
    """Whether ``rng.integers(0, 2**63)`` is a PCG64 generator's next raw 64 bits shifted
    right once, as numpy's bounded draw (Lemire's, whose power-of-two range never rejects)
    gives them, this numpy checked on a few states, with 31-bit draws between (those keep
    half a raw draw for later; the 64-bit draws never touch it)."""
    ours = np.random.Generator(np.random.PCG64(20261207))
    theirs = np.random.Generator(np.random.PCG64(20261207))
    for _ in range(16):
        if int(ours.integers(0, 2**31)) != int(theirs.integers(0, 2**31)):
            return False  # pragma: no cover
        if int(ours.integers(0, 2**63)) != int(theirs.bit_generator.random_raw()) >> 1:
            return False  # pragma: no cover
    return True


_RAW_GAME_SEEDS = _raw_game_seeds_match()


def draw_game_seed(rng: np.random.Generator) -> int:
    """``int(rng.integers(0, 2**63))``, the envs' draw of a game's seed, the same number in
    one cheap call for Gymnasium's usual PCG64 generator (``integers`` parses its arguments
    for ~1.5 us, a reset's largest share after the deal and the bots' seeding); any other
    bit generator, or a numpy that draws otherwise, takes ``integers`` itself."""
    bits = rng.bit_generator
    if _RAW_GAME_SEEDS and type(bits) is np.random.PCG64:
        return int(bits.random_raw()) >> 1
    return int(rng.integers(0, 2**63))


def check_env_deal_version(version: object) -> int:
    """The deal version an environment deals its games with (docs/notation.md, "Deal
    versions"; 1 by default, so a seed deals the episodes it always has), checked by the
    core's own check; a numpy integer is read as its int, as seeds and seats are.

    Raises:
        TypeError: not an integer (a bool, a float, a string).
        RuleSetError: an integer that is not a deal version (a ``ValueError``).
    """
    found = as_int(version)
    return check_deal_version(version if found is None else found)


def check_max_steps(max_steps: int | None) -> int | None:
    """``None`` (never truncate) or a positive number of steps."""
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
    ):
        raise ValueError(f"max_steps must be a positive integer or None, not {max_steps!r}")
    return max_steps


def check_illegal_mode(mode: str) -> str:
    if mode not in ILLEGAL_MODES:
        raise ValueError(f"illegal_action must be 'raise' or 'penalize', not {mode!r}")
    return mode


def observation_space(encoder: ObservationEncoder) -> spaces.Dict:
    """``{"observation": Box, "action_mask": Box(0, 1, int8)}`` for an encoder's rule set."""
    return spaces.Dict(
        {
            "observation": spaces.Box(encoder.low, encoder.high, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )


OBS_FORMATS = ("dict", "flat")


def check_flat_bounds(bounds: str) -> str:
    if bounds not in FLAT_BOUNDS:
        raise ValueError(f"flat_bounds must be 'fixed' or 'rules', not {bounds!r}")
    return bounds


def check_obs_format(obs_format: str) -> str:
    if obs_format not in OBS_FORMATS:
        raise ValueError(f"obs_format must be 'dict' or 'flat', not {obs_format!r}")
    return obs_format


def flat_observation_space(encoder: ObservationEncoder, bounds: str = "fixed") -> spaces.Box:
    """The ``"flat"`` observation: the vector scaled by :func:`flat_scale`, no mask."""
    scale = flat_scale(encoder, bounds)
    low = (encoder.low * scale).astype(np.float32)
    high = (encoder.high * scale).astype(np.float32)
    return spaces.Box(low, high, (OBS_SIZE,), np.float32)


def observation_format(
    encoder: ObservationEncoder, obs_format: str, bounds: str
) -> tuple[spaces.Space[Any], npt.NDArray[np.float32]]:
    """The observation space of ``NoMercy-v0`` (one table) in ``obs_format`` and the flat
    format's per-entry factors (:func:`~nomercy.encoding.observations.flat_scale`)."""
    check_obs_format(obs_format)
    space: spaces.Space[Any] = (
        flat_observation_space(encoder, bounds)
        if obs_format == "flat"
        else observation_space(encoder)
    )
    return space, flat_scale(encoder, check_flat_bounds(bounds))


def mask_of_ids(ids: list[int]) -> npt.NDArray[np.int8]:
    """A 0/1 ``int8`` mask of ``NUM_ACTIONS`` entries with 1 at each of ``ids``."""
    buf = bytearray(NUM_ACTIONS)  # a few ids: cheaper than numpy fancy indexing
    for i in ids:
        buf[i] = 1
    return np.frombuffer(buf, np.int8)


def as_int(action: object) -> int | None:
    """The integer ``action`` (an id, a seed, a seat) stands for: a Python ``int`` (not a
    ``bool``), a numpy integer, or a 0-d integer array (which the envs' ``action_space``
    contains); ``None`` for anything else (a float, a bool, a string, several values)."""
    if type(action) is int:
        return action
    if isinstance(action, bool):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if (
        isinstance(action, np.ndarray)
        and action.ndim == 0
        and np.issubdtype(action.dtype, np.integer)
    ):
        return int(action)
    return None


def explain_illegal(game: Game, seat: int, action_id: Any, who: str) -> str:
    """Why ``action_id`` is not legal for ``seat`` now, in words (the engine's reason)."""
    value = as_int(action_id)
    if value is None:
        return (
            f"{who}: {action_id!r} is not an action id: an integer 0..{NUM_ACTIONS - 1} "
            f"(a Python or numpy integer), not {type(action_id).__name__}"
        )
    try:
        action = id_to_action(value, seat, game.n)
    except ActionIdError as exc:
        return f"{who}: action id {value} is illegal: {exc}"
    probe = game.copy()
    try:
        probe.apply(action)
    except IllegalActionError as exc:
        name = action_name(value)
        if name != str(action):  # relative offsets or a jump-in: show the engine's notation
            name += f", i.e. '{action}'"
        return f"{who}: action id {value} ({name}) is illegal: {exc}"
    return f"{who}: action id {value} ({action_name(value)}) is not offered now"


OUT_OF_TURN_MODES = ("to_act", "offered")


def check_out_of_turn(mode: str) -> str:
    if mode not in OUT_OF_TURN_MODES:
        raise ValueError(f"out_of_turn must be 'to_act' or 'offered', not {mode!r}")
    return mode


def next_decider(game: Game, offered: bool, declined: set[int]) -> int:
    """The seat whose decision comes next (docs/rl.md, out-of-turn actions).

    Without ``offered``, the seat to act. With it, the first seat of the engine's
    :func:`~nomercy.core.decisions.decision_order` (the one order every interface asks in:
    seats that may call UNO, then the others, each from the seat after the seat to act on;
    the seat to act answers its own UNO call before anyone may catch it), leaving out the
    seats that let this chance go (``declined``).
    """
    turn = game.to_act
    assert turn is not None
    if not offered or not game.out_of_turn_possible():
        return turn  # nobody else has an action: the order is the seat to act alone
    return decision_order(game, lambda seat: seat not in declined)[0].seat


def apply_tracked(game: Game, action: Action, tracker: PublicTracker) -> list[Event]:
    """Apply ``action``, fold the step's public events into ``tracker`` and return them.

    Only public facts of the game go in: the active colour and the phase before and after.
    """
    colour = game.colour
    phase = game.phase._value_  # _value_: Enum.value is a slow descriptor on a hot path
    events = game.apply(action)
    tracker.update(
        events,
        colour=colour._value_ if colour is not None else None,
        phase=phase,
        next_phase=game.phase._value_,
    )
    return events


def hand_rewards(events: list[Event], n: int, points_scale: float) -> list[float] | None:
    """``reward="points"`` in a match with scoring on: each seat's reward for the hands that
    ended in ``events`` (``None`` if none did). The hand's winner gets the points the hand is
    worth (NM-40; with classic ``lowest_wins``, the others' card points), every other seat
    still in minus its own card points, each divided by ``points_scale``."""
    out: list[float] | None = None
    for event in events:
        if event.kind is not EventKind.HAND_END:
            continue
        data = event.data
        cards = {int(s): p for s, p in data["cards"].items()}
        if out is None:
            out = [0.0] * n
        out[data["winner"]] += data.get("points", sum(cards.values())) / points_scale
        for seat, p in cards.items():
            out[seat] -= p / points_scale
    return out


def start_tracking(game: Game, tracker: PublicTracker) -> None:
    """Reset ``tracker`` and fold in the deal's public events."""
    tracker.reset()
    tracker.update(game.opening_events, colour=None, phase="play", next_phase=game.phase.value)


def render_text(view: PlayerView) -> str:
    """A plain-text picture of one seat's view (``render_mode="ansi"``)."""
    seat = view.seat
    top = view.top.code if view.top is not None else None
    colour = view.colour.value if view.colour is not None else "-"
    pending = view.pending
    lines = [
        f"phase {view.phase.value}, to act: {view.to_act}, direction "
        f"{'+1' if view.direction > 0 else '-1'}",
        f"top {top}  colour {colour}  draw pile {view.draw_pile_size}"
        + (f"  pending {pending.total} (last +{pending.last})" if pending is not None else ""),
    ]
    for p in view.players:
        mark = ">" if p.seat == view.to_act else " "
        state = "out" if p.out else f"{p.hand_size} cards"
        if p.uno:
            state += ", UNO"
        hand = " ".join(c.code for c in view.hand) if p.seat == seat else ""
        lines.append(f"{mark} seat {p.seat}: {state}  {hand}".rstrip())
    if view.winner is not None:
        lines.append(f"winner: seat {view.winner}")
    return "\n".join(lines) + "\n"


RENDER_MODES = ("ansi", "human", "rgb_array")


def check_render_mode(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not {mode!r}")
    return mode


# rgb_array pictures: one row of card cells per seat under a header with the top card.
_CELL_W, _CELL_H, _ROW_H, _HEADER_H, _MARGIN = 6, 10, 14, 30, 4
_MAX_CELLS = 60  # a longer hand shows 60 cells and a white end cell
_WIDTH = 2 * _MARGIN + 8 + (_MAX_CELLS + 1) * _CELL_W
_RGB = {
    "R": (214, 40, 40),
    "Y": (240, 200, 30),
    "G": (40, 160, 70),
    "B": (40, 90, 210),
    "W": (20, 20, 20),  # a wild
}
_BACKGROUND = (235, 235, 228)
_HIDDEN = (150, 150, 150)  # an opponent's card: its back
_OUT = (120, 30, 30)
_MARK = (255, 255, 255)
_UNO = (255, 140, 0)


def render_rgb(view: PlayerView) -> npt.NDArray[np.uint8]:
    """A picture of one seat's view (``render_mode="rgb_array"``): ``uint8 (H, W, 3)``.

    Header: the top card (in its colour; black for a wild), the active colour, and the pending
    penalty as a bar of one cell per card. Then a row per seat: a white mark at the seat to
    act, the seat's cards as cells (the viewer's own in their colours, the others' as grey
    backs), an orange cell after a seat that has called UNO, a dark red bar for a seat that
    is out. Only what the view shows is drawn; the size depends on the seat count only.
    """
    n = len(view.players)
    image = np.empty((_HEADER_H + n * _ROW_H + _MARGIN, _WIDTH, 3), dtype=np.uint8)
    image[:] = _BACKGROUND

    def box(y: int, x: int, h: int, w: int, rgb: tuple[int, int, int]) -> None:
        image[y : y + h, x : x + w] = rgb

    if view.top is not None:
        box(_MARGIN, _MARGIN, 22, 16, _RGB[view.top.code[0]])
    if view.colour is not None:
        box(_MARGIN + 6, _MARGIN + 20, 10, 10, _RGB[view.colour.value])
    pending = view.pending
    if pending is not None:
        cells = min(pending.total, _MAX_CELLS - 6)
        for k in range(cells):
            box(_MARGIN + 8, _MARGIN + 36 + k * _CELL_W, 6, _CELL_W - 1, _OUT)
    own = [c.code for c in view.hand]
    for p in view.players:
        seat = p.seat
        y = _HEADER_H + seat * _ROW_H
        if seat == view.to_act:
            box(y + 2, _MARGIN, _CELL_H - 4, 5, _MARK)
        x0 = _MARGIN + 8
        if p.out:
            box(y + _CELL_H // 2 - 1, x0, 3, _MAX_CELLS * _CELL_W, _OUT)
            continue
        size = p.hand_size
        colours = [_RGB[code[0]] for code in own] if seat == view.seat else None
        for k in range(min(size, _MAX_CELLS)):
            rgb = colours[k] if colours is not None else _HIDDEN
            box(y, x0 + k * _CELL_W, _CELL_H, _CELL_W - 1, rgb)
        end = x0 + min(size, _MAX_CELLS) * _CELL_W
        if size > _MAX_CELLS:
            box(y, end, _CELL_H, _CELL_W - 1, _MARK)
        elif p.uno:
            box(y + 2, end, _CELL_H - 4, _CELL_W - 1, _UNO)
    return image


def render(view: PlayerView, mode: str | None) -> str | npt.NDArray[np.uint8] | None:
    """``view`` in a render mode: text (``"ansi"``), printed text (``"human"``, returns
    ``None``) or a picture (``"rgb_array"``); ``None`` without a mode."""
    if mode is None:
        return None
    if mode == "rgb_array":
        return render_rgb(view)
    text = render_text(view)
    if mode == "human":
        print(text, end="", flush=True)
        return None
    return text


def outcome_info(game: Game, steps: int) -> dict[str, Any]:
    """What the infos carry when an episode ends (docs/rl.md, "Infos").

    The winner (``-1`` if the game did not end), who is out, every hand size, the points the
    last hand is worth to its winner (NM-40/CL-13; ``-1`` if the game did not end), the match
    scores, and the number of environment steps the game took. Integers throughout (no
    ``None``): Gymnasium's vector envs stack each key of the infos into one typed array.
    """
    winner = game.winner if game.is_over and game.winner is not None else -1
    hand_winner = game.hand_winner if game.is_over else None
    return {
        "winner": winner,
        "knocked_out": list(game.out),
        "hand_sizes": [len(h) for h in game.hands],
        "points": game.hand_points(hand_winner)[0] if hand_winner is not None else -1,
        "scores": list(game.scores),
        "episode_steps": steps,
    }


class LegalDiscrete(spaces.Discrete):
    """``Discrete(469)`` whose ``sample()`` without a mask draws one of its agent's legal ids.

    Checkers that step with ``action_space.sample()`` (Gymnasium's and SB3's ``check_env``,
    PettingZoo's ``max_cycles_test``, ``state_test``, ``parallel_seed_test``) then play legal
    games in every observation format and ``illegal_action`` mode. ``sample(mask)`` and
    ``sample(probability=...)`` are Gymnasium's own; with no legal id now (another seat is to
    act, the episode is over) ``sample()`` draws from the whole space. Pickled or copied on
    its own it becomes a plain ``Discrete``; the environments re-attach their masks when they
    are unpickled or copied.
    """

    def __init__(
        self,
        n: int,
        masks: Callable[[], npt.NDArray[np.int8] | None] | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(n, seed=seed)
        self.masks = masks

    def sample(  # type: ignore[override]
        self,
        mask: npt.NDArray[np.int8] | None = None,
        probability: npt.NDArray[np.float64] | None = None,
    ) -> np.int64:
        if mask is None and probability is None and self.masks is not None:
            legal = self.masks()
            if legal is not None and legal.any():
                mask = legal
        return super().sample(mask, probability)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[Any, ...]:
        # The mask source is a bound method of its env: a pickled space must not drag the env
        # (and its game) along, e.g. into an SB3 model's saved action space.
        return (_plain_discrete, (int(self.n), int(self.start)))


def _plain_discrete(n: int, start: int) -> spaces.Discrete:
    return spaces.Discrete(n, start=start)


class LegalMultiDiscrete(spaces.MultiDiscrete):
    """``MultiDiscrete([469] * N)``, the vector env's action space, whose ``sample()`` without
    a mask draws one legal id per table, as :class:`LegalDiscrete` does for one env.

    ``masks()`` gives the tables' masks, ``(N, 469)``; a table with no legal id (it has just
    ended and the next step resets it, whatever its action) gets an id drawn from the whole
    space. ``sample(mask)`` and ``sample(probability=...)`` are Gymnasium's own. Pickled or
    copied on its own it becomes a plain ``MultiDiscrete``.
    """

    def __init__(
        self,
        n: int,
        num_envs: int,
        masks: Callable[[], npt.NDArray[np.int8]] | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(np.full(num_envs, n, dtype=np.int64), seed=seed)
        self.masks = masks

    def sample(  # type: ignore[override]
        self,
        mask: tuple[npt.NDArray[np.int8], ...] | None = None,
        probability: tuple[npt.NDArray[np.float64], ...] | None = None,
    ) -> npt.NDArray[np.int64]:
        if mask is None and probability is None and self.masks is not None:
            rows = self.masks()
            everything = np.ones(rows.shape[1], dtype=np.int8)
            mask = tuple(row if row.any() else everything for row in rows)
        return super().sample(mask, probability)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[Any, ...]:
        # As LegalDiscrete: the mask source is a bound method of the vector env.
        return (_plain_multi_discrete, (self.nvec.tolist(),))


def _plain_multi_discrete(nvec: list[int]) -> spaces.MultiDiscrete:
    return spaces.MultiDiscrete(nvec)


REWARDS = ("win_loss", "points")


def check_reward(reward: str, points_scale: float, knockout_bonus: float) -> str:
    """Check the reward options (docs/rl.md, "Rewards")."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be 'win_loss' or 'points', not {reward!r}")
    if isinstance(points_scale, bool) or not (
        isinstance(points_scale, (int, float)) and points_scale > 0 and math.isfinite(points_scale)
    ):
        raise ValueError(f"points_scale must be a positive number, not {points_scale!r}")
    if isinstance(knockout_bonus, bool) or not (
        isinstance(knockout_bonus, (int, float)) and math.isfinite(knockout_bonus)
    ):
        raise ValueError(f"knockout_bonus must be a finite number, not {knockout_bonus!r}")
    return reward


def end_rewards(game: Game, reward: str, points_scale: float) -> list[float]:
    """Each seat's reward when the game ends: ``"win_loss"``: +1 the winner, −1 the others;
    ``"points"``: the last hand's winner its points (NM-40/CL-13) / ``points_scale``, every
    other seat still in minus its own card points / ``points_scale``."""
    winner = game.winner
    if reward == "win_loss":
        return [1.0 if s == winner else -1.0 for s in range(game.n)]
    hand_winner = game.hand_winner if game.hand_winner is not None else winner
    assert hand_winner is not None
    points, per_seat = game.hand_points(hand_winner)
    return [
        points / points_scale if s == hand_winner else -per_seat.get(s, 0) / points_scale
        for s in range(game.n)
    ]
