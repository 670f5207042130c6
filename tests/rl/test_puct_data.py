"""Self-play shards for the ``puct`` network (nomercy.rl.puct_data)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from nomercy import Game, new_game
from nomercy.bots import make_bot
from nomercy.bots.driver import next_action
from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE, FeatureEncoder
from nomercy.core.cards import ALL_CODES, COLOURS
from nomercy.rl.puct_data import (
    SHARD_GAMES,
    TABLES,
    colour_maps,
    load_shards,
    main,
    play_game,
    table_for,
)


def test_tables_follow_their_shares() -> None:
    counts = {t: 0 for t in TABLES}
    for i in range(4000):
        counts[table_for(0, i)] += 1
    for table, count in counts.items():
        assert abs(count / 4000 - table.share) < 0.03


def test_a_game_gives_one_example_per_searched_decision() -> None:
    rows = play_game(3, 1, iterations=8)
    assert rows
    n = rows[0].players
    # Every example of a game agrees on the winner, counted from its own seat.
    assert all(0 <= r.winner < n for r in rows)
    assert all(r.obs.shape == (OBS_SIZE,) for r in rows)
    # Each search spent its budget at the root (the first iteration expands the root).
    assert all(sum(r.visits.values()) == 8 for r in rows)
    assert all(0 <= aid < NUM_ACTIONS for r in rows for aid in r.visits)
    assert all(0.0 <= r.q <= 1.0 for r in rows)


def test_shards_resume_and_are_the_same_whoever_writes_them(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["--out", str(a), "--shards", "2", "--iterations", "4"]) == 0
    assert main(["--out", str(b), "--shards", "1", "--first", "1", "--iterations", "4"]) == 0
    first = sorted(a.glob("shard-*.npz"))
    assert [p.name for p in first] == ["shard-00000.npz", "shard-00001.npz"]
    mtime = first[0].stat().st_mtime_ns
    assert main(["--out", str(a), "--shards", "2", "--iterations", "4"]) == 0  # nothing to do
    assert first[0].stat().st_mtime_ns == mtime
    one, two = load_shards([first[1]]), load_shards([b / "shard-00001.npz"])
    for x, y in zip(one, two, strict=True):
        assert np.array_equal(x, y)
    # A resumed run with other settings would mix two data sets: refused.
    with pytest.raises(SystemExit):
        main(["--out", str(a), "--shards", "3", "--iterations", "5"])
    both = load_shards(first)
    assert set(both.game.tolist()) <= set(range(2 * SHARD_GAMES))
    assert both.obs.shape[1] == OBS_SIZE and both.visits.shape[1] == NUM_ACTIONS
    assert len({len(x) for x in both}) == 1


def _renamed(value: object, rename: dict[str, str]) -> object:
    """``value`` (a position, as JSON) with every card code and colour letter renamed."""
    if isinstance(value, dict):
        return {k: _renamed(v, rename) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, rename) for v in value]
    if isinstance(value, str) and (value in ALL_CODES or value in rename):
        return rename.get(value[0], value[0]) + value[1:]
    return value


def test_colour_maps_are_the_observations_and_ids_of_renamed_positions() -> None:
    obs_maps, action_maps = colour_maps()
    perms = list(itertools.permutations(range(4)))
    assert len(perms) == len(obs_maps) == 24
    letters = [c.value for c in COLOURS]
    rng = random.Random(3)
    checked = 0
    for preset in ("no-mercy", "classic"):
        for seed in range(8):
            g = new_game(2 + seed % 4, rules=preset, seed=seed)
            bots = [make_bot("greedy", seed=s) for s in range(g.n)]
            encoder = FeatureEncoder(g.rules, g.n)
            while not g.is_over:
                if rng.random() < 0.3:
                    k = rng.randrange(24)
                    rename = {letters[i]: letters[perms[k][i]] for i in range(4)}
                    pos = _renamed(g.to_position(), rename)
                    other = Game.from_position(pos)  # type: ignore[arg-type]
                    seat = g.to_act
                    assert seat is not None
                    obs = encoder.encode(g.view(seat, history=False))
                    mine = encoder.encode(other.view(seat, history=False))
                    assert np.array_equal(mine, obs[obs_maps[k]])
                    ids = np.zeros(NUM_ACTIONS)
                    ids[g.legal_ids(seat)] = 1
                    theirs = np.zeros(NUM_ACTIONS)
                    theirs[other.legal_ids(seat)] = 1
                    assert np.array_equal(theirs, ids[action_maps[k]])
                    checked += 1
                g.apply(next_action(g, bots))
    assert checked > 100


def test_puct_can_be_the_teacher() -> None:
    rows = play_game(3, 2, iterations=6, teacher="puct")
    assert rows
    # puct's first iteration evaluates the root, which no child's visits count.
    assert all(sum(r.visits.values()) == 5 for r in rows)
    assert all(0.0 <= r.q <= 1.0 for r in rows)
