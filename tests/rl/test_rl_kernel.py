"""The fast kernel behind ``raw_env`` plays bit-for-bit like the reference engine.

Every game here runs twice in lockstep, once on ``engine="reference"`` (``nomercy.core.game``)
and once on ``engine="kernel"``, comparing everything a trainer can see after every step
(``kernelkit.lockstep``). Coverage counters prove that the games reached the rules they are
meant to check. ``--soak`` multiplies the games.

Hidden information: every observation the kernel gives equals the reference one, which
``test_rl_observations.test_observations_contain_nothing_hidden`` proves depends only on the
seat's view; ``test_kernel_observation_ignores_hidden_cards`` also checks the kernel directly,
re-dealing what a seat cannot see inside a copied ``Kernel`` (it reads the kernel's state
fields, so it must follow them if they are renamed).
"""

from __future__ import annotations

import copy
import pickle
import random
import warnings
from array import array
from typing import Any

import numpy as np
import pytest
from kernelkit import Coverage, lockstep, make, same_position
from pettingzoo.test import api_test, seed_test

import nomercy
from nomercy.rl import IllegalActionIdError, raw_env
from nomercy.rl._common import make_ruleset
from nomercy.rl.kernel import Kernel, kernel_supports

# api_test warns that a dict observation is "not a NumPy array" and suggests a Box space:
# both are the documented {"observation", "action_mask"} convention.
API_WARNINGS = ("Observation is not a NumPy array", "Observation space for each agent")

#: What random play under the default rules must reach (reference game's event kinds,
#: phases after a step, and how the game ended), so that equality means something.
DEFAULT_COVERAGE = [
    "play",
    "draw",
    "draw several",  # draw until playable (NM-9) taking more than one card
    "phase:play_drawn",  # the drawn card to be played
    "stack",
    "absorb",
    "phase:stack_or_absorb",
    "skip",
    "reverse",
    "skip_everyone",
    "discard_all",
    "roulette",
    "phase:roulette_colour",
    "reveal",
    "swap",
    "pass_hands",
    "reshuffle",
    "uno",
    "catch",
    "catch draws 2",
    "knockout",
    "knockout after absorb",
    "knockout after reveal",
    "hand_end:last standing",
    "hand_end:empty hand",
]


def _pair(players: int, **kwargs: Any) -> tuple[raw_env, raw_env]:
    return make("reference", num_players=players, **kwargs), make(
        "kernel", num_players=players, **kwargs
    )


def _run(
    players: int,
    seeds: range,
    cov: Coverage,
    **kwargs: Any,
) -> None:
    """Lockstep games on one pair of envs (reused, as a trainer would) for ``seeds``."""
    lock = {
        k: kwargs.pop(k)
        for k in ("illegal_every", "position_every", "stop_after", "policy")
        if k in kwargs
    }
    ref, fast = _pair(players, **kwargs)
    for seed in seeds:
        lockstep(ref, fast, seed, cov, choice_seed=seed * 7 + players, **lock)


# ---------------------------------------------------------------------------- lockstep play
def test_lockstep_default_rules(soak: int) -> None:
    cov = Coverage()
    for players in range(2, 7):
        first = players * 10_000
        _run(players, range(first, first + 40 * soak), cov)
        _run(players, range(first + 5000, first + 5000 + 30 * soak), cov, policy="mixed")
    assert cov.games == 350 * soak
    missing = cov.missing(DEFAULT_COVERAGE)
    assert not missing, f"never happened: {missing}; seen {dict(cov.events)}"


