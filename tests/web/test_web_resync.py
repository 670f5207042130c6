"""A follower's reload races no notice (issue 43's "no move lost or doubled", as the players see
it): a copy of a room reloaded from the database while its owner's notices keep coming never
steps back to the older read, and no player is sent a state older than one already sent.

After a database outage a server reloads every room it follows (cluster.py) while the owner
goes on playing; a move stored after the read but applied from its notice before the reload
finished used to be undone by the reload, and its players sent the move before it again. The
race is made here, in one process: the read is held until the notice has had its chance.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from webharness import Server, run, table

from nomercy.web.rooms import RoomState


def test_a_notice_during_a_reload_is_not_undone_by_it(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db.sqlite") as server:
            code, (ann, bob) = await table(server, seats=2)
            await ann.send({"type": "start"})
            await ann.state(0)
            await bob.state(0)
            room = server.room(code)
            assert room.game is not None and room.game_id is not None
            room.owned = False  # it follows another server's notices from now on
            game = room.game
            seat = game.to_act
            assert seat is not None
            action = str(game.legal_actions(seat)[0])
            notice = {"k": "act", "g": room.game_id, "i": len(game.history), "a": action}

            lobby = server.lobby
            load_state = lobby.load_state
            read, go = threading.Event(), threading.Event()

            def held(code: str, row: Any = None) -> RoomState | None:
                state = load_state(code, row)  # the move is not stored yet: read before it
                read.set()
                assert go.wait(60), "never let go"
                return state

            lobby.load_state = held  # type: ignore[method-assign]
            reload = asyncio.ensure_future(lobby.resync(room))
            assert await asyncio.to_thread(read.wait, 60)
            # The owner's move arrives meanwhile; its follower task gets the loop's next turns
            # (an unheld lock is taken without waiting, and the move applied at once).
            room.receive(notice)
            for _ in range(5):
                await asyncio.sleep(0)
            go.set()
            await asyncio.wait_for(reload, 60)
            if room._follower is not None:  # the notice, if it waited for the reload
                await asyncio.wait_for(room._follower, 60)
            lobby.load_state = load_state  # type: ignore[method-assign]

            assert room.game is not None and len(room.game.history) == 1
            room.send_all({"type": "marker"})  # after everything the room sent: read up to it
            for client in (ann, bob):
                await client.expect("marker")
                moves = [m["move"] for m in client.log if m["type"] == "state"]
                assert moves == sorted(moves) and moves[-1] == 1, moves

    run(main)
