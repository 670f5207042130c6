"""An in-process harness for the web server's tests: the ASGI app driven from asyncio.

Starlette's TestClient blocks on every receive, which cannot express "several clients, bots
acting in the background, wait at most N seconds for the next message". Here the app runs in
the test's own event loop: :class:`Server` runs its lifespan, :class:`WsClient` speaks the ASGI
WebSocket protocol through queues (no sockets), and every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
from clocks import ManualClock

from nomercy.core.game import Game
from nomercy.web import ServerConfig, create_app
from nomercy.web.connections import LoopWatch
from nomercy.web.rooms import Lobby, Room

#: The bound on every wait for the app (real time): it only catches a hang, so it is far above
#: what the slowest wait takes on a loaded machine (the suite runs beside other work).
TIMEOUT = 60.0


#: Event-loop rounds :func:`settle` runs: far more than any message's path through the app
#: (a handful of tasks hand it on: the socket's reader and worker, the sender).
SETTLE_TURNS = 100


async def settle(turns: int = SETTLE_TURNS) -> None:
    """Let the event loop run ``turns`` rounds: the app's work that needs only the loop (no
    thread, no real wait) is done afterwards however slowly the machine runs."""
    for _ in range(turns):
        await asyncio.sleep(0)


class NoStalls(LoopWatch):
    """The loop watch of a server on a hand-driven clock: the test's clock is all the time
    there is, so a pause of the test process (a loaded machine) is no stall to credit to a
    connection's rate (``Connection.admit``); else the limits' counts would depend on the
    machine's speed. Stalls themselves are tested on a real server (test_web_bounds.py)."""

    def stalled(self, now: float) -> float:
        return 0.0


class Closed(Exception):
    """The server closed the WebSocket."""

    def __init__(self, code: int) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


