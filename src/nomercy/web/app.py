"""The Starlette application: pages, the JSON API and the game WebSocket.

``create_app(config)`` builds the app (no module-level state); ``nomercy serve`` runs it on
uvicorn. docs/web-protocol.md describes every route and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import math
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from nomercy.core.rules import OPTIONS
from nomercy.tables import rulebook
from nomercy.web.connections import address_key
from nomercy.web.guard import AllowedHosts
from nomercy.web.protocol import (
    HARD_MAX_BYTES,
    ErrorCode,
    ProtocolError,
    loads,
    meta,
    parse_client_message,
    parse_room_request,
)
from nomercy.web.rooms import Connection, Lobby, Room, ServerConfig, StoreUnavailable

__all__ = ["STATIC_DIR", "create_app"]

log = logging.getLogger("nomercy.web")

#: The browser client's files (index.html, room.html, replay.html, scripts, styles).
STATIC_DIR = Path(__file__).resolve().parent / "static"
#: Request bodies of the JSON API are small; anything bigger is refused.
MAX_BODY = 16384

# Same-origin everything, no inline scripts; inline style attributes stay allowed for the
# client's layout code. No referrer: a room URL is an invitation.
_PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _error(exc: ProtocolError) -> JSONResponse:
    return JSONResponse(
        {"error": exc.code.value, "message": exc.message},
        status_code=exc.status,
        headers=_retry_after(exc),
    )


def _address(request: Request) -> str | None:
    """The client's address (behind a reverse proxy on this machine: the one it forwards)."""
    return request.client.host if request.client else None


class BodyTooLarge(Exception):
    """A request body went past ``MAX_BODY`` while it was read."""


class BodyLimit:
    """Refuse HTTP request bodies over ``limit`` bytes before they are read: at once when the
    ``Content-Length`` says so, else as soon as a streamed (chunked) body passes the limit;
    the connection is closed after the 413, so the rest is never read."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = _error(
            ProtocolError(ErrorCode.TOO_LARGE, f"the body may hold at most {self.limit} bytes", 413)
        )
        too_large.headers["connection"] = "close"
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await too_large(scope, receive, send)
                return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, watched_send)
        except BodyTooLarge:
            if not started:
                await too_large(scope, receive, send)


class HostCheck:
    """Answer only requests whose ``Host`` this server allows (DNS rebinding): others get a
    400 ``bad_host`` (HTTP) or a refused handshake (WebSocket, 403), before any route runs."""

    def __init__(self, app: ASGIApp, hosts: AllowedHosts | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.hosts is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
                break
        if self.hosts.allows(host):
            await self.app(scope, receive, send)
            return
        log.warning("refused a request for host %r", (host or "")[:100])
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        shown = (host or "")[:100]
        refused = _error(
            ProtocolError(
                ErrorCode.BAD_HOST,
                f"this server does not answer to the host {shown!r}; its operator may add "
                "the name with --allowed-host",
            )
        )
        refused.headers["connection"] = "close"
        await refused(scope, receive, send)


#: Admitted messages one connection may have waiting for its worker; past that its reader
#: waits too (and that wait is the server's, credited to the client's rate).
INBOX = 64


@dataclass(frozen=True)
class Inbound:
    """An admitted client message: when its turn comes (the clock's ``monotonic()``), its payload,
    and its ``time.perf_counter()`` on arrival (``ServerConfig.timings``)."""

    release: float
    payload: str | bytes | None
    stamp: float


@dataclass
class _Work:
    """A connection worker's state, shared with its reader."""

    handling: bool = False  # inside a message: it finishes before the worker stops
    stopping: bool = False


async def _read_body(request: Request, timeout: float) -> bytes:
    """The request's body; one that does not arrive within ``timeout`` seconds is a 408 (the
    connection then closes: a stalled upload holds nothing), a client gone mid-body a 400
    nobody reads (no traceback)."""
    try:
        return await asyncio.wait_for(request.body(), timeout)
    except TimeoutError:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST, f"the request body did not arrive within {timeout:g} s", 408
        ) from None
    except ClientDisconnect:
        raise ProtocolError(ErrorCode.BAD_REQUEST, "the client left before its body") from None


