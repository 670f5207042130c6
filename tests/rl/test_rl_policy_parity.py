"""A policy sees the same observations in a tournament as in ``nomercy.rl.evaluate`` (issue 48):
``opp_void`` from the public events, and the flat scaling the policy carries."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nomercy
import nomercy.rl as rl
from nomercy.arena.runner import GameSetup, parse_bot_spec, play_game

POLICIES = '''
import numpy as np

from nomercy.rl import as_policy

SEEN = {"first": [], "last": []}


def _record(name, obs, mask):
    if isinstance(obs, dict):
        obs = {k: np.array(v) for k, v in obs.items()}
    else:
        obs = np.array(obs)
    SEEN[name].append((obs, np.array(mask)))


def first(obs, mask):
    """The lowest card play (ids from 13), else the lowest id (draw when it may)."""
    _record("first", obs, mask)
    legal = np.flatnonzero(mask)
    plays = legal[legal >= 13]
    return int(plays[0] if len(plays) else legal[0])


def last(obs, mask):
    _record("last", obs, mask)
    return int(np.flatnonzero(mask)[-1])


first_dict = as_policy(first, obs_format="dict")
first_rules = as_policy(first, flat_bounds="rules")  # trained on the other scaling
'''

VOID = rl.OBS_LAYOUT["opp_void"]


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    (tmp_path / "nm_parity_policies.py").write_text(POLICIES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "nm_parity_policies", raising=False)
    import nm_parity_policies  # type: ignore[import-not-found]

    return nm_parity_policies


def _vector(obs: Any) -> np.ndarray:
    return obs["observation"] if isinstance(obs, dict) else obs


def _tournament_game(seed: int, lineup: list[str]) -> None:
    """Game 0 of a tournament run (the code path of ``nomercy tournament``), dealt from
    ``seed`` instead of the run's derived seed."""

    class Dealt(GameSetup):
        def new_game(self, index: int) -> nomercy.Game:
            return nomercy.new_game(self.players, rules=self.rules(), seed=seed)

    setup = Dealt(players=2)
    play_game(setup, [parse_bot_spec(text) for text in lineup], 0)


@pytest.mark.parametrize("attr", ["first", "first_dict", "first_rules"])
def test_evaluate_and_a_tournament_show_a_policy_the_same_observations(
    module: Any, attr: str
) -> None:
    policy = getattr(module, attr)
    fmt = "dict" if attr == "first_dict" else "flat"
    bounds = "rules" if attr == "first_rules" else "fixed"
    seen = module.SEEN["first"]
    flagged = compared = 0
    for seed in range(6):
        seen.clear()
        rl.evaluate(policy, opponents=[module.last], players=2, games=1, seed=seed)
        # The env asks the policy even when one id is legal; a bot is not asked then.
        in_env = [(obs, mask) for obs, mask in seen if mask.sum() >= 2]
        # evaluate's game 0: the policy at seat 0, dealt as this env deals reset(seed), in
        # the policy's format and scaling (it carries "rules" where it says so).
        probe = rl.SelfPlayEnv([module.last], learner_seat=0, obs_format=fmt, flat_bounds=bounds)
        first_obs, _ = probe.reset(seed=seed)
        np.testing.assert_array_equal(_vector(seen[0][0]), _vector(first_obs))
        if bounds == "rules":
            other, _ = rl.SelfPlayEnv([module.last], learner_seat=0).reset(seed=seed)
            assert not np.array_equal(other, first_obs)  # "fixed" would differ
        game = probe.aec.game
        assert game is not None
        seen.clear()
        lineup = [f"policy:nm_parity_policies:{attr}", "policy:nm_parity_policies:last"]
        _tournament_game(game.seed, lineup)
        in_tournament = list(seen)
        assert len(in_tournament) == len(in_env) > 0
        compared += len(in_env)
        for (a, mask_a), (b, mask_b) in zip(in_env, in_tournament, strict=True):
            np.testing.assert_array_equal(mask_a, mask_b)
            assert type(a) is type(b)
            np.testing.assert_array_equal(_vector(a), _vector(b))
            if isinstance(a, dict):
                np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        flagged += sum(bool(_vector(a)[VOID].any()) for a, _ in in_env)
    assert compared > 20
    assert flagged > 0  # opp_void was set in some of these observations, on both sides
