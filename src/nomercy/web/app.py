"""The Starlette application: its routes, its middleware and its lifespan.

``create_app(config)`` builds the app (no module-level state: the lobby lives in
``app.state``); ``nomercy serve`` runs it on uvicorn. The routes live in :mod:`nomercy.web.routes`,
one module per concern (pages, the rooms' API, rules, replays, health, the game WebSocket);
docs/web-protocol.md describes every route and message.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nomercy.web.guard import AllowedHosts
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.rooms import Lobby, ServerConfig, StoreUnavailable
from nomercy.web.routes import api, health, pages, replays, rules, socket
from nomercy.web.routes.common import error_response, http_error, server_error, unavailable

__all__ = ["STATIC_DIR", "create_app"]

log = logging.getLogger("nomercy.web")

#: The browser client's files (index.html, room.html, replay.html, scripts, styles).
STATIC_DIR = Path(__file__).resolve().parent / "static"
#: Request bodies of the JSON API are small; anything bigger is refused.
MAX_BODY = 16384


def create_app(config: ServerConfig, *, static_dir: Path = STATIC_DIR) -> Starlette:
    """The web server's ASGI app for ``config`` (its lobby is ``app.state.lobby``)."""
    lobby = Lobby(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lobby.open()
        try:
            yield
        finally:
            await lobby.close()

    app = Starlette(
        routes=[
            *pages.routes(static_dir),
            *rules.ROUTES,
            *api.ROUTES,
            *health.ROUTES,
            *replays.ROUTES,
            *socket.ROUTES,
        ],
        lifespan=lifespan,
        middleware=[
            Middleware(HostCheck, hosts=config.allowed_hosts),
            Middleware(BodyLimit, limit=MAX_BODY),
        ],
        exception_handlers={
            HTTPException: http_error,
            StoreUnavailable: unavailable,
            Exception: server_error,
        },
    )
    app.state.lobby = lobby
    app.state.config = config
    return app


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
        too_large = error_response(
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
        refused = error_response(
            ProtocolError(
                ErrorCode.BAD_HOST,
                f"this server does not answer to the host {shown!r}; its operator may add "
                "the name with --allowed-host",
            )
        )
        refused.headers["connection"] = "close"
        await refused(scope, receive, send)
