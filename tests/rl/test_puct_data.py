"""Self-play shards for the ``puct`` network (nomercy.rl.puct_data)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE
from nomercy.rl.puct_data import SHARD_GAMES, TABLES, load_shards, main, play_game, table_for


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
    both = load_shards(first)
    assert set(both.game.tolist()) <= set(range(2 * SHARD_GAMES))
    assert both.obs.shape[1] == OBS_SIZE and both.visits.shape[1] == NUM_ACTIONS
    assert len({len(x) for x in both}) == 1
