"""Every game of the golden corpus replays to the same digest after every action (issue 12).

The corpus (``corpus.jsonl.gz``, written by ``corpus.py``) holds 3,000 seeded random games over
both presets, random option sets and 2-10 players, recorded after the rules audit. Any change
of behaviour, deal, shuffle, event text or position key shows here at the first step it touches,
on the object path (``Game.apply``) and on the id path (``Game.step``) alike.
"""

from __future__ import annotations

from collections import Counter

import corpus
import pytest

ENTRIES = list(corpus.load())


def test_corpus_covers_both_presets_all_player_counts_and_finished_games() -> None:
    presets = Counter(e["preset"] for e in ENTRIES)
    players = {e["players"] for e in ENTRIES}
    assert len(ENTRIES) >= 2500
    assert presets["classic"] >= 500 and presets["no-mercy"] >= 1500
    assert players == set(range(2, 11))
    assert sum(len(e["actions"]) for e in ENTRIES) > 300_000
    assert all(len(e["digests"]) == corpus.DIGEST_CHARS * (len(e["actions"]) + 1) for e in ENTRIES)


@pytest.mark.parametrize("part", range(10))
def test_golden_games_replay_step_by_step(part: int) -> None:
    for entry in ENTRIES[part::10]:
        corpus.check(entry)


@pytest.mark.parametrize("part", range(10))
def test_golden_games_replay_step_by_step_on_the_id_path(part: int) -> None:
    # Issue 23: the id path (Game.step) plays every golden game to the same digests.
    for entry in ENTRIES[part::10]:
        corpus.check(entry, path="ids")