async def _json_body(request: Request, timeout: float) -> Any:
    body = await _read_body(request, timeout)
    if not body.strip():
        return {}
    try:
        return loads(body)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"the body must be JSON: {exc}") from None


def _from_our_pages(request: Request) -> bool:
    """Whether a browser sent this POST from this server's own pages (or no browser did).

    Pages here send no referrer, so a browser's Origin on their POSTs is "null":
    Sec-Fetch-Site (sent by current browsers) tells another site's request from ours, and an
    Origin other than "null" must be this host. Clients that are not browsers send neither.
    Another site's page could otherwise create rooms with a visitor's address (spending its
    rooms-per-hour) through a plain form or a text/plain fetch, which no preflight stops."""
    site = request.headers.get("sec-fetch-site", "same-origin")
    origin = request.headers.get("origin", "null")
    return site in ("same-origin", "none") and (origin == "null" or _same_origin(request.headers))


def _same_origin(headers: Any) -> bool:
    """Whether a request comes from this server's own pages (or from no page: no Origin)."""
    origin = headers.get("origin")
    host = headers.get("host")
    if not (origin and host):
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:  # not a URL ("http://["): from no page of ours
        return False
    return bool(netloc == host)


_ERROR_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


def _cross_site() -> ProtocolError:
    """The refusal of a POST another site's page sent (:func:`_from_our_pages`)."""
    return ProtocolError(
        ErrorCode.BAD_REQUEST, "this request must come from this server's own pages", 403
    )


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no route, wrong method) as the API's JSON errors."""
    assert isinstance(exc, HTTPException)
    code = _ERROR_CODES.get(exc.status_code, ErrorCode.BAD_REQUEST)
    return JSONResponse(
        {"error": code.value, "message": exc.detail},
        status_code=exc.status_code,
        headers=exc.headers,
    )


async def _unavailable(request: Request, exc: Exception) -> Response:
    return _error(
        ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable; try again soon", 503)
    )


async def _server_error(request: Request, exc: Exception) -> Response:
    # Starlette logs the traceback (rate-limited by the server's log filter).
    return _error(ProtocolError(ErrorCode.SERVER_ERROR, "the server failed", 500))


def _form_room(fields: dict[str, list[str]]) -> dict[str, Any]:
    """The JSON body that a plain form post of the lobby's create-room form stands for."""
    body: dict[str, Any] = {}
    for key in ("name", "host_name", "preset", "seats", "bot", "timer", "mode", "hints"):
        values = fields.get(key)
        if not values or not values[-1].strip():
            continue  # left empty (or filled by the script that has not run): the default
        value: Any = values[-1]
        if key in ("seats", "timer"):
            digits = value.strip()
            value = (
                int(digits) if digits.isascii() and digits.isdigit() and len(value) < 6 else value
            )
        elif key == "hints":  # the lobby's select: on / off
            value = {"on": True, "off": False}.get(value.strip().lower(), value)
        body[key] = value
    return body


def _retry_after(exc: ProtocolError) -> dict[str, str] | None:
    """The ``Retry-After`` header of a refusal that says when to try again."""
    if exc.retry_after is None:
        return None
    return {"retry-after": str(max(1, math.ceil(exc.retry_after)))}


def _form_error_page(
    message: str, status: int = 400, headers: dict[str, str] | None = None
) -> HTMLResponse:
    text = html.escape(message)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>Cannot create the room</title><link rel="stylesheet" href="/static/style.css">'
        '</head><body class="page-lobby"><main class="lobby"><section class="panel">'
        f'<h2>Cannot create the room</h2><p role="alert">{text}</p>'
        '<p><a href="/">Back to the lobby</a></p></section></main></body></html>'
    )
    return HTMLResponse(page, status_code=status, headers={**_PAGE_HEADERS, **(headers or {})})


