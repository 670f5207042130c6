"""HeuristicBot: legal play everywhere, view-only decisions, determinism, judgement, strength."""

from __future__ import annotations

import random
from typing import Any

import pytest
from botkit import OPTION_SETS, json_view, play_checked, reshuffle_secrets

from nomercy import Game, new_game
from nomercy.bots import Bot, HeuristicBot, RandomBot, make_bot, next_action, play_out


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize(("preset", "options"), OPTION_SETS)
def test_heuristic_only_makes_legal_moves(
    players: int, preset: str, options: dict[str, Any]
) -> None:
    for seed in range(2):
        g = new_game(players, rules=preset, options=options, seed=seed)
        bots: list[Bot] = [HeuristicBot(seed * 10 + s) for s in range(players)]
        bots[seed % players] = RandomBot(seed)  # a forgetful opponent: catches happen
        play_checked(g, bots)
        assert g.is_over


def test_heuristic_is_deterministic() -> None:
    def history(bot_seed: int) -> list[str]:
        g = new_game(4, seed=21)
        play_out(g, [make_bot("heuristic", seed=bot_seed + s) for s in range(4)])
        return [str(a) for a in g.history]

    assert history(3) == history(3)


def test_heuristic_never_reads_hidden_state() -> None:
    rng = random.Random(7)
    checked = 0
    for seed in range(4):
        g = new_game(3, seed=seed)
        drivers = [make_bot("greedy", seed=s) for s in range(3)]
        while not g.is_over:
            seat = g.to_act
            assert seat is not None
            if len(g.history) % 3 == 0 and not g.view(seat).wd4_challengeable:
                twin = reshuffle_secrets(g, seat, rng)
                a = HeuristicBot(5).choose_action(json_view(g, seat), g.legal_actions(seat))
                b = HeuristicBot(5).choose_action(json_view(twin, seat), twin.legal_actions(seat))
                assert a == b
                checked += 1
            g.apply(next_action(g, drivers))
    assert checked > 10


def test_heuristic_beats_random_heads_up() -> None:
    # A check that can fail, not the bar: benchmarks/bench_bots.py measures 1,000 hands.
    games, wins = 200, 0
    for i in range(games):
        g = new_game(2, seed=90_000 + i)
        seat = i % 2
        bots: list[Bot] = [RandomBot(i * 2 + s) for s in (0, 1)]
        bots[seat] = HeuristicBot(i)
        play_out(g, bots)
        wins += g.winner == seat
    assert wins >= 0.65 * games, f"heuristic won {wins}/{games}"


# ------------------------------------------------------------------------------ judgement


def position(hands: list[list[str]], **extra: Any) -> Game:
    pos: dict[str, Any] = {"players": [{"hand": h} for h in hands], "turn": 0}
    pos.update(extra)
    return Game.from_position(pos)


def choice(g: Game) -> str:
    seat = g.to_act
    assert seat is not None
    return str(HeuristicBot().choose_action(json_view(g, seat), g.legal_actions()))


def test_nm18_stacks_rather_than_absorbs() -> None:
    g = position(
        [["G1", "G+4", "B3"], ["B1", "B2"], ["Y5", "Y6"]],
        discard=["Y+2"],
        pending={"total": 2, "last": 2},
    )
    assert choice(g) == "play G+4"


def test_nm24_no_self_targeted_wild_reverse_four_heads_up() -> None:
    # A28 "self": stacked with two players, the Wild Reverse +4 targets its own player.
    g = position(
        [["WR+4", "G1", "B3"], ["B1", "B2", "B4"]],
        discard=["Y+2"],
        pending={"total": 2, "last": 2},
        rules={"preset": "no-mercy", "options": {"wrd4_two_player_in_stack": "self"}},
    )
    assert choice(g) == "draw"


def test_a28_a_stacked_wild_reverse_four_goes_to_the_opponent_heads_up() -> None:
    # A28 "opponent" (the default): stacked into a chain, it sends the total to the opponent,
    # like any +4 (the opponent's three hidden cards probably hold no answer of 4 or more).
    g = position(
        [["WR+4", "G1", "B3"], ["B1", "B2", "B4"]], discard=["Y+2"], pending={"total": 2, "last": 2}
    )
    assert choice(g).startswith("play WR+4")
    # Opening a chain it still targets its own player (NM-24): not without a follow-up.
    g = position([["WR+4", "R1", "B3"], ["B1", "B2", "B4"]], discard=["R5"])
    assert choice(g) == "play R1"
    # With a follow-up of 4 or more, the opponent faces 4 + the follow-up: worth playing
    # (naming the follow-up's colour) rather than drawing.
    g = position([["WR+4", "G+4", "B3"], ["B1", "B2", "B4", "Y1"]], discard=["R5"])
    assert choice(g) == "play WR+4 G"


