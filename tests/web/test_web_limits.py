"""Idle expiry and rate limits on a clock the test advances by hand (``ServerConfig.clock``,
tests/web/clocks.py): rooms made and left, idle rooms, floods, hellos per address. In-process
(tests/web/webharness.py): no real waits, and each message's arrival time is exact, so the
counts below are the limits' own, not the scheduler's: what is due after the clock moves is
read after a number of the event loop's rounds (``WsClient.settled``), never after a real-time
pause, and the test process's own pauses are not credited as server stalls (``NoStalls``).

A stall of the server's event loop is real time by nature (``LoopWatch``): that test stays on a
real server process (tests/web/test_web_bounds.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from clocks import ManualClock
from webharness import Closed, Server, WsClient, run

#: The victim's source address: another one than the attacker's.
VICTIM = "127.0.0.2"


async def until(check: Any, timeout: float = 120.0) -> None:
    """Wait until ``check()`` (a coroutine function) is true. The bound (real time) only
    catches a hang: the work waited for (a whole game played and stored, say) may take ten
    times longer on a loaded machine than alone."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        assert loop.time() < end, "not reached"
        await asyncio.sleep(0.05)


async def answers(ws: WsClient, count: int) -> list[str]:
    """Read ``count`` answers (pongs or errors, room summaries skipped): their types or error
    codes."""
    seen: list[str] = []
    while len(seen) < count:
        msg = await ws.recv()
        if msg["type"] != "room":
            seen.append(msg["type"] if msg["type"] != "error" else msg["code"])
    return seen


async def spectator(server: Server, code: str, **kw: Any) -> WsClient:
    """A greeted spectator of ``code`` whose first messages are read, with its rate budget
    full again (its hello spent a message of it)."""
    ws = await server.ws(code, **kw)
    await ws.hello()
    await ws.settled()
    clock = server.config.clock
    assert isinstance(clock, ManualClock)
    clock.advance(60.0)
    return ws