@pytest.mark.parametrize(
    ("options", "players", "wanted"),
    [
        # A low threshold: knock-outs everywhere, also in the middle of a draw (NM-9, NM-33).
        ({"mercy_threshold": 15}, (2, 3, 4, 5, 6), ["knockout after draw", "knockout"]),
        # A high one: long games, the pile runs dry (A13) and is reshuffled (NM-7).
        ({"mercy_threshold": 40}, (3, 5, 6), ["reshuffle", "exhausted", "knockout"]),
        ({"uno_penalty_cards": 4}, (3, 4, 5, 6), ["catch draws 4", "uno"]),
        ({"uno_penalty_cards": 0}, (3, 4, 5, 6), ["catch draws 0"]),
        # Small hands: UNO calls, catches and empty hands all the time.
        ({"hand_size": 2}, (2, 3, 4, 5, 6), ["hand_end:empty hand", "catch", "uno"]),
        ({"hand_size": 12}, (2, 4, 6), ["knockout", "hand_end:last standing"]),
        ({"hand_size": 3, "mercy_threshold": 10, "uno_penalty_cards": 1}, (2, 4), ["catch"]),
    ],
    ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else None,
)
def test_lockstep_supported_variations(
    options: dict[str, Any], players: tuple[int, ...], wanted: list[str], soak: int
) -> None:
    cov = Coverage()
    for n in players:
        _run(n, range(n * 1000, n * 1000 + 5 * soak), cov, options=options)
        _run(n, range(n * 2000, n * 2000 + 5 * soak), cov, options=options, policy="mixed")
    missing = cov.missing(wanted)
    assert not missing, f"never happened: {missing}; seen {dict(cov.events)}"


def test_lockstep_without_mercy_truncates_alike(soak: int) -> None:
    """Mercy off (NM-33): hands grow without limit; ``max_steps`` ends what random play
    would not."""
    cov = Coverage()
    for n in (2, 3, 4, 6):
        _run(
            n,
            range(n * 100, n * 100 + 3 * soak),
            cov,
            options={"mercy_enabled": False},
            max_steps=300,
        )
    assert not cov.events["knockout"]
    assert cov.events["truncated"] and cov.events["reshuffle"], dict(cov.events)


@pytest.mark.parametrize("max_steps", [1, 2, 9, 40])
def test_max_steps_truncates_alike(max_steps: int, soak: int) -> None:
    cov = Coverage()
    for n in (2, 4, 6):
        _run(n, range(n * 10, n * 10 + 4 * soak), cov, max_steps=max_steps)
    assert cov.events["truncated"] > 0
    if max_steps <= 2:
        assert cov.events["truncated"] == cov.games  # no game can end that fast


def test_unseeded_resets_follow_the_seeded_one(soak: int) -> None:
    """``reset()`` without a seed draws the next game seed the same way on both engines."""
    cov = Coverage()
    for n in (2, 3, 5):
        ref, fast = _pair(n)
        for first in range(3 * soak):
            lockstep(ref, fast, 500 + first, cov, choice_seed=first)
            for k in range(3):
                lockstep(ref, fast, None, cov, choice_seed=100 + k)
    assert cov.games == 3 * 4 * 3 * soak


@pytest.mark.parametrize("seed", [0, 2**63, 2**64 + 3, 2**70, np.int64(7), np.uint64(2**64 - 1)])
def test_unusual_seeds_give_the_same_games(seed: Any) -> None:
    """Seeds beyond 64 bits and numpy integers: the kernel derives the same shuffles."""
    cov = Coverage()
    ref, fast = _pair(4)
    lockstep(ref, fast, seed, cov, choice_seed=1)
    lockstep(ref, fast, None, cov, choice_seed=2)
    assert cov.games == 2


@pytest.mark.parametrize(
    "duplicate",
    [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))],
    ids=["deepcopy", "pickle"],
)
def test_copied_envs_play_on_alike(duplicate: Any) -> None:
    """A copy of an env mid-game (search, checkpoints) plays on like the reference copy,
    and playing the copies leaves the originals where they were."""
    cov = Coverage()
    for n, seed in ((2, 4), (3, 8), (6, 2)):
        ref, fast = _pair(n)
        lockstep(ref, fast, seed, cov, choice_seed=seed, stop_after=12)
        ref_copy, fast_copy = duplicate(ref), duplicate(fast)
        lockstep(ref_copy, fast_copy, seed, cov, choice_seed=seed + 1, fresh=False)
        lockstep(ref, fast, seed, cov, choice_seed=seed + 2, fresh=False)
    assert cov.games == 9


