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
    python benchmarks/bench_web.py --rooms 200 --pace 0.5 --servers 2 --postgres auto
    python benchmarks/bench_web.py --rooms 200 --pace 0.5 --servers 2 --postgres auto --spread rooms

With ``--postgres URL`` (or ``auto``: a private cluster started for the run, as the tests do)
the servers share that PostgreSQL database; ``--servers N`` starts N of them, creates the rooms
through each in turn, and (``--spread seats``, the default: what a round-robin proxy does)
connects each room's seats to different servers, so most actions are forwarded to the room's
owner and most updates reach their clients through another server. ``--spread rooms`` connects
every seat of a room to the server that created it (its owner), as a proxy that routes by the
room's code does once each room is owned where its clients are: nothing is forwarded and no
server holds a copy, and the other servers only see (and drop) the room's notices. The
server-side times are each server's (arrival at the server the client is connected to, to the
last update of it that server sent); the CPU cost per action counts every server process and,
with ``auto``, PostgreSQL's own processes.

Needs the web extra (``pip install -e '.[web]'``; ``web-pg`` for PostgreSQL).
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

from nomercy import PlayerView
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
        # The wire's JSON view, typed again (no engine bookkeeping: a bot that searches cannot
        # play from a client's seat).
        view = PlayerView.from_json(state["view"])
        return str(self.bot.choose_action(view, in_turn or actions))

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


async def run_load(ports: list[int], args: argparse.Namespace) -> tuple[Stats, float]:
    rooms = []
    for r in range(args.rooms):
        port = ports[r % len(ports)]
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
            port = ports[(r + (seat if args.spread == "seats" else 0)) % len(ports)]
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


def start_server(
    port: int, database: str, args: argparse.Namespace, err: Any
) -> subprocess.Popen[bytes]:
    """A server process on ``port`` (no bot delay, no per-address caps, ``--timings``)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nomercy",
            "serve",
            "--port",
            str(port),
            "--database",
            database,
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


def postgres_pids(cluster: Any) -> list[int]:
    """The private cluster's postmaster and its children (Linux /proc), or none."""
    if cluster is None:
        return []
    try:
        root = int((cluster.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    pids = [root]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == root:
                pids.append(int(entry.name))
    return pids


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
    parser.add_argument(
        "--servers", type=int, default=1, help="server processes (default: 1; >1: PostgreSQL)"
    )
    parser.add_argument(
        "--postgres",
        metavar="URL|auto",
        help="a PostgreSQL database for the servers (auto: a private cluster for the run)",
    )
    parser.add_argument(
        "--spread",
        choices=["seats", "rooms"],
        default="seats",
        help="with --servers: each room's seats on different servers (seats, the default) or "
        "every seat on the room's owner (rooms)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.servers > 1 and not args.postgres:
        parser.error("several servers need --postgres")
    cluster: Any = None
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        database = str(Path(tmp) / "bench.sqlite3")
        if args.postgres == "auto":
            tests = Path(__file__).resolve().parent.parent / "tests"
            sys.path[:0] = [str(tests / "web"), str(tests)]  # pgcluster, and its ports
            from pgcluster import PgCluster, find_bin_dir

            bin_dir = find_bin_dir()
            if bin_dir is None:
                parser.error(
                    "--postgres auto needs PostgreSQL's server (apt-get install postgresql)"
                )
            cluster = PgCluster(bin_dir)
            database = cluster.database("bench")
        elif args.postgres:
            database = args.postgres
        procs: list[subprocess.Popen[bytes]] = []
        ports = [free_port() for _ in range(args.servers)]
        log = Path(tmp) / "server.log"
        try:
            with log.open("wb") as err:
                for port in ports:
                    procs.append(start_server(port, database, args, err))
            for port in ports:
                for _ in range(300):
                    try:
                        http(port, "/api/meta")
                        break
                    except OSError:
                        time.sleep(0.1)
            pg_pids = postgres_pids(cluster)
            cpu0 = sum(cpu_seconds(p.pid) for p in procs)
            pg0 = sum(cpu_seconds(pid) for pid in pg_pids)
            stats, elapsed = asyncio.run(run_load(ports, args))
            cpu = sum(cpu_seconds(p.pid) for p in procs) - cpu0
            pg_pids = postgres_pids(cluster)
            pg_cpu = sum(cpu_seconds(pid) for pid in pg_pids) - pg0 if cluster else 0.0
            per_server = [http(port, "/api/timings") for port in ports]
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(10)
            if cluster is not None:
                cluster.stop()
        problems = log.read_text()
    server_side = {k: max(t[k] for t in per_server) for k in per_server[0] if k.endswith("_ms")}
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
        "servers": args.servers,
        "spread": args.spread,
        "store": "postgresql" if args.postgres else "sqlite",
        "server_side_ms_each": per_server,
        "server_cpu_seconds": round(cpu, 2),
        "postgres_cpu_seconds": round(pg_cpu, 2),
        "cpu_ms_per_action": round((cpu + pg_cpu) * 1000 / max(1, stats.actions), 3),
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
            f"clients: {result['client_bot']}); {args.servers} server(s) on {result['store']}"
            f"{f', spread by {args.spread}' if args.servers > 1 else ''}\n"
            f"{stats.actions} actions in {elapsed:.1f} s: {result['actions_per_second']} actions/s "
            f"(server CPU {cpu:.1f} s)\n"
            f"action -> update: p50 {result['latency_ms']['p50']} ms, "
            f"p90 {result['latency_ms']['p90']} ms, p99 {result['latency_ms']['p99']} ms, "
            f"max {result['latency_ms']['max']} ms (client side)\n"
            f"server side, arrival -> last update sent: p50 {result['server_side_ms']['p50']} ms, "
            f"p99 {result['server_side_ms']['p99']} ms, max {result['server_side_ms']['max']} ms"
            " (the worst server's)\n"
            f"CPU per action: {result['cpu_ms_per_action']} ms (servers {cpu:.1f} s, "
            f"PostgreSQL {pg_cpu:.1f} s)\n"
            f"{stats.messages} messages, {result['megabytes_received']} MB received; "
            f"errors: {stats.errors or 'none'}"
        )
    if problems.strip():
        print("server log:\n" + problems[-2000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
