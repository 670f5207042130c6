"""The attacks of issue 24 against a real `nomercy serve` (docs/web.md, "Bounded work").

Each scenario starts its own server process (``python -m nomercy serve`` on 127.0.0.1, a fresh
database, default limits unless said) and measures what a victim sees while an attacker works.
The attacker connects from 127.0.0.3, the victim from 127.0.0.2 (other loopback addresses: the
per-address limits meet the attacker, not the victim). RSS growth is the server's peak
(VmHWM) minus its RSS before the attack.

Scenarios (``--only NAME`` runs one):

- ``options``: five oversized-option room requests in a row (a ten-million-card custom deck,
  a huge hand, Mercy limit, penalty and score target), then the largest room the bounds allow
  (10 seats of 50 cards from a 1,000-card deck) created and started, while the victim pings
  every 150 ms in another room: each answer's time and status, the victim's round trips, RSS
  growth.
- ``hellos``: a room whose bots have played at least 400 moves (match mode, ``--bot-delay 0``,
  ``--grace 0``: the host left and a bot played its seat; then the host comes back and stays
  connected, so the game waits on its turns, as a room of people does); 60 attacker
  connections each say ``hello`` 9 times a second for 10 s, alternating the host's seat and
  spectator hellos (``--spectators``: spectator hellos only; ``--no-address-budget``: the
  server without its per-address hello budget, as if every connection came from another
  address); the victim, a player in another room, pings every 150 ms: its round trips,
  whether it was disconnected, how many attacker hellos were answered, RSS growth.
- ``burst``: 30 pings back to back, then 10 a second for 10 s: pongs, refusals, the close.
- ``stall``: the server is stopped (SIGSTOP) for 6 s while a client pings 10 times a second,
  then continued: the pile of 60 pings arrives at once: pongs, refusals, the close.
- ``rooms``: 8 threads create rooms as fast as they can for 15 s from one address; then the
  victim creates one: rooms created and refused, the victim's answer, RSS growth.

    python benchmarks/bench_attacks.py
    python benchmarks/bench_attacks.py --only hellos --spectators --json

Needs the web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench_resilience import ms, pct, recv_json, rss_kb, server, ws_from
from websockets.exceptions import ConnectionClosed

ATTACKER = "127.0.0.3"
VICTIM = "127.0.0.2"


def post(port: int, path: str, body: Any, source: str, timeout: float = 60) -> tuple[int, Any]:
    """A POST from the loopback address ``source``: status and decoded body."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    try:
        conn.request("POST", path, json.dumps(body), {"content-type": "application/json"})
        reply = conn.getresponse()
        status, text = reply.status, reply.read()
    finally:
        conn.close()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text.decode("utf-8", "replace")


def get(port: int, path: str) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


