"""The independent rules audit's points (issue 11), as scenarios named by their RULES.md ids.

- NM-37 / A19: a hand received in a 7-swap or a 0-pass is a new hand; the duty to call UNO
  starts again for every receiver (the player of the 7 or 0 included), earlier calls are void,
  and ``uno_on_received_single_card=False`` waives the duty for all of them.
- NM-34 / A40: only the target's own knock-out ends a pending penalty.
- A28: with two players, a Wild Reverse +4 stacked on a penalty sends it to the opponent (S4).
- NM-2 / notation: positions and option sets are refused with a ``nomercy`` error naming the key,
  or they play.

Two seeded fuzzes back them: random option sets (2-10 players) checked after every action for
stale UNO flags and vanishing penalties, and mutated positions that must be refused with a
``nomercy`` error or play on.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

import nomercy
from nomercy import (
    Action,
    CallUno,
    Catch,
    Draw,
    Game,
    GameRecord,
    NoMercyError,
    NotationError,
    Phase,
    Play,
    RuleSetError,
    Stack,
)
from nomercy.core.positions import POSITION_KEYS

# ---------------------------------------------------------------------------- helpers


def pos(
    hands: Sequence[Sequence[str]],
    discard: Sequence[str],
    turn: int = 0,
    *,
    preset: str = "no-mercy",
    options: dict[str, Any] | None = None,
    uno: Iterable[int] = (),
    **kw: Any,
) -> Game:
    """A rigged position; the unplaced cards fill the draw pile (shuffled by the seed)."""
    called = set(uno)
    return Game.from_position(
        {
            "rules": {"preset": preset, "options": options or {}},
            "players": [{"hand": list(h), "uno": i in called} for i, h in enumerate(hands)],
            "turn": turn,
            "discard": list(discard),
            "fill": "draw_pile",
            **kw,
        }
    )


def catches(g: Game, target: int) -> list[str]:
    """Every seat's legal catch of ``target`` (NM-37)."""
    return [
        str(a)
        for s in range(g.n)
        for a in g.legal_actions(s)
        if isinstance(a, Catch) and a.target == target
    ]


# ---------------------------------------------------------------------------- NM-37 / A19


def test_a19_off_seven_player_receiving_one_card_cannot_be_caught() -> None:
    # Audit bug 1: P0 plays B7 and swaps with P1, who holds one card and has called UNO.
    g = pos(
        [["B7", "R1", "R2", "R3", "R4"], ["G5"], ["Y1", "Y2", "Y3"]],
        ["B5"],
        options={"uno_on_received_single_card": False},
        uno=[1],
    )
    g.apply("play B7 1")
    assert [len(h) for h in g.hands] == [1, 4, 3]
    assert catches(g, 0) == []
    assert 0 not in g.uno_window
    assert g.uno_called == [False, False, False]
    # Calling is still allowed (it is never wrong to call, NM-37).
    assert g.is_legal("0:uno")


def test_a19_off_zero_player_receiving_one_card_cannot_be_caught() -> None:
    # Audit bug 1 with a 0: P0 passes R1 to P1 and receives P2's single Y1.
    g = pos(
        [["B0", "G7", "R1"], ["G5", "G6"], ["Y1"]],
        ["B5"],
        options={"uno_on_received_single_card": False},
        uno=[2],
    )
    g.apply("play B0")
    assert [len(h) for h in g.hands] == [1, 2, 2]
    assert catches(g, 0) == []
    assert g.uno_window == set()


def test_a19_default_seven_player_receiving_one_card_must_call() -> None:
    # Default: the player of the 7 who receives one card must call, with the play or after.
    g = pos([["B7", "R1", "R2", "R3", "R4"], ["G5"], ["Y1", "Y2", "Y3"]], ["B5"], uno=[1])
    g.apply("play B7 1")
    assert catches(g, 0) == ["1:catch 0", "2:catch 0"]
    assert not g.uno_called[1]  # P1's call was for the hand it gave away
    g2 = pos([["B7", "R1", "R2", "R3", "R4"], ["G5"], ["Y1", "Y2", "Y3"]], ["B5"], uno=[1])
    g2.apply("play B7 1 uno")  # the call made with the play is for the hand received
    assert g2.uno_called[0]
    assert catches(g2, 0) == []


