"""One door for a move (issue 47): every move a web room plays, a person's or a bot's, goes
through its table's ``Table.submit``, the door the terminal's moves go through, so the same
checks judge them; a refused move is refused as the terminal's table refuses it."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest
from webharness import Server, WsClient, run

from nomercy.core.actions import Action, parse_action
from nomercy.core.errors import IllegalActionError
from nomercy.core.events import Event
from nomercy.tables import Table
from nomercy.web.room import Room

#: Moves the test plays at most before it compares (the game may end first).
MOVES = 40


def _after(move: int, message: dict[str, object]) -> bool:
    """Whether a ``state`` message is of a move after ``move``."""
    return isinstance(message["move"], int) and message["move"] > move


async def _started(server: Server, seats: int) -> tuple[Room, WsClient]:
    """A room of ``seats`` whose host (seat 0) is connected, its game started with bots."""
    created = await server.create(seats=seats, bot="greedy", hints=False)
    host = await server.ws(created["code"])
    await host.hello(created["token"])
    await host.send({"type": "start"})
    await host.state(0)
    return server.room(created["code"]), host


def test_every_move_of_a_room_goes_through_table_submit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    submitted: list[tuple[int, str]] = []
    original = Table.submit

    def spy(table: Table, seat: int, action: Action | str) -> list[Event]:
        events = original(table, seat, action)
        submitted.append((seat, str(action)))
        return events

    monkeypatch.setattr(Table, "submit", spy)

    async def main() -> tuple[list[str], list[int], int]:
        async with Server(tmp_path / "web.sqlite", seed_source=lambda: 7) as server:
            room, ann = await _started(server, 3)
            people = 0
            while room.game is not None and not room.game.is_over:
                game = room.game
                move = game.moves
                if move >= MOVES:
                    break
                if game.to_act == 0:
                    state = await ann.state(move)
                    await ann.act(state["legal"][0])
                    people += 1
                await ann.expect("state", functools.partial(_after, move))
            async with room.lock:  # no move is applied meanwhile
                assert room.game is not None
                played = [str(a) for a in room.game.history]
                seats = [a.seat for a in room.game.history]
                return played, seats, people

    played, seats, people = asyncio.run(main())
    assert len(played) >= 20 and people > 0 and set(seats) == {0, 1, 2}
    # Every move of the game, the person's and the bots', and nothing else, in order.
    assert submitted[: len(played)] == list(zip(seats, played, strict=True))


def test_a_refused_move_is_refused_as_the_terminal_refuses_it(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "web.sqlite", seed_source=lambda: 7) as server:
            room, ann = await _started(server, 2)
            while room.game is not None and room.game.to_act != 0:  # the bot's turn first
                await ann.expect("state", functools.partial(_after, room.game.moves))
            async with room.lock:
                assert room.game is not None and room.game.to_act == 0
                move = room.game.moves
                terminal = Table(room.game.copy(), [None, None])
            held = {str(card) for card in terminal.view(0).hand}
            absent = next(c for c in ("R1", "G2", "B3", "Y4", "R5", "G6") if c not in held)
            with pytest.raises(IllegalActionError) as refused:
                terminal.submit(0, parse_action(f"play {absent}", 0))
            await ann.act(f"play {absent}")
            error = await ann.error()
            assert error["code"] == "illegal"
            assert error["message"] == str(refused.value)
            assert room.game is not None and room.game.moves == move

    run(main)
