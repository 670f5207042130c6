"""A server one client cannot slow down (issue 24), against a real ``nomercy serve`` process.

Options that scale the work of a game are bounded when the request is parsed; foreign
strings, hosts and databases are refused cleanly; room creation is limited per address;
floods are judged on the client's own rate; a hello's cost does not grow with the game.
Figures (latencies, RSS) are measured in benchmarks/bench_attacks.py, not here: the bounds
below only say "it happened at all, long before the test gives up".
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from realserver import real_server, request
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

#: The victim's source address: another loopback address than the attacker's.
VICTIM = "127.0.0.2"


async def recv(ws: ClientConnection, timeout: float = 10.0) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return data


async def expect(ws: ClientConnection, kind: str, timeout: float = 10.0) -> dict[str, Any]:
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