def _replay_query(params: Any, page: int) -> tuple[str, int | None, int]:
    """``GET /api/replays/{id}``'s query: the format, ``from`` (``None``: the whole head and
    the first page) and ``count`` (at most ``page``, the default)."""
    kind = params.get("format", "json")
    if kind not in ("json", "record"):
        raise ProtocolError(
            ErrorCode.BAD_REQUEST,
            f"format {kind[:20]!r} is not a replay format: json (default) or record",
        )

    def number(name: str, default: int | None, low: int, high: int) -> int | None:
        text = params.get(name)
        if text is None:
            return default
        if not (text.isascii() and text.isdigit() and len(text) <= 9) or not (
            low <= int(text) <= high
        ):
            raise ProtocolError(
                ErrorCode.BAD_REQUEST, f"{name} must be a whole number from {low} to {high}"
            )
        return int(text)

    start = number("from", None, 0, 10**9)
    count = number("count", page, 1, page)
    assert count is not None
    return kind, start, count


def _options_by_rule() -> dict[str, list[str]]:
    """Rule id -> the names of the rule options it introduces (``A24`` -> ``mercy_timing``...)."""
    found: dict[str, list[str]] = {}
    for spec in OPTIONS:
        for rid in rulebook.cited(spec.rule):
            found.setdefault(rid, []).append(spec.name)
    return found