@pytest.mark.parametrize(
    ("threshold", "expected"), [("last_card", "play B+4"), ("running_total", "draw")]
)
def test_a04_a_follow_up_is_what_the_engine_would_let_it_stack(
    threshold: str, expected: str
) -> None:
    # Heads-up, 3 cards against a Mercy limit of 12, facing +2 with B+4 and G+4. By the last
    # card's value (NM-18) the G+4 answers an answer of 4: stack. Under A04 running_total an
    # answer makes it 10 or more, which the G+4 cannot top (legality.answers_stack): a lone
    # stack whose answer knocks us out, so the 2 cards are taken now (NM-17).
    options = {"stack_threshold": threshold, "mercy_threshold": 12}
    g = position(
        [["B+4", "G+4", "R1"], ["B1", "B2", "B3", "B4"]],
        discard=["Y+2"],
        pending={"total": 2, "last": 2},
        rules={"preset": "no-mercy", "options": options},
    )
    assert choice(g) == expected


def test_nm30_plays_a_colour_roulette_as_soon_as_it_can() -> None:
    # An attack nobody can stack (NM-30): worth more than shedding two cards with a Discard
    # All, or a matching number with three players, even against a far-off victim.
    far = ["B1", "B2", "B4", "Y1", "Y2", "B6", "B7", "B8", "Y3", "Y4", "Y6", "G1"]
    g = position([["WCR", "RDA", "R3", "G5"], far], discard=["R5"])
    assert choice(g) == "play WCR"
    g = position([["WCR", "R3", "R4", "R6", "G5"], far, far[:9]], discard=["R5"])
    assert choice(g) == "play WCR"


def test_nm33_stack_that_knocks_out_is_taken() -> None:
    big = ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9"] * 2 + ["Y1", "Y2", "Y3", "Y4"]
    g = position(
        [["W+10", "G+2", "R1"], big, ["Y5", "Y6"]], discard=["Y+2"], pending={"total": 2, "last": 2}
    )
    # 2 + 2 = 4 or 2 + 10 = 12; both reach the 20-card hand's Mercy limit of 5 only with +10.
    assert choice(g).startswith("play W+10")


def test_nm33_a_knock_out_stack_the_victim_probably_answers_is_not_taken() -> None:
    # Heads-up, P0 (14 cards) faces +4 with a lone R+4; P1 holds 22 hidden cards. Stacked,
    # 8 would knock P1 out (NM-33), but 22 cards almost surely hold an answer of 4 or more
    # (NM-18), and 12 coming back would knock P0 out: absorbing the 4 is the better gamble.
    mine = ["R+4", "G1", "G2", "G3", "G4", "B1", "B2", "B3", "B4", "Y1", "Y2", "Y3", "Y4", "G6"]
    big = ["B6", "B7", "B8", "B9", "Y6", "Y7", "Y8", "Y9", "G7", "G8", "G9"] * 2
    g = position([mine, big], discard=["Y+4"], pending={"total": 4, "last": 4})
    assert choice(g) == "draw"


def test_keeps_wild_draw_cards_for_defence() -> None:
    g = position([["W+10", "R9", "G1", "G2"], ["Y7", "Y8", "Y9", "Y1"]], discard=["R5"])
    assert choice(g) == "play R9"


def test_nm31_swaps_with_the_fewest_cards_only_when_it_helps() -> None:
    g = position(
        [["R7", "G1", "G2", "G3"], ["B1", "B2", "B3", "B4", "B6"], ["Y5", "Y6"]], discard=["R5"]
    )
    assert choice(g) == "play R7 2"
    g = position(
        [["R7", "R1", "G2"], ["B1", "B2", "B3", "B4", "B6"], ["Y5", "Y6", "Y7", "Y8"]],
        discard=["R5"],
    )
    assert choice(g) == "play R1"


def test_nm29_a_zero_keeps_a_hand_of_draw_cards_the_opponent_would_receive() -> None:
    # Passing on 7 cards for 5 would shrink the hand, but 4 of the 7 are Draw Cards: the
    # opponent would get the arsenal and we a hand of 5 unknown cards (NM-29).
    arsenal = ["R0", "R9", "W+10", "W+6", "G+4", "B+4", "Y1", "Y2"]
    opponent = ["G1", "G2", "G3", "B6", "B7"]
    assert choice(position([arsenal, opponent], discard=["R5"])) == "play R9"
    # The same sizes with numbers only: the smaller hand is worth taking.
    numbers = ["R0", "R9", "G5", "G6", "B8", "B9", "Y1", "Y2"]
    assert choice(position([numbers, opponent], discard=["R5"])) == "play R0"


