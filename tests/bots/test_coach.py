"""The coach (nomercy.tables.coach): legal hints from a seat's view only, deterministic per
seed, with estimates from the search's root statistics and reasons grounded in the move."""

from __future__ import annotations

import doctest
import hashlib
import random
from pathlib import Path
from typing import Any

import pytest
from botkit import OPTION_SETS, json_view, reshuffle_secrets

from nomercy import Colour, Game, PlayerView, new_game
from nomercy.bots import BEST, ISMCTSBot, make_bot
from nomercy.bots.puct_bot import PUCTBot
from nomercy.core.actions import CallUno, Catch, Draw, Play, parse_action
from nomercy.tables import coach as coach_module
from nomercy.tables.coach import (
    CALIBRATED_WEIGHTS,
    CALIBRATION,
    REASONS,
    Coach,
    CoachError,
    Estimate,
    calibrated,
    reason_for,
)

#: A budget the machine always finishes: the time cap never cuts these searches short, so
#: every hint here is deterministic.
ITERATIONS = 40
SLOW = 600.0


def small_coach(seed: int = 0) -> Coach:
    return Coach(seed=seed, iterations=ITERATIONS, max_time=SLOW)


def positions(preset: str, options: dict[str, Any], players: int, seed: int, every: int = 3):
    """Positions along a heuristic game: (game copy, seat to act) every ``every`` actions."""
    g = new_game(players, rules=preset, options=options, seed=seed)
    bots = [make_bot("heuristic", seed=s) for s in range(players)]
    count = 0
    while not g.is_over and count < 400:
        seat = g.to_act
        assert seat is not None
        legal = g.legal_actions(seat)
        if count % every == 0:
            yield g.copy(), seat
        g.apply(bots[seat].choose_action(g.view(seat), legal))
        count += 1


def test_the_module_example_holds() -> None:
    assert doctest.testmod(coach_module).failed == 0


def test_the_coach_doc_examples_run() -> None:
    path = Path(__file__).resolve().parents[2] / "docs" / "coach.md"
    result = doctest.testfile(str(path), module_relative=False, verbose=False)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(("preset", "options"), OPTION_SETS)
def test_the_hint_is_always_one_of_the_legal_actions(preset: str, options: dict[str, Any]) -> None:
    coach = small_coach(3)
    seen = 0
    for players in (2, 4):
        for g, seat in positions(preset, options, players, seed=11 + players, every=5):
            legal = g.legal_actions(seat)
            hint = coach.hint(json_view(g, seat), legal)
            assert hint.action in legal
            assert hint.seat == seat
            assert hint.chance is not None and 0.0 <= hint.chance <= 1.0
            assert hint.estimates and hint.estimates[0].chance == hint.chance
            assert all(e.action in legal for e in hint.estimates)
            assert hint.reason.kind in REASONS and hint.reason.text
            seen += 1
    assert seen >= 10


def test_the_hint_uses_the_seat_view_only() -> None:
    """Twins that differ only in cards hidden from the seat get the same hint."""
    rng = random.Random(5)
    checked = 0
    for players in (2, 3, 4):
        for g, seat in positions("no-mercy", {}, players, seed=20 + players, every=4):
            if checked >= 24:
                break
            twin = reshuffle_secrets(g, seat, rng)
            piles = [x.to_position()["draw_pile"] for x in (g, twin)]
            assert twin.hands != g.hands or piles[0] != piles[1]  # the secrets really differ
            a = small_coach(7).hint(json_view(g, seat), g.legal_actions(seat))
            b = small_coach(7).hint(json_view(twin, seat), twin.legal_actions(seat))
            assert a.to_json() | {"seconds": 0} == b.to_json() | {"seconds": 0}
            checked += 1
    assert checked == 24