def create_app(config: ServerConfig, *, static_dir: Path = STATIC_DIR) -> Starlette:  # noqa: C901, PLR0915 (measured in tests/test_complexity.py)
    """The web server's ASGI app for ``config`` (its lobby is ``app.state.lobby``)."""
    lobby = Lobby(config)
    clock = config.clock

    def page(name: str) -> Response:
        path = static_dir / name
        if not path.is_file():
            message = f"the web client ({name}) is not installed"
            return _error(ProtocolError(ErrorCode.NOT_FOUND, message, 404))
        return FileResponse(path, headers=_PAGE_HEADERS)

    async def index(request: Request) -> Response:
        return page("index.html")

    async def room_page(request: Request) -> Response:
        return page("room.html")

    async def replay_page(request: Request) -> Response:
        return page("replay.html")

    async def rules_page(request: Request) -> Response:
        return page("rules.html")

    async def help_page(request: Request) -> Response:
        # The rules are the help a newcomer needs; the table's ? lists its keys.
        return RedirectResponse("/rules", status_code=303)

    async def api_rules(request: Request) -> Response:
        # RULES.md by id, and which rules say what each card does (nomercy.tables.rulebook).
        return JSONResponse(
            {
                "rules": [rulebook.rule(rid).to_json() for rid in rulebook.rule_ids()],
                "cards": rulebook.card_rules_table(),
                # The options each rule id names (their explanations are translated).
                "options": _options_by_rule(),
            },
            headers={"Cache-Control": "public, max-age=3600"},
        )

    async def api_rule(request: Request) -> Response:
        try:
            found = rulebook.rule(request.path_params["rule_id"])
        except rulebook.UnknownRuleError as exc:
            return _error(ProtocolError(ErrorCode.UNKNOWN_RULE, str(exc), 404))
        return JSONResponse(found.to_json(), headers={"Cache-Control": "public, max-age=3600"})

    async def api_meta(request: Request) -> Response:
        return JSONResponse(meta(config.timers))

    async def api_create(request: Request) -> Response:
        try:
            if not _from_our_pages(request):
                raise _cross_site()
            settings = parse_room_request(
                await _json_body(request, config.body_timeout), config.timers
            )
            room, token = await lobby.create_room(settings, _address(request))
        except ProtocolError as exc:
            return _error(exc)
        return JSONResponse(
            {"code": room.code, "seat": 0, "token": token, "invite": f"/r/{room.code}"},
            status_code=201,
        )

    async def api_join(request: Request) -> Response:
        try:
            if not _from_our_pages(request):
                raise _cross_site()
            body = await _json_body(request, config.body_timeout)
            if not isinstance(body, dict):
                raise ProtocolError(ErrorCode.BAD_REQUEST, "the body must be a JSON object")
            unknown = sorted(str(key)[:40] for key in body if key != "name")
            if unknown:  # as room creation does: a typo is not ignored
                raise ProtocolError(
                    ErrorCode.BAD_REQUEST, f"unknown keys {unknown[:5]}; expected 'name'"
                )
            seat, token = await lobby.join(request.path_params["code"], body.get("name"))
        except ProtocolError as exc:
            return _error(exc)
        return JSONResponse({"seat": seat, "token": token})

    async def api_room(request: Request) -> Response:
        room = await lobby.find(request.path_params["code"])
        if room is None:
            return _error(ProtocolError(ErrorCode.UNKNOWN_ROOM, "no such room", 404))
        return JSONResponse(room.summary())

    async def form_create(request: Request) -> Response:
        # The lobby's form posted the plain way (its script not loaded yet, or off): create the
        # room and go to it. The seat token travels in the fragment, which the browser keeps
        # to itself (not sent to the server, no referrer): room.js stores it and removes it.
        if not _from_our_pages(request):
            return _form_error_page("this form must be sent from this server's own page")
        try:
            body = await _read_body(request, config.body_timeout)
            fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=64)
            settings = parse_room_request(_form_room(fields), config.timers)
            room, token = await lobby.create_room(settings, _address(request))
        except (UnicodeDecodeError, ValueError):
            return _form_error_page("the form could not be read")
        except ProtocolError as exc:  # the API's status (429 with Retry-After, 503, ...)
            return _form_error_page(exc.message, exc.status, _retry_after(exc))
        target = f"/r/{room.code}#seat=0&token={quote(token)}"
        return RedirectResponse(target, status_code=303)

    async def api_timings(request: Request) -> Response:
        # Only with ServerConfig.timings (benchmarks/): server-side action times in ms.
        if not config.timings:
            return _error(ProtocolError(ErrorCode.NOT_FOUND, "timings are off", 404))
        times = sorted(lobby.timings)
        if request.query_params.get("reset"):
            lobby.timings.clear()
        if not times:
            return JSONResponse({"count": 0})
        q = statistics.quantiles(times, n=100, method="inclusive") if len(times) > 1 else times * 99
        return JSONResponse(
            {
                "count": len(times),
                "p50_ms": q[49] * 1000,
                "p90_ms": q[89] * 1000,
                "p99_ms": q[98] * 1000,
                "max_ms": times[-1] * 1000,
            }
        )

    async def healthz(request: Request) -> Response:
        # Liveness: the process answers (its event loop runs).
        return JSONResponse({"ok": True, "server": lobby.server_id})

    async def readyz(request: Request) -> Response:
        # Readiness: open, and (several servers) its database heartbeat is current.
        ready = lobby.ready
        body = {
            "ready": ready,
            "server": lobby.server_id,
            "rooms": sum(1 for r in lobby.rooms.values() if r.owned),
        }
        return JSONResponse(body, status_code=200 if ready else 503)

    async def api_replay(request: Request) -> Response:
        # Each request: one token of the address's replay budget, then bytes kept by the
        # lobby's replay cache (built once in a worker thread), a page of steps at most.
        game_id = request.path_params["game_id"]
        try:
            kind, start, count = _replay_query(request.query_params, config.replay_page)
            if not lobby.replay_allowed(_address(request)):
                rate = config.replays_per_address
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED,
                    f"at most {rate:g} replay requests a second from one address",
                    429,
                    retry_after=1.0 / rate,
                )
            replay = await lobby.replay(game_id)
            if start is not None and start > len(replay.steps):
                raise ProtocolError(
                    ErrorCode.BAD_REQUEST,
                    f"from={start} is past the game's {len(replay.steps)} steps",
                )
        except ProtocolError as exc:
            return _error(exc)
        if kind == "record":
            return Response(
                replay.record,
                media_type="application/json",
                headers={"Content-Disposition": f'attachment; filename="nomercy-{game_id}.json"'},
            )
        body = replay.first() if start is None else replay.page(start, count)
        return Response(body, media_type="application/json")

    async def game_socket(ws: WebSocket) -> None:
        if not _same_origin(ws.headers):
            # Another site's page may not drive a game from a visitor's browser.
            await ws.close(code=1008)
            return
        await ws.accept()
        try:
            room = await lobby.find(ws.path_params["code"])
        except StoreUnavailable:
            error = ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable; try again")
            await ws.send_text(json.dumps(error.to_message()))
            await ws.close(code=1013)
            return
        if room is None:
            error = ProtocolError(ErrorCode.UNKNOWN_ROOM, "no such room")
            await ws.send_text(json.dumps(error.to_message()))
            await ws.close(code=4404)
            return
        key = address_key(ws.client.host) if ws.client else None
        if not lobby.sockets.open(key):
            # One address holds at most sockets_per_address game sockets here (counted on
            # the forwarded address: behind a proxy whose sockets all come from one address).
            error = ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"your address has {config.sockets_per_address} game connections open here, "
                "the most it may; close one and try again",
            )
            await ws.send_text(json.dumps(error.to_message()))
            await ws.close(code=1013)
            return
        try:
            await _game_socket(ws, room)
        finally:
            lobby.sockets.close(key)

    async def _game_socket(ws: WebSocket, room: Room) -> None:
        """A greeted-or-not game socket in ``room``, counted against its address."""
        if room.all_sockets() >= config.room_connections:
            error = ProtocolError(
                ErrorCode.ROOM_CROWDED,
                f"this room has {config.room_connections} connections already; try later",
            )
            await ws.send_text(json.dumps(error.to_message()))
            await ws.close(code=1013)
            return

        async def close(code: int) -> None:
            # Bounded: a peer that does not read would hold the close frame (and us) forever.
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, TimeoutError):
                await asyncio.wait_for(ws.close(code=code), 2.0)

        reader = asyncio.current_task()
        assert reader is not None

        def stuck() -> None:
            # The connection does not read its messages: stop reading its own at once, so it
            # leaves the room now rather than when it next sends something.
            if not reader.done():
                reader.cancel()

        address = ws.client.host if ws.client else None
        conn = Connection(ws.send_text, close, config, lobby.watch, address, on_stuck=stuck)
        conn.start()
        room.sockets += 1
        room.announce()
        try:
            await _receive_loop(ws, room, conn, close)
        except WebSocketDisconnect:
            pass
        except asyncio.CancelledError:
            if not conn.stuck:
                raise  # the server is stopping
            reader.uncancel()
        finally:
            room.sockets -= 1
            async with room.lock:
                room.leave(conn)
            await conn.stop()

    async def _receive_loop(ws: WebSocket, room: Room, conn: Connection, close: Any) -> None:
        """Read a connection's messages as they arrive, judge its rate on their arrival times
        (``Connection.admit``) and hand them to its worker (:func:`_work`), which handles them
        in order, each in its turn: a client over its rate is throttled first, refused only
        past ``ServerConfig.throttle`` seconds of backlog, closed after ``abuse_limit``
        refusals. Reading never waits for the handling, so messages queued while a move waits
        for the room or the database are judged when they came, not when they were read."""
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + config.hello_timeout
        inbox: asyncio.Queue[Inbound | None] = asyncio.Queue(maxsize=INBOX)
        work = _Work()
        worker = loop.create_task(_work(inbox, room, conn, close, work))
        busy = 0.0  # seconds the last message waited for room in the inbox: the server's time
        drain = False
        try:
            while not worker.done():
                if conn.greeted:
                    message = await ws.receive()
                else:
                    # A connection that never says hello holds a socket and a room slot for
                    # nothing: it gets hello_timeout seconds.
                    try:
                        message = await asyncio.wait_for(ws.receive(), hello_by - loop.time())
                    except TimeoutError:
                        if conn.greeted:  # its hello was handled (by the worker) meanwhile
                            continue
                        await conn.stop()
                        await close(4408)
                        return
                arrived = clock.monotonic()
                stamp = time.perf_counter()
                if message["type"] == "websocket.disconnect":
                    drain = True  # what it sent before it left is still handled
                    return
                payload = message.get("text")
                if payload is None:
                    payload = message.get("bytes")
                if payload is not None and len(payload) > HARD_MAX_BYTES:
                    await conn.stop()
                    await close(1009)
                    return
                delay = conn.admit(arrived, busy)
                busy = 0.0
                if delay is None:
                    if conn.refuse():
                        log.warning("room %s: closing a flooding connection", room.code)
                        await conn.stop()
                        await close(1008)
                        return
                    rate = config.rate_per_second
                    error = ProtocolError(
                        ErrorCode.RATE_LIMITED, f"slow down: {rate:g} messages a second at most"
                    )
                    conn.send(error.to_message())
                    continue
                item = Inbound(arrived + delay, payload, stamp)
                if inbox.full():
                    began = clock.monotonic()
                    await inbox.put(item)
                    busy = clock.monotonic() - began
                else:
                    inbox.put_nowait(item)
        finally:
            if drain and not worker.done():
                await inbox.put(None)
            else:
                work.stopping = True
                if not work.handling:
                    worker.cancel()  # waiting for a message or its turn: safe to stop
            with contextlib.suppress(asyncio.CancelledError):
                await worker

    async def _work(
        inbox: asyncio.Queue[Inbound | None],
        room: Room,
        conn: Connection,
        close: Any,
        work: _Work,
    ) -> None:
        """Handle a connection's admitted messages in order, each at its turn."""
        while not work.stopping:
            item = await inbox.get()
            if item is None:
                return
            wait = item.release - clock.monotonic()
            if wait > 0:
                await clock.sleep(wait)  # throttled: its turn at the connection's rate
            work.handling = True
            try:
                if await _handle(room, conn, item):
                    await conn.stop()
                    await close(1008)
                    return
            finally:
                work.handling = False

    async def _handle(room: Room, conn: Connection, item: Inbound) -> bool:
        """One message; ``True``: the connection floods and is to be closed."""
        try:
            data = parse_client_message(item.payload)
            await room.handle(conn, data, item.stamp)
        except ProtocolError as exc:
            conn.send(exc.to_message())
            if exc.code is ErrorCode.RATE_LIMITED and conn.refuse():
                log.warning("room %s: closing a flooding connection", room.code)
                return True
        except StoreUnavailable:
            error = ProtocolError(
                ErrorCode.UNAVAILABLE, "the database is unavailable; nothing changed: try again"
            )
            conn.send(error.to_message())
        except Exception:  # a bug: report it, keep the server and the connection
            log.exception("room %s: a message failed", room.code)
            conn.send(ProtocolError(ErrorCode.SERVER_ERROR, "the server failed").to_message())
        return False

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lobby.open()
        try:
            yield
        finally:
            await lobby.close()

    routes = [
        Route("/", index),
        Route("/r/{code}", room_page),
        Route("/replay/{game_id}", replay_page),
        Route("/rules", rules_page),
        Route("/help", help_page),
        Route("/api/rules", api_rules),
        Route("/api/rules/{rule_id}", api_rule),
        Route("/rooms", form_create, methods=["POST"]),
        Route("/api/meta", api_meta),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/api/timings", api_timings),
        Route("/api/rooms", api_create, methods=["POST"]),
        Route("/api/rooms/{code}", api_room),
        Route("/api/rooms/{code}/join", api_join, methods=["POST"]),
        Route("/api/replays/{game_id}", api_replay),
        WebSocketRoute("/ws/{code}", game_socket),
        Mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(HostCheck, hosts=config.allowed_hosts),
            Middleware(BodyLimit, limit=MAX_BODY),
        ],
        exception_handlers={
            HTTPException: _http_error,
            StoreUnavailable: _unavailable,
            Exception: _server_error,
        },
    )
    app.state.lobby = lobby
    app.state.config = config
    return app