def test_nm31_a_seven_does_not_give_its_draw_cards_away() -> None:
    # 4 cards against 3 (NM-31), but 3 of the 4 are Draw Cards: it keeps them...
    g = position([["R7", "R1", "W+10", "W+6", "G+4"], ["B1", "B2", "B3"]], discard=["R5"])
    assert choice(g) == "play R1"
    # ...while a hand of numbers of the same size is swapped for the smaller one.
    g = position([["R7", "R1", "G1", "G2", "G3"], ["B1", "B2", "B3"]], discard=["R5"])
    assert choice(g) == "play R7 1"


def test_nm14_names_a_colour_the_next_player_lacks() -> None:
    # P1 draws on a red top without a voluntary draw: it held no red and no wild (NM-9), and
    # the cards it drew before the playable one were not red either.
    g = position(
        [["R8", "W+6", "R1", "R2", "B2", "B3", "B4"], ["G1", "G2", "G3", "B6"], ["Y5", "Y9", "Y7"]],
        discard=["R5"],
        draw_pile=["Y1", "Y2", "G9", "R9"],
    )
    g.apply("play R8")
    g.apply("draw")  # draws Y1, Y2, G9, R9 and must play R9
    g.apply("play R9")
    g.apply("play Y9")
    assert g.to_act == 0
    # Blue is its strongest colour, but red leaves the next player without a card to play.
    assert choice(g) == "play W+6 R"


def test_nm30_victim_names_the_colour_most_likely_to_come_up() -> None:
    # Every green is visible, so green cannot come up: name the colour with most unseen cards.
    faces = [*(str(n) for n in range(10)), *"SR", "+2", "+4", "SE", "DA"]
    counts = {"S": 3, "R": 3, "+2": 3, "+4": 2, "SE": 2, "DA": 3}
    greens = [f"G{face}" for face in faces for _ in range(counts.get(face, 2))]
    g = position(
        [["WCR", "R1", "R2"], ["Y1", "Y2", "B3", "B4", "B5", "B6"], ["Y5", "Y6"]],
        discard=greens,
        draw_pile=["R3", "B7"],
    )
    g.apply("play WCR")
    assert g.to_act == 1
    assert choice(g) != "colour G"


def test_nm37_calls_uno_and_catches() -> None:
    g = position([["R9", "G2"], ["B1", "B2"], ["Y1", "Y2"]], discard=["R5"])
    assert choice(g) == "play R9 uno"
    g = position(
        [["G1"], ["B1", "B2", "R+2"], ["Y5", "Y6"]], turn=1, discard=["R5"], uno_window=[0]
    )
    bot = HeuristicBot()
    assert str(bot.choose_action(json_view(g, 1), g.legal_actions())) == "1:catch 0"
    assert str(bot.choose_out_of_turn(json_view(g, 2), g.legal_actions(2))) == "2:catch 0"
    g = position([["R7", "G1"], ["B1", "B2"], ["Y5", "Y6"]], discard=["R5"])
    g.apply("play R7 2")
    assert str(bot.choose_out_of_turn(json_view(g, 2), g.legal_actions(2))) == "2:uno"


def test_nm9_keeps_a_drawn_wild_draw_card_when_allowed() -> None:
    g = position(
        [["G1", "G2", "B6"], ["B1", "B2"], ["Y5", "Y6"]],
        rules={"preset": "no-mercy", "options": {"drawn_card_must_be_played": False}},
        discard=["R5"],
        draw_pile=["W+10"],
    )
    g.apply("draw")
    assert g.phase.value == "play_drawn"
    assert choice(g) == "pass"


def test_cl8_challenges_a_wild_four_from_a_player_who_held_the_colour() -> None:
    g = position(
        [["R1", "R2", "R3", "G4"], ["W+4", "B2", "B3"], ["Y5", "Y6"]],
        rules="classic",
        turn=1,
        discard=["B5"],
    )
    g.apply("play W+4 G")
    assert g.to_act == 2 and any(str(a) == "challenge" for a in g.legal_actions())
    # Seat 1 held two blues under a blue top: a challenge is likely to succeed.
    assert choice(g) == "challenge"
