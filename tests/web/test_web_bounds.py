"""A server one client cannot slow down (issue 24), against a real ``nomercy serve`` process.

Options that scale the work of a game are bounded when the request is parsed; foreign
strings, hosts and databases are refused cleanly; room creation is limited per address;
floods are judged on the client's own rate; a hello's cost does not grow with the game (the
limits that only take time, on a manual clock: tests/web/test_web_limits.py).
Figures (latencies, RSS) are measured in benchmarks/bench_attacks.py, not here: the bounds
below only say "it happened at all, long before the test gives up".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from realserver import real_server, request
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

#: The victim's source address: another loopback address than the attacker's.
VICTIM = "127.0.0.2"


#: The default bound (real time) on a wait for the server: it only catches a hang (the suite
#: runs beside other work on a loaded machine).
HANG = 60.0


async def recv(ws: ClientConnection, timeout: float = HANG) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return data


async def expect(ws: ClientConnection, kind: str, timeout: float = HANG) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        msg = await recv(ws, max(0.01, end - time.monotonic()))
        if msg["type"] == kind:
            return msg


async def closed_code(ws: ClientConnection, timeout: float) -> int | None:
    """Read until the server closes: its close code (``None``: still open after ``timeout``)."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    except ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd is not None else None
    except TimeoutError:
        return None


async def ping_until(ws: ClientConnection, stop: asyncio.Event, rtts: list[float]) -> None:
    """Ping every 0.15 s (within the rate limit) until ``stop``; round trips into ``rtts``."""
    while not stop.is_set():
        began = time.perf_counter()
        await ws.send('{"type": "ping"}')
        await expect(ws, "pong", 30)
        rtts.append(time.perf_counter() - began)
        await asyncio.sleep(0.15)


# ---------------------------------------------------------------------- 1. option bounds
def test_options_that_scale_work_are_bounded_when_the_request_is_parsed(tmp_path: Path) -> None:
    with real_server(tmp_path / "db.sqlite3") as srv:
        meta = request(srv.port, "/api/meta").body
        assert meta["max_deck_cards"] == 1000
        hand = next(o for o in meta["options"] if o["name"] == "hand_size")
        assert hand["maximum"] == 50
        victim_room = srv.create(host_name="Vic")["code"]
        attacks: list[tuple[dict[str, Any], str]] = [
            ({"deck_variant": "custom", "deck_counts": {"R1": 10_000_000}}, "'deck_counts'"),
            ({"deck_counts": {"R1": 600, "B2": 600}}, "at most 1000 cards"),
            ({"hand_size": 10**9}, "'hand_size' is at most 50"),
            ({"mercy_threshold": 10**6}, "'mercy_threshold' is at most 100"),
            ({"uno_penalty_cards": 10**6}, "'uno_penalty_cards' is at most 20"),
            ({"score_target": 10**12}, "'score_target' is at most 10000"),
        ]

        async def main() -> list[float]:
            rtts: list[float] = []
            stop = asyncio.Event()
            url = srv.ws_url(victim_room)
            async with connect(url, local_addr=(VICTIM, 0)) as victim:
                await victim.send('{"type": "hello"}')
                await expect(victim, "welcome")
                pinger = asyncio.create_task(ping_until(victim, stop, rtts))
                for options, text in attacks:
                    body = {"host_name": "x", "options": options}
                    began = time.monotonic()
                    r = await asyncio.to_thread(request, srv.port, "/api/rooms", body)
                    assert time.monotonic() - began < 5, options
                    assert r.status == 400, r.body
                    assert r.body["error"] == "bad_options"
                    assert text in r.body["message"], r.body
                stop.set()
                await pinger
            return rtts

        rtts = asyncio.run(main())
        assert rtts and max(rtts) < 5, rtts  # answered all along (figures: benchmarks/)
        # Within the bounds, a deck too small to deal is still refused by the dry run (which
        # runs in a worker thread), and a sound custom room is made and starts.
        small = {"deck_counts": {"R1": 10}, "hand_size": 7}
        r = request(srv.port, "/api/rooms", {"host_name": "x", "options": small})
        assert r.status == 400 and "cannot deal" in r.body["message"], r.body
        counts = {f"{c}{n}": 2 for c in "RGBY" for n in range(10)}
        room = srv.create(host_name="Ann", seats=2, options={"deck_counts": counts})

        async def start() -> dict[str, Any]:
            async with connect(srv.ws_url(room["code"])) as ws:
                await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
                await expect(ws, "welcome")
                await ws.send('{"type": "start"}')
                return await expect(ws, "state")

        state = asyncio.run(start())
        assert len(state["view"]["hand"]) == 7
        assert "Traceback" not in srv.log_text()


