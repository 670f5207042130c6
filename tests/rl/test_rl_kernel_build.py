"""The pure-Python kernel against the reference engine, and how the compiled build is chosen.

The environment-level lockstep tests (test_rl_kernel.py) run whichever kernel the
environments pick (the mypyc build in CI, where `.ci/run` builds it); this file checks the
pure-Python :class:`~nomercy.rl.kernel.Kernel` directly, so both builds are covered.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from nomercy.core.game import new_game
from nomercy.core.rules import make_rules
from nomercy.rl import kernel as kernel_module
from nomercy.rl._common import apply_tracked, legal_id_map, start_tracking
from nomercy.rl.kernel import COMPILED_MODULE, Kernel, compiled_kernel, kernel_supports
from nomercy.rl.observations import OBS_LAYOUT, ObservationEncoder, PublicTracker


def _differing_fields(a: np.ndarray, b: np.ndarray) -> list[str]:
    return [name for name, sl in OBS_LAYOUT.items() if not np.array_equal(a[sl], b[sl])]


def _lockstep(kernel_cls: type[Kernel], players: int, seed: int, options: dict | None) -> int:
    """Play one random game on the engine and the kernel; compare everything every step."""
    rules = make_rules("no-mercy", options)
    game = new_game(players, rules=rules, seed=seed)
    kernel = kernel_cls(rules, players)
    kernel.reset(seed)
    encoders = [ObservationEncoder(rules, players) for _ in range(players)]
    tracker = PublicTracker(rules, players)
    start_tracking(game, tracker)
    rng = random.Random(seed)
    steps = 0
    while True:
        for seat in range(players):
            want = encoders[seat].encode(game.view(seat, history=False), tracker.void)
            got = np.frombuffer(kernel.observation(seat), dtype=np.float32)
            assert np.array_equal(want, got), (
                f"seed {seed}, {players}p, step {steps}, seat {seat}: "
                f"{_differing_fields(want, got)} differ"
            )
        if game.is_over:
            assert kernel.is_over and kernel.winner == game.winner
            return steps
        assert kernel.turn == game.to_act
        ids = legal_id_map(game, game.to_act)
        legal = kernel.legal()
        assert sorted(ids) == sorted(legal) and len(set(legal)) == len(legal), (
            f"seed {seed}, {players}p, step {steps}: legal ids differ"
        )
        action_id = sorted(ids)[rng.randrange(len(ids))]
        apply_tracked(game, ids[action_id], tracker)
        kernel.apply(action_id)
        steps += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_python_kernel_plays_exactly_like_the_engine(players: int, soak: int) -> None:
    steps = sum(_lockstep(Kernel, players, seed, None) for seed in range(60 * soak))
    assert steps > 60 * soak * 20  # whole games were played, not a few steps


@pytest.mark.parametrize(
    "options",
    [
        {"mercy_threshold": 15},
        {"mercy_threshold": 40, "uno_penalty_cards": 4},
        {"hand_size": 10},
    ],
)
def test_python_kernel_honours_the_free_options(options: dict, soak: int) -> None:
    rules = make_rules("no-mercy", options)
    assert kernel_supports(rules) is None
    for seed in range(15 * soak):
        _lockstep(Kernel, 2 + seed % 5, seed, options)


def test_compiled_kernel_plays_exactly_like_the_engine(soak: int) -> None:
    compiled = compiled_kernel()
    if compiled is None:
        if os.environ.get("CI"):
            pytest.fail("CI must build the compiled kernel (.ci/run: build_kernel)")
        pytest.skip("the mypyc kernel is not built here: python -m nomercy.rl.build_kernel")
    assert compiled.__module__ == COMPILED_MODULE
    for seed in range(40 * soak):
        _lockstep(compiled, 2 + seed % 5, seed, None)


def test_ci_runs_the_environments_on_the_compiled_kernel() -> None:
    """In CI the environments must use the mypyc build (the speed figure depends on it)."""
    import nomercy.rl

    env = nomercy.rl.env(num_players=2)
    assert env.engine == "kernel"
    if os.environ.get("CI"):
        assert env.kernel_build == "mypyc"
    else:
        assert env.kernel_build in ("mypyc", "python")


def test_unsupported_rules_are_named() -> None:
    assert "classic" in (kernel_supports(make_rules("classic")) or "")
    why = kernel_supports(make_rules("no-mercy", {"stack_mandatory": True}))
    assert why is not None and "stack_mandatory" in why
    assert "offered" in (kernel_supports(make_rules("no-mercy"), "offered") or "")
    with pytest.raises(ValueError, match="scoring_enabled"):
        Kernel(make_rules("no-mercy", {"scoring_enabled": True}), 2)


def test_a_stale_build_is_ignored_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    if compiled_kernel() is None:
        pytest.skip("the mypyc kernel is not built here")
    monkeypatch.setattr(kernel_module, "source_digest", lambda: "0" * 64)
    with pytest.warns(RuntimeWarning, match="rebuild it with"):
        assert compiled_kernel() is None


def test_nomercy_kernel_python_forces_the_pure_kernel() -> None:
    code = "import nomercy.rl; e = nomercy.rl.env(num_players=3); print(e.engine, e.kernel_build)"
    env = dict(os.environ, NOMERCY_KERNEL="python")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["kernel", "python"]


def test_build_kernel_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "nomercy.rl.build_kernel", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "mypyc" in out.stdout


@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_a_deal_that_cannot_start_is_refused_alike(engine: str) -> None:
    """NM-4: 27 cards to each of 6 players can leave no number card to flip (seed 109)."""
    import nomercy.rl
    from nomercy.core.errors import RuleSetError

    options = {"hand_size": 27, "mercy_enabled": False}  # 27 cards: no Mercy limit (NM-33)
    env = nomercy.rl.env(num_players=6, options=options, engine=engine)
    env.reset(seed=108)
    with pytest.raises(RuleSetError, match=r"NM-4: the 6 left are all action or wild cards"):
        env.reset(seed=109)
    with pytest.raises(RuntimeError, match="call reset"):  # the old game is gone
        env.observe("player_0")
    env.reset(seed=110)  # the next deal is fine and the env plays on
    assert env.observe(env.agent_selection)["action_mask"].any()
