"""The simulator's statistics from the engine's counters equal a reading of its events.

:func:`reference_game` is ``play_game`` as it was before the engine kept counters: every bot
through the :class:`~nomercy.bots.driver.Driver`, events on, and a tracker that reads the
events into :class:`HandStats`. The fast ``play_game`` (events off unless a bot reads the
history, random seats on ids, statistics from ``Game.hand_tallies``) must give the very same
:class:`GameResult`, every field of every hand, on many seeded games: both presets, matches
with scoring, several option sets, 2 to 6 seats, random, greedy and heuristic bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from nomercy.arena.runner import (
    BotSpec,
    GameResult,
    GameSetup,
    HandStats,
    finishing_ranks,
    play_game,
)
from nomercy.arena.tournament import lineups as tournament_lineups
from nomercy.arena.tournament import run_tournament
from nomercy.bots.driver import Driver
from nomercy.bots.registry import BOTS
from nomercy.core.actions import Challenge, Draw, Pass, Play
from nomercy.core.events import Event
from nomercy.core.game import Phase, new_game
from nomercy.core.seeds import bot_seed, game_seed

_TURN_ACTIONS = frozenset({Play, Draw, Pass, Challenge})
_DRAW_KINDS = frozenset({"draw", "absorb", "catch", "challenge", "reveal"})
_WATCHED = _DRAW_KINDS | {
    "deal",
    "stack",
    "knockout",
    "hand_end",
    "reshuffle",
    "uno",
    "swap",
    "pass_hands",
}


class _Tracker:
    """The event reader the runner used before the counters (kept here as the reference)."""

    def __init__(self) -> None:
        self.hands: list[HandStats] = []
        self.current: HandStats | None = None
        self.actions = self.turns = 0
        self._start = (0, 0)

    def close(self) -> None:
        hand = self.current
        if hand is not None:
            hand.actions = self.actions - self._start[0]
            hand.turns = self.turns - self._start[1]

    def feed(self, event: Event) -> None:
        kind = event.kind
        data = event.data
        hand = self.current
        if kind == "deal":
            self.close()
            hand = self.current = HandStats(int(data["hand_number"]), int(data["dealer"]))
            self.hands.append(hand)
            self._start = (self.actions, self.turns)
            return
        assert hand is not None
        if kind in _DRAW_KINDS:
            count = int(data.get("count", 0))
            hand.cards_drawn += count
            if kind == "draw":
                hand.draws += 1
            elif kind == "absorb":
                hand.stacks.append(int(data.get("total", count)))
            elif kind == "catch":
                hand.catches += 1
        elif kind == "stack":
            hand.max_pending = max(hand.max_pending, int(data["total"]))
        elif kind == "knockout":
            assert event.seat is not None
            hand.knockouts.append(event.seat)
            hand.knockout_steps.append(self.actions)
        elif kind == "hand_end":
            hand.winner = int(data["winner"])
            hand.how = str(data["how"])
            hand.points = int(data.get("points", 0))
            self.close()
        elif kind == "reshuffle":
            hand.reshuffles += 1
        elif kind == "uno":
            hand.uno_calls += 1
        elif kind == "swap":
            hand.swaps += 1
        elif kind == "pass_hands":
            hand.rotations += 1


def reference_game(setup: GameSetup, lineup: Sequence[BotSpec], index: int) -> GameResult:
    """``play_game`` before the counters: the rules built per game, the bots' seeds one by
    one, every decision through the Driver, events on, the tracker."""
    game = new_game(
        setup.players,
        rules=setup.preset,
        options=dict(setup.options),
        seed=game_seed(setup.seed, index),
    )
    bots = [spec.build(bot_seed(setup.seed, index, s)) for s, spec in enumerate(lineup)]
    tracker = _Tracker()
    for event in game.opening_events:
        if event.kind in _WATCHED:
            tracker.feed(event)
    next_action = Driver(bots).next_action
    actions = turns = 0
    while game.phase is not Phase.OVER:
        assert actions < setup.max_actions
        phase = game.phase
        action = next_action(game)
        if phase in (Phase.PLAY, Phase.STACK_OR_ABSORB) and type(action) in _TURN_ACTIONS:
            turns += 1
        actions += 1
        for event in game.apply(action):
            if event.kind in _WATCHED:
                tracker.actions = actions
                tracker.turns = turns
                tracker.feed(event)
    tracker.actions = actions
    tracker.turns = turns
    tracker.close()
    return GameResult(
        index=index,
        seed=game.seed,
        lineup=tuple(spec.label for spec in lineup),
        winner=-1 if game.winner is None else game.winner,
        ranks=finishing_ranks(game, tracker.hands[-1]),
        actions=actions,
        turns=turns,
        scores=tuple(game.scores),
        cards_left=tuple(len(h) for h in game.hands),
        hands=tracker.hands,
    )


R, G, H = BotSpec("random"), BotSpec("greedy"), BotSpec("heuristic")
_MATCH = {"scoring_enabled": True, "score_target": 400}

#: (preset, options, lineups by seat count, games per lineup). Random-only lineups take the
#: id path, greedy-only the Driver with events off, heuristic the Driver with events on, and
#: mixed ones switch per decision.
CASES: list[tuple[str, dict[str, Any], list[tuple[BotSpec, ...]], int]] = [
    ("no-mercy", {}, [(R, R), (R, R, R), (R, R, R, R), (R,) * 5, (R,) * 6], 40),
    ("no-mercy", {}, [(G, R), (R, G, R), (G, G, G, G), (H, R, G, R, G)], 12),
    ("no-mercy", {}, [(H, R), (R, H, G), (H, H, H, R)], 4),
    ("no-mercy", _MATCH, [(R, R), (R, R, R, R), (G, R, G)], 6),
    ("no-mercy", _MATCH, [(H, R)], 2),
    (
        "no-mercy",
        {
            "mercy_timing": "end_of_action",
            "knocked_out_draw_card": "cancelled",
            "last_card_effect": "resolve_effects",
            "discard_all_mode": "optional_subset",
            "roulette_chooser": "player",
            "voluntary_draw": "draw_one_may_pass",
            "eliminated_cards": "bottom_of_discard",
        },
        [(R, R), (R, R, R, R), (G, R, R), (R,) * 6],
        15,
    ),
    (
        "no-mercy",
        {
            "mercy_timing": "end_of_turn",
            "mercy_absorb": "draw_full_then_knock_out",
            "last_card_effect": "apply_draw_penalty",
            "discard_all_mode": "choose_top_and_fire",
            "roulette_mercy": "per_card",
            "reshuffle_timing": "eager",
            "eliminated_cards": "shuffle_into_draw_pile",
            "stack_deflection": "skip_reverse_deflect",
            "wild_colour_timing": "on_resolution",
            "mercy_threshold": 18,
        },
        [(R, R), (R, R, R), (G, G, R, R), (R,) * 5],
        15,
    ),
    ("classic", {}, [(R, R), (R, R, R, R), (R,) * 6, (G, R, G)], 20),
    (
        "classic",
        {
            "classic_stacking": True,
            "classic_seven_zero": True,
            "classic_jump_in": True,
            "challenge_on_winning_card": True,
            "challenge_success_turn": "challenger_skipped",
        },
        [(R, R), (R, R, R), (G, R, G, R), (H, R, G)],
        12,
    ),
    (
        "classic",
        {"scoring_enabled": True, "score_target": 200, "classic_scoring": "lowest_wins"},
        [(R, R, R), (G, R)],
        6,
    ),
    ("classic", {"scoring_enabled": True, "score_target": 250}, [(R, R), (R, G, R, G)], 6),
]


def _label(case: tuple[str, dict[str, Any], list[tuple[BotSpec, ...]], int]) -> str:
    preset, options, lineups, games = case
    bots = {b.name for lineup in lineups for b in lineup}
    return f"{preset}-{len(options)}opts-{'+'.join(sorted(bots))}-{games}"


@pytest.mark.parametrize("case", CASES, ids=[_label(c) for c in CASES])
def test_counters_give_the_event_statistics(
    case: tuple[str, dict[str, Any], list[tuple[BotSpec, ...]], int],
) -> None:
    preset, options, lineups, games = case
    for lineup in lineups:
        setup = GameSetup.make(len(lineup), preset=preset, options=options, seed=len(lineup) + 5)
        for index in range(games):
            fast = play_game(setup, lineup, index)
            slow = reference_game(setup, lineup, index)
            assert fast == slow, (preset, options, [b.name for b in lineup], index)


def test_the_cases_see_every_counted_thing() -> None:
    """The cases above are worth comparing: every statistic is non-zero in some hand."""
    seen: dict[str, int] = {}
    for preset, options, lineups, games in CASES:
        for lineup in lineups[:2]:
            setup = GameSetup.make(
                len(lineup), preset=preset, options=options, seed=len(lineup) + 5
            )
            for index in range(min(games, 6)):
                for hand in play_game(setup, lineup, index).hands:
                    for name in HandStats.__slots__:
                        value = getattr(hand, name)
                        if value and name not in ("hand", "dealer", "winner", "how"):
                            seen[name] = seen.get(name, 0) + 1
    wanted = {
        "turns",
        "actions",
        "cards_drawn",
        "draws",
        "knockouts",
        "knockout_steps",
        "stacks",
        "max_pending",
        "points",
        "catches",
        "uno_calls",
        "reshuffles",
        "swaps",
        "rotations",
    }
    assert wanted <= set(seen), wanted - set(seen)


def test_a_tournament_plays_the_reference_games() -> None:
    """Tournaments run the same play_game: every game equals its reference, rotation and all."""
    bots = [G, R, H]
    setup = GameSetup.make(3, seed=21, options={"scoring_enabled": True, "score_target": 300})
    result = run_tournament(bots, setup, 12, jobs=1)
    seats = tournament_lineups(bots, 3)
    assert [g.index for g in result.games] == list(range(12))
    for game in result.games:
        assert game == reference_game(setup, seats[game.index % len(seats)], game.index)


class _LastBot:
    """Always the last legal choice, by actions or by ids (a bot that offers choose_id)."""

    name = "last-test"
    view_mode = "none"
    id_calls = 0

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose_action(self, view: dict[str, Any], legal: list[Any]) -> Any:
        return legal[-1]

    def choose_id(self, legal_ids: list[int]) -> int:
        _LastBot.id_calls += 1
        return legal_ids[-1]


def test_a_bot_that_picks_ids_plays_its_games_on_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "last-test", _LastBot)
    last = BotSpec("last-test")
    for lineup in [(last, R), (R, last, G)]:
        setup = GameSetup.make(len(lineup), seed=3)
        for index in range(8):
            before = _LastBot.id_calls
            assert play_game(setup, lineup, index) == reference_game(setup, lineup, index)
            assert _LastBot.id_calls > before