# ---------------------------------------------------------------------- 2. strings, schema, hosts
def test_lone_surrogates_from_clients_are_refused_cleanly(tmp_path: Path) -> None:
    with real_server(tmp_path / "db.sqlite3") as srv:
        room = srv.create(host_name="Ann")
        code = room["code"]
        # JSON escapes make strings that no UTF-8 encoder takes: in every place a client
        # string goes (a token, an action, a name, a preset, an option's name, a key).
        for body in (
            {"host_name": "\ud800"},
            {"host_name": "x", "preset": "\udfff"},
            {"host_name": "x", "options": {"\ud800": 1}},
            {"host_name": "x", "\ud800": 1},
        ):
            raw = json.dumps(body).encode()  # ASCII: the surrogates travel as \ud800 escapes
            r = request(srv.port, "/api/rooms", raw=raw)
            assert r.status == 400, (body, r.body)
            assert r.body["error"] == "bad_request" and "surrogate" in r.body["message"]
        r = request(srv.port, f"/api/rooms/{code}/join", raw=b'{"name": "a\\ud800"}')
        assert r.status == 400 and "surrogate" in r.body["message"], r.body

        async def main() -> None:
            async with connect(srv.ws_url(code)) as ws:
                for frame in (
                    '{"type": "hello", "token": "\\ud800"}',
                    '{"type": "hello\\udfff"}',
                    b'{"type": "hello", "token": "\xed\xa0\x80"}',  # a binary frame: CESU bytes
                ):
                    await ws.send(frame)
                    error = await expect(ws, "error")
                    assert error["code"] == "malformed" and "surrogate" in error["message"]
                # The connection is still good.
                await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
                assert (await expect(ws, "welcome"))["seat"] == 0
                await ws.send(json.dumps({"type": "action", "action": "\ud800"}))
                assert (await expect(ws, "error"))["code"] == "malformed"

        asyncio.run(main())
        log = srv.log_text()
        assert "Traceback" not in log and "server_error" not in log