class WsClient:
    """One WebSocket connection to the app, with every message it received kept in ``log``."""

    def __init__(
        self, app: Any, path: str, *, origin: str | None = None, address: str = "127.0.0.1"
    ) -> None:
        self.to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.from_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        headers = [(b"host", b"testserver")]
        if origin is not None:
            headers.append((b"origin", origin.encode()))
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "ws",
            "http_version": "1.1",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": (address, 50000),
            "server": ("testserver", 80),
            "subprotocols": [],
            "state": {},
        }
        self.task = asyncio.ensure_future(app(scope, self.to_app.get, self.from_app.put))
        self.log: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.token: str | None = None

    async def connect(self) -> None:
        """Open the connection (the server accepts every room path first)."""
        await self.to_app.put({"type": "websocket.connect"})
        msg = await asyncio.wait_for(self.from_app.get(), TIMEOUT)
        if msg["type"] == "websocket.close":
            self.closed = msg.get("code", 1000)
            raise Closed(self.closed)
        assert msg["type"] == "websocket.accept", msg

    async def send(self, data: dict[str, Any] | str) -> None:
        """Send one JSON object (or raw text)."""
        text = data if isinstance(data, str) else json.dumps(data)
        await self.to_app.put({"type": "websocket.receive", "text": text})

    async def read(self, timeout: float = TIMEOUT) -> None:
        """Wait (real time, at most ``timeout`` s) until the server has read every message sent
        so far, or closed the connection: then each has its arrival time (``Connection.admit``)
        before a test moves a manual clock on."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not self.to_app.empty() and not self.task.done():  # done: it closed
            assert loop.time() < end, "the server does not read"
            await asyncio.sleep(0)
        await asyncio.sleep(0)

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message (raises :class:`Closed` when the server closes)."""
        msg = await asyncio.wait_for(self.from_app.get(), timeout)
        if msg["type"] == "websocket.close":
            self.closed = msg.get("code", 1000)
            raise Closed(self.closed)
        assert msg["type"] == "websocket.send", msg
        data: dict[str, Any] = json.loads(msg["text"])
        self.log.append(data)
        return data

    async def expect(
        self,
        kind: str,
        pred: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = TIMEOUT,
    ) -> dict[str, Any]:
        """Skip messages until one of type ``kind`` (matching ``pred``) arrives."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, end - loop.time()))
            if msg["type"] == kind and (pred is None or pred(msg)):
                return msg

    async def state(self, move: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The state after ``move`` actions (already received, or the next one to come)."""
        for msg in self.log:
            if msg["type"] == "state" and msg["move"] == move:
                return msg
        return await self.expect("state", lambda m: m["move"] == move, timeout)

    async def error(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next ``error`` message."""
        return await self.expect("error", timeout=timeout)

    async def drain(self, quiet: float = 0.05) -> list[dict[str, Any]]:
        """Every message that arrives until ``quiet`` seconds pass without one."""
        got = []
        while True:
            try:
                got.append(await self.recv(quiet))
            except TimeoutError:
                return got

    async def settled(self, turns: int = SETTLE_TURNS) -> list[dict[str, Any]]:
        """Every message the server sends once it has run ``turns`` rounds of the event loop
        (:func:`settle`): with a hand-driven clock, what is due by now, counted in the loop's
        rounds, not in real time, so a loaded machine neither hides a message nor makes one
        late. Only for work done in the loop (no database write or bot in a thread)."""
        await settle(turns)
        got = []
        while not self.from_app.empty():
            got.append(await self.recv())
        return got

    async def hello(self, token: str | None = None) -> dict[str, Any]:
        """Say hello and return the welcome."""
        self.token = token
        await self.send({"type": "hello", "token": token} if token else {"type": "hello"})
        return await self.expect("welcome")

    async def act(self, action: str) -> None:
        """Send an action."""
        await self.send({"type": "action", "action": action})

    async def close(self) -> None:
        """Disconnect and let the server clean up."""
        await self.to_app.put({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(self.task, TIMEOUT)


class Server:
    """The app with its lifespan running, an HTTP client and WebSocket clients."""

    def __init__(self, database: Path | str, **config: Any) -> None:
        config.setdefault("bot_delay", 0.0)
        config.setdefault("rate_per_second", 1000.0)
        config.setdefault("rate_capacity", 1000.0)
        self.config = ServerConfig(database=database, **config)
        self.app = create_app(self.config)
        self.lobby: Lobby = self.app.state.lobby
        if isinstance(self.config.clock, ManualClock):
            self.lobby.watch = NoStalls()
        self._lifespan: Any = None
        self._https: list[httpx.AsyncClient] = []
        self.http = self.http_from("127.0.0.1")
        self.clients: list[WsClient] = []

    async def __aenter__(self) -> Server:
        self._lifespan = self.app.router.lifespan_context(self.app)
        await self._lifespan.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for client in self.clients:
            if not client.task.done():
                await client.close()
        for http in self._https:
            await http.aclose()
        await self._lifespan.__aexit__(None, None, None)

    def http_from(self, address: str) -> httpx.AsyncClient:
        """An HTTP client whose requests come from ``address`` (per-address limits)."""
        transport = httpx.ASGITransport(app=self.app, client=(address, 50000))
        client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        self._https.append(client)
        return client

    async def ws(self, code: str, **kw: Any) -> WsClient:
        """A connected WebSocket client for room ``code``."""
        client = WsClient(self.app, f"/ws/{code}", **kw)
        self.clients.append(client)
        await client.connect()
        return client

    async def create(self, **body: Any) -> dict[str, Any]:
        """Create a room; returns the 201 body."""
        body.setdefault("host_name", "Ann")
        r = await self.http.post("/api/rooms", json=body)
        assert r.status_code == 201, r.text
        data: dict[str, Any] = r.json()
        return data

    async def join(self, code: str, name: str) -> dict[str, Any]:
        """Join a room; returns ``{"seat", "token"}``."""
        r = await self.http.post(f"/api/rooms/{code}/join", json={"name": name})
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def room(self, code: str) -> Room:
        """The room object (for checks against the true game)."""
        return self.lobby.rooms[code]

    async def rig(self, code: str, game: Game) -> None:
        """Start ``code``'s game from a position instead of a deal."""
        room = self.room(code)
        async with room.lock:
            await room.start_game(game)


async def table(
    server: Server,
    seats: int = 3,
    names: tuple[str, ...] = ("Ann", "Bob", "Cid", "Dee"),
    **room: Any,
) -> tuple[str, list[WsClient]]:
    """A room whose every seat is a person, each connected and greeted (not started)."""
    created = await server.create(host_name=names[0], seats=seats, **room)
    code = created["code"]
    tokens = [created["token"]]
    for s in range(1, seats):
        tokens.append((await server.join(code, names[s]))["token"])
    clients = []
    for token in tokens:
        client = await server.ws(code)
        await client.hello(token)
        clients.append(client)
    for client in clients:
        await client.drain(0.02)
    return code, clients


async def bots_idle(room: Room, timeout: float = TIMEOUT) -> None:
    """Wait until ``room``'s bot task has ended (or none runs): every bot has been asked and
    has acted or let its chance go. A condition, not a pause: a test that checks a bot did
    not act cannot pass because the bot was merely slow (``timeout`` only catches a hang)."""
    task = room._bot_task
    if task is not None:
        await asyncio.wait_for(asyncio.shield(task), timeout)


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run an async test body."""
    asyncio.run(main())