def test_the_same_seed_gives_the_same_hint_and_the_seed_matters() -> None:
    differ = False
    for g, seat in positions("no-mercy", {}, 3, seed=31, every=2):
        view, legal = json_view(g, seat), g.legal_actions(seat)
        first = small_coach(1).hint(view, legal).to_json()
        again = small_coach(1).hint(view, legal).to_json()
        assert first | {"seconds": 0} == again | {"seconds": 0}
        other = small_coach(2).hint(view, legal).to_json()
        differ = differ or first["estimates"] != other["estimates"]
    assert differ  # another seed samples other deals


@pytest.mark.parametrize("name", ["ismcts", "puct"])
def test_the_estimates_are_the_search_root_statistics(name: str) -> None:
    g = new_game(2, seed=8)
    seat = g.to_act
    view, legal = g.view(seat), g.legal_actions(seat)
    bot = make_bot(name, seed=4, iterations=120, max_time=SLOW)
    assert isinstance(bot, ISMCTSBot)
    stats = bot.root_statistics(view, bot.search_candidates(legal, view))
    assert bot.last_iterations == 120
    # puct's first iteration evaluates the root itself, which no child's visits count.
    assert sum(s.visits for s in stats) == (120 if name == "ismcts" else 119)
    assert all(0.0 <= s.mean <= 1.0 for s in stats)
    # The bot's own choice is the most visited root action.
    chosen = make_bot(name, seed=4, iterations=120, max_time=SLOW).choose_action(view, legal)
    top = max(stats, key=lambda s: (s.visits, s.mean))
    assert chosen == top.action
    coach = Coach(seed=4, iterations=120, max_time=SLOW, bot=name)
    estimates, iterations = coach.estimates(view, legal)
    assert iterations == 120
    assert (estimates[0].action, estimates[0].visits) == (top.action, top.visits)


def test_the_calibration_fits_the_shipped_weights_and_keeps_the_order() -> None:
    # Refit CALIBRATION (docs/coach.md) whenever puct.npz changes: the hash says for which.
    weights = Path(__file__).resolve().parents[2] / "src/nomercy/bots/data/puct.npz"
    assert len(CALIBRATED_WEIGHTS) >= 12
    assert hashlib.sha256(weights.read_bytes()).hexdigest().startswith(CALIBRATED_WEIGHTS)
    assert {(False, 2), (False, 4), (True, 2)} <= set(CALIBRATION)
    grid = [i / 100 for i in range(1, 100)]
    for (classic, seats), (a, _b) in CALIBRATION.items():
        assert 0.5 < a < 2.0  # a mild correction, increasing in the search's mean
        shown = [calibrated(p, classic, seats) for p in grid]
        assert all(0.0 < x < 1.0 for x in shown)
        assert shown == sorted(shown) and len(set(shown)) > 90
        assert calibrated(0.0, classic, seats) == 0.0 and calibrated(1.0, classic, seats) == 1.0
    assert calibrated(0.37, False, 6) == 0.37  # a table not fitted: the mean as it is


@pytest.mark.parametrize(("players", "preset"), [(2, "no-mercy"), (4, "no-mercy"), (2, "classic")])
def test_the_puct_coach_shows_its_means_through_the_fit(players: int, preset: str) -> None:
    g = new_game(players, rules=preset, seed=11)
    seat = g.to_act
    view, legal = g.view(seat), g.legal_actions(seat)
    raw, _ = Coach(seed=2, iterations=80, max_time=SLOW, calibrated=False).estimates(view, legal)
    shown, _ = Coach(seed=2, iterations=80, max_time=SLOW).estimates(view, legal)
    assert [(e.action, e.visits) for e in shown] == [(e.action, e.visits) for e in raw]
    classic = preset == "classic"
    for s, r in zip(shown, raw, strict=True):
        assert s.chance == pytest.approx(calibrated(r.chance, classic, players))
    # ismcts's chances are its own means: the fit is the network's.
    plain = Coach(seed=2, iterations=80, max_time=SLOW, bot="ismcts")
    assert not plain.calibrated