@pytest.mark.sqlite_only
def test_a_database_of_another_program_is_refused_with_exit_2(tmp_path: Path) -> None:
    import sqlite3
    import subprocess

    from realserver import serve_command

    from ports import free_port

    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE rooms (id INTEGER PRIMARY KEY, owner TEXT)")
        db.execute("INSERT INTO rooms (owner) VALUES ('someone')")
    # Our table names with other columns, and a schema version.
    lookalike = tmp_path / "lookalike.sqlite3"
    with sqlite3.connect(lookalike) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '3')")
        db.execute("CREATE TABLE rooms (code TEXT PRIMARY KEY, title TEXT)")
    for path, text in ((foreign, "not a nomercy server database"), (lookalike, "'rooms'")):
        proc = subprocess.run(
            serve_command(free_port(), path), capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and text in lines[0], proc.stderr
        assert lines[0].startswith("nomercy serve: error:")
    # Nothing was added to the other program's file.
    with sqlite3.connect(foreign) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert tables == ["rooms"]


def test_only_allowed_host_names_are_answered(tmp_path: Path) -> None:
    from websockets.exceptions import InvalidStatus

    db = tmp_path / "db.sqlite3"
    with real_server(db, "--allowed-host", "cards.example") as srv:
        code = srv.create()["code"]
        for host in (
            "127.0.0.1",
            f"127.0.0.1:{srv.port}",
            f"localhost:{srv.port}",
            "cards.example",
        ):
            r = request(srv.port, "/api/meta", headers={"host": host})
            assert r.status == 200, (host, r.body)
        for host in ("evil.example", f"evil.example:{srv.port}", "10.1.2.3", "cards.example.evil"):
            r = request(srv.port, "/api/meta", headers={"host": host})
            assert r.status == 400 and r.body["error"] == "bad_host", (host, r.body)
            assert "--allowed-host" in r.body["message"]
        r = request(srv.port, "/api/rooms", {"host_name": "x"}, headers={"host": "evil.example"})
        assert r.status == 400 and r.body["error"] == "bad_host"

        async def main() -> None:
            # DNS rebinding: the page's Origin matches its Host, both the attacker's name.
            evil = f"ws://evil.example:{srv.port}/ws/{code}"
            try:
                ws = await connect(
                    evil,
                    host="127.0.0.1",
                    origin=f"http://evil.example:{srv.port}",  # type: ignore[arg-type]
                )
            except InvalidStatus as exc:
                assert exc.response.status_code == 403
            else:
                await ws.close()
                raise AssertionError("a WebSocket for evil.example was accepted")
            good = f"ws://cards.example:{srv.port}/ws/{code}"
            async with connect(
                good,
                host="127.0.0.1",
                origin=f"http://cards.example:{srv.port}",  # type: ignore[arg-type]
            ) as ws:
                await ws.send('{"type": "ping"}')
                await expect(ws, "pong")

        asyncio.run(main())
    # Listening on every interface: any IP address literal (typed in a browser) is fine too;
    # names still need --allowed-host.
    with real_server(tmp_path / "db2.sqlite3", "--host", "0.0.0.0") as srv:
        assert request(srv.port, "/api/meta", headers={"host": "10.1.2.3:80"}).status == 200
        assert request(srv.port, "/api/meta", headers={"host": "evil.example"}).status == 400


# ---------------------------------------------------------------------- 3, 4. rooms, floods
# Room creation per address, the open-room cap, expiry of rooms made and left, the throttle and
# the flood limits run in-process on a manual clock (tests/web/test_web_limits.py); a stall of
# the server's own event loop needs a real process:
async def _pongs(ws: ClientConnection, count: int, timeout: float) -> list[str]:
    """Read ``count`` answers (pongs or errors): their types or error codes."""
    seen = []
    for _ in range(count):
        msg = await recv(ws, timeout)
        seen.append(msg["type"] if msg["type"] != "error" else msg["code"])
    return seen


async def _greet(ws: ClientConnection) -> None:
    """Say hello as a spectator and read what it causes (a welcome, a room summary)."""
    await ws.send('{"type": "hello"}')
    await expect(ws, "welcome")
    with contextlib.suppress(TimeoutError):
        while True:
            await recv(ws, 0.5)


def test_messages_that_piled_up_in_a_server_stall_are_not_a_flood(tmp_path: Path) -> None:
    import os
    import signal

    with real_server(tmp_path / "db.sqlite3") as srv:
        code = srv.create()["code"]

        async def main() -> None:
            async with connect(srv.ws_url(code), ping_interval=None) as ws:
                await _greet(ws)
                # The server stops for 6 s (as in a stall of its event loop); the client keeps
                # pinging 10 times a second, as a browser does: 60 pings arrive at once after.
                os.kill(srv.proc.pid, signal.SIGSTOP)
                try:
                    for _ in range(60):
                        await ws.send('{"type": "ping"}')
                        await asyncio.sleep(0.1)
                finally:
                    os.kill(srv.proc.pid, signal.SIGCONT)
                seen = await _pongs(ws, 60, 10)
                assert seen == ["pong"] * 60, seen
                assert await closed_code(ws, 0.5) is None

        asyncio.run(main())


# ---------------------------------------------------------------------- 5. hellos
async def _finished_game(srv: Any, seats: int = 6) -> dict[str, Any]:
    """A room whose game bots played to the end (the host left; --grace 0): the room."""
    room = srv.create(host_name="Ann", seats=seats, options={"hand_size": 15})
    async with connect(srv.ws_url(room["code"])) as host:
        await host.send(json.dumps({"type": "hello", "token": room["token"]}))
        await expect(host, "welcome")
        await host.send('{"type": "start"}')
        await expect(host, "state")
    async with connect(srv.ws_url(room["code"]), max_queue=None) as watcher:
        await watcher.send('{"type": "hello"}')
        end = time.monotonic() + 60
        while True:
            msg = await recv(watcher, max(0.01, end - time.monotonic()))
            if msg["type"] == "state" and msg["view"]["phase"] == "over":
                return room


def test_a_hello_carries_the_newest_events_and_older_ones_come_in_pages(tmp_path: Path) -> None:
    with real_server(tmp_path / "db.sqlite3", "--grace", "0") as srv:

        async def main() -> None:
            for _ in range(5):  # a game over in fewer than 60 public events is played again
                room = await _finished_game(srv)
                async with connect(srv.ws_url(room["code"])) as probe:
                    await probe.send('{"type": "hello"}')
                    if (await expect(probe, "state"))["history_from"] > 0:
                        break
            async with connect(srv.ws_url(room["code"]), max_queue=None) as ws:
                texts = []
                for _ in range(2):  # the same state twice: built once, answered alike
                    await ws.send('{"type": "hello"}')
                    await expect(ws, "welcome")
                    state = await expect(ws, "state")
                    state.pop("room")
                    texts.append(json.dumps(state, sort_keys=True))
                    await asyncio.sleep(0.6)
                assert texts[0] == texts[1]
                history = state["view"]["history"]
                start = state["history_from"]
                assert len(history) == 60 and start > 0, (len(history), start)
                log = list(history)
                while start > 0:
                    await ws.send(json.dumps({"type": "history", "before": start}))
                    page = await expect(ws, "history")
                    assert page["game_id"] == state["game_id"]
                    assert page["hand"] == state["view"]["hand_number"]
                    assert page["from"] == max(0, start - 100)
                    assert len(page["events"]) == start - page["from"]
                    log[:0] = page["events"]
                    start = page["from"]
                kinds = [e["kind"] for e in log]
                assert kinds[-1] == "hand_end" and "play" in kinds, kinds[:5]
                assert len(log) == state["history_from"] + 60
                # Past the end: the newest page; bad indices are refused.
                await ws.send(json.dumps({"type": "history", "before": 10**6}))
                assert (await expect(ws, "history"))["events"] == log[-100:]
                for bad in (-1, "3", True, None):
                    await ws.send(json.dumps({"type": "history", "before": bad}))
                    assert (await expect(ws, "error"))["code"] == "malformed"

        asyncio.run(main())


def test_a_connection_that_does_not_read_is_closed_by_its_byte_budget(tmp_path: Path) -> None:
    import socket

    flags = ("--grace", "0", "--send-budget", "65536", "--rate-limit", "1000")
    flags += ("--hellos-per-address", "0")
    with real_server(tmp_path / "db.sqlite3", *flags) as srv:

        async def finished() -> dict[str, Any]:
            return await _finished_game(srv)

        room = asyncio.run(finished())
        # A raw WebSocket with a tiny receive buffer that never reads: its hellos' states
        # (alternating seat and spectator: each answered) pile up in the server.
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", srv.port))
        sock.sendall(
            f"GET /ws/{room['code']} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        hellos = [json.dumps({"type": "hello", "token": room["token"]}), '{"type": "hello"}']
        sock.settimeout(1.0)
        began = time.monotonic()
        sent = 0
        try:
            while time.monotonic() - began < 30:
                if "does not read its messages" in srv.log_text():
                    break
                payload = hellos[sent % 2].encode()
                mask = b"\x01\x02\x03\x04"
                body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                with contextlib.suppress(OSError):  # the server stopped reading: a timeout
                    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + body)
                sent += 1
                time.sleep(0.01)
            assert "does not read its messages" in srv.log_text(), f"{sent} hellos"
            # It left the room at once (its socket may linger until the OS gives up on it).
            end = time.monotonic() + 10
            while time.monotonic() < end:
                summary = request(srv.port, f"/api/rooms/{room['code']}").body
                if summary["spectators"] == 0 and not summary["seats"][0]["connected"]:
                    break
                time.sleep(0.1)
            assert summary["spectators"] == 0 and not summary["seats"][0]["connected"], summary
        finally:
            sock.close()
        assert "Traceback" not in srv.log_text()
        assert request(srv.port, "/api/meta").status == 200


def test_a_connection_that_said_hello_and_then_nothing_stays_open(tmp_path: Path) -> None:
    # The hello timeout is the reader's; the hello is handled by the connection's worker: a
    # client that says hello and then only listens must not be taken for a silent one.
    # A 3 s timeout: the hello, sent as soon as the socket opens, beats it on a loaded
    # machine too; the wait below outlasts it.
    with real_server(tmp_path / "db.sqlite3", "--hello-timeout", "3") as srv:
        code = srv.create()["code"]

        async def main() -> None:
            async with connect(srv.ws_url(code)) as ws:
                await ws.send('{"type": "hello"}')
                await expect(ws, "welcome")
                assert await closed_code(ws, 4.5) is None
                await ws.send('{"type": "ping"}')
                await expect(ws, "pong")

        asyncio.run(main())


@pytest.mark.sqlite_only
def test_a_stored_room_past_the_bounds_is_closed_at_startup(tmp_path: Path) -> None:
    from nomercy.web.sqlcore import RoomRow, SeatRow
    from nomercy.web.store import Store

    db = tmp_path / "db.sqlite3"
    store = Store(db)  # a room stored before the bounds existed, and a sound one
    for code, options in (("HUGEDECK22", {"deck_counts": {"R1": 10_000_000}}), ("FINEROOM22", {})):
        seats = [SeatRow(0, "Ann", "human", None, "h0"), SeatRow(1, None, "open", None, None)]
        row = RoomRow(code, "r", "no-mercy", options, 2, "greedy", 0, "hand", 0.0, None, seats)
        store.create_room(row)
    store.close()
    with real_server(db) as srv:
        assert request(srv.port, "/api/rooms/HUGEDECK22").status == 404
        assert request(srv.port, "/api/rooms/FINEROOM22").status == 200
        assert "room HUGEDECK22 is closed: option 'deck_counts'" in srv.log_text()