def test_nm37_zero_pass_voids_earlier_calls() -> None:
    # Audit bug 2 (S0: "Tämä koskee myös yhden kortin käden saamista vaihdossa"): P1 and P2
    # called UNO on B5 and G1; P0's 0 hands each of them a different one-card hand.
    g = pos([["R0", "R1"], ["B5"], ["G1"]], ["R5"], uno=[1, 2])
    g.apply("play R0")
    assert [[c.code for c in h] for h in g.hands] == [["G1"], ["R1"], ["B5"]]
    assert g.uno_called == [False, False, False]
    assert g.uno_window == {0, 1, 2}
    assert "0:catch 2" in catches(g, 2)
    events = g.apply("0:catch 2")
    assert len(g.hands[2]) == 3
    assert "[NM-37]" in events[0].text


def test_nm37_seven_swap_voids_the_targets_earlier_call() -> None:
    # Audit bug 2 with a 7: P2 called UNO on Y9 and receives P0's one remaining card.
    g = pos([["B7", "R1"], ["G5", "G6", "G8"], ["Y9"]], ["B5"], uno=[2])
    g.apply("play B7 2")
    assert [[c.code for c in h] for h in g.hands] == [["Y9"], ["G5", "G6", "G8"], ["R1"]]
    assert not g.uno_called[2]
    assert catches(g, 2) == ["0:catch 2", "1:catch 2"]


# ---------------------------------------------------------------------------- NM-34 / A40


def _bystander_stack() -> Game:
    g = pos(
        [["R+2", "R5", "R6"], ["R+4", "G1"], ["Y1", "Y2"]],
        ["R9"],
        options={"mercy_threshold": 3},
    )
    g.apply("play R+2")
    g.apply("play R+4")  # P1 keeps one card and does not call UNO
    return g


def test_nm34_knocking_out_a_bystander_keeps_the_pending_penalty() -> None:
    # Audit bug 3: P0 catches P1, whose 3 cards reach the Mercy limit; P2 still faces 6.
    g = _bystander_stack()
    assert g.pending == Stack(6, 4, (2, 4))
    events = g.apply("0:catch 1")
    assert [e.kind for e in events] == ["catch", "knockout"]
    assert g.out == [False, True, False]
    assert g.pending == Stack(6, 4, (2, 4))
    assert g.phase is Phase.STACK_OR_ABSORB and g.to_act == 2
    # P2 takes the penalty: its third card reaches the limit (A15) and P0 is left standing.
    events = g.apply("draw")
    assert [e.kind for e in events][:2] == ["absorb", "knockout"]
    assert "draws 1 of 6 (+2 +4)" in events[0].text
    assert g.is_over and g.winner == 0


def test_nm34_the_targets_own_knockout_ends_the_penalty() -> None:
    # Two players: P0's Wild Reverse +4 targets P0 itself (NM-24); P0 keeps one card without
    # calling, P1 catches it and the Mercy limit knocks P0 out: the hand ends (NM-34.5).
    g = pos([["WR+4", "R1"], ["G1", "G2", "G3"]], ["R9"], options={"mercy_threshold": 3})
    g.apply("play WR+4 R")
    assert g.to_act == 0 and g.pending is not None
    g.apply("1:catch 0")
    assert g.out == [True, False]
    assert g.pending is None
    assert g.is_over and g.winner == 1


# ---------------------------------------------------------------------------- A28


def test_a28_default_wrd4_stacked_on_own_wrd4_goes_to_the_opponent() -> None:
    # S4, section 19, last bullet: with two players, a +4 or higher stacked on one's own Wild
    # Reverse +4 passes the penalty to the opponent, who stacks or draws the total.
    g = pos([["WR+4", "WR+4", "R1", "R2"], ["G1", "G2", "G3"]], ["R9"])
    events = g.apply("play WR+4 R")
    assert g.to_act == 0  # NM-24: the player of the first one is its target
    events = g.apply("play WR+4 B")
    assert g.to_act == 1
    assert g.pending == Stack(8, 4, (4, 4))
    assert "[A28]" in events[-1].text
    g.apply("draw")
    assert len(g.hands[1]) == 3 + 8
    assert g.to_act == 0


