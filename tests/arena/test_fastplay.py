"""The simulator's compiled id loop plays the games the Python bot path plays.

``nomercy simulate`` with ``random`` bots plays every game in
:func:`nomercy.bots.fastplay.play_ids` (compiled with the core). The reference is the Python
bot path: the same ``RandomBot``, seated through the :class:`~nomercy.bots.driver.Driver` on
action objects (a subclass that redefines ``choose_action`` loses the id methods,
``runner._id_chooser``). A seed must give byte-identical ``hands.csv`` and summary on both
paths, on both builds (CI runs the suite on each), for several seeds, presets, options and
player counts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nomercy.arena.runner import BotSpec, GameSetup, play_game
from nomercy.arena.simulate import run_simulation
from nomercy.bots.driver import Driver
from nomercy.bots.fastplay import play_ids
from nomercy.bots.random_bot import RandomBot
from nomercy.bots.registry import BOTS
from nomercy.core.errors import IllegalActionError
from nomercy.core.game import new_game
from nomercy.core.views import PlayerView


class _ObjectRandom(RandomBot):
    """RandomBot on the Python bot path: the same choice, through the driver's actions."""

    name = "random-objects"

    def choose_action(self, view: PlayerView | None, legal: list[Any]) -> Any:
        return super().choose_action(view, legal)


@pytest.fixture
def objects_bot(monkeypatch: pytest.MonkeyPatch) -> BotSpec:
    monkeypatch.setitem(BOTS, "random-objects", _ObjectRandom)
    return BotSpec("random-objects")


CASES: list[tuple[str, int, dict[str, Any], int, tuple[str, list[Any]] | None]] = [
    ("no-mercy", 4, {}, 1, None),
    ("no-mercy", 2, {}, 7, None),
    ("no-mercy", 6, {"mercy_threshold": 15}, 11, None),
    ("no-mercy", 3, {"scoring_enabled": True, "score_target": 300}, 5, None),
    ("no-mercy", 4, {}, 2, ("mercy_threshold", [20, 30])),
    ("classic", 2, {}, 3, None),
    ("classic", 4, {"scoring_enabled": True, "classic_scoring": "lowest_wins"}, 9, None),
    ("classic", 5, {"classic_jump_in": True}, 4, None),
]


@pytest.mark.parametrize(
    ("preset", "players", "options", "seed", "compare"),
    CASES,
    ids=[f"{c[0]}-{c[1]}p-seed{c[3]}" + ("-compare" if c[4] else "") for c in CASES],
)
def test_simulate_prints_what_the_python_bot_path_prints(
    objects_bot: BotSpec,
    preset: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    compare: tuple[str, list[Any]] | None,
) -> None:
    setup = GameSetup.make(players, preset, options, seed)
    fast = run_simulation([BotSpec("random")], setup, 25, compare=compare, jobs=1)
    slow = run_simulation([objects_bot], setup, 25, compare=compare, jobs=1)
    assert fast.to_csv() == slow.to_csv()
    fast_summary, slow_summary = fast.summary(), slow.summary()
    assert fast_summary["config"].pop("bots") == ["random"] * players
    assert slow_summary["config"].pop("bots") == ["random-objects"] * players
    assert json.dumps(fast_summary) == json.dumps(slow_summary)
    for a, b in zip(fast.variants, slow.variants, strict=True):
        for game_a, game_b in zip(a.games, b.games, strict=True):
            assert (game_a.winner, game_a.ranks, game_a.scores, game_a.cards_left) == (
                game_b.winner,
                game_b.ranks,
                game_b.scores,
                game_b.cards_left,
            )


def test_play_ids_steps_each_seats_choice_to_the_end() -> None:
    for players, seed in [(2, 0), (4, 8), (6, 21)]:
        fast = new_game(players, seed=seed)
        fast.record_events = False
        bots = [RandomBot(seed * 10 + s) for s in range(players)]
        assert play_ids(fast, [bot.id_chooser() for bot in bots], 100_000)
        slow = new_game(players, seed=seed)
        Driver([RandomBot(seed * 10 + s) for s in range(players)]).play_out(slow)
        assert fast.is_over and fast.winner == slow.winner
        assert fast.hand_tallies == slow.hand_tallies
        assert [len(h) for h in fast.hands] == [len(h) for h in slow.hands]


def test_play_ids_stops_at_the_limit() -> None:
    game = new_game(4, seed=2)
    chooser = RandomBot(1).id_chooser()
    assert not play_ids(game, [chooser] * 4, 5)
    assert game.tally.actions == 5 and not game.is_over
    assert play_ids(game, [chooser] * 4, 100_000)
    assert play_ids(game, [chooser] * 4, 0)  # already over: nothing to do


def test_a_game_past_the_limit_is_an_error() -> None:
    setup = GameSetup.make(4, seed=1, max_actions=10)
    with pytest.raises(RuntimeError, match="did not end within 10 actions"):
        play_game(setup, [BotSpec("random")] * 4, 0)


def test_an_illegal_choice_is_refused_and_changes_nothing() -> None:
    game = new_game(3, seed=5)
    before = game.to_position()

    def illegal(ids: list[int]) -> int:
        return min(set(range(max(ids) + 2)) - set(ids))

    with pytest.raises(IllegalActionError):
        play_ids(game, [illegal] * 3, 10)
    assert game.tally.actions == 0
    assert game.to_position() == before