def test_reset_in_the_middle_of_a_game(soak: int) -> None:
    """An abandoned game leaves nothing behind: reset mid-game, then play a game through."""
    cov = Coverage()
    for n in (2, 4, 6):
        ref, fast = _pair(n)
        for seed in range(4 * soak):
            lockstep(ref, fast, seed, cov, choice_seed=seed, stop_after=5 + 7 * seed % 40)
            lockstep(ref, fast, seed + 1000, cov, choice_seed=seed)
    assert cov.games == 2 * 3 * 4 * soak
    assert cov.events["abandoned"] > 3 * 3 * soak


def test_rebuilt_game_matches_mid_game(soak: int) -> None:
    """``env.game`` on the kernel path is the reference ``Game`` at every point checked."""
    cov = Coverage()
    for n in (2, 3, 4, 5, 6):
        _run(n, range(n * 77, n * 77 + 2 * soak), cov, position_every=6)
    assert cov.games == 10 * soak


def test_changing_the_rebuilt_game_changes_nothing() -> None:
    """On the kernel path ``env.game`` is for inspection only (docs): applying an action to
    it must not leak into what ``env.game``, ``render()`` or illegal-id messages show later."""
    from nomercy.rl.actions import fast_id

    pokes = 0
    for n, seed in ((3, 5), (2, 9), (4, 1), (5, 3)):
        ref, fast = _pair(n, render_mode="ansi")
        ref.reset(seed=seed)
        fast.reset(seed=seed)
        rng = random.Random(seed)
        for _ in ref.agent_iter(60):
            obs, _, term, trunc, _ = ref.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            game = fast.game
            assert game is not None
            if action is not None and not game.is_over and rng.random() < 0.3:
                other = [a for a in game.legal_actions() if fast_id(a, n) != action]
                if other:
                    game.apply(other[0])  # a caller pokes the copy it was given
                    pokes += 1
            ref.step(action)
            fast.step(action)
            same_position(ref, fast, f"{n} players, seed {seed}, after a poke")
            assert fast.render() == ref.render()
    assert pokes > 10


# ---------------------------------------------------------------------------- illegal ids
def test_illegal_ids_raise_the_same_error(soak: int) -> None:
    cov = Coverage()
    for n in (2, 3, 4, 5, 6):
        _run(n, range(n * 31, n * 31 + 2 * soak), cov, illegal_every=5)
    assert cov.illegal_checked > 100 * soak
    phases = ("play", "stack_or_absorb", "play_drawn", "roulette_colour")
    missing = cov.missing([f"illegal in {phase}" for phase in phases])
    assert not missing, f"no illegal id tried {missing}"