def test_a28_self_option_keeps_the_penalty_on_its_player() -> None:
    g = pos(
        [["WR+4", "WR+4", "R1", "R2"], ["G1", "G2", "G3"]],
        ["R9"],
        options={"wrd4_two_player_in_stack": "self"},
    )
    g.apply("play WR+4 R")
    g.apply("play WR+4 B")
    assert g.to_act == 0
    assert g.pending == Stack(8, 4, (4, 4))


def test_a28_default_wrd4_answering_the_opponents_stack_sends_it_back() -> None:
    g = pos([["R+2", "R1", "R2"], ["WR+4", "G2", "G3"]], ["R9"])
    g.apply("play R+2")
    g.apply("play WR+4 G")
    assert g.to_act == 0
    assert g.pending == Stack(6, 4, (2, 4))


def test_a28_version_1_records_replay_with_the_old_default() -> None:
    # A record written before the default changed replays as it was played ("self").
    g = pos(
        [["WR+4", "WR+4", "R1", "R2"], ["G1", "G2", "G3"]],
        ["R9"],
        options={"wrd4_two_player_in_stack": "self"},
    )
    old_start = g.to_position()
    old_start["rules"] = {"preset": "no-mercy", "options": {}}
    for text in ["play WR+4 R", "play WR+4 B", "draw"]:
        g.apply(text)
    data = GameRecord.from_game(g).to_dict()
    data["version"] = 1
    data["options"] = {}
    data["start"] = old_start
    record = GameRecord.loads(json.dumps(data))
    assert record.options == {"wrd4_two_player_in_stack": "self"}
    assert record.start is not None
    assert record.start["rules"]["options"] == {"wrd4_two_player_in_stack": "self"}
    replayed = record.replay()
    assert [len(h) for h in replayed.hands] == [2 + 8, 3]
    assert replayed.rules.wrd4_two_player_in_stack == "self"
    # A new record of a game dealt by deal version 1 is version 2 (version 3 is written only
    # for another deal version: tests/core/test_deal_versions.py) with today's default.
    assert GameRecord.from_game(nomercy.new_game(2, seed=1)).to_dict()["version"] == 2


def test_a28_version_1_records_without_a_start_pin_the_old_default() -> None:
    record = GameRecord.loads(
        json.dumps({"version": 1, "rules": "no-mercy", "players": 2, "seed": 5, "actions": []})
    )
    assert record.options == {"wrd4_two_player_in_stack": "self"}
    fresh = GameRecord.loads(
        json.dumps({"version": 2, "rules": "no-mercy", "players": 2, "seed": 5, "actions": []})
    )
    assert fresh.options == {}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other"}, "not a nomercy game record (format 'other')"),
        ({"version": 99}, "record version 99 is not one this version of nomercy reads"),
        ({"version": "2"}, "'version' must be an integer"),
        ({"seed": 1.5}, "'seed' must be an integer, not 1.5"),
        ({"seed": "abc"}, "'seed' must be an integer"),
        ({"players": "2"}, "'players' must be an integer"),
        ({"players": True}, "'players' must be an integer"),
        ({"actions": "play R0"}, "'actions' must be a list"),
        ({"actions": ["draw", 3]}, "'actions' must be a list"),
        ({"names": "P0"}, "'names' must be a list of strings"),
        ({"options": [1]}, "'options' must be an object"),
        ({"start": "R1"}, "'start' must be an object"),
    ],
    ids=str,
)
def test_notation_malformed_records_are_refused_naming_the_field(
    change: dict[str, Any], message: str
) -> None:
    data = {**GameRecord.from_game(nomercy.new_game(2, seed=1)).to_dict(), **change}
    with pytest.raises(NotationError, match=re.escape(message)):
        GameRecord.loads(json.dumps(data))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("play R7 -1", "'-1' in 'play R7 -1' is not a seat"),
        ("²:draw", "expected a seat number, got '²'"),
        ("١:draw", "expected a seat number, got '١'"),  # an Arabic-Indic 1: not notation
        ("play R7 ²", "unknown colour '²'"),
        ("play R7 purple", "unknown colour 'purple'"),
        ("play R7 1 2", "unexpected '2'"),
        ("fly", "unknown action 'fly'"),
    ],
)
def test_notation_bad_actions_are_refused_naming_the_token(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=re.escape(message)):
        nomercy.parse_action(text, 0)


def test_nm38_a_finished_game_refuses_text_actions_naming_the_rule() -> None:
    g = nomercy.new_game(2, seed=5)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    before = g.to_position()
    for text in ("draw", "0:uno", "play R1"):
        with pytest.raises(nomercy.IllegalActionError, match=r"the game is over \[NM-38\]"):
            g.apply(text)
    assert g.to_position() == before


