"""A server's rooms agree with the database after an outage (issue 43), whatever the moment it
struck: faults injected in process, deterministically, on a real PostgreSQL.

- A move whose commit reached the disk but whose answer was lost (PostgreSQL crashed at that
  moment): the server took it for a failure and undid the move; sent again, it is the same
  move stored, not another server's (which would make the owner let go of a room the database
  still says it owns: nobody would ever play it again).
- A room the database gives this server, but which it does not play (it stood down on a
  stale reading of its lease, or its takeover could not load the room while the database went
  away again): its lease runs, so no other server would ever claim it. The heartbeat takes it
  up again.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest
from webharness import Server, WsClient, run

pytestmark = pytest.mark.postgres

#: Seconds a game may take at most here (a few hundred moves, bots without delay).
GAME_LIMIT = 60.0


async def _play_to_end(ann: WsClient, seat: int = 0, until: int | None = None) -> dict[str, Any]:
    """Act (first legal action) at each of ``seat``'s turns, sending again after any error,
    until the game is over (or has ``until`` moves); the last state."""
    loop = asyncio.get_running_loop()
    end = loop.time() + GAME_LIMIT
    acted_at = -1
    while True:
        states = [m for m in ann.log if m["type"] == "state"]
        last = states[-1] if states else None
        if last is not None:
            if last["view"]["phase"] == "over" or (until is not None and last["move"] >= until):
                return last
            if last["view"]["to_act"] == seat and last["legal"] and last["move"] != acted_at:
                acted_at = last["move"]
                await ann.act(last["legal"][0])
        assert loop.time() < end, ("stalled", last and last["move"], ann.log[-3:])
        try:
            msg = await ann.recv(0.5)
        except TimeoutError:
            acted_at = -1
            continue
        if msg["type"] == "error":
            assert msg["code"] in ("unavailable", "not_your_turn", "illegal"), msg
            acted_at = -1


def _agrees(client: WsClient, actions: list[str]) -> None:
    """No move lost or doubled: every move the client saw is the stored one at its index."""
    seen = [m for m in client.log if m["type"] == "state" and m["last"] is not None]
    assert seen and all(actions[m["move"] - 1] == m["last"]["action"] for m in seen)


def test_a_move_committed_though_its_answer_was_lost_is_played_on(
    pg_database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> None:
        async with Server(pg_database) as server:
            created = await server.create(seats=4, bot="greedy")
            code = created["code"]
            ann = await server.ws(code)
            await ann.hello(created["token"])
            store = server.lobby.store
            real = store.append_action
            armed = [True]

            # The fourth move reaches the database (through another connection), then the
            # connection fails: the server hears an error, as when PostgreSQL is stopped in
            # immediate mode between its commit and its answer.
            def answer_lost(game_id: str, index: int, action: str, **kw: Any) -> None:
                if armed and kw.get("room") == code and index >= 3:
                    armed.clear()
                    with psycopg.connect(pg_database, autocommit=True) as db:
                        db.execute(
                            "INSERT INTO actions VALUES (%s, %s, %s, %s)",
                            (game_id, index, action, time.time()),
                        )
                    raise psycopg.OperationalError("server closed the connection unexpectedly")
                real(game_id, index, action, **kw)

            monkeypatch.setattr(store, "append_action", answer_lost)
            await ann.send({"type": "start"})
            last = await _play_to_end(ann)
            assert not armed
            # Stored, not taken for another server's: the room was never stood down.
            assert "took it over" not in caplog.text and "lost its lease" not in caplog.text
            row = store.load_game(last["game_id"])
            assert row is not None and row.record.replay().is_over
            _agrees(ann, row.record.actions)

    run(main)


def test_a_room_the_database_gives_this_server_is_played_here(pg_database: str) -> None:
    async def main() -> None:
        async with Server(pg_database) as server:
            created = await server.create(seats=4, bot="greedy")
            code = created["code"]
            ann = await server.ws(code)
            await ann.hello(created["token"])
            await ann.send({"type": "start"})
            await _play_to_end(ann, until=3)
            cluster = server.lobby.cluster
            assert cluster is not None
            room = server.room(code)
            await cluster.demote(room)  # as on a stale reading: the database still says here
            assert not room.owned
            assert await server.lobby.write(cluster.store.owner, code, retry_for=1.0) == (
                server.lobby.server_id
            )
            last = await _play_to_end(ann)
            assert room.owned
            row = server.lobby.store.load_game(last["game_id"])
            assert row is not None and row.record.replay().is_over
            _agrees(ann, row.record.actions)

    run(main)