def test_illegal_id_changes_nothing_on_the_kernel_path() -> None:
    env = make("kernel", num_players=3)
    env.reset(seed=8)
    rng = random.Random(8)
    probes = 0
    for agent in env.agent_iter(400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        before = _state(env)
        for bad in (int(np.flatnonzero(mask == 0)[0]), 469, "draw"):
            with pytest.raises(IllegalActionIdError, match=f"^{agent}: "):
                env.step(bad)
            after = _state(env)
            assert after.keys() == before.keys()
            for key, value in before.items():
                if isinstance(value, np.ndarray):
                    np.testing.assert_array_equal(after[key], value, err_msg=key)
                else:
                    assert after[key] == value, key
            probes += 1
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert probes > 30


def _state(env: raw_env) -> dict[str, Any]:
    out: dict[str, Any] = {
        name: getattr(env, name)
        for name in (
            "agent_selection",
            "agents",
            "rewards",
            "_cumulative_rewards",
            "terminations",
            "truncations",
            "infos",
        )
    }
    out = {
        k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
        for k, v in out.items()
    }
    for agent in env.possible_agents:
        for key, value in env.observe(agent).items():
            out[f"{agent}.{key}"] = value.copy()
    return out


def test_penalize_mode_matches(soak: int) -> None:
    cov = Coverage()
    for n in (2, 3, 4, 6):
        _run(
            n,
            range(n * 13, n * 13 + 3 * soak),
            cov,
            illegal_action="penalize",
            illegal_reward=-0.25,
            illegal_every=4,
        )
    assert cov.illegal_checked > 100 * soak


def test_penalties_do_not_count_as_steps_alike(soak: int) -> None:
    """``max_steps`` counts actions taken, not penalised ids, on both engines."""
    cov = Coverage()
    for n in (2, 5):
        _run(
            n,
            range(n * 17, n * 17 + 3 * soak),
            cov,
            illegal_action="penalize",
            max_steps=25,
            illegal_every=3,
        )
    assert cov.events["truncated"] and cov.illegal_checked > 10 * soak


# ---------------------------------------------------------------------------- engine choice
def test_engine_auto_picks_the_kernel_when_it_can() -> None:
    assert raw_env().engine == "kernel"
    assert raw_env(num_players=5, options={"mercy_threshold": 15}).engine == "kernel"
    assert raw_env(options={"stack_mandatory": True}).engine == "reference"
    assert raw_env(preset="classic").engine == "reference"
    assert raw_env(out_of_turn="offered").engine == "reference"
    assert raw_env(options={"scoring_enabled": True}).engine == "reference"
    assert raw_env(engine="reference").engine == "reference"


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"options": {"stack_mandatory": True}}, "stack_mandatory"),
        ({"options": {"scoring_enabled": True}}, "scoring_enabled"),
        ({"options": {"mercy_timing": "end_of_turn"}}, "mercy_timing"),
        ({"preset": "classic"}, "classic"),
        ({"out_of_turn": "offered"}, "offered"),
    ],
)
def test_engine_kernel_refuses_what_it_cannot_play(kwargs: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        raw_env(engine="kernel", **kwargs)


@pytest.mark.parametrize("engine", ["fast", "", "Kernel", None, 1])
def test_bad_engine_value(engine: Any) -> None:
    with pytest.raises(ValueError, match="engine"):
        raw_env(engine=engine)


def test_kernel_supports_the_documented_numeric_options() -> None:
    for options in (
        {},
        {"mercy_threshold": 15},
        {"mercy_threshold": 40},
        {"mercy_enabled": False},
        {"uno_penalty_cards": 4},
        {"hand_size": 5},
    ):
        rules = make_ruleset("no-mercy", options, 4)
        assert kernel_supports(rules, "to_act") is None, options
        assert isinstance(kernel_supports(rules, "offered"), str)


def _option_cases() -> list[dict[str, Any]]:
    """One options dict per non-default value of every no-mercy option."""
    cases: list[dict[str, Any]] = []
    for spec in nomercy.OPTIONS:
        if "no-mercy" not in spec.presets:
            continue
        default = spec.defaults["no-mercy"]
        if spec.kind in ("choice", "bool"):
            assert spec.values is not None
            # deck_variant "custom" needs deck_counts: the case after the loop.
            cases += [
                {spec.name: v}
                for v in spec.values
                if v != default and (spec.name, v) != ("deck_variant", "custom")
            ]
        elif spec.kind == "int":
            cases.append({spec.name: default + 1})
            if default - 1 >= max(spec.minimum, 2):
                cases.append({spec.name: default - 1})
    # A custom deck: the standard counts with one card fewer.
    counts = dict(nomercy.make_rules("no-mercy").deck_table())
    counts["R5"] -= 1
    cases.append({"deck_variant": "custom", "deck_counts": counts})
    return cases


@pytest.mark.parametrize("options", _option_cases(), ids=lambda o: ",".join(map(str, o.items())))
def test_every_rule_option_is_played_exactly_or_refused(options: dict[str, Any]) -> None:
    """For every option value: either the kernel plays it exactly like the reference, or
    ``kernel_supports`` gives a reason, ``engine="kernel"`` refuses it and ``"auto"`` falls
    back to the reference engine. No option value is silently played by other rules."""
    players = 3 if options.get("min_players", 2) <= 3 <= options.get("max_players", 6) else 4
    try:
        rules = make_ruleset("no-mercy", options, players)
    except ValueError:
        pytest.fail(f"option case {options} is not a valid rule set")
    reason = kernel_supports(rules, "to_act")
    if reason is None:
        assert raw_env(num_players=players, options=options).engine == "kernel"
        cov = Coverage()
        _run(players, range(3), cov, options=options, max_steps=400)
    else:
        assert isinstance(reason, str) and reason
        with pytest.raises(ValueError) as info:
            raw_env(num_players=players, options=options, engine="kernel")
        assert reason in str(info.value)
        env = raw_env(num_players=players, options=options)
        assert env.engine == "reference"


@pytest.mark.parametrize(
    ("players", "options", "max_steps", "wanted"),
    [
        # Hands dealt one card below the Mercy limit (a deal at or over it is refused, NM-33):
        # the first card received knocks out.
        (4, {"mercy_threshold": 8}, None, ["knockout after absorb", "knockout after draw"]),
        (3, {"hand_size": 1, "mercy_threshold": 2}, None, ["knockout after draw"]),
        (6, {"hand_size": 24}, None, ["knockout after absorb"]),
        (2, {"hand_size": 20, "mercy_threshold": 21}, None, ["knockout after absorb"]),
        # One card dealt: UNO windows from the start (NM-37).
        (5, {"hand_size": 1}, None, ["hand_end:empty hand"]),
        # Catches that stop at the Mercy limit and knock out (NM-37, A15, NM-33).
        (
            4,
            {"hand_size": 2, "uno_penalty_cards": 12, "mercy_threshold": 9},
            None,
            ["knockout after catch"],
        ),
        # Mercy that never bites; the pile runs dry again and again (A13).
        (2, {"mercy_threshold": 200}, 600, ["exhausted", "truncated"]),
        (6, {"hand_size": 20, "mercy_threshold": 40}, None, ["knockout"]),
    ],
    ids=str,
)
def test_edge_values_are_played_exactly_or_refused(
    players: int,
    options: dict[str, Any],
    max_steps: int | None,
    wanted: list[str],
    soak: int,
) -> None:
    """Extreme values of the options the kernel takes at any value: the same games as the
    reference, or a refusal (``kernel_supports`` names why)."""
    reason = kernel_supports(make_ruleset("no-mercy", options, players), "to_act")
    if reason is not None:
        with pytest.raises(ValueError, match="kernel"):
            raw_env(num_players=players, options=options, engine="kernel")
        assert raw_env(num_players=players, options=options).engine == "reference"
        return
    cov = Coverage()
    first = 40 + players
    _run(players, range(first, first + 4 * soak), cov, options=options, max_steps=max_steps)
    _run(
        players,
        range(first + 50, first + 50 + 4 * soak),
        cov,
        options=options,
        max_steps=max_steps,
        policy="mixed",
    )
    assert cov.games == 8 * soak
    missing = cov.missing(wanted)
    assert not missing, f"never happened: {missing}; seen {dict(cov.events)}"


# ---------------------------------------------------------------------------- PettingZoo API
def _quiet(fn: Any, *args: Any, **kwargs: Any) -> None:
    with warnings.catch_warnings():
        for text in API_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        fn(*args, **kwargs)


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, {}), (3, {"mercy_threshold": 12}), (6, {}), (4, {"hand_size": 2})],
)
def test_api_test_on_the_kernel(players: int, options: dict[str, Any]) -> None:
    _quiet(api_test, make("kernel", num_players=players, options=options), num_cycles=400)


