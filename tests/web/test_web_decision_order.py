"""One decision order and one seeding (issue 28): the web room asks its bots as the terminal's
table does, and its bots decide as the table's.

NM-37 gives a player who must call UNO the first chance to do so. When the seat to act is a
person who may call UNO, the web used to ask its bots first, so a bot caught the person whom
the terminal app protects. Both now ask in ``decision_order``'s order: the person alone.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from webharness import Server, bots_idle, run

from nomercy.bots import make_bot
from nomercy.core.actions import Action, CallUno, Catch
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
            await bots_idle(room)  # the bots were asked and let the person call first
            assert room.game is not None and len(room.game.history) == move
            await client.act(str(call))
            after = await client.state(move + 1)
            assert after["last"] == {"seat": 0, "action": str(call)}
            assert after["view"]["players"][0]["uno"] is True

    run(main)
    # The same call at the terminal's table: both see the same position afterwards.
    table.submit(0, call)
    assert table.view(0).players[0].uno


def _person(legal: list[Action]) -> Action:
    """The scripted person's choice: the first of its legal actions."""
    return legal[0]


@pytest.mark.parametrize("seed", [11, 12])
def test_the_web_and_a_table_give_the_same_bot_moves_for_the_same_seed_and_person(
    tmp_path: Path, seed: int
) -> None:
    # One seeding rule (``Table``'s, ``bot_seed``): a room dealt from ``seed`` with random bots,
    # and a table made from the same seed and seating, driven directly, with the same person's
    # moves, play the same game: every bot move (random bots: each depends on its seed) alike.
    table = Table.new(3, bots=["random"], human=0, seed=seed)
    while not table.is_over:
        if table.bot_step() is None:
            table.submit(0, _person(table.legal_actions(0)))
    expected = [str(a) for a in table.game.history]

    async def main() -> list[str]:
        async with Server(tmp_path / "web.sqlite", seed_source=lambda: seed) as server:
            created = await server.create(seats=3, bot="random")
            code = created["code"]
            client = await server.ws(code)
            await client.hello(created["token"])
            await client.send({"type": "start"})
            await client.state(0)
            room = server.room(code)
            loop = asyncio.get_running_loop()
            end = loop.time() + 60
            while True:
                assert loop.time() < end, "the game did not end"
                task = room._bot_task
                if task is not None and not task.done():
                    await asyncio.sleep(0.001)  # the bots are still deciding
                    continue
                async with room.lock:
                    game = room.game
                    assert game is not None
                    if game.is_over:
                        break
                    moves = len(game.history)
                    mine = game.to_act == 0 and not room.bot_questions()
                    action = _person(game.legal_actions(0)) if mine else None
                if action is None:
                    await asyncio.sleep(0.001)
                    continue
                await client.act(str(action))
                await client.state(moves + 1)
            record = server.lobby.store.load_game(room.game_id or "")
            assert record is not None
            assert record.record.actions == [str(a) for a in game.history]
            return list(record.record.actions)

    played = asyncio.run(main())
    assert played == expected
    assert sum(1 for a in expected if not a.startswith("s0")) > 20  # the bots played