@pytest.mark.parametrize("names", [[1, 2], "ab", ("P0", "P1")])
def test_new_game_names_must_be_a_list_of_strings(names: object) -> None:
    # The compiled build refuses a non-list as the call is made, in mypyc's words.
    words = r"names must be a list of strings|list or None object expected"
    with pytest.raises(TypeError, match=words):
        nomercy.new_game(2, names=names)  # type: ignore[arg-type]
    position = {**_base(), "players": [{"hand": ["R1"], "name": 7}, {"hand": ["G1"]}]}
    with pytest.raises(NotationError, match=r"'players\[0\].name' must be a string"):
        Game.from_position(position)


def test_notation_a_position_written_before_colour_chooser_was_dropped_still_loads() -> None:
    # 2026-11-29 (1790740) dropped colour_chooser: the seat to act names the colour. Positions
    # written before then carry the key; they load, the key read as nothing.
    g = nomercy.new_game(3, seed=4)
    old = {**g.to_position(), "colour_chooser": None}
    assert Game.from_position(old).to_position() == g.to_position()
    assert set(g.to_position()) <= POSITION_KEYS


# ---------------------------------------------------------------------------- positions


def _base() -> dict[str, Any]:
    return {
        "rules": {"preset": "no-mercy", "options": {}},
        "players": [{"hand": ["R1", "R2"]}, {"hand": ["G1"]}, {"hand": ["Y1", "Y2"]}],
        "turn": 0,
        "discard": ["R5"],
        "fill": "draw_pile",
    }


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"phase": "play_drawn"}, "drawn"),
        ({"phase": "play_drawn", "drawn": "B9"}, "drawn"),
        ({"uno_window": [7]}, "uno_window"),
        ({"uno_window": "0"}, "uno_window"),
        ({"chain_wild": 9}, "chain_wild"),
        ({"pending_win": 9}, "pending_win"),
        ({"resume": -1}, "resume"),
        ({"pending": {"total": -4, "last": 2}}, "pending.total"),
        ({"pending": {"total": 4, "last": 6}}, "pending.last"),
        ({"drawn": "R1"}, "drawn"),  # a drawn card outside play_drawn
        ({"pending": {"last": 2}}, "pending.total"),
        ({"pending": {"total": 2}, "phase": "play"}, "pending"),
        ({"phase": "stack_or_absorb"}, "pending"),
        ({"phase": "discard_all_top"}, "discard_all_top"),
        ({"phase": "flying"}, "phase"),
        ({"turn": True}, "turn"),
        ({"turn": 3}, "turn"),
        ({"direction": 0}, "direction"),
        ({"seed": "abc"}, "seed"),
        ({"colour": 5}, "colour"),
        ({"roulette_colour": "purple"}, "roulette_colour"),
        ({"draw_mode": "grab"}, "draw_mode"),
        ({"known": {"0,0": ["R1"]}}, "known"),
        ({"known": {"1,0": ["B9"]}}, "known"),
        ({"known": {"x": []}}, "known"),
        ({"scores": [1, 2]}, "scores"),
        ({"hand_number": 0}, "hand_number"),
        ({"winner": 5, "phase": "over"}, "winner"),
        ({"log": [{"text": "no kind"}]}, "log"),
        ({"hand_log_start": 3}, "hand_log_start"),
        ({"total_cards": 100}, "total_cards"),
        ({"wd4": {"seat": 0, "guilty": False}}, "wd4"),
        ({"players": [{"hand": ["R1"], "out": "no"}, {"hand": ["G1"]}]}, "players[0].out"),
        ({"players": [{"hand": ["R1"], "out": True}, {"hand": ["G1"]}]}, "players[0]"),
        ({"players": [{"hand": ["R1"]}, {"hand": [], "out": True}]}, "over"),
        ({"players": [{"hand": ["R1"]}, 7]}, "players[1]"),
        ({"trun": 1}, "unknown key 'trun' in the position .did you mean 'turn'"),
        ({"players": [{"hand": ["R1"], "hnd": []}, {"hand": ["G1"]}]}, "key 'hnd' in players[0]"),
    ],
    ids=str,
)
def test_notation_inconsistent_positions_are_refused_naming_the_key(
    change: dict[str, Any], key: str
) -> None:
    position = {**_base(), **change}
    with pytest.raises(NotationError, match=key.replace("[", r"\[").replace("]", r"\]")):
        Game.from_position(position)


