"""The environment side of ``train.py``, which needs no PyTorch: the environments, the
observation scale and the bot names (the suite runs it without torch too)."""

from __future__ import annotations

import argparse

import numpy as np

from nomercy.bots.registry import BOTS
from nomercy.rl import NoMercyEnv


def obs_scale(env: NoMercyEnv) -> np.ndarray:
    """Each observation entry's largest magnitude (the policy divides by it)."""
    space = env.observation_space["observation"]
    return np.maximum(np.abs(space.high), np.abs(space.low)).astype(np.float32)


def make_envs(opponents: list[str], count: int, preset: str) -> list[NoMercyEnv]:
    """``count`` two-player environments, the opponents alternating over ``opponents``, the
    learner's seat drawn at every deal."""
    return [
        NoMercyEnv([opponents[i % len(opponents)]], preset=preset, learner_seat=None)
        for i in range(count)
    ]


def names(text: str) -> list[str]:
    """Comma-separated registry bot names (an argparse type)."""
    found = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in found if t not in BOTS]
    if not found or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot(s) {', '.join(unknown) or '(none)'}; valid: {', '.join(sorted(BOTS))}"
        )
    return found
