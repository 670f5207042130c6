"""The Starlette application: pages, the JSON API and the game WebSocket.

``create_app(config)`` builds the app (no module-level state); ``nomercy serve`` runs it on
uvicorn. docs/web-protocol.md describes every route and message.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from nomercy.web.protocol import (
    HARD_MAX_BYTES,
    ErrorCode,
    ProtocolError,
    meta,
    parse_client_message,
    parse_room_request,
)
from nomercy.web.rooms import Connection, Lobby, ServerConfig

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
    return JSONResponse({"error": exc.code.value, "message": exc.message}, status_code=exc.status)


async def _json_body(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"the body may hold at most {MAX_BODY} bytes")
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"the body must be JSON: {exc}") from None


def create_app(config: ServerConfig, *, static_dir: Path = STATIC_DIR) -> Starlette:
    """The web server's ASGI app for ``config`` (its lobby is ``app.state.lobby``)."""
    lobby = Lobby(config)

    def page(name: str) -> Response:
        path = static_dir / name
        if not path.is_file():
            return PlainTextResponse(f"the web client ({name}) is not installed", status_code=404)
        return FileResponse(path, headers=_PAGE_HEADERS)

    async def index(request: Request) -> Response:
        return page("index.html")

    async def room_page(request: Request) -> Response:
        return page("room.html")

    async def replay_page(request: Request) -> Response:
        return page("replay.html")

    async def api_meta(request: Request) -> Response:
        return JSONResponse(meta(config.timers))

    async def api_create(request: Request) -> Response:
        try:
            settings = parse_room_request(await _json_body(request), config.timers)
            room, token = lobby.create_room(settings)
        except ProtocolError as exc:
            return _error(exc)
        return JSONResponse(
            {"code": room.code, "seat": 0, "token": token, "invite": f"/r/{room.code}"},
            status_code=201,
        )

    async def api_join(request: Request) -> Response:
        try:
            body = await _json_body(request)
            if not isinstance(body, dict):
                raise ProtocolError(ErrorCode.BAD_REQUEST, "the body must be a JSON object")
            seat, token = await lobby.join(request.path_params["code"], body.get("name"))
        except ProtocolError as exc:
            return _error(exc)
        return JSONResponse({"seat": seat, "token": token})

    async def api_room(request: Request) -> Response:
        room = lobby.rooms.get(request.path_params["code"])
        if room is None:
            return _error(ProtocolError(ErrorCode.UNKNOWN_ROOM, "no such room", 404))
        return JSONResponse(room.summary())

    async def api_replay(request: Request) -> Response:
        try:
            data, text = lobby.replay(request.path_params["game_id"])
        except ProtocolError as exc:
            return _error(exc)
        if request.query_params.get("format") == "record":
            game_id = request.path_params["game_id"]
            return Response(
                text + "\n",
                media_type="application/json",
                headers={"Content-Disposition": f'attachment; filename="nomercy-{game_id}.json"'},
            )
        return JSONResponse(data)

    async def game_socket(ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        host = ws.headers.get("host")
        if origin and host and urlsplit(origin).netloc != host:
            # Another site's page may not drive a game from a visitor's browser.
            await ws.close(code=1008)
            return
        await ws.accept()
        room = lobby.rooms.get(ws.path_params["code"])
        if room is None:
            error = ProtocolError(ErrorCode.UNKNOWN_ROOM, "no such room")
            await ws.send_text(json.dumps(error.to_message()))
            await ws.close(code=4404)
            return

        async def close(code: int) -> None:
            with contextlib.suppress(RuntimeError):  # already closed
                await ws.close(code=code)

        conn = Connection(ws.send_text, close, config)
        conn.start()
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not conn.bucket.take():
                    conn.limited += 1
                    if conn.limited >= config.abuse_limit:
                        log.warning("room %s: closing a flooding connection", room.code)
                        await conn.stop()
                        await close(1008)
                        break
                    conn.send(ProtocolError(ErrorCode.RATE_LIMITED, "slow down").to_message())
                    continue
                conn.limited = 0
                payload = message.get("text")
                if payload is None:
                    payload = message.get("bytes")
                if payload is not None and len(payload) > HARD_MAX_BYTES:
                    await conn.stop()
                    await close(1009)
                    break
                try:
                    data = parse_client_message(payload)
                    await room.handle(conn, data)
                except ProtocolError as exc:
                    conn.send(exc.to_message())
                except Exception:  # a bug: report it, keep the server and the connection
                    log.exception("room %s: a message failed", room.code)
                    conn.send(
                        ProtocolError(ErrorCode.SERVER_ERROR, "the server failed").to_message()
                    )
        except WebSocketDisconnect:
            pass
        finally:
            async with room.lock:
                room.leave(conn)
            await conn.stop()

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
        Route("/api/meta", api_meta),
        Route("/api/rooms", api_create, methods=["POST"]),
        Route("/api/rooms/{code}", api_room),
        Route("/api/rooms/{code}/join", api_join, methods=["POST"]),
        Route("/api/replays/{game_id}", api_replay),
        WebSocketRoute("/ws/{code}", game_socket),
        Mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.lobby = lobby
    app.state.config = config
    return app