def test_cl8_wd4_without_its_guilt_is_refused() -> None:
    # Audit: classic `wd4: {"seat": 0}` was accepted, then `challenge` raised KeyError.
    position = {
        "rules": {"preset": "classic", "options": {"wd4_challenge": True}},
        "players": [{"hand": ["R1", "R2"]}, {"hand": ["G1", "G2"]}],
        "turn": 1,
        "discard": ["W+4"],
        "colour": "B",
        "pending": {"total": 4, "last": 4},
        "fill": "draw_pile",
    }
    with pytest.raises(NotationError, match="guilty"):
        Game.from_position({**position, "wd4": {"seat": 0}})
    g = Game.from_position({**position, "wd4": {"seat": 0, "guilty": True, "colour": "R"}})
    events = g.apply("challenge")
    assert "Challenge succeeds" in events[-1].text


@pytest.mark.parametrize("seat", ["0", 1.0, True, [0], None])
def test_bad_seat_arguments_raise_nomercy_errors(seat: Any) -> None:
    g = nomercy.new_game(3, seed=4)
    if seat is None:
        assert g.legal_actions(seat) == g.legal_actions()
        return
    with pytest.raises(NoMercyError, match="seat"):
        g.legal_actions(seat)
    with pytest.raises(NoMercyError, match="seat"):
        g.view(seat)
    with pytest.raises(NoMercyError, match="seat"):
        g.next_seat(seat)
    assert not g.is_legal(Draw(seat))


def test_nm2_a_deal_at_or_over_the_mercy_limit_is_refused() -> None:
    with pytest.raises(RuleSetError, match=r"hand_size 9 .* mercy_threshold 8"):
        nomercy.new_game(3, options={"hand_size": 9, "mercy_threshold": 8})
    with pytest.raises(RuleSetError, match="mercy_threshold"):
        nomercy.new_game(2, options={"hand_size": 25})
    # A match deals again: a position under such rules is refused too.
    position = {**_base(), "rules": {"preset": "no-mercy", "options": {
        "hand_size": 7, "mercy_threshold": 5, "scoring_enabled": True}}}  # fmt: skip
    with pytest.raises(RuleSetError, match="hand_size 7"):
        Game.from_position(position)
    # Without the Mercy rule any hand size the deck can deal is fine.
    g = nomercy.new_game(2, options={"hand_size": 30, "mercy_enabled": False}, seed=1)
    assert [len(h) for h in g.hands] == [30, 30]


# ---------------------------------------------------------------------------- fuzz: play


