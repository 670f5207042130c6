"""The lean driver plays exactly the games the plain driver loop plays (nomercy.bots.driver)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from nomercy import Action, CallUno, Game, PlayerView, new_game
from nomercy.bots import Bot, GreedyBot, OutOfTurnBot, RandomBot, make_bot, next_action, play_out
from nomercy.bots.driver import Driver, view_mode

#: Option sets reaching UNO calls and catches, classic jump-ins and every decision phase.
OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("no-mercy", {}),
    ("no-mercy", {"discard_all_mode": "optional_subset", "stack_threshold": "running_total"}),
    ("no-mercy", {"mercy_timing": "end_of_turn", "roulette_chooser": "player"}),
    ("classic", {}),
    ("classic", {"classic_jump_in": True, "classic_stacking": True, "classic_seven_zero": True}),
]


def reference_next_action(game: Game, bots: Sequence[Bot]) -> Action:
    """The driver before it was made lean: every seat's legal actions, full views."""
    n = game.n
    turn = game.to_act
    assert turn is not None
    callers: list[tuple[int, list[Action]]] = []
    others: list[tuple[int, list[Action]]] = []
    for seat in [*range(turn, n), *range(turn)]:
        legal = game.legal_actions(seat) if not game.out[seat] else []
        if not legal:
            continue
        if any(isinstance(a, CallUno) for a in legal):
            if seat == turn:
                return bots[seat].choose_action(game.view(seat), legal)
            callers.append((seat, legal))
        elif seat != turn:
            others.append((seat, legal))
    for seat, legal in [*callers, *others]:
        bot = bots[seat]
        if isinstance(bot, OutOfTurnBot):
            action = bot.choose_out_of_turn(game.view(seat), legal)
            if action is not None:
                return action
    return bots[turn].choose_action(game.view(turn), game.legal_actions(turn))


def lineup(rng: random.Random, n: int, seed: int) -> list[Bot]:
    return [make_bot(rng.choice(["random", "greedy"]), seed=seed * 10 + s) for s in range(n)]


def test_lean_driver_plays_the_same_games_as_the_plain_loop() -> None:
    rng = random.Random(7)
    uno_calls = out_of_turn = 0
    for preset, options in OPTION_SETS:
        for seed in range(12):
            players = rng.randint(2, 6)
            bot_seeds = rng.randrange(10**6)
            lean = new_game(players, rules=preset, options=options, seed=seed)
            plain = lean.copy()
            play_out(lean, lineup(random.Random(bot_seeds), players, seed), max_actions=3000)
            bots = lineup(random.Random(bot_seeds), players, seed)
            while not plain.is_over and len(plain.history) < len(lean.history):
                action = reference_next_action(plain, bots)
                out_of_turn += action.seat != plain.to_act
                uno_calls += isinstance(action, CallUno)
                plain.apply(action)
            assert [str(a) for a in plain.history] == [str(a) for a in lean.history]
            assert plain.is_over == lean.is_over and plain.winner == lean.winner
    assert uno_calls and out_of_turn  # the out-of-turn paths were exercised


def test_next_action_matches_the_driver_object() -> None:
    g = new_game(4, seed=3)
    bots: list[Bot] = [GreedyBot(s) for s in range(4)]
    driver = Driver(bots)
    for _ in range(40):
        action = next_action(g, bots)
        assert action == driver.next_action(g)
        g.apply(action)


def test_bots_get_the_view_their_mode_asks_for() -> None:
    seen: dict[str, PlayerView | None] = {}

    class Probe:
        name = "probe"

        def __init__(self, mode: str | None) -> None:
            self.mode = mode
            if mode is not None:
                self.view_mode = mode

        def choose_action(self, view: PlayerView | None, legal: list[Action]) -> Action:
            seen[str(self.mode)] = view
            return legal[0]

    g = new_game(3, seed=1)
    for _ in range(10):  # a few full rounds so the history is not empty
        g.apply(Driver([RandomBot(s) for s in range(3)]).next_action(g))
    for mode in (None, "full", "no_history", "none"):
        Driver([Probe(mode)] * 3).next_action(g)
    assert seen["None"] == seen["full"] == g.view(g.to_act)
    full, no_history = seen["full"], seen["no_history"]
    assert full is not None and full.history
    assert no_history == g.view(g.to_act, history=False)
    assert no_history is not None and no_history.history == ()
    assert seen["none"] is None  # a view_mode "none" bot gets no view (nomercy.bots.base)


def test_shipped_bots_declare_lean_views() -> None:
    assert view_mode(RandomBot()) == "none"
    assert view_mode(GreedyBot()) == "no_history"


def test_unknown_view_mode_is_rejected() -> None:
    bot = RandomBot()
    bot.view_mode = "some"  # type: ignore[misc]
    with pytest.raises(ValueError, match="view_mode 'some'; valid: full, no_history, none"):
        Driver([bot, RandomBot()])


def test_random_bot_draws_exactly_what_randrange_drew() -> None:
    # RandomBot now uses rng.choice(legal); its games must be the ones randrange indexed.
    for seed in range(5):
        bot, rng = RandomBot(seed), random.Random(seed)
        for size in (1, 2, 3, 7, 40, 129, 1000):
            legal: list[Any] = list(range(size))
            assert bot.choose_action({}, legal) == legal[rng.randrange(len(legal))]