def test_seed_test_on_the_kernel() -> None:
    _quiet(seed_test, lambda: make("kernel", num_players=3), num_cycles=300)


def test_spaces_match() -> None:
    for n in (2, 6):
        for options in ({}, {"mercy_threshold": 15}, {"mercy_enabled": False}):
            ref, fast = _pair(n, options=options)
            assert ref.possible_agents == fast.possible_agents
            for agent in ref.possible_agents:
                a, b = ref.observation_space(agent), fast.observation_space(agent)
                for key in ("observation", "action_mask"):
                    np.testing.assert_array_equal(a[key].low, b[key].low)
                    np.testing.assert_array_equal(a[key].high, b[key].high)
                    assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape
                assert ref.action_space(agent) == fast.action_space(agent)


def test_render_and_game_match_at_every_step() -> None:
    for n, seed in ((2, 3), (4, 5)):
        ref, fast = _pair(n, render_mode="ansi")
        ref.reset(seed=seed)
        fast.reset(seed=seed)
        rng = random.Random(seed)
        for _ in ref.agent_iter(200):
            assert fast.render() == ref.render()
            obs, _, term, trunc, _ = ref.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            ref.step(action)
            fast.step(action)
        assert fast.render() == ref.render()
        same_position(ref, fast, f"players {n} seed {seed}")