def _option_set(rng: random.Random, preset: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for spec in nomercy.OPTIONS:
        if preset not in spec.presets or spec.name in ("deck", "deck_variant", "deck_counts"):
            continue
        if spec.kind in ("choice", "bool") and spec.values and rng.random() < 0.5:
            options[spec.name] = rng.choice(spec.values)
    if preset == "no-mercy":
        options["max_players"] = 10
        if rng.random() < 0.6:  # short hands and a low Mercy limit: swaps, UNOs and knock-outs
            options["hand_size"] = rng.randint(1, 5)
            options["mercy_threshold"] = options["hand_size"] + rng.randint(1, 8)
    elif rng.random() < 0.6:
        options["hand_size"] = rng.randint(1, 5)
    return options


def _pick(g: Game, rng: random.Random) -> Action:
    """A random legal action, with catches and UNO calls much more often than chance."""
    others = [a for s in range(g.n) if s != g.to_act for a in g.legal_actions(s)]
    own = g.legal_actions()
    eager = [a for a in others + own if isinstance(a, Catch)]
    if eager and rng.random() < 0.5:
        return rng.choice(eager)
    if others and rng.random() < 0.2:
        return rng.choice(others)
    return rng.choice(own)


def _exchanged(events: list[nomercy.Event], g: Game) -> set[int]:
    """Seats handed a new hand by this action's swaps and passes."""
    seats: set[int] = set()
    for e in events:
        if e.kind == "swap":
            assert e.seat is not None
            seats |= {e.seat, int(e.data["target"])}
        elif e.kind == "pass_hands":
            seats |= {s for s in range(g.n) if not g.out[s]}
    return seats


def _play_checked(g: Game, rng: random.Random, max_steps: int) -> dict[str, int]:
    seen = {"exchanges": 0, "stale_checked": 0, "vanish_checked": 0}
    # fresh[s]: seat s holds a hand it was handed (swap/pass) and has not called UNO on it.
    fresh = [False] * g.n
    steps = 0
    while not g.is_over and steps < max_steps:
        action = _pick(g, rng)
        hands_before = [list(h) for h in g.hands]
        pending_before = g.pending_total if g.phase is Phase.STACK_OR_ABSORB else 0
        target_before = g.turn
        try:
            events = g.apply(action)
        except nomercy.EngineError:
            return seen
        steps += 1
        kinds = [e.kind for e in events]
        received = _exchanged(events, g)
        if received:
            seen["exchanges"] += 1
        for s in range(g.n):
            if s in received:
                fresh[s] = not (isinstance(action, Play) and action.seat == s and action.uno)
            elif (isinstance(action, CallUno) and action.seat == s) or g.hands[s] != hands_before[
                s
            ]:
                fresh[s] = False
        # NM-37: no seat holding one card it was handed carries a call it did not make on it.
        for s in range(g.n):
            if g.out[s] or len(g.hands[s]) != 1 or not fresh[s]:
                continue
            seen["stale_checked"] += 1
            assert not g.uno_called[s], f"seat {s} kept a stale UNO call after {action}"
            if s in received and not g.is_over:
                catchable = s in g.uno_window
                assert catchable == g.rules.uno_on_received_single_card, (
                    f"seat {s} received one card by {action}: catchable={catchable} (A19)"
                )
        # NM-34: a pending penalty is absorbed, stacked on, or ends with its target or the hand.
        if pending_before:
            seen["vanish_checked"] += 1
            by_target = action.seat == target_before and not isinstance(action, (Catch, CallUno))
            target_out = any(e.kind == "knockout" and e.seat == target_before for e in events)
            if not (by_target or target_out or "hand_end" in kinds):
                assert g.phase is Phase.STACK_OR_ABSORB, f"the penalty vanished after {action}"
                assert g.pending_total == pending_before and g.turn == target_before, (
                    f"the penalty changed from {pending_before} (seat {target_before}) to "
                    f"{g.pending} (seat {g.turn}) after {action}"
                )
    return seen


@pytest.mark.soak
def test_nm37_nm34_random_option_sets_keep_uno_flags_and_penalties(soak: int) -> None:
    totals = {"exchanges": 0, "stale_checked": 0, "vanish_checked": 0}
    for seed in range(300 * soak):
        rng = random.Random(seed)
        preset = "no-mercy" if seed % 4 else "classic"
        options = _option_set(rng, preset)
        if preset == "classic":
            options["classic_seven_zero"] = True
        players = rng.randint(2, 10)
        try:
            g = nomercy.new_game(players, rules=preset, options=options, seed=seed)
        except RuleSetError:
            continue  # e.g. a hand size the deck cannot deal to 10 players
        seen = _play_checked(g, rng, max_steps=400)
        for k, v in seen.items():
            totals[k] += v
    # The checks really ran: plenty of swaps/passes, one-card hands handed over, penalties.
    assert totals["exchanges"] > 300
    assert totals["stale_checked"] > 100
    assert totals["vanish_checked"] > 1000


# ---------------------------------------------------------------------------- fuzz: positions

_JUNK: tuple[Any, ...] = (None, -1, 0, 1, 2, 9, "x", 1.5, True, [], {}, [7], {"seat": 0}, "R")
_KEYS = (
    "rules", "players", "turn", "direction", "discard", "colour", "draw_pile", "set_aside",
    "pending", "seed", "fill", "phase", "drawn", "draw_mode", "uno_window", "chain_wild", "wd4",
    "pending_win", "resume", "roulette_colour", "known", "dealer", "scores", "hand_number",
    "hand_winner", "winner", "total_cards", "log", "hand_log_start",
)  # fmt: skip


def _zones(p: dict[str, Any]) -> list[list[Any]]:
    players = p.get("players")
    players = players if isinstance(players, list) else []
    zones = [
        pl["hand"] for pl in players if isinstance(pl, dict) and isinstance(pl.get("hand"), list)
    ]
    return zones + [
        p[k] for k in ("discard", "draw_pile", "set_aside") if isinstance(p.get(k), list)
    ]


def _mutate(p: dict[str, Any], rng: random.Random) -> None:
    players = p.get("players")
    if not isinstance(players, list) or not all(isinstance(pl, dict) for pl in players):
        players = []
    n = len(players)
    what = rng.randrange(7)
    if what == 0:
        p.pop(rng.choice(_KEYS), None)
    elif what == 1:
        p[rng.choice(_KEYS)] = rng.choice(_JUNK)
    elif what == 2:
        p[rng.choice(("turn", "chain_wild", "pending_win", "resume", "dealer", "winner"))] = (
            rng.randint(-2, n + 2)
        )
    elif what == 3:
        zones = [z for z in _zones(p) if z]
        if zones:
            card = rng.choice(zones).pop(0)
            rng.choice(_zones(p)).append(card)
    elif what == 4:
        p["phase"] = rng.choice([ph.value for ph in Phase])
    elif what == 5 and players:
        player = rng.choice(players)
        key = rng.choice(("out", "uno", "hand", "name"))
        player[key] = rng.choice((*_JUNK, not player.get(key)))
    elif what == 6:
        p["pending"] = rng.choice(
            (None, {"total": rng.randint(-3, 12)}, {"total": 6, "last": rng.randint(-1, 8)},
             {"total": 4, "last": 4, "chain": rng.choice(([4], [], ["x"], [-4], 4))})
        )  # fmt: skip


def _exercise(g: Game, rng: random.Random) -> None:
    """Everything a caller may do with an accepted position: only nomercy errors."""
    for _ in range(25):
        for s in range(g.n):
            g.legal_actions(s)
            g.view(s)
        g.view(None)
        Game.from_position(json.loads(json.dumps(g.to_position())))
        if g.is_over:
            return
        acts = [a for s in range(g.n) for a in g.legal_actions(s)]
        assert acts, "a running game offers an action"
        try:
            g.apply(rng.choice(acts))
        except nomercy.EngineError:
            return


@pytest.mark.soak
def test_notation_mutated_positions_are_refused_or_play(soak: int) -> None:
    accepted = refused = 0
    for seed in range(60 * soak):
        rng = random.Random(10_000 + seed)
        preset = "no-mercy" if seed % 3 else "classic"
        options = _option_set(rng, preset)
        try:
            g = nomercy.new_game(rng.randint(2, 6), rules=preset, options=options, seed=seed)
        except RuleSetError:
            continue
        for _ in range(rng.randint(0, 60)):
            if g.is_over:
                break
            try:
                g.apply(_pick(g, rng))
            except nomercy.EngineError:
                break
        base = g.to_position()
        for _ in range(25):
            p = copy.deepcopy(base)
            for _ in range(rng.randint(1, 3)):
                _mutate(p, rng)
            try:
                mutated = Game.from_position(p)
            except NoMercyError:
                refused += 1
                continue
            accepted += 1
            _exercise(mutated, rng)
    assert accepted > 200 and refused > 200


def test_a18_colour_owed_by_a_knocked_out_player_is_named_by_the_next() -> None:
    # Found by the position fuzz: A18 on_resolution with a deferred Mercy check (A14). P0 owes
    # the colour of its Wild +6 and absorbs a penalty that takes it over the limit; once it is
    # knocked out the next player names the colour (as _after_resolution does), and play never
    # continues without an active colour.
    hand = [f"{c}{n}" for c in "RYG" for n in range(1, 10)][:20]
    g = Game.from_position(
        {
            "rules": {
                "preset": "no-mercy",
                "options": {"wild_colour_timing": "on_resolution", "mercy_timing": "end_of_action"},
            },
            "players": [{"hand": hand}, {"hand": ["B1", "B2"]}, {"hand": ["B3", "B4"]}],
            "turn": 0,
            "discard": ["B5", "W+6"],
            "colour": None,
            "chain_wild": 0,
            "pending": {"total": 6, "last": 6},
            "fill": "draw_pile",
        }
    )
    g.apply("draw")
    assert g.out == [True, False, False]
    assert g.phase is Phase.CHOOSE_COLOUR and g.to_act == 1
    g.apply("colour B")
    assert g.phase is Phase.PLAY and g.colour is not None and g.to_act == 1