def test_the_coach_searches_with_the_best_bot() -> None:
    assert Coach().bot == BEST == "puct"
    assert isinstance(make_bot("best"), PUCTBot)
    with pytest.raises(ValueError, match="'puct' or 'ismcts'"):
        Coach(bot="heuristic")


def test_root_statistics_refuses_no_candidates() -> None:
    g = new_game(2, seed=8)
    with pytest.raises(ValueError, match="at least one candidate"):
        ISMCTSBot().root_statistics(g.view(g.to_act), [])


def test_estimates_include_a_move_the_search_leaves_out() -> None:
    g = Game.from_position(
        {"players": [{"hand": ["R1", "R2"]}, {"hand": ["Y1", "Y2", "Y3"]}], "discard": ["R5"]}
    )
    legal = g.legal_actions(0)
    silent = parse_action("play R1", 0)
    assert silent in legal
    coach = small_coach()
    plain, _ = coach.estimates(g.view(0), legal)
    assert silent not in [e.action for e in plain]  # dominated by "play R1 uno"
    more, _ = coach.estimates(g.view(0), legal, include=[silent])
    assert silent in [e.action for e in more]


def test_a_spectator_or_a_seat_with_nothing_to_decide_gets_a_clear_error() -> None:
    g = new_game(3, seed=2)
    seat = g.to_act
    other = (seat + 1) % 3
    coach = small_coach()
    with pytest.raises(CoachError, match="spectator"):
        coach.hint(g.view(None), [])
    with pytest.raises(CoachError, match="not this seat's decision"):
        coach.hint(g.view(other), g.legal_actions(other))
    with pytest.raises(CoachError, match="no legal action"):
        coach.hint(g.view(seat), [])
    with pytest.raises(ValueError, match="iterations"):
        Coach(iterations=0)
    with pytest.raises(ValueError, match="max_time"):
        Coach(max_time=0)


# ---------------------------------------------------------------------- reasons
def view_of(position: dict[str, Any], seat: int = 0) -> tuple[Game, PlayerView]:
    game = Game.from_position(position)
    return game, game.view(seat)


def est(view: PlayerView, *pairs: tuple[str, float]) -> list[Estimate]:
    return [Estimate(parse_action(a, view.seat), c, 10) for a, c in pairs]


def test_reason_stacking_passes_the_penalty_on() -> None:
    _, view = view_of(
        {
            "players": [
                {"hand": ["R+2", "G1", "Y3"]},
                {"hand": ["Y1", "Y2"]},
                {"hand": ["B1", "B2", "B3"]},
            ],
            "turn": 0,
            "discard": ["R3", "R+2"],
            "pending": {"total": 2, "last": 2},
        }
    )
    estimates = est(view, ("play R+2", 0.4), ("draw", 0.3))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "stack"
    assert reason.data["total"] == 4 and reason.data["name"] == "P1"
    assert reason.text == (
        "stacking passes the 4-card penalty on to P1 instead of taking it [NM-18]"
    )
    # Taking the cards instead: the reason quotes the stack's lower estimate.
    estimates = est(view, ("draw", 0.5), ("play R+2", 0.3))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "absorb"
    assert "30% chance to win with the red +2" in reason.text


def test_reason_a_stack_that_knocks_the_target_out() -> None:
    _, view = view_of(
        {
            "players": [
                {"hand": ["W+10", "G1"]},
                {"hand": [f"{c}{n}" for c in "YB" for n in range(1, 10)] + ["G5", "G6"]},
            ],
            "turn": 0,
            "discard": ["R3", "R+4"],
            "pending": {"total": 4, "last": 4},
        }
    )
    estimates = est(view, ("play W+10 G", 0.9), ("draw", 0.1))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "stack_knockout"
    assert reason.data == {"card": "W+10", "total": 14, "name": "P1", "distance": 5}


