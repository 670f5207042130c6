"""The text interfaces' wording of engine events (nomercy.tables.wording): counts in proper
English, a one-card penalty's total said once, on the engine's own events."""

from __future__ import annotations

import doctest

from nomercy import Game
from nomercy.tables import wording
from nomercy.tables.wording import event_words


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(wording).failed == 0


def _texts(game: Game, action: str) -> list[str]:
    return [event_words(e.text) for e in game.apply(action)]


def test_nm27_a_discard_all_says_card_or_cards() -> None:
    for others, word in ((["R1"], "1 more red card "), (["R1", "R2"], "2 more red cards ")):
        game = Game.from_position(
            {
                "players": [{"hand": ["RDA", *others, "B5"]}, {"hand": ["Y1", "Y2"]}],
                "turn": 0,
                "discard": ["R9"],
            }
        )
        said = " ".join(_texts(game, "play RDA"))
        assert word in said and "card(s)" not in said, said


def test_cl6_a_classic_draw_two_states_its_penalty_once() -> None:
    game = Game.from_position(
        {
            "rules": "classic",
            "players": [{"hand": ["R+2", "B5", "G7"]}, {"hand": ["Y1", "Y2"]}],
            "turn": 0,
            "discard": ["R9"],
        }
    )
    said = _texts(game, "play R+2")
    penalty = next(t for t in said if t.startswith("Penalty"))
    assert penalty == "Penalty 2: P1 must draw [CL-6]", said
    assert "last +" not in penalty


def test_a_stack_keeps_its_chain_and_last_card() -> None:
    game = Game.from_position(
        {
            "players": [{"hand": ["R+4", "B5", "G7"]}, {"hand": ["Y1", "Y2"]}, {"hand": ["B1"]}],
            "turn": 0,
            "discard": ["R9", "R+2"],
            "pending": {"total": 2, "last": 2},
        }
    )
    said = _texts(game, "play R+4")
    assert any(t.startswith("Penalty 6 (+2 +4), last +4:") for t in said), said