def test_kernel_refuses_use_before_reset() -> None:
    env = make("kernel")
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")


# ---------------------------------------------------------------------------- hidden cards
def _rehide(kernel: Kernel, seat: int, rng: random.Random) -> Kernel:
    """A copy of ``kernel`` with everything ``seat`` cannot see dealt anew.

    The draw pile and the opponents' cards that ``seat`` does not know are pooled, shuffled and
    dealt back (each opponent keeps its hand size, the cards ``seat`` knows it holds, and a
    drawn card it is about to play); what other seats know is forgotten, as it is not in
    ``seat``'s view. The same as ``test_rl_observations._rehide``, on the kernel's fields.
    """
    other = copy.deepcopy(kernel)
    n = other.n
    pool = list(other.draw)
    keep: dict[int, tuple[list[int], int]] = {}
    for o in range(n):
        if o == seat:
            continue
        hand = list(other.hands[o])
        fixed: list[int] = []
        known = other.known[o].get(seat)  # known[holder][viewer]: counts per kind
        if known is not None:
            fixed += [kind for kind, count in enumerate(known) for _ in range(int(count))]
        if other.drawn >= 0 and other.turn == o:
            fixed.append(other.drawn)
        mine = []
        for kind in fixed:
            if kind in hand:
                hand.remove(kind)
                mine.append(kind)
        keep[o] = (mine, len(other.hands[o]))
        pool += hand
    rng.shuffle(pool)
    for o, (mine, size) in keep.items():
        hand = mine + [pool.pop() for _ in range(size - len(mine))]
        rng.shuffle(hand)
        other.hands[o] = hand
        counts = array("f", bytes(4 * len(other.cnt[o])))
        for kind in hand:
            counts[kind] += 1
        other.cnt[o] = counts
    other.draw = pool
    for o in range(n):
        other.known[o] = {v: c for v, c in other.known[o].items() if v == seat}
    other._legal = None
    return other


def test_kernel_observation_ignores_hidden_cards(soak: int) -> None:
    checked = changed = 0
    rng = random.Random(5)
    for k in range(30 * soak):
        n = 2 + k % 5
        options = {"hand_size": 3} if k % 3 == 0 else {}
        kernel = Kernel(make_ruleset("no-mercy", options, n), n)
        kernel.reset(k)
        for step in range(400):
            if kernel.is_over:
                break
            if step % 3 == 0:
                seat = rng.randrange(n)
                other = _rehide(kernel, seat, rng)
                changed += (
                    any(other.hands[o] != kernel.hands[o] for o in range(n) if o != seat)
                    or other.draw != kernel.draw
                )
                assert other.observation(seat) == kernel.observation(seat), (k, step, seat)
                if seat == kernel.turn:
                    assert other.legal() == kernel.legal(), (k, step, seat)
                checked += 1
            kernel.apply(rng.choice(kernel.legal()))
    assert checked > 300 * soak
    assert changed > checked * 0.8  # the hidden cards really differed
