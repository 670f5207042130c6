"""Self-play for the tables where the network is weak: the ``--mix`` of tables
(nomercy.rl.puct_data.MIXES, parse_mix), recorded in every shard and kept apart on resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nomercy.rl.puct_data import (
    MIXES,
    TABLES,
    Table,
    load_shards,
    main,
    mix_label,
    parse_mix,
    table_for,
)


def test_targeted_mix_weights_four_players_and_classic() -> None:
    mix = parse_mix("targeted")
    assert mix == MIXES["targeted"] and mix_label(mix) == "targeted"
    assert {(t.preset, t.players) for t in mix} == {("no-mercy", 4), ("classic", 2)}
    assert sum(t.share for t in mix) == pytest.approx(1.0)
    counts = {t: 0 for t in mix}
    for i in range(3000):
        counts[table_for(5, i, mix)] += 1
    for table, count in counts.items():
        assert abs(count / 3000 - table.share) < 0.03
    assert parse_mix("default") == TABLES and mix_label(TABLES) == "default"


def test_explicit_mix_is_scaled_to_shares() -> None:
    mix = parse_mix("no-mercy:4=3, classic:2=1")
    assert mix == (Table("no-mercy", 4, 0.75), Table("classic", 2, 0.25))
    assert mix_label(mix) == "no-mercy:4=0.75,classic:2=0.25"
    assert parse_mix(mix_label(mix)) == mix


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("weak", "PRESET:PLAYERS=WEIGHT"),
        ("no-mercy:4", "PRESET:PLAYERS=WEIGHT"),
        ("no-mercy:x=1", "PRESET:PLAYERS=WEIGHT"),
        ("uno:2=1", "not a table"),
        ("no-mercy:1=1", "not a table"),
        ("classic:2=0", "positive"),
        ("classic:2=nan", "positive"),
        ("classic:2=1,classic:2=2", "twice"),
    ],
)
def test_bad_mixes_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_mix(text)


def test_shards_record_their_mix_and_a_directory_keeps_one(tmp_path: Path) -> None:
    out = tmp_path / "weak"
    argv = ["--out", str(out), "--iterations", "4", "--seed", "7"]
    assert main([*argv, "--shards", "1", "--mix", "classic:2=1"]) == 0
    shard = out / "shard-00000.npz"
    with np.load(shard, allow_pickle=False) as data:
        assert str(data["mix"]) == "classic:2=1"
    assert load_shards([shard]).classic.all()  # every game at the mix's one table
    with pytest.raises(SystemExit):  # the default mix in a classic-only directory
        main([*argv, "--shards", "2"])
    with pytest.raises(SystemExit):
        main([*argv, "--shards", "2", "--mix", "bogus"])
    assert main([*argv, "--shards", "2", "--mix", "classic:2=5"]) == 0  # the same mix: resumes
    assert sorted(p.name for p in out.glob("shard-*.npz")) == [
        "shard-00000.npz",
        "shard-00001.npz",
    ]