def test_reason_keep_wilds_colour_and_points() -> None:
    _, view = view_of(
        {
            "players": [
                {"hand": ["R4", "R7", "W", "G9", "G8", "G2"]},
                {"hand": ["Y1", "Y2", "Y3", "Y4"]},
            ],
            "turn": 0,
            "discard": ["R5"],
            "rules": {"preset": "classic"},
        }
    )
    estimates = est(view, ("play R4", 0.5), ("play W G", 0.45), ("play R7", 0.4))
    reason = reason_for(estimates[0].action, view, estimates)
    assert (reason.kind, reason.data) == ("keep_wild", {"card": "R4"})
    assert reason.text == "play the red 4 and keep your wild cards for later"
    estimates = est(view, ("play W G", 0.5), ("play R4", 0.45))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "wild_colour"
    assert reason.data == {"colour": "G", "count": 3}
    assert reason.text == "the wild names green, the colour you hold most (3 cards)"


def test_hints_call_uno_catch_forced_and_win_on_the_board() -> None:
    coach = small_coach()
    # Seat 1 plays its next-to-last card without calling UNO: seat 0 catches it first.
    g = Game.from_position(
        {
            "players": [{"hand": ["R1", "G2", "B3"]}, {"hand": ["Y1", "R8"]}],
            "discard": ["R5"],
            "turn": 1,
        }
    )
    g.apply("1:play R8")
    hint = coach.hint(g.view(0), g.legal_actions(0))
    assert hint.action == Catch(0, 1)
    assert hint.reason.kind == "catch" and hint.reason.data["name"] == "P1"
    assert hint.reason.text == "P1 did not call UNO: catching them makes them draw 2 [NM-37]"
    assert hint.chance is not None  # seat 0 is to act: its chance is estimated too
    # Out of turn, seat 1 is told to call UNO (no chance: the search weighs in-turn moves).
    hint = coach.hint(g.view(1), g.legal_actions(1))
    assert hint.action == CallUno(1) and hint.chance is None and hint.estimates == []
    assert hint.reason.kind == "call_uno"
    # Nothing playable: drawing is the only move.
    g = Game.from_position(
        {"players": [{"hand": ["R1", "G1"]}, {"hand": ["Y1", "Y2", "Y3"]}], "discard": ["B5"]}
    )
    hint = coach.hint(g.view(0), g.legal_actions(0))
    assert isinstance(hint.action, Draw) and hint.reason.kind == "forced"
    assert hint.reason.text == "it is your only move"
    # A last card (a wild: four variants) wins the hand.
    g = Game.from_position(
        {
            "players": [{"hand": ["W"]}, {"hand": ["Y1", "Y2", "Y3"]}],
            "discard": ["B5"],
            "rules": {"preset": "classic"},
        }
    )
    g.apply("0:uno")
    hint = coach.hint(g.view(0), g.legal_actions(0))
    assert isinstance(hint.action, Play) and hint.reason.kind == "win"
    assert hint.chance == 1.0


def test_every_reason_template_fills_from_its_data() -> None:
    """Each kind's template names only keys that the code fills (checked by formatting)."""
    import string

    for kind, template in REASONS.items():
        keys = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        assert keys <= {
            "penalty", "name", "total", "distance", "alt_chance", "alt_card", "card", "size",
            "value", "count", "colour", "given", "points", "chance",
        }, kind  # fmt: skip


def test_reason_a_challenge_names_the_colour_the_wild_four_replaced() -> None:
    from nomercy import new_game

    # Classic, first legal actions until a Wild +4 waits for an answer (seed 30: on blue).
    game = new_game(2, rules="classic", seed=30)
    while not game.view(game.to_act).wd4_challengeable:
        game.apply(str(game.legal_actions(game.to_act)[0]))
    seat = game.to_act
    view = game.view(seat)
    assert view.wd4_play is not None
    accused = view.wd4_play.seat
    estimates = est(view, ("challenge", 0.6), ("draw", 0.4))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "challenge"
    assert view.wd4_play.colour is Colour.BLUE
    assert reason.data == {"name": f"P{accused}", "colour": "B"}
    assert reason.text == (
        f"challenge the Wild +4: P{accused} likely held a blue card, the colour it replaced [CL-8]"
    )
    assert reason.rules == ("CL-8",)