class Victim:
    """A player in its own room, pinging every 150 ms from ``VICTIM``: round trips, errors,
    and whether the server disconnected it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.rtts: list[float] = []
        self.errors: list[str] = []
        self.disconnected = False
        self.unanswered = 0
        self.slow: list[tuple[float, float]] = []
        self._began = time.perf_counter()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._ready.wait(), 30)

    async def stop(self) -> dict[str, Any]:
        self._stop.set()
        assert self._task is not None
        await self._task
        rtts = self.rtts or [float("inf")]
        return {
            "pings_answered": len(self.rtts),
            "pings_unanswered": self.unanswered,
            "p50_ms": ms(statistics.median(rtts)),
            "p99_ms": ms(pct(rtts, 0.99)),
            "max_ms": ms(max(rtts)),
            "slow_pings": self.slow[:10],
            "errors": sorted(set(self.errors)),
            "disconnected": self.disconnected,
        }

    async def _run(self) -> None:
        _, room = await asyncio.to_thread(
            post, self.port, "/api/rooms", {"host_name": "Vic"}, VICTIM
        )
        url = f"ws://127.0.0.1:{self.port}/ws/{room['code']}"
        async with ws_from(url, VICTIM) as ws:
            assert ws is not None
            await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
            while (await recv_json(ws, 30))["type"] != "welcome":
                pass
            self._ready.set()
            try:
                while not self._stop.is_set():
                    began = time.perf_counter()
                    await ws.send('{"type": "ping"}')
                    try:
                        while True:
                            msg = await recv_json(ws, 10)
                            if msg["type"] == "pong":
                                break
                            if msg["type"] == "error":
                                self.errors.append(msg["code"])
                    except TimeoutError:
                        self.unanswered += 1
                        continue
                    self.rtts.append(time.perf_counter() - began)
                    if self.rtts[-1] > 0.2:  # when (since the victim started) and how long
                        self.slow.append((round(began - self._began, 2), ms(self.rtts[-1])))
                    await asyncio.sleep(0.15)
            except ConnectionClosed:
                self.disconnected = True


# ---------------------------------------------------------------------- scenarios
OVERSIZED = [
    {"deck_variant": "custom", "deck_counts": {"R1": 10_000_000}},
    {"hand_size": 10_000_000},
    {"mercy_threshold": 10_000_000},
    {"uno_penalty_cards": 10_000_000},
    {"score_target": 10**12, "scoring_enabled": True},
]


async def options(pid: int, port: int) -> dict[str, Any]:
    victim = Victim(port)
    await victim.start()
    before = rss_kb(pid)
    answers = []
    for opts in OVERSIZED:
        body = {"host_name": "x", "options": opts}
        if opts.pop("scoring_enabled", False):
            body["mode"] = "match"
        began = time.perf_counter()
        status, reply = await asyncio.to_thread(post, port, "/api/rooms", body, ATTACKER)
        answers.append(
            {
                "seconds": round(time.perf_counter() - began, 3),
                "status": status,
                "message": reply.get("message") if isinstance(reply, dict) else reply,
            }
        )
    # The most a room may ask for within the bounds: 10 seats of 50 cards from a 1,000-card
    # deck, created and started (the deal and the first state).
    counts = {f"{c}{n}": 25 for c in "RGBY" for n in range(10)}
    body = {
        "host_name": "x",
        "seats": 10,
        "options": {
            "max_players": 10,
            "hand_size": 50,
            "mercy_threshold": 100,
            "deck_counts": counts,
        },
    }
    began = time.perf_counter()
    status, room = await asyncio.to_thread(post, port, "/api/rooms", body, ATTACKER)
    created = time.perf_counter() - began
    assert status == 201, room
    async with ws_from(f"ws://127.0.0.1:{port}/ws/{room['code']}", ATTACKER, max_queue=None) as ws:
        assert ws is not None
        await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
        while (await recv_json(ws, 30))["type"] != "welcome":
            pass
        began = time.perf_counter()
        await ws.send('{"type": "start"}')
        while (await recv_json(ws, 30))["type"] != "state":
            pass
        started = time.perf_counter() - began
    await asyncio.sleep(1.0)
    return {
        "answers": answers,
        "largest_room_created_s": round(created, 3),
        "largest_room_started_s": round(started, 3),
        "victim": await victim.stop(),
        "rss_growth_mb": round((rss_kb(pid, "VmHWM") - before) / 1024, 1),
    }


async def long_game(port: int, moves: int) -> dict[str, Any]:
    """A match room whose bots have played ``moves`` moves (the host left: the bot plays its
    seat): the room (its code and the host's token)."""
    body = {"host_name": "Mallory", "seats": 4, "mode": "match", "options": {"score_target": 10000}}
    _, room = await asyncio.to_thread(post, port, "/api/rooms", body, ATTACKER)
    url = f"ws://127.0.0.1:{port}/ws/{room['code']}"
    async with ws_from(url, ATTACKER) as ws:
        assert ws is not None
        await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
        await ws.send('{"type": "start"}')
        while (await recv_json(ws, 30))["type"] != "state":
            pass
    async with ws_from(url, ATTACKER, max_queue=None) as ws:
        assert ws is not None
        await ws.send('{"type": "hello"}')
        end = time.monotonic() + 300
        while time.monotonic() < end:
            msg = await recv_json(ws, 30)
            if msg["type"] == "state" and msg["move"] >= moves:
                room["move"] = msg["move"]
                return room
    raise RuntimeError(f"the bots did not reach {moves} moves")


async def hellos(pid: int, port: int, spectators: bool) -> dict[str, Any]:
    room = await long_game(port, 400)
    url = f"ws://127.0.0.1:{port}/ws/{room['code']}"
    # The host comes back and stays (its seat is no longer away: the game waits on its
    # turns, as a room of people does); its hello's state: the bytes a hello costs.
    async with ws_from(url, ATTACKER, max_queue=None) as host:
        assert host is not None
        await host.send(json.dumps({"type": "hello", "token": room["token"]}))
        while True:
            raw = await asyncio.wait_for(host.recv(), 30)
            if json.loads(raw)["type"] == "state":
                state_bytes = len(raw)
                break
        return await _storm(pid, port, room, url, spectators, state_bytes)


async def _storm(
    pid: int, port: int, room: dict[str, Any], url: str, spectators: bool, state_bytes: int
) -> dict[str, Any]:
    victim = Victim(port)
    await victim.start()
    before = rss_kb(pid)
    stop = asyncio.Event()
    counts = {"sent": 0, "welcomes": 0, "rate_limited": 0, "closed_by_server": 0, "refused": 0}
    seat_hello = json.dumps({"type": "hello", "token": room["token"]})

    async def attacker(i: int) -> None:
        async with ws_from(url, ATTACKER, max_queue=None) as ws:
            if ws is None:
                counts["refused"] += 1
                return

            async def read() -> None:
                with contextlib.suppress(ConnectionClosed):
                    async for raw in ws:
                        msg = json.loads(raw)
                        if msg["type"] == "welcome":
                            counts["welcomes"] += 1
                        elif msg["type"] == "error" and msg["code"] == "rate_limited":
                            counts["rate_limited"] += 1

            reader = asyncio.create_task(read())
            n = i
            try:
                while not stop.is_set():
                    spectate = spectators or n % 2 == 1
                    await ws.send('{"type": "hello"}' if spectate else seat_hello)
                    counts["sent"] += 1
                    n += 1
                    await asyncio.sleep(1 / 9)
            except ConnectionClosed:
                counts["closed_by_server"] += 1
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    tasks = [asyncio.create_task(attacker(i)) for i in range(60)]
    await asyncio.sleep(10.0)
    stop.set()
    await asyncio.gather(*tasks)
    await asyncio.sleep(0.5)
    return {
        "moves_before": room["move"],
        "state_bytes": state_bytes,
        "spectators_only": spectators,
        "attacker": counts,
        "victim": await victim.stop(),
        "rss_growth_mb": round((rss_kb(pid, "VmHWM") - before) / 1024, 1),
    }


async def _answers(ws: Any, count: int, timeout: float) -> list[str]:
    seen = []
    with contextlib.suppress(TimeoutError, ConnectionClosed):
        for _ in range(count):
            msg = await recv_json(ws, timeout)
            seen.append(msg["type"] if msg["type"] != "error" else msg["code"])
    return seen


async def _closed(ws: Any) -> bool:
    try:
        await asyncio.wait_for(ws.recv(), 1.0)
    except TimeoutError:
        return False
    except ConnectionClosed:
        return True
    return False


async def burst(port: int) -> dict[str, Any]:
    _, room = await asyncio.to_thread(post, port, "/api/rooms", {"host_name": "Vic"}, VICTIM)
    async with ws_from(f"ws://127.0.0.1:{port}/ws/{room['code']}", VICTIM) as ws:
        assert ws is not None
        await ws.send('{"type": "hello"}')
        while (await recv_json(ws, 10))["type"] != "welcome":
            pass
        await asyncio.sleep(0.5)  # the room summary that the hello causes
        while True:
            try:
                await recv_json(ws, 0.3)
            except TimeoutError:
                break
        began = time.perf_counter()
        for _ in range(30):
            await ws.send('{"type": "ping"}')
        for _ in range(100):
            await asyncio.sleep(0.1)
            await ws.send('{"type": "ping"}')
        seen = await _answers(ws, 130, 10)
        took = time.perf_counter() - began
        return {
            "pings": 130,
            "pongs": seen.count("pong"),
            "rate_limited": seen.count("rate_limited"),
            "seconds_to_last_answer": round(took, 2),
            "closed": await _closed(ws),
        }


async def stall(pid: int, port: int) -> dict[str, Any]:
    _, room = await asyncio.to_thread(post, port, "/api/rooms", {"host_name": "Vic"}, VICTIM)
    url = f"ws://127.0.0.1:{port}/ws/{room['code']}"
    async with ws_from(url, VICTIM, ping_interval=None) as ws:
        assert ws is not None
        await ws.send('{"type": "hello"}')
        while (await recv_json(ws, 10))["type"] != "welcome":
            pass
        await asyncio.sleep(0.5)
        while True:
            try:
                await recv_json(ws, 0.3)
            except TimeoutError:
                break
        os.kill(pid, signal.SIGSTOP)
        try:
            for _ in range(60):
                await ws.send('{"type": "ping"}')
                await asyncio.sleep(0.1)
        finally:
            os.kill(pid, signal.SIGCONT)
        seen = await _answers(ws, 60, 10)
        return {
            "stall_s": 6,
            "pings": 60,
            "pongs": seen.count("pong"),
            "rate_limited": seen.count("rate_limited"),
            "closed": await _closed(ws),
        }


def rooms(pid: int, port: int) -> dict[str, Any]:
    before = rss_kb(pid)
    counts = {"created": 0, "refused": 0, "other": 0}
    codes: set[int] = set()
    lock = threading.Lock()
    end = time.monotonic() + 15

    def worker() -> None:
        while time.monotonic() < end:
            try:
                status, _ = post(port, "/api/rooms", {"host_name": "Mallory"}, ATTACKER, 10)
            except OSError:
                status = -1
            with lock:
                codes.add(status)
                key = "created" if status == 201 else "refused" if status == 429 else "other"
                counts[key] += 1

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    began = time.perf_counter()
    status, _ = post(port, "/api/rooms", {"host_name": "Vic"}, VICTIM)
    return {
        "attacker": counts,
        "statuses": sorted(codes),
        "victim_status": status,
        "victim_ms": ms(time.perf_counter() - began),
        "rss_growth_mb": round((rss_kb(pid, "VmHWM") - before) / 1024, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("options", "hellos", "burst", "stall", "rooms"))
    parser.add_argument("--spectators", action="store_true", help="hellos: spectator hellos only")
    parser.add_argument(
        "--no-address-budget",
        action="store_true",
        help="hellos: the server without its per-address hello budget (--hellos-per-address 0), "
        "as if each attacker connection came from its own address",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    figures: dict[str, Any] = {"machine": f"{machine}, Python {platform.python_version()}"}
    with tempfile.TemporaryDirectory(prefix="bench-attacks-") as name:
        tmp = Path(name)
        if args.only in (None, "options"):
            with server(tmp) as (proc, port):
                figures["options"] = asyncio.run(options(proc.pid, port))
        if args.only in (None, "hellos"):
            # --grace 0: the bots take the host's seat at once (it left after the start).
            flags = ["--grace", "0"]
            if args.no_address_budget:
                flags += ["--hellos-per-address", "0"]
            with server(tmp, *flags) as (proc, port):
                figures["hellos"] = asyncio.run(hellos(proc.pid, port, args.spectators))
        if args.only in (None, "burst"):
            with server(tmp) as (proc, port):
                figures["burst"] = asyncio.run(burst(port))
        if args.only in (None, "stall"):
            with server(tmp) as (proc, port):
                figures["stall"] = asyncio.run(stall(proc.pid, port))
        if args.only in (None, "rooms"):
            with server(tmp) as (proc, port):
                figures["rooms"] = rooms(proc.pid, port)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
