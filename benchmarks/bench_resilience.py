"""Web server resilience: `nomercy serve` under abuse and faults (docs/web.md, issue 13).

Each scenario starts its own server process (``python -m nomercy serve`` on 127.0.0.1, a fresh
database, default limits unless said) and measures what a well-behaved client sees while an
attacker or a fault hits the server. Attackers connect from other loopback addresses
(127.0.0.2 and up, 50 connections each) so that the per-address cap (default 100) does not
simply turn them away; what they meet are the room cap, the timeouts and the rate limits.

Scenarios (``--only NAME`` runs one):

- ``storm``: 200 connections in one room each say ``hello`` 10 times a second for 5 s; a
  client in another room sends ``ping`` every 120 ms (within the rate limit): its round trips
  (p50/p99/max) during the storm, and how long ``GET /`` takes right after.
- ``bigpost``: a 64 MB POST to ``/api/rooms`` (with its Content-Length) and a chunked 64 MB
  upload to ``/api/rooms/NOPE/join``: the answer, and the server's RSS growth (peak, VmHWM).
- ``slow``: 300 sockets trickling a partial request header (one byte a second, reconnecting when
  closed) and 50 WebSockets that never say ``hello``, for 20 s: ``GET /`` every 0.5 s (max
  time), and when the silent WebSockets were closed.
- ``dblock``: a room played by bots (``--bot-delay 0.05``); another process write-locks the
  database for 8 s: the time from the release to the next move a spectator sees.

    python benchmarks/bench_resilience.py
    python benchmarks/bench_resilience.py --only storm --json

Load (server-side action times at 50 and 200 rooms) is benchmarks/bench_web.py.
Needs the web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

PER_ADDRESS = 50


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def attacker_address(i: int) -> str:
    """The source address of attacker connection ``i`` (50 per address, from 127.0.0.2)."""
    return f"127.0.0.{2 + i // PER_ADDRESS}"


@contextmanager
def server(tmp: Path, *flags: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    log = tmp / "server.log"
    with log.open("ab") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "nomercy",
                "serve",
                "--port",
                str(port),
                "--database",
                str(tmp / f"db-{port}.sqlite3"),
                "--bot-delay",
                "0",
                "--log-level",
                "warning",
                *flags,
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        for _ in range(300):
            try:
                http(port, "/api/meta")
                break
            except OSError:
                time.sleep(0.1)
        yield proc, port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def http(port: int, path: str, body: Any = None, timeout: float = 30) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        headers={"content-type": "application/json"},
        method="GET" if data is None else "POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def timed_get(port: int, path: str = "/", timeout: float = 30) -> float:
    """Seconds for a GET on a new connection (``inf`` if it failed)."""
    began = time.perf_counter()
    try:
        http(port, path, timeout=timeout)
    except OSError:
        return float("inf")
    return time.perf_counter() - began


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field}")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(x: float) -> float:
    return round(x * 1000, 1)


async def recv_json(ws: ClientConnection, timeout: float) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return data


@contextlib.asynccontextmanager
async def ws_from(url: str, address: str, **kw: Any) -> AsyncIterator[ClientConnection | None]:
    """A WebSocket from ``address`` (``None`` if the server turned it away)."""
    try:
        ws = await connect(url, local_addr=(address, 0), open_timeout=20, **kw)
    except (OSError, InvalidStatus, TimeoutError, ConnectionClosed):
        yield None
        return
    try:
        yield ws
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 2)


# ---------------------------------------------------------------------- scenarios
async def storm(port: int) -> dict[str, Any]:
    _, target = http(port, "/api/rooms", {"host_name": "Mallory"})
    _, calm = http(port, "/api/rooms", {"host_name": "Ann"})
    url = f"ws://127.0.0.1:{port}/ws/"
    stop = asyncio.Event()
    counts = {"accepted": 0, "hellos_sent": 0, "refused": 0}

    async def attacker(i: int) -> None:
        async with ws_from(url + target["code"], attacker_address(i), max_queue=None) as ws:
            if ws is None:
                counts["refused"] += 1
                return
            try:
                first = await recv_json(ws, 0.5)
            except TimeoutError:
                first = None
            except ConnectionClosed:
                counts["refused"] += 1
                return
            if first is not None and first.get("code") == "room_crowded":
                counts["refused"] += 1
                return
            counts["accepted"] += 1
            with contextlib.suppress(ConnectionClosed):
                while not stop.is_set():
                    await ws.send('{"type": "hello"}')
                    counts["hellos_sent"] += 1
                    await asyncio.sleep(0.1)

    async with ws_from(url + calm["code"], "127.0.0.1") as probe:
        assert probe is not None
        await probe.send('{"type": "hello"}')
        await recv_json(probe, 10)
        await asyncio.sleep(0.2)
        while True:
            try:
                await recv_json(probe, 0.2)
            except TimeoutError:
                break
        tasks = [asyncio.create_task(attacker(i)) for i in range(200)]
        await asyncio.sleep(0.5)  # they connect
        rtts: list[float] = []
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            began = time.perf_counter()
            await probe.send('{"type": "ping"}')
            while (msg := await recv_json(probe, 30))["type"] != "pong":
                assert msg["type"] != "error", msg  # e.g. rate_limited: the probe is too fast
            rtts.append(time.perf_counter() - began)
            # Within the server's default rate limit (10 messages/s).
            await asyncio.sleep(0.12)
        stop.set()
        await asyncio.gather(*tasks)
    after = await asyncio.to_thread(timed_get, port)
    return {
        "attackers": 200,
        "attackers_accepted": counts["accepted"],
        "attackers_refused": counts["refused"],
        "hellos_sent": counts["hellos_sent"],
        "pings": len(rtts),
        "ping_p50_ms": ms(statistics.median(rtts)),
        "ping_p99_ms": ms(pct(rtts, 0.99)),
        "ping_max_ms": ms(max(rtts)),
        "get_after_ms": ms(after),
    }


def bigpost(pid: int, port: int) -> dict[str, Any]:
    size = 64 * 1024 * 1024
    before = rss_kb(pid)
    chunk = b"x" * 65536
    results: dict[str, Any] = {"rss_before_mb": round(before / 1024, 1)}
    for name, head in (
        (
            "content_length",
            b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % size,
        ),
        (
            "chunked",
            b"POST /api/rooms/NOPE/join HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
        ),
    ):
        sent = 0
        answer = b""
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(head)
            framed = chunk if name == "content_length" else b"%x\r\n%s\r\n" % (len(chunk), chunk)
            try:
                while sent < size:
                    s.sendall(framed)
                    sent += len(chunk)
            except OSError:
                pass
            with contextlib.suppress(OSError):
                answer = s.recv(4096)
        status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        results[name] = {"status": status, "body_bytes_sent_before_close": sent}
    results["rss_after_mb"] = round(rss_kb(pid) / 1024, 1)
    results["rss_peak_mb"] = round(rss_kb(pid, "VmHWM") / 1024, 1)
    results["rss_growth_mb"] = round((rss_kb(pid, "VmHWM") - before) / 1024, 1)
    return results


async def slow(port: int) -> dict[str, Any]:
    _, room = http(port, "/api/rooms", {"host_name": "Ann"})
    url = f"ws://127.0.0.1:{port}/ws/{room['code']}"
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    reconnects = [0]

    async def trickler(i: int) -> None:
        header = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=(attacker_address(i), 0)
                )
            except OSError:
                await asyncio.sleep(0.5)
                continue
            try:
                for byte in header:
                    if stop.is_set():
                        break
                    writer.write(bytes([byte]))
                    await writer.drain()
                    try:  # one byte a second; an EOF means the server closed it
                        if await asyncio.wait_for(reader.read(1), 1.0) == b"":
                            break
                    except TimeoutError:
                        pass
            except OSError:
                pass
            finally:
                writer.close()
            reconnects[0] += 1

    closed_after: list[float] = []

    async def silent(i: int) -> None:
        began = loop.time()
        async with ws_from(url, attacker_address(300 + i)) as ws:
            if ws is None:
                return
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                async with asyncio.timeout(25):
                    while True:
                        await ws.recv()
            if ws.close_code is not None:
                closed_after.append(loop.time() - began)

    tasks = [asyncio.create_task(trickler(i)) for i in range(300)]
    tasks += [asyncio.create_task(silent(i)) for i in range(50)]
    gets: list[float] = []
    end = loop.time() + 20
    while loop.time() < end:
        gets.append(await asyncio.to_thread(timed_get, port))
        await asyncio.sleep(0.5)
    stop.set()
    await asyncio.gather(*tasks)
    return {
        "trickling_sockets": 300,
        "trickler_reconnects": reconnects[0],
        "silent_websockets": 50,
        "silent_closed": len(closed_after),
        "silent_closed_after_max_s": round(max(closed_after), 1) if closed_after else None,
        "gets": len(gets),
        "get_p50_ms": ms(statistics.median(gets)),
        "get_max_ms": ms(max(gets)),
    }


async def dblock(port: int, database: Path) -> dict[str, Any]:
    _, created = http(port, "/api/rooms", {"host_name": "Ann", "seats": 4, "bot": "random"})
    url = f"ws://127.0.0.1:{port}/ws/{created['code']}"
    async with connect(url) as host:
        await host.send(json.dumps({"type": "hello", "token": created["token"]}))
        await host.send('{"type": "start"}')
        while (await recv_json(host, 10))["type"] != "state":
            pass
    async with connect(url, max_queue=None) as watcher:
        await watcher.send('{"type": "hello"}')
        while (await recv_json(watcher, 10))["type"] != "state":
            pass
        blocker = sqlite3.connect(database, timeout=10, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        locked = time.monotonic()
        during = 0
        while time.monotonic() - locked < 8:
            try:
                msg = await recv_json(watcher, 0.1)
            except TimeoutError:
                continue
            during += msg["type"] == "state"
        blocker.execute("ROLLBACK")
        released = time.monotonic()
        blocker.close()
        while True:
            msg = await recv_json(watcher, 30)
            if msg["type"] == "state":
                resumed = time.monotonic() - released
                break
    return {
        "lock_seconds": 8,
        "moves_seen_while_locked": during,
        "resumed_after_release_ms": ms(resumed),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("storm", "bigpost", "slow", "dblock"), action="append")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    wanted = args.only or ["storm", "bigpost", "slow", "dblock"]
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory(prefix="bench-resilience-") as name:
        tmp = Path(name)
        if "storm" in wanted:
            with server(tmp) as (_, port):
                results["storm"] = asyncio.run(storm(port))
        if "bigpost" in wanted:
            with server(tmp) as (proc, port):
                results["bigpost"] = bigpost(proc.pid, port)
        if "slow" in wanted:
            with server(tmp) as (_, port):
                results["slow"] = asyncio.run(slow(port))
        if "dblock" in wanted:
            with server(tmp, "--bot-delay", "0.05", "--grace", "0") as (_, port):
                database = tmp / f"db-{port}.sqlite3"
                results["dblock"] = asyncio.run(dblock(port, database))
        log = (tmp / "server.log").read_text(errors="replace")
    results["server_log_lines"] = len(log.splitlines())
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for key, value in results.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
