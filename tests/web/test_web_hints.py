"""The coach over the web protocol: the ``hint`` message, the room's ``hints`` switch, the
limits (one hint in flight per connection, ``hint_workers`` per server, one search per
moment), in-process (tests/web/webharness.py) and against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from realserver import real_server, request
from webharness import Server, run, table
from websockets.asyncio.client import ClientConnection, connect

from nomercy.core.actions import parse_action
from nomercy.core.game import Game
from nomercy.tables import Table as TableOfGame
from nomercy.tables.coach import DEFAULT_ITERATIONS, REASONS, Coach
from nomercy.web.serve import add_serve_parser
from nomercy.web.sqlcore import RoomRow, SeatRow
from nomercy.web.store import SCHEMA_VERSION, Store

NAMES = ["Ann", "Bob", "Cid"]
#: A budget that keeps the tests quick; the time cap never cuts it short.
FAST = {"hint_iterations": 300, "hint_max_time": 600.0}


def position(hands: list[list[str]], **extra: Any) -> Game:
    players = [{"name": name, "hand": hand} for name, hand in zip(NAMES, hands, strict=False)]
    return Game.from_position({"players": players, "turn": 0, **extra})


STACK = position(
    [["R+2", "G1", "Y3", "B7"], ["Y1", "Y2", "B4"]],
    discard=["R3", "R+2"],
    pending={"total": 2, "last": 2},
    draw_pile=["G3", "G4", "G6", "G7", "G8", "G9", "B1", "B2", "B3", "Y4", "Y5"],
)


def test_a_hint_is_one_of_the_legal_actions_and_is_not_played(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", **FAST) as server:
            code, (ann, bob) = await table(server, seats=2)
            await server.rig(code, STACK.copy())
            first = await ann.expect("state")
            assert server.room(code).summary()["hints"] is True
            await ann.send({"type": "hint"})
            msg = await ann.expect("hint")
            hint = msg["hint"]
            assert msg["game_id"] == first["game_id"] and msg["move"] == 0 and msg["seat"] == 0
            assert hint["action"] in first["legal"]
            assert hint["action"] in ("play R+2", "draw")
            assert 0.0 <= hint["chance"] <= 1.0
            assert hint["reason"]["kind"] in REASONS and hint["reason"]["text"]
            assert {e["action"] for e in hint["estimates"]} == {"play R+2", "draw"}
            assert hint["iterations"] == 300
            # Nothing was played: the game waits at move 0, Bob heard nothing of it.
            assert server.room(code).game is not None
            assert len(server.room(code).game.history) == 0  # type: ignore[union-attr]
            heard = await bob.settled()  # all the loop had for him (no real-time pause)
            assert [m for m in heard if m["type"] == "hint" or m.get("move", 0) > 0] == []
            # Asking again for the same moment gets the same answer without a new search.
            await ann.send({"type": "hint"})
            again = await ann.expect("hint")
            assert again == msg
            # Bob is not to act and has no UNO call or catch: no hint for him.
            await bob.send({"type": "hint"})
            err = await bob.error()
            assert (
                err["code"] == "not_your_turn" and "hints are for your decisions" in err["message"]
            )
            # The hinted move is accepted as it is.
            await ann.act(hint["action"])
            after = await ann.state(1)
            assert after["last"]["action"] == hint["action"]

    run(main)


def test_the_hint_uses_the_seat_view_only(tmp_path: Path) -> None:
    """Two rooms whose games differ only in Bob's hidden cards and the draw pile give Ann the
    same hint (the coach's seed comes from the game seed, the move and the seat)."""

    async def main() -> None:
        hints = []
        for bob, pile in (
            (["Y1", "Y2", "B4"], ["G3", "G4", "G6", "B1", "B2", "B3", "Y4", "Y5"]),
            (["B2", "G6", "Y5"], ["Y1", "G3", "B3", "G4", "Y4", "B1", "Y2", "B4"]),
        ):
            game = position(
                [["R+2", "G1", "Y3", "B7"], bob],
                discard=["R3", "R+2"],
                pending={"total": 2, "last": 2},
                draw_pile=pile,
                seed=5,
            )
            async with Server(tmp_path / f"db{len(hints)}", **FAST) as server:
                code, (ann, _) = await table(server, seats=2)
                await server.rig(code, game)
                await ann.expect("state")
                await ann.send({"type": "hint"})
                hints.append((await ann.expect("hint"))["hint"])
        a, b = hints
        assert a | {"seconds": 0} == b | {"seconds": 0}

    run(main)


def test_hints_off_spectators_and_no_game_get_clear_errors(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", **FAST) as server:
            code, (ann, _) = await table(server, seats=2, hints=False)
            assert server.room(code).summary()["hints"] is False
            await ann.send({"type": "hint"})
            err = await ann.error()
            assert err["code"] == "hints_off"
            assert err["message"] == "the host turned hints off in this room"
            await server.rig(code, STACK.copy())
            await ann.expect("state")
            await ann.send({"type": "hint"})
            assert (await ann.error())["code"] == "hints_off"
            # In a room with hints on: a spectator, and a seat before the start.
            code, (cid, _) = await table(server, seats=2)
            await cid.send({"type": "hint"})
            err = await cid.error()
            assert err["code"] == "not_started"
            watcher = await server.ws(code)
            await watcher.hello()
            await watcher.send({"type": "hint"})
            assert (await watcher.error())["code"] == "spectator"
            fresh = await server.ws(code)
            await fresh.send({"type": "hint"})
            assert (await fresh.error())["code"] == "hello_first"
            # A bad hints value when creating a room.
            r = await server.http.post("/api/rooms", json={"host_name": "Ann", "hints": "yes"})
            assert r.status_code == 400 and r.json()["error"] == "bad_hints"

    run(main)


def test_one_hint_in_flight_per_connection_and_per_server_limit(tmp_path: Path) -> None:
    async def main() -> None:
        # A bigger budget: the first search is surely still running when the next asks.
        async with Server(
            tmp_path / "db", hint_iterations=3000, hint_max_time=600.0, hint_workers=1
        ) as server:
            code, (ann, _) = await table(server, seats=2)
            await server.rig(code, STACK.copy())
            await ann.expect("state")
            second = await server.ws(code)  # Ann's second tab
            assert ann.token is not None
            await second.hello(ann.token)
            await second.drain(0.05)
            await ann.send({"type": "hint"})
            await ann.send({"type": "hint"})
            err = await ann.error()
            assert err["code"] == "hint_busy" and "one hint at a time" in err["message"]
            await second.send({"type": "hint"})
            err = await second.error()
            assert err["code"] == "hint_busy" and "coach is busy" in err["message"]
            # The first answer still arrives; then the server's slot is free again (the other
            # tab now gets the stored hint of this moment).
            first = await ann.expect("hint", timeout=60)
            assert server.lobby.hints_running == 0
            await second.send({"type": "hint"})
            assert (await second.expect("hint")) == first

    run(main)


def test_an_uno_call_and_a_catch_are_hinted_out_of_turn(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", **FAST) as server:
            game = position(
                [["Y1", "R8"], ["R1", "G2", "B3"]],
                discard=["R5"],
                draw_pile=["G3", "G4", "G6", "G7", "G8", "G9", "B1", "B2"],
            )
            code, (ann, bob) = await table(server, seats=2)
            await server.rig(code, game)
            await ann.expect("state")
            await ann.act("play R8")  # without calling UNO
            await bob.state(1)
            await ann.state(1)
            await ann.send({"type": "hint"})  # Ann is not to act, but may call UNO
            hint = (await ann.expect("hint"))["hint"]
            assert hint["action"] == "0:uno" and hint["reason"]["kind"] == "call_uno"
            assert hint["chance"] is None
            await bob.send({"type": "hint"})
            hint = (await bob.expect("hint"))["hint"]
            assert hint["action"] == "1:catch 0" and hint["reason"]["kind"] == "catch"
            assert hint["reason"]["data"]["name"] == "Ann"

    run(main)


@pytest.mark.sqlite_only
def test_the_hints_switch_is_stored_and_an_old_database_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    seats = [SeatRow(0, "Ann", "human", None, "h"), SeatRow(1, None, "open", None, None)]
    off = RoomRow("OFF", "r", "no-mercy", {}, 2, "greedy", 0, "hand", 0.0, None, seats)
    off.hints = False
    store.create_room(off)
    store.close()
    assert [r.hints for r in Store(path).load_rooms()] == [False]
    # A schema-2 database (before the switch): its rooms come back with hints on.
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE rooms DROP COLUMN hints")
    db.execute("UPDATE meta SET value='2' WHERE key='schema'")
    db.commit()
    db.close()
    store = Store(path)
    assert [r.hints for r in store.load_rooms()] == [True]
    version = store.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]
    assert version == str(SCHEMA_VERSION) == "3"
    store.close()


def test_the_plain_form_sets_hints_off(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            r = await server.http.post(
                "/rooms",
                content="host_name=Ann&seats=2&hints=off",
                headers={
                    "content-type": "application/x-www-form-urlencoded",
                    "sec-fetch-site": "same-origin",
                },
            )
            assert r.status_code == 303
            code = r.headers["location"].split("/r/")[1].split("#")[0]
            assert server.room(code).summary()["hints"] is False

    run(main)


def test_serve_flags_default_to_the_coach_budget() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers(dest="command"), argparse.RawDescriptionHelpFormatter)
    args = parser.parse_args(["serve"])
    assert args.hint_iterations == DEFAULT_ITERATIONS and args.hint_workers == 2


# ---------------------------------------------------------------------- a real server
async def _recv(ws: ClientConnection, kind: str, timeout: float = 20.0) -> dict[str, Any]:
    """The next message of type ``kind``; an unexpected ``error`` fails the test."""
    end = time.monotonic() + timeout
    while True:
        left = max(0.01, end - time.monotonic())
        data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), left))
        if data["type"] == kind:
            return data
        assert data["type"] != "error", f"error while waiting for {kind}: {data}"


