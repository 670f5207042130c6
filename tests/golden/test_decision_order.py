"""One decision order (issue 28): every interface asks the seats in ``decision_order``'s order.

The bot driver (simulations, tournaments), the tables (the terminal app, and the web rooms,
which ask their bots through ``Table.questions``) and the RL environments (``next_decider``,
out-of-turn actions offered) are checked against ``nomercy.decision_order`` before every
action of golden-corpus games: the same seats, in the same order, each in turn or out of
turn as the engine says. A seat to act that may call UNO is asked alone, so no bot can catch
a person the terminal protects (NM-37).
"""

from __future__ import annotations

import contextlib
from typing import Any

import corpus
import pytest

from nomercy import Action, CallUno, EngineError, Game, PlayerView, decision_order
from nomercy.bots.driver import Driver
from nomercy.rl._common import next_decider
from nomercy.tables.table import Table

ENTRIES = list(corpus.load())
PARTS = 10


class Asked:
    """A bot that writes down when it is asked, lets every out-of-turn chance go and, in turn,
    takes the first legal action."""

    name = "asked"
    view_mode = "no_history"

    def __init__(self, seat: int, log: list[tuple[int, bool]]) -> None:
        self.seat = seat
        self.log = log

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        assert view.seat == self.seat
        self.log.append((self.seat, True))
        return legal[0]

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        assert view.seat == self.seat
        self.log.append((self.seat, False))
        return None


def rl_order(game: Game) -> list[int]:
    """The seats the RL environments ask, in order, when every out-of-turn chance is let go."""
    declined: set[int] = set()
    seats = []
    while True:
        seat = next_decider(game, True, declined)
        seats.append(seat)
        if seat == game.to_act:
            return seats
        declined.add(seat)


def check_position(game: Game, where: str) -> int:
    """Compare the four interfaces at ``game``'s position; return 1 if it was a UNO-call one."""
    order = decision_order(game)
    want = [(d.seat, d.in_turn) for d in order]
    assert want[-1] == (game.to_act, True), where
    log: list[tuple[int, bool]] = []
    bots = [Asked(s, log) for s in range(game.n)]
    Driver(bots).next_action(game)  # nothing is applied: the driver only chooses
    assert log == want, f"{where}: the driver"
    assert rl_order(game) == [s for s, _ in want], f"{where}: the RL environments"
    table = Table(game.copy(), bots)
    assert [(d.seat, d.in_turn) for d in table.questions(lambda s: True)] == want, where
    # NM-37: a person to act who may call UNO is asked alone, so no bot may catch them first.
    turn = game.to_act
    protected = any(type(a) is CallUno for a in order[-1].legal)
    if protected:
        assert table.questions(lambda s: s != turn) == [], f"{where}: a bot catches a person"
    log.clear()
    # The table applies the first legal action to its copy (A13's "raise" may refuse it:
    # the bots were asked already).
    with contextlib.suppress(EngineError):
        table.bot_step()
    assert log == want, f"{where}: the table"
    return int(protected)


@pytest.mark.parametrize("part", range(PARTS))
def test_every_interface_asks_in_the_decision_order(part: int) -> None:
    positions = uno_positions = 0
    for entry in ENTRIES[part::PARTS]:
        game = corpus.new(entry)
        where: dict[str, Any] = {"seed": entry["seed"], "preset": entry["preset"]}
        for i, text in enumerate(entry["actions"]):
            uno_positions += check_position(game, f"golden game {where} before action {i}")
            positions += 1
            game.apply(text)
    assert positions > 10_000 and uno_positions > 50
