"""docs/rl.md's recipes run as written: the env blocks always, the training blocks when
PyTorch and sb3-contrib are installed (the rl-train extra, which CI installs; skipped
elsewhere, the reason printed: trainkit)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from trainkit import needs

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
RECIPES = ("sb3-mlp", "self-play", "vector-envs", "supersuit-black-death", "sb3-vec-env")
TRAINED = ("sb3-mlp", "self-play", "supersuit-black-death", "sb3-vec-env")


def _blocks() -> dict[tuple[str, str], str]:
    found = re.findall(
        r"<!-- recipe: ([\w-]+) \((env|train)\) -->\n```python\n(.*?)```", DOC.read_text(), re.S
    )
    blocks = {(name, part): code for name, part, code in found}
    assert len(blocks) == len(found), "a recipe block appears twice"
    return blocks


def _run(code: str, namespace: dict[str, Any], name: str) -> None:
    exec(compile(code, f"{DOC}:{name}", "exec"), namespace)


def test_the_recipes_are_all_there() -> None:
    blocks = _blocks()
    assert {name for name, _ in blocks} == set(RECIPES)
    assert {name for name, part in blocks if part == "env"} == set(RECIPES)
    assert {name for name, part in blocks if part == "train"} == set(TRAINED)


@pytest.mark.parametrize("name", RECIPES)
def test_recipe_env_side(name: str) -> None:
    namespace: dict[str, Any] = {"__name__": f"recipe_{name.replace('-', '_')}"}
    _run(_blocks()[name, "env"], namespace, name)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_recipe_runs_on_gymnasiums_vector_envs(mode: str) -> None:
    # The docs: Gymnasium's own vector envs take autoreset_mode through vector_kwargs, and
    # the recipe's loop runs on them unchanged.
    code = _blocks()["vector-envs", "env"]
    native = (
        "    autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,  # a keyword, as every option\n"
    )
    assert native in code
    theirs = (
        f'    vectorization_mode="{mode}",\n'
        '    vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},\n'
    )
    namespace: dict[str, Any] = {"__name__": f"recipe_vector_{mode}"}
    _run(code.replace(native, theirs), namespace, f"vector-envs ({mode})")
    assert namespace["episodes"] >= 8


def test_the_native_vector_env_takes_its_options_as_keywords_only() -> None:
    import gymnasium as gym

    import nomercy.rl  # noqa: F401

    # What Gymnasium says when the sync form's vector_kwargs meet the native env.
    with pytest.raises(gym.error.Error, match="only through kwargs"):
        gym.make_vec(
            "NoMercy-v0",
            num_envs=2,
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
        )
    envs = gym.make_vec("NoMercy-v0", num_envs=2, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    assert type(envs).__name__ == "NoMercyVectorEnv"
    assert envs.autoreset_mode is gym.vector.AutoresetMode.SAME_STEP


@pytest.mark.parametrize("name", TRAINED)
def test_recipe_training(name: str) -> None:
    needs("torch")
    needs("sb3_contrib")
    blocks = _blocks()
    namespace: dict[str, Any] = {"__name__": f"recipe_{name.replace('-', '_')}"}
    _run(blocks[name, "env"], namespace, name)
    with warnings.catch_warnings():
        # PyTorch and SB3 warn about their own matters (CPU threads, deprecations); the recipe
        # is judged by running, not by their warnings.
        warnings.simplefilter("ignore")
        _run(blocks[name, "train"], namespace, name)
    model = namespace["model"]
    assert model.num_timesteps > 0


def test_make_vec_env_needs_no_extra_arguments() -> None:
    needs("torch")
    env_util = needs("stable_baselines3.common.env_util")
    import numpy as np

    import nomercy.rl  # noqa: F401 (registers NoMercy-v0)

    venv = env_util.make_vec_env("NoMercy-v0", n_envs=4)
    obs = venv.reset()
    assert obs["action_mask"].shape == (4, 469) and obs["action_mask"].any(axis=1).all()
    masks = np.stack(venv.env_method("action_masks"))  # as MaskablePPO asks for them
    np.testing.assert_array_equal(masks, obs["action_mask"])
    frames = venv.get_images()  # render_mode="rgb_array", which make_vec_env passed
    assert len(frames) == 4 and all(f.ndim == 3 and f.dtype == np.uint8 for f in frames)
    venv.close()


@pytest.mark.parametrize("obs_format", ["dict", "flat"])
def test_sb3_check_env(obs_format: str) -> None:
    needs("torch")
    env_checker = needs("stable_baselines3.common.env_checker")
    import gymnasium as gym

    import nomercy.rl  # noqa: F401

    # The checker steps with unmasked random ids, so penalize mode (as with Gymnasium's).
    env = gym.make(
        "NoMercy-v0",
        opponents=["random", "greedy"],
        illegal_action="penalize",
        obs_format=obs_format,
        render_mode="rgb_array",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env_checker.check_env(env.unwrapped, warn=True)
