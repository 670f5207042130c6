"""One decision order (issue 28): the web room asks its bots as the terminal's table does.

NM-37 gives a player who must call UNO the first chance to do so. When the seat to act is a
person who may call UNO, the web used to ask its bots first, so a bot caught the person whom
the terminal app protects. Both now ask in ``decision_order``'s order: the person alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from webharness import Server, run

from nomercy.bots import make_bot
from nomercy.core.actions import CallUno, Catch
from nomercy.core.game import Game
from nomercy.tables import SeatBot, Table

#: (bot, seed, move): three-player games of these bots reach, after ``move`` actions, a
#: position where seat 0 is to act holding one card without its UNO call and seat 1 may catch it.
POSITIONS = [("greedy", 6, 98), ("heuristic", 2, 18)]


def uno_position(bot: str, seed: int, move: int) -> Game:
    """The game of ``bot``s at ``seed`` after ``move`` actions (checked to be such a position)."""
    table = Table.new(3, bots=[bot], human=None, seed=seed)
    while table.moves < move:
        assert table.bot_step() is not None
    game = table.game
    assert game.to_act == 0
    assert CallUno(0) in game.legal_actions(0)
    assert any(isinstance(a, Catch) and a.target == 0 for a in game.legal_actions(1))
    return game


@pytest.mark.parametrize(("bot", "seed", "move"), POSITIONS)
def test_nm37_no_bot_catches_the_person_to_act_before_their_uno_call(
    tmp_path: Path, bot: str, seed: int, move: int
) -> None:
    game = uno_position(bot, seed, move)
    call = CallUno(0)
    seated = [None, *(SeatBot(make_bot(bot, seed=s), seed=s) for s in (1, 2))]
    table = Table(game.copy(), seated)
    assert table.bot_step() is None  # the terminal waits for the person

    async def main() -> None:
        async with Server(tmp_path / "web.sqlite") as server:
            created = await server.create(seats=3, bot=bot)
            code = created["code"]
            client = await server.ws(code)
            await client.hello(created["token"])
            await server.rig(code, game.copy())
            room = server.room(code)
            async with room.lock:
                assert room.bot_questions() == []
                assert room.bot_choice() is None
            await client.state(move)
            await client.drain(0.1)  # the bot task had its chance to act
            assert room.game is not None and len(room.game.history) == move
            await client.act(str(call))
            after = await client.state(move + 1)
            assert after["last"] == {"seat": 0, "action": str(call)}
            assert after["view"]["players"][0]["uno"] is True

    run(main)
    # The same call at the terminal's table: both see the same position afterwards.
    table.submit(0, call)
    assert table.view(0).players[0].uno
