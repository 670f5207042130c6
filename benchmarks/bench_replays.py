"""Long replays against the rest of the server (issue 43).

A finished long game (classic on a 972-card custom deck, two seats, as an attacker makes one
in its own room: tests/web/longgames.py) is stored in a fresh SQLite database, and
``python -m nomercy serve`` runs on it. For ``--seconds`` (20), ``--clients`` (8) clients
download its replay over and over, as fast as the server answers (the head, then every page,
then again; a 429 is retried at once, not waited out), each from its own loopback address
(127.0.0.2 and up; ``--one-address``: all from 127.0.0.2). Meanwhile a victim on another
address (127.0.0.200) plays a room against a bot: the round trip of each of its moves (action
sent to the state that shows it), p50 and p99; and the server's memory, from its RSS before
the downloads to its high-water mark (VmHWM) after.

The downloads run in a child process, so that their client work does not slow down the
victim's measurements.

    python benchmarks/bench_replays.py                    # 1,500 and 4,000 moves
    python benchmarks/bench_replays.py --moves 4000 --json

Needs the web extra (``pip install -e '.[web]'``) and Linux (/proc for the memory).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The web tests' helpers (tests/web) and the free ports they use (tests/ports.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))

from longgames import store_long_game
from realserver import real_server
from websockets.asyncio.client import connect

VICTIM = "127.0.0.200"


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field}")


async def _get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> int:
    """One keep-alive GET; its status (the body is read and dropped)."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    await reader.readexactly(length)
    return status


async def _download(
    port: int, game_id: str, pages: int, page: int, source: str, until: float
) -> dict[str, int]:
    counts: dict[str, int] = {}
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        while time.monotonic() < until:
            for k in range(pages):
                path = f"/api/replays/{game_id}" + (f"?from={k * page}" if k else "")
                status = str(await _get(reader, writer, path))
                counts[status] = counts.get(status, 0) + 1
                if time.monotonic() >= until:
                    break
    finally:
        writer.close()
    return counts


def downloads(
    port: int, game_id: str, moves: int, clients: int, one_address: bool, seconds: float, out: Any
) -> None:
    """The child process: ``clients`` downloaders for ``seconds``; puts the answer counts."""
    page = 100
    pages = -(-moves // page)

    async def main() -> dict[str, int]:
        until = time.monotonic() + seconds
        sources = [f"127.0.0.{2 if one_address else 2 + i}" for i in range(clients)]
        results = await asyncio.gather(
            *(_download(port, game_id, pages, page, s, until) for s in sources)
        )
        total: dict[str, int] = {}
        for counts in results:
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
        return total

    out.put(asyncio.run(main()))


async def victim(port: int, code: str, token: str, stop: asyncio.Event) -> list[float]:
    """Play against the bot until ``stop``: each own move's round trip in seconds."""
    times: list[float] = []
    async with connect(f"ws://127.0.0.1:{port}/ws/{code}", max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "start"}))
        sent: float | None = None
        while not stop.is_set():
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                continue
            if msg["type"] != "state":
                continue
            if sent is not None and msg["last"] is not None and msg["last"]["seat"] == 0:
                times.append(time.perf_counter() - sent)
                sent = None
            view = msg["view"]
            if view["phase"] == "over":
                await ws.send(json.dumps({"type": "start"}))
            elif view["to_act"] == 0 and msg["legal"] and sent is None:
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "action": msg["legal"][0]}))
    return times


def _create(port: int) -> dict[str, Any]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, 10, (VICTIM, 0))
    body = json.dumps({"host_name": "Vic", "preset": "classic", "seats": 2, "bot": "greedy"})
    conn.request("POST", "/api/rooms", body, {"content-type": "application/json"})
    data: dict[str, Any] = json.loads(conn.getresponse().read())
    conn.close()
    return data


def run(moves: int, clients: int, seconds: float, one_address: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-replays-") as tmp:
        database = Path(tmp) / "bench.sqlite3"
        game_id, actions = store_long_game(database, moves)
        with real_server(database) as srv:
            created = _create(srv.port)

            async def main() -> tuple[list[float], list[float], dict[str, int], int, int]:
                stop = asyncio.Event()
                task = asyncio.create_task(
                    victim(srv.port, created["code"], created["token"], stop)
                )
                await asyncio.sleep(3.0)  # the victim's quiet round trips, for comparison
                stop.set()
                quiet = await task
                rss_before = rss_kb(srv.proc.pid)
                out: Any = multiprocessing.Queue()
                child = multiprocessing.Process(
                    target=downloads,
                    args=(srv.port, game_id, actions, clients, one_address, seconds, out),
                )
                stop = asyncio.Event()
                task = asyncio.create_task(
                    victim(srv.port, created["code"], created["token"], stop)
                )
                child.start()
                while child.is_alive():
                    await asyncio.sleep(0.2)
                stop.set()
                loaded = await task
                counts = await asyncio.to_thread(out.get, True, 30)
                return quiet, loaded, counts, rss_before, rss_kb(srv.proc.pid, "VmHWM")

            quiet, loaded, counts, before, hwm = asyncio.run(main())
            log = srv.log_text()
    return {
        "moves": actions,
        "clients": clients,
        "addresses": 1 if one_address else clients,
        "seconds": seconds,
        "answers": counts,
        "quiet_moves": len(quiet),
        "quiet_p50_ms": pct(quiet, 0.5) * 1000,
        "quiet_p99_ms": pct(quiet, 0.99) * 1000,
        "victim_moves": len(loaded),
        "victim_p50_ms": pct(loaded, 0.5) * 1000,
        "victim_p99_ms": pct(loaded, 0.99) * 1000,
        "victim_max_ms": max(loaded, default=0.0) * 1000,
        "rss_before_mb": before / 1024,
        "rss_hwm_growth_mb": (hwm - before) / 1024,
        "tracebacks": log.count("Traceback"),
    }


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, nargs="+", default=[1500, 4000])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--one-address", action="store_true", help="every client from 127.0.0.2")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    results = [run(m, args.clients, args.seconds, args.one_address) for m in args.moves]
    if args.json:
        print(json.dumps({"results": results, "cpus": os.cpu_count()}, indent=1))
        return
    print(f"# {platform.platform()}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    for r in results:
        print(
            f"{r['moves']} moves, {r['clients']} clients from {r['addresses']} address(es), "
            f"{r['seconds']:g} s: answers {r['answers']}; victim quiet p50 "
            f"{r['quiet_p50_ms']:.1f} ms p99 {r['quiet_p99_ms']:.1f} ms ({r['quiet_moves']} "
            f"moves); under load p50 {r['victim_p50_ms']:.1f} ms p99 {r['victim_p99_ms']:.1f} ms "
            f"max {r['victim_max_ms']:.1f} ms ({r['victim_moves']} moves); RSS "
            f"{r['rss_before_mb']:.0f} MB, high-water growth {r['rss_hwm_growth_mb']:.1f} MB; "
            f"tracebacks {r['tracebacks']}"
        )


if __name__ == "__main__":
    main()
