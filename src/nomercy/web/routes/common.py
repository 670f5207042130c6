"""What the routes share: the lobby of a request, JSON errors, request bodies, same-origin checks.

Every refusal of the HTTP side is a JSON body ``{"error": CODE, "message": TEXT}`` built by
:func:`json_error` (docs/web-protocol.md, "Errors").
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from nomercy.web.protocol import ErrorCode, ProtocolError, loads
from nomercy.web.rooms import Lobby

__all__ = [
    "PAGE_HEADERS",
    "client_address",
    "cross_site",
    "error_response",
    "from_our_pages",
    "http_error",
    "json_body",
    "json_error",
    "lobby_of",
    "read_body",
    "retry_after",
    "same_origin",
    "server_error",
    "unavailable",
]

# Same-origin everything, no inline scripts; inline style attributes stay allowed for the
# client's layout code. No referrer: a room URL is an invitation.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def lobby_of(conn: HTTPConnection) -> Lobby:
    """The lobby of the app serving ``conn`` (``create_app`` keeps it in ``app.state``)."""
    lobby: Lobby = conn.app.state.lobby
    return lobby


def json_error(
    code: ErrorCode, message: str, status: int, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The HTTP side's one error body: ``{"error": code, "message": message}``."""
    return JSONResponse({"error": code.value, "message": message}, status, headers)


def retry_after(exc: ProtocolError) -> dict[str, str] | None:
    """The ``Retry-After`` header of a refusal that says when to try again."""
    if exc.retry_after is None:
        return None
    return {"retry-after": str(max(1, math.ceil(exc.retry_after)))}


def error_response(exc: ProtocolError) -> JSONResponse:
    """A refused request's answer: its status, with ``Retry-After`` when it has one."""
    return json_error(exc.code, exc.message, exc.status, retry_after(exc))


def client_address(request: Request) -> str | None:
    """The client's address (behind a reverse proxy on this machine: the one it forwards)."""
    return request.client.host if request.client else None


async def read_body(request: Request, timeout: float) -> bytes:
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


async def json_body(request: Request, timeout: float) -> Any:
    """The request's body as JSON (``{}`` when empty).

    Raises:
        ProtocolError: ``bad_request``: not JSON, or not in time (:func:`read_body`).
    """
    body = await read_body(request, timeout)
    if not body.strip():
        return {}
    try:
        return loads(body)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"the body must be JSON: {exc}") from None


def from_our_pages(request: Request) -> bool:
    """Whether a browser sent this POST from this server's own pages (or no browser did).

    Pages here send no referrer, so a browser's Origin on their POSTs is "null":
    Sec-Fetch-Site (sent by current browsers) tells another site's request from ours, and an
    Origin other than "null" must be this host. Clients that are not browsers send neither.
    Another site's page could otherwise create rooms with a visitor's address (spending its
    rooms-per-hour) through a plain form or a text/plain fetch, which no preflight stops."""
    site = request.headers.get("sec-fetch-site", "same-origin")
    origin = request.headers.get("origin", "null")
    return site in ("same-origin", "none") and (origin == "null" or same_origin(request.headers))


def same_origin(headers: Any) -> bool:
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


def cross_site() -> ProtocolError:
    """The refusal of a POST another site's page sent (:func:`from_our_pages`)."""
    return ProtocolError(
        ErrorCode.BAD_REQUEST, "this request must come from this server's own pages", 403
    )


_ERROR_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no route, wrong method) as the API's JSON errors."""
    assert isinstance(exc, HTTPException)
    code = _ERROR_CODES.get(exc.status_code, ErrorCode.BAD_REQUEST)
    return json_error(code, exc.detail, exc.status_code, exc.headers)


async def unavailable(request: Request, exc: Exception) -> Response:
    """The database refused (``StoreUnavailable``): a 503 to try again."""
    return error_response(
        ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable; try again soon", 503)
    )


async def server_error(request: Request, exc: Exception) -> Response:
    """A bug: a 500 (Starlette logs the traceback, rate-limited by the server's log filter)."""
    return error_response(ProtocolError(ErrorCode.SERVER_ERROR, "the server failed", 500))