def _safe_move(legal: list[str]) -> str:
    """A move that leaves the bot nothing to catch: call UNO first, play with the call."""
    for pick in (lambda a: a.endswith(":uno"), lambda a: a.endswith(" uno")):
        found = [a for a in legal if pick(a)]
        if found:
            return found[0]
    return legal[0]


def test_hints_against_a_real_server(tmp_path: Path) -> None:
    """``nomercy serve`` on 127.0.0.1: a hint in a room against a bot, and hints off."""
    with real_server(tmp_path / "db.sqlite3", "--hint-iterations", "300") as srv:
        on = srv.create(seats=2, bot="greedy", timer=0)
        off = srv.create(seats=2, bot="greedy", timer=0, hints=False)
        assert request(srv.port, f"/api/rooms/{off['code']}").body["hints"] is False
        assert request(srv.port, f"/api/rooms/{on['code']}").body["hints"] is True

        async def main() -> None:
            async with connect(srv.ws_url(on["code"]), open_timeout=10) as ws:
                await ws.send(json.dumps({"type": "hello", "token": on["token"]}))
                await _recv(ws, "welcome")
                await ws.send(json.dumps({"type": "start"}))
                # Play the bot's way until it is Ann's turn with a choice, then ask.
                for _ in range(200):
                    state = await _recv(ws, "state")
                    if state["view"]["phase"] == "over":
                        raise AssertionError("the hand ended before Ann had a choice")
                    mine = state["view"]["to_act"] == 0
                    if mine and len([a for a in state["legal"] if ":" not in a]) > 1:
                        break
                    if mine:
                        move = _safe_move(state["legal"])
                        await ws.send(json.dumps({"type": "action", "action": move}))
                await ws.send(json.dumps({"type": "hint"}))
                msg = await _recv(ws, "hint")
                assert msg["move"] == state["move"] and msg["seat"] == 0
                assert msg["hint"]["action"] in state["legal"]
                parse_action(msg["hint"]["action"], 0)
                assert 0.0 <= msg["hint"]["chance"] <= 1.0
            async with connect(srv.ws_url(off["code"]), open_timeout=10) as ws:
                await ws.send(json.dumps({"type": "hello", "token": off["token"]}))
                await _recv(ws, "welcome")
                await ws.send(json.dumps({"type": "start"}))
                await _recv(ws, "state")
                await ws.send(json.dumps({"type": "hint"}))
                err = await _recv(ws, "error")
                assert err["code"] == "hints_off"

        asyncio.run(main())


def test_the_same_moment_gets_the_same_hint_in_the_web_and_at_the_terminal_table(
    tmp_path: Path,
) -> None:
    # Both seed the coach with Table.hint_seed (hint_seed(game seed, move, seat)).
    terminal = TableOfGame(STACK.copy(), [None, None])
    coach = Coach(seed=terminal.hint_seed(0), iterations=300, max_time=600.0)
    expected = coach.hint(terminal.view(0), terminal.legal_actions(0)).to_json()

    async def main() -> None:
        async with Server(tmp_path / "db", **FAST) as server:
            code, (ann, _) = await table(server, seats=2)
            await server.rig(code, STACK.copy())
            await ann.expect("state")
            await ann.send({"type": "hint"})
            got = (await ann.expect("hint"))["hint"]
            for key in ("action", "chance", "estimates", "reason", "iterations"):
                assert got[key] == expected[key], key

    run(main)