# ---------------------------------------------------------------------- rooms
def test_rooms_per_hour_and_open_rooms_are_capped_and_rooms_made_and_left_expire(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        clock = ManualClock()
        config = {"rooms_per_hour": 5, "max_rooms": 9, "clock": clock}
        async with Server(tmp_path / "db", **config) as server:
            mallory = server.http_from("127.0.0.3")
            made = [await mallory.post("/api/rooms", json={"host_name": "M"}) for _ in range(7)]
            assert [r.status_code for r in made] == [201] * 5 + [429] * 2
            refused = made[-1].json()
            assert refused["error"] == "rate_limited"
            assert "5 new rooms an hour" in refused["message"]
            assert 3000 < int(made[-1].headers["retry-after"]) <= 3600
            # The lobby's plain form gets the same status and Retry-After, as a page.
            form = await mallory.post(
                "/rooms",
                content="host_name=M",
                headers={
                    "content-type": "application/x-www-form-urlencoded",
                    "sec-fetch-site": "same-origin",
                },
            )
            assert form.status_code == 429 and "5 new rooms an hour" in form.text
            assert 3000 < int(form.headers["retry-after"]) <= 3600
            # Another address is not held up by that one.
            victim = await server.http_from(VICTIM).post("/api/rooms", json={"host_name": "V"})
            assert victim.status_code == 201
            # A room someone joined, and one whose host stays connected, are kept.
            joined = (await server.create(host_name="Ann"))["code"]
            await server.join(joined, "Bo")
            watched = await server.http_from("127.0.0.4").post(
                "/api/rooms", json={"host_name": "Cy"}
            )
            host = await server.ws(watched.json()["code"], address="127.0.0.4")
            await host.hello(watched.json()["token"])
            # 8 open rooms now (of 9): one more fits, then the server is full.
            di = server.http_from("127.0.0.5")
            extra = await di.post("/api/rooms", json={"host_name": "Di"})
            assert extra.status_code == 201
            full = await di.post("/api/rooms", json={"host_name": "Di"})
            assert full.status_code == 503 and full.json()["error"] == "server_full"
            left = [r.json()["code"] for r in (*made[:5], victim, extra)]

            async def status(code: str) -> int:
                return (await server.http.get(f"/api/rooms/{code}")).status_code

            # Rooms made and left expire after unjoined_idle (600 s), not before; the sweep
            # comes every 60 s.
            await clock.advance_and_sweep(599)
            assert [await status(c) for c in left] == [200] * len(left)
            await clock.advance_and_sweep(61)
            assert [await status(c) for c in left] == [404] * len(left)
            # The connected host's room and the joined room stay.
            assert await status(watched.json()["code"]) == 200
            assert await status(joined) == 200
            await host.send({"type": "ping"})
            await host.expect("pong")
            # Room slots are free again.
            again = await di.post("/api/rooms", json={"host_name": "Di"})
            assert again.status_code == 201

    run(main)


def test_idle_rooms_expire_and_their_finished_games_stay(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        config = {"room_idle": 3600.0, "grace": 0.0, "clock": clock}
        async with Server(tmp_path / "db", **config) as server:
            idle = (await server.create())["code"]
            created = await server.create(seats=2, bot="random")
            played = created["code"]
            host = await server.ws(played)
            await host.hello(created["token"])
            await host.send({"type": "start"})
            game_id = (await host.expect("state"))["game_id"]
            await host.close()

            async def replayed() -> bool:
                return (await server.http.get(f"/api/replays/{game_id}")).status_code == 200

            # The host left: the bot plays the seat to the end of the game.
            await until(replayed)

            async def status(code: str) -> int:
                return (await server.http.get(f"/api/rooms/{code}")).status_code

            # The room nobody joined goes after unjoined_idle (600 s); the played room stays
            # until room_idle (3600 s) since its last move.
            await clock.advance_and_sweep(660)
            assert await status(idle) == 404
            assert await status(played) == 200
            await clock.advance_and_sweep(2880)  # 3540 s: not yet
            assert await status(played) == 200
            await clock.advance_and_sweep(60)
            assert await status(played) == 404
            r = await server.http.post(f"/api/rooms/{idle}/join", json={"name": "Bo"})
            assert r.status_code == 404
            assert await replayed()
            # A fresh room still works.
            assert await status((await server.create())["code"]) == 200

    run(main)


# ---------------------------------------------------------------------- floods
def test_a_burst_then_the_allowed_rate_is_throttled_not_closed(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        limits = {"rate_capacity": 20.0, "rate_per_second": 10.0, "throttle": 3.0}
        async with Server(tmp_path / "db", clock=clock, **limits) as server:
            ws = await spectator(server, (await server.create())["code"])
            for _ in range(30):  # back to back: 20 at once, 10 held back up to 1 s
                await ws.send({"type": "ping"})
            await ws.read()
            for _ in range(50):  # then 10 a second for 5 s: held back 1.1 s each
                clock.advance(0.1)
                await ws.send({"type": "ping"})
                await ws.read()
            clock.advance(1.1)
            assert await answers(ws, 80) == ["pong"] * 80  # throttled (held back), none refused
            assert [m for m in await ws.settled() if m["type"] != "room"] == []
            assert ws.closed is None

    run(main)


def test_held_back_messages_are_answered_at_their_turn(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        limits = {"rate_capacity": 2.0, "rate_per_second": 1.0, "throttle": 3.0}
        async with Server(tmp_path / "db", clock=clock, **limits) as server:
            ws = await spectator(server, (await server.create())["code"])
            for _ in range(6):
                await ws.send({"type": "ping"})
            await ws.read()
            # Two at once (the burst), the next three held back 1, 2 and 3 s (the throttle),
            # the sixth refused at once (4 s would be past the throttle).
            assert sorted(await answers(ws, 3)) == ["pong", "pong", "rate_limited"]
            pongs = []
            for step in (0.99, 0.01, 0.99, 0.01, 0.99, 0.01, 10.0):
                clock.advance(step)
                pongs.append(len([m for m in await ws.settled() if m["type"] == "pong"]))
            assert pongs == [0, 1, 0, 1, 0, 1, 0]

    run(main)


def test_a_sustained_flood_is_throttled_then_refused_then_closed(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        limits = {"rate_capacity": 20.0, "rate_per_second": 10.0, "throttle": 3.0}
        async with Server(tmp_path / "db", clock=clock, **limits) as server:
            ws = await spectator(server, (await server.create())["code"])
            seen: list[str] = []

            async def read() -> int:
                try:
                    while True:
                        msg = await ws.recv(30)
                        if msg["type"] != "room":
                            seen.append(msg["type"] if msg["type"] != "error" else msg["code"])
                except Closed as exc:
                    return exc.code

            reader = asyncio.create_task(read())
            sent = 0
            while not reader.done() and sent < 1200:  # four times the rate, 30 s at most
                await ws.send({"type": "ping"})
                await ws.read()
                clock.advance(1 / 40)
                sent += 1
            assert await asyncio.wait_for(reader, 60) == 1008, seen[-5:]
            # First throttled (held back, answered in turn: the burst of 20 and 3 s of backlog),
            # then refused (a refusal is answered at once, so it overtakes held-back pongs), then
            # closed at the 50th refusal within 10 s (``abuse_limit``).
            first = seen.index("rate_limited")
            assert first >= 20 and set(seen[:first]) == {"pong"}, seen[:60]
            assert seen.count("rate_limited") == 49, seen
            assert seen.count("pong") >= 50, seen

    run(main)


def test_a_flood_is_counted_over_a_window_and_not_reset_by_accepted_messages(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        clock = ManualClock()
        limits = {"rate_capacity": 10.0, "rate_per_second": 5.0, "throttle": 3.0}
        async with Server(tmp_path / "db", clock=clock, **limits) as server:
            ws = await spectator(server, (await server.create())["code"])
            # Bursts of 15 once a second, three times the rate: the first bursts are throttled
            # (held back, answered in turn), then the backlog passes 3 s and 10 of each burst
            # are refused. A counter of refusals "in a row" would be reset by each burst's
            # accepted messages; the sliding window (50 in 10 s) closes the connection after
            # the fifth burst with refusals.
            closed_after = None
            for burst in range(12):
                for _ in range(15):
                    await ws.send({"type": "ping"})
                await ws.read()
                clock.advance(1.0)
                try:
                    await ws.settled()
                except Closed as exc:
                    assert exc.code == 1008
                    closed_after = burst
                    break
            assert closed_after is not None and 5 <= closed_after <= 8, closed_after

    run(main)


# ---------------------------------------------------------------------- hellos
def test_hellos_are_budgeted_per_address_across_connections(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        config = {"hellos_per_address": 2.0, "hello_burst": 12.0, "clock": clock}
        async with Server(tmp_path / "db", **config) as server:
            code = (await server.create())["code"]  # a budget of 2 a second, bursts of 12
            socks = [await server.ws(code, address="127.0.0.3") for _ in range(20)]
            for ws in socks:  # one hello each, 20 at once from one address
                await ws.send({"type": "hello"})
            replies = [await reply(ws) for ws in socks]
            assert [r["type"] for r in replies] == ["welcome"] * 12 + ["error"] * 8
            for r in replies[12:]:
                assert r["code"] == "rate_limited"
                assert "too many hellos from your address" in r["message"]
            # Another address has its own budget.
            for _ in range(3):
                victim = await server.ws(code, address=VICTIM)
                await victim.hello()
            # The budget refills, 2 a second: a refused connection says hello again later.
            await socks[12].send({"type": "hello"})
            assert (await reply(socks[12]))["code"] == "rate_limited"
            clock.advance(0.5)
            await socks[12].hello()
            await socks[13].send({"type": "hello"})
            assert (await reply(socks[13]))["code"] == "rate_limited"

    run(main)


async def reply(ws: WsClient) -> dict[str, Any]:
    """The answer to a hello: its welcome or its error (room summaries skipped)."""
    while True:
        msg = await ws.recv()
        if msg["type"] in ("welcome", "error"):
            return msg


def test_game_sockets_are_capped_per_forwarded_address(tmp_path: Path) -> None:
    # Behind a proxy that limits nobody (compose.yaml's Caddy) every socket comes from the
    # proxy; the server counts the address it is forwarded (the ASGI client) instead.
    async def main() -> None:
        async with Server(tmp_path / "db", sockets_per_address=3) as server:
            codes = [(await server.create())["code"] for _ in range(2)]
            held = [await server.ws(codes[n % 2], address="127.0.0.3") for n in range(3)]
            for ws in held:
                await ws.hello()
            refused = await server.ws(codes[1], address="127.0.0.3")
            error = await refused.error()
            assert error["code"] == "rate_limited" and "3 game connections" in error["message"]
            with pytest.raises(Closed) as closed:
                await refused.recv()
            assert closed.value.code == 1013
            # Another address has its own count; a socket closed frees its place.
            await (await server.ws(codes[0], address=VICTIM)).hello()
            await held[0].close()
            await (await server.ws(codes[0], address="127.0.0.3")).hello()

    run(main)
