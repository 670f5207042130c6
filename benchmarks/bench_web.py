"""Web server load: many concurrent rooms played by WebSocket clients against `nomercy serve`.

The script starts a server process (``python -m nomercy serve`` on 127.0.0.1, a fresh
database, no bot delay, no rate limit to speak of), creates ``--rooms`` rooms whose every seat
is held by a client of this process, and plays ``--games`` games in each room at once. Each
client plays like a bot: when its state says it is to act, it picks an action (uniformly from
``legal`` by default, or with a nomercy bot from its view) and sends it. Nothing waits on
purpose: the figures are the server's capacity, not a pace people would play at. With
``--pace SECONDS`` each client thinks 0.5 to 1.5 times that long before it acts: the server
then runs below its capacity and the figures are its latency at that load.

Reported: actions/s over the whole run (every action is a client's, sent over a socket,
applied, stored in SQLite in its own transaction, and broadcast to every seat), and the time
from a client sending an action to it receiving the state that action produced (p50, p90, p99,
max), and the server's own time from an action's arrival to its last update handed to the
network (the server runs with ``--timings``; GET /api/timings). Server CPU seconds come from
/proc. Both ends share the machine: the client side's JSON
decoding and decisions cost CPU too, so the numbers are a floor.

    python benchmarks/bench_web.py --rooms 50
    python benchmarks/bench_web.py --rooms 200 --seats 4 --games 1
    python benchmarks/bench_web.py --rooms 50 --client-bot greedy --json

Needs the web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from nomercy.bots import make_bot
from nomercy.core.actions import parse_action


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def http(port: int, path: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    games: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    messages: int = 0
    bytes: int = 0


class Client:
    """One seat at a WebSocket, playing as fast as the server answers."""

    def __init__(self, ws: ClientConnection, seat: int, bot: str | None, seed: int) -> None:
        self.ws = ws
        self.seat = seat
        self.rng = random.Random(seed)
        self.bot = make_bot(bot, seed=seed) if bot else None

    def choose(self, state: dict[str, Any]) -> str:
        legal: list[str] = state["legal"]
        if self.bot is None:
            return legal[self.rng.randrange(len(legal))]
        actions = [parse_action(text, self.seat) for text in legal]
        in_turn = [a for a in actions if a.seat == self.seat]
        return str(self.bot.choose_action(state["view"], in_turn or actions))

    async def play(self, stats: Stats, games: int, host: bool, pace: float = 0.0) -> None:
        sent: tuple[int, float] | None = None  # (move acted on, time sent)
        played = 0
        game_id = None
        while True:
            raw = await self.ws.recv()
            stats.messages += 1
            stats.bytes += len(raw)
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                sent = None
                continue
            if kind != "state":
                continue
            now = time.perf_counter()
            if msg["game_id"] != game_id:
                game_id, sent = msg["game_id"], None
            last = msg["last"]
            mine = last is not None and last["seat"] == self.seat
            if sent is not None and mine and msg["move"] == sent[0] + 1:
                stats.latencies.append(now - sent[1])
                stats.actions += 1
                sent = None
            view = msg["view"]
            if view["phase"] == "over":
                played += 1
                if host:
                    stats.games += 1
                if played >= games:
                    return
                if host:
                    await self.ws.send(json.dumps({"type": "start"}))
                continue
            if view["to_act"] == self.seat and msg["legal"] and sent is None:
                action = self.choose(msg)
                if pace:  # think like a (very fast) person: 0.5 to 1.5 times the pace
                    await asyncio.sleep(pace * (0.5 + self.rng.random()))
                sent = (msg["move"], time.perf_counter())
                await self.ws.send(json.dumps({"type": "action", "action": action}))


async def run_load(port: int, args: argparse.Namespace) -> tuple[Stats, float]:
    rooms = []
    for r in range(args.rooms):
        created = http(
            port,
            "/api/rooms",
            {"host_name": f"Host{r}", "seats": args.seats, "preset": args.preset},
        )
        tokens = [created["token"]]
        for s in range(1, args.seats):
            tokens.append(
                http(port, f"/api/rooms/{created['code']}/join", {"name": f"P{s}"})["token"]
            )
        rooms.append((created["code"], tokens))
    stats = Stats()
    clients: list[tuple[Client, bool]] = []
    for r, (code, tokens) in enumerate(rooms):
        for seat, token in enumerate(tokens):
            ws = await connect(f"ws://127.0.0.1:{port}/ws/{code}", max_size=2**22)
            await ws.send(json.dumps({"type": "hello", "token": token}))
            while json.loads(await ws.recv())["type"] != "welcome":
                pass
            clients.append((Client(ws, seat, args.client_bot, r * 100 + seat), seat == 0))
    start = time.perf_counter()
    for client, host in clients:
        if host:
            await client.ws.send(json.dumps({"type": "start"}))
    await asyncio.gather(*(c.play(stats, args.games, host, args.pace) for c, host in clients))
    elapsed = time.perf_counter() - start
    for client, _ in clients:
        await client.ws.close()
    return stats, elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=50, help="concurrent rooms (default: 50)")
    parser.add_argument("--seats", type=int, default=4, help="seats per room (default: 4)")
    parser.add_argument("--games", type=int, default=1, help="games per room (default: 1)")
    parser.add_argument("--preset", default="no-mercy", help="rule preset (default: no-mercy)")
    parser.add_argument(
        "--client-bot",
        default=None,
        help="clients decide with this nomercy bot (default: random legal)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="each client waits 0.5-1.5 times this before it acts (default: 0, flat out: the "
        "server's capacity; with a pace, its latency below capacity)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as err:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "nomercy",
                    "serve",
                    "--port",
                    str(port),
                    "--database",
                    str(Path(tmp) / "bench.sqlite3"),
                    "--bot-delay",
                    "0",
                    "--rate-limit",
                    "100000",
                    # Every client is on 127.0.0.1: no per-address caps; rooms of --seats.
                    "--max-per-address",
                    "0",
                    "--rooms-per-hour",
                    "0",
                    "--hellos-per-address",
                    "0",
                    "--max-connections",
                    str(max(1000, args.rooms * args.seats + 100)),
                    # The server times each action from its arrival to its last update sent.
                    "--timings",
                    "--log-level",
                    "warning",
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
            cpu0 = cpu_seconds(proc.pid)
            stats, elapsed = asyncio.run(run_load(port, args))
            cpu = cpu_seconds(proc.pid) - cpu0
            server_side = http(port, "/api/timings")
        finally:
            proc.terminate()
            proc.wait(10)
        problems = log.read_text()
    lat = [x * 1000 for x in stats.latencies]
    result = {
        "rooms": args.rooms,
        "seats": args.seats,
        "games": stats.games,
        "preset": args.preset,
        "client_bot": args.client_bot or "random",
        "actions": stats.actions,
        "seconds": round(elapsed, 2),
        "actions_per_second": round(stats.actions / elapsed, 1),
        "latency_ms": {
            "p50": round(percentile(lat, 0.50), 2),
            "p90": round(percentile(lat, 0.90), 2),
            "p99": round(percentile(lat, 0.99), 2),
            "max": round(max(lat), 2),
            "mean": round(statistics.fmean(lat), 2),
        },
        "server_side_ms": {
            k.removesuffix("_ms"): round(v, 2) for k, v in server_side.items() if k != "count"
        },
        "server_cpu_seconds": round(cpu, 2),
        "messages_received": stats.messages,
        "megabytes_received": round(stats.bytes / 1e6, 1),
        "errors": stats.errors,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            f"{args.rooms} rooms x {args.seats} seats, {stats.games} games ({args.preset}, "
            f"clients: {result['client_bot']})\n"
            f"{stats.actions} actions in {elapsed:.1f} s: {result['actions_per_second']} actions/s "
            f"(server CPU {cpu:.1f} s)\n"
            f"action -> update: p50 {result['latency_ms']['p50']} ms, "
            f"p90 {result['latency_ms']['p90']} ms, p99 {result['latency_ms']['p99']} ms, "
            f"max {result['latency_ms']['max']} ms (client side)\n"
            f"server side, arrival -> last update sent: p50 {result['server_side_ms']['p50']} ms, "
            f"p99 {result['server_side_ms']['p99']} ms, max {result['server_side_ms']['max']} ms\n"
            f"{stats.messages} messages, {result['megabytes_received']} MB received; "
            f"errors: {stats.errors or 'none'}"
        )
    if problems.strip():
        print("server log:\n" + problems[-2000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
