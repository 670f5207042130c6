"""Random games with random rule options, for the RL tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import nomercy
from nomercy.core.game import Game

# exhaustion_fallback="raise" makes apply() raise when the pool runs dry, by design.
SKIPPED_OPTIONS = (
    "deck",
    "deck_variant",
    "deck_counts",
    "max_players",
    "min_players",
    "exhaustion_fallback",
)


def random_options(preset: str, rng: random.Random) -> dict[str, Any]:
    """A random value for every choice/bool option of ``preset``."""
    return {
        spec.name: rng.choice(spec.values)
        for spec in nomercy.OPTIONS
        if preset in spec.presets
        and spec.kind in ("choice", "bool")
        and spec.name not in SKIPPED_OPTIONS
        and spec.values
    }


def random_states(
    preset: str, games: int, seed: int, *, max_steps: int = 400
) -> Iterator[tuple[Game, random.Random]]:
    """Every state of ``games`` random games (2-6 players, options random half the time)."""
    for k in range(games):
        rng = random.Random(seed * 1000 + k)
        players = rng.randint(2, 6)
        options = random_options(preset, rng) if k % 2 else {}
        game = nomercy.new_game(players, rules=preset, options=options, seed=seed * 1000 + k)
        for _ in range(max_steps):
            if game.is_over:
                break
            yield game, rng
            # Sometimes an out-of-turn action (a catch, a jump-in) from another seat.
            others = [s for s in range(players) if s != game.to_act and game.legal_actions(s)]
            if others and rng.random() < 0.3:
                game.apply(rng.choice(game.legal_actions(rng.choice(others))))
            else:
                game.apply(rng.choice(game.legal_actions()))


def rehide(position: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The same position with everything ``seat`` cannot see dealt anew.

    Cards in opponents' hands that ``seat`` does not know, and the draw pile, are pooled,
    shuffled and dealt back (each opponent keeps its hand size and its known cards).
    """
    pos = dict(position)
    players = [dict(p) for p in pos["players"]]
    known = {k: list(v) for k, v in pos["known"].items()}
    pool = list(pos["draw_pile"])
    keep: dict[int, list[str]] = {}
    for o, p in enumerate(players):
        if o == seat:
            continue
        hand = list(p["hand"])
        fixed = list(known.get(f"{seat},{o}", []))
        if pos["drawn"] is not None and pos["turn"] == o and pos["phase"] == "play_drawn":
            fixed.append(pos["drawn"])
        mine: list[str] = []
        for code in fixed:
            if code in hand:
                hand.remove(code)
                mine.append(code)
        keep[o] = mine
        pool.extend(hand)
        p["hand_size"] = len(p["hand"])
    rng.shuffle(pool)
    for o, p in enumerate(players):
        if o == seat:
            continue
        free = p.pop("hand_size") - len(keep[o])
        p["hand"] = keep[o] + [pool.pop() for _ in range(free)]
        rng.shuffle(p["hand"])
    pos["players"] = players
    pos["draw_pile"] = pool
    # Only what `seat` knows stays; other seats' knowledge is not in its view.
    pos["known"] = {k: v for k, v in known.items() if k.startswith(f"{seat},")}
    if pos.get("wd4"):
        pos["wd4"] = {**pos["wd4"], "guilty": rng.random() < 0.5}
    return pos