def test_a_reason_about_one_card_says_card() -> None:
    from nomercy.tables.coach import _fill

    reason = _fill("skip", {"card": "RS", "name": "P1", "size": 1})
    assert reason.text == "the red Skip skips P1, who holds only 1 card"
    assert _fill("skip", {"card": "RS", "name": "P1", "size": 11}).text.endswith("11 cards")


# ------------------------------------------------- certain outcomes are exact (NM-33, NM-38)
#: 18 cards and no Draw Card: nothing answers a +4 stack.
_EIGHTEEN = [f"B{n}" for n in range(1, 10)] * 2


def _facing_eight(players: int, extra: tuple[str, ...] = ()) -> Game:
    """Seat 0 holds 18 cards (plus ``extra``) and faces a stack of 8: taking it reaches the
    25-card Mercy limit (NM-33)."""
    others = [{"hand": [f"Y{s}", f"G{s}", f"R{s}"]} for s in range(1, players)]
    return Game.from_position(
        {
            "players": [{"hand": [*_EIGHTEEN, *extra]}, *others],
            "turn": 0,
            "discard": ["R5", "R+4"],
            "pending": {"total": 8, "last": 4},
        }
    )


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("bot", ["ismcts", "puct"])
def test_nm33_a_forced_knock_out_is_a_zero_chance(players: int, bot: str) -> None:
    """The only move takes 8 cards up to the limit: the hint says 0%, whatever the search
    samples (the puct network once read 4-5% into a knocked-out seat's observation)."""
    g = _facing_eight(players)
    (take,) = g.legal_actions(0)
    assert coach_module.certain_chance(take, g.view(0)) == 0.0
    for seed in (1, 2, 3):
        coach = Coach(seed=seed, iterations=120, max_time=SLOW, bot=bot)
        hint = coach.hint(g.view(0), g.legal_actions(0))
        assert hint.action == take and hint.chance == 0.0
        assert hint.line() == "draw (estimated chance to win: 0%): it is your only move"


@pytest.mark.parametrize("bot", ["ismcts", "puct"])
def test_nm33_taking_a_knock_out_rates_zero_beside_a_stack(bot: str) -> None:
    """With a Wild +4 to stack, taking the 8 still knocks out for certain: exactly 0."""
    g = _facing_eight(3, ("B+4",))
    legal = g.legal_actions(0)
    take = next(a for a in legal if isinstance(a, Draw))
    coach = Coach(seed=1, iterations=200, max_time=SLOW, bot=bot)
    estimates, _ = coach.estimates(g.view(0), legal, include=[take])
    assert next(e for e in estimates if e.action == take).chance == 0.0
    assert all(0.0 <= e.chance <= 1.0 for e in estimates)


