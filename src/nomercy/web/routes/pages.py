"""The pages: the browser client's files, ``/help``, and the lobby's form posted without script.

The form (``POST /rooms``) answers in HTML: a redirect to the new room, or a page saying why
not. Everything else the client does goes through the JSON API (:mod:`.api`).
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from nomercy.web.protocol import ErrorCode, ProtocolError, parse_room_request
from nomercy.web.routes.common import (
    PAGE_HEADERS,
    client_address,
    error_response,
    from_our_pages,
    lobby_of,
    read_body,
    retry_after,
)

__all__ = ["routes"]

#: The pages, by path: each a file of the client (``static_dir``).
_PAGES = {
    "/": "index.html",
    "/r/{code}": "room.html",
    "/replay/{game_id}": "replay.html",
    "/rules": "rules.html",
}


def routes(static_dir: Path) -> list[BaseRoute]:
    """The pages and the client's files, served from ``static_dir``."""
    pages: list[BaseRoute] = [
        Route(path, _page(static_dir / name)) for path, name in _PAGES.items()
    ]
    return [
        *pages,
        Route("/help", help_page),
        Route("/rooms", form_create, methods=["POST"]),
        Mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static"),
    ]


def _page(path: Path) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of one page: its file, or a 404 naming it when the client is missing."""

    async def page(request: Request) -> Response:
        if not path.is_file():
            message = f"the web client ({path.name}) is not installed"
            return error_response(ProtocolError(ErrorCode.NOT_FOUND, message, 404))
        return FileResponse(path, headers=PAGE_HEADERS)

    return page


async def help_page(request: Request) -> Response:
    """``/help``: the rules are the help a newcomer needs; the table's ? lists its keys."""
    return RedirectResponse("/rules", status_code=303)


async def form_create(request: Request) -> Response:
    """``POST /rooms``: the lobby's form posted the plain way (its script not loaded yet, or
    off): create the room and go to it. The seat token travels in the fragment, which the
    browser keeps to itself (not sent to the server, no referrer): room.js stores it and
    removes it."""
    if not from_our_pages(request):
        return _form_error_page("this form must be sent from this server's own page")
    lobby = lobby_of(request)
    try:
        body = await read_body(request, lobby.config.body_timeout)
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=64)
        settings = parse_room_request(_form_room(fields), lobby.config.timers)
        room, token = await lobby.create_room(settings, client_address(request))
    except (UnicodeDecodeError, ValueError):
        return _form_error_page("the form could not be read")
    except ProtocolError as exc:  # the API's status (429 with Retry-After, 503, ...)
        return _form_error_page(exc.message, exc.status, retry_after(exc))
    target = f"/r/{room.code}#seat=0&token={quote(token)}"
    return RedirectResponse(target, status_code=303)


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


def _form_error_page(
    message: str, status: int = 400, headers: dict[str, str] | None = None
) -> HTMLResponse:
    """The page a refused form post gets: why, and the way back to the lobby."""
    text = html.escape(message)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>Cannot create the room</title><link rel="stylesheet" href="/static/style.css">'
        '</head><body class="page-lobby"><main class="lobby"><section class="panel">'
        f'<h2>Cannot create the room</h2><p role="alert">{text}</p>'
        '<p><a href="/">Back to the lobby</a></p></section></main></body></html>'
    )
    return HTMLResponse(page, status_code=status, headers={**PAGE_HEADERS, **(headers or {})})
