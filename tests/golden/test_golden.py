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


def test_a_differing_step_is_shown_as_a_playthrough_on_both_builds() -> None:
    # Issue 47: a golden failure names the step and shows it (position before, action,
    # events, what changed), and what the other build of the core makes of it, not a bare
    # hash. A recording whose step 5 digest is corrupted stands in for a broken rule.
    entry = next(e for e in ENTRIES if len(e["actions"]) >= 10)
    chars = corpus.DIGEST_CHARS
    digests = entry["digests"]
    wrong = "".join("0" if c != "0" else "1" for c in digests[5 * chars : 6 * chars])
    broken = {**entry, "digests": digests[: 5 * chars] + wrong + digests[6 * chars :]}
    assert corpus.first_difference(broken) == 5
    with pytest.raises(AssertionError) as failure:
        corpus.check(broken)
    text = str(failure.value)
    assert f"seed={entry['seed']}" in text and "action 5 gives a different game" in text
    assert f"step 5: {entry['actions'][4]}" in text
    for part in ("events:", "position before:", "changed by the step:", "--- the other build:"):
        assert part in text
    # The other build replays the same step in its own process and says it differs too.
    other = text.split("--- the other build:")[1]
    assert "core: this step differs from the recording" in other
    assert f"step 5: {entry['actions'][4]}" in other