def test_nm33_drawing_at_one_below_the_limit_and_a_self_aimed_penalty_are_certain() -> None:
    # 24 cards, nothing playable: the one card drawn reaches 25 (NM-33).
    g = Game.from_position(
        {
            "players": [{"hand": [*_EIGHTEEN, "G1", "G2", "G3", "G4", "G5", "G6"]},
                        {"hand": ["Y1", "Y2"]}],
            "turn": 0,
            "discard": ["R0"],
        }
    )  # fmt: skip
    (draw,) = g.legal_actions(0)
    assert coach_module.certain_chance(draw, g.view(0)) == 0.0
    # A16 "resolve_effects": a last 7 swaps first, so its outcome is not fixed.
    g = Game.from_position(
        {
            "rules": {"preset": "no-mercy", "options": {"last_card_effect": "resolve_effects"}},
            "players": [{"hand": ["R7"]}, {"hand": ["Y1", "Y2"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    assert all(coach_module.certain_chance(a, g.view(0)) is None for a in g.legal_actions(0))


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
@pytest.mark.parametrize("bot", ["ismcts", "puct"])
def test_nm38_a_winning_last_card_is_a_certain_win(preset: str, bot: str) -> None:
    """Playing the last card ends the hand (NM-38, A16 win_immediately, CL-10): 100%, beside
    a Discard All that sheds the whole hand."""
    g = Game.from_position(
        {
            "rules": {"preset": preset},
            "players": [{"hand": ["R7"]}, {"hand": ["Y1", "Y2", "Y3"]}, {"hand": ["G1", "G2"]}],
            "turn": 0,
            "discard": ["R5"],
        }
    )
    g.apply("0:uno")  # called in time: the play is the decision left
    legal = g.legal_actions(0)
    win = next(a for a in legal if isinstance(a, Play))
    assert coach_module.certain_chance(win, g.view(0)) == 1.0
    hint = Coach(seed=1, iterations=80, max_time=SLOW, bot=bot).hint(g.view(0), legal)
    assert hint.action == win and hint.chance == 1.0
    if preset == "no-mercy":  # a Discard All shedding every card left wins too (NM-27)
        g = Game.from_position(
            {
                "players": [{"hand": ["RDA", "R1", "R2"]}, {"hand": ["Y1", "Y2", "Y3"]}],
                "turn": 0,
                "discard": ["R5"],
            }
        )
        shed = next(a for a in g.legal_actions(0) if isinstance(a, Play) and a.card.code == "RDA")
        assert coach_module.certain_chance(shed, g.view(0)) == 1.0
        assert coach_module.certain_chance(parse_action("play R1", 0), g.view(0)) is None


def test_cl8_the_accept_reason_says_what_its_figure_is() -> None:
    """Taking the Wild +4's cards: the figure quoted is the chance to win after a challenge;
    a challenge rated as high or higher is not called lower (``close``)."""
    game = new_game(2, rules="classic", seed=30)
    while not game.view(game.to_act).wd4_challengeable:
        game.apply(str(game.legal_actions(game.to_act)[0]))
    view = game.view(game.to_act)
    estimates = est(view, ("draw", 0.24), ("challenge", 0.11))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "accept"
    assert reason.text == (
        "take the cards: challenging rates lower (11% chance to win after a challenge) [CL-8]"
    )
    estimates = est(view, ("draw", 0.37), ("challenge", 0.43))
    reason = reason_for(estimates[0].action, view, estimates)
    assert reason.kind == "close"
    assert reason.text == (
        "the search tried it most; challenge rates about as well (43% against 37% chance to win)"
    )
    # The hint on the board, with either search, says one or the other, never a higher
    # figure "lower".
    for bot in ("ismcts", "puct"):
        hint = Coach(seed=1, iterations=200, max_time=SLOW, bot=bot).hint(
            view, game.legal_actions(game.to_act)
        )
        assert hint.reason.kind in ("accept", "close", "challenge")


def test_no_comparison_calls_a_higher_figure_lower() -> None:
    """Along played games, a reason that quotes the best other move's chance as lower quotes a
    figure below the suggestion's."""
    compared = {"absorb", "keep_drawn", "stop_discard", "draw", "accept", "best"}
    checked = 0
    for players in (2, 3):
        for g, seat in positions("no-mercy", {}, players, seed=40 + players, every=2):
            hint = small_coach(5).hint(json_view(g, seat), g.legal_actions(seat))
            data = hint.reason.data
            if hint.reason.kind in compared and data.get("alt_card"):
                assert hint.chance is not None
                assert data["alt_chance"] < round(100 * hint.chance)
                checked += 1
    assert checked >= 3
