"""The rooms' JSON API: the server's offer (``/api/meta``), creating, joining and reading rooms.

docs/web-protocol.md, "HTTP API", describes each request and answer.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nomercy.web.protocol import ErrorCode, ProtocolError, meta, parse_room_request
from nomercy.web.rooms import Lobby
from nomercy.web.routes.common import (
    client_address,
    cross_site,
    error_response,
    from_our_pages,
    json_body,
    lobby_of,
)

__all__ = ["ROUTES"]


async def _posted(request: Request, lobby: Lobby) -> Any:
    """A POST's JSON body.

    Raises:
        ProtocolError: another site's page sent it (403), or its body is not JSON in time.
    """
    if not from_our_pages(request):
        raise cross_site()
    return await json_body(request, lobby.config.body_timeout)


async def api_meta(request: Request) -> Response:
    """``GET /api/meta``: presets, options, bots, timers, languages and seat limits."""
    return JSONResponse(meta(lobby_of(request).config.timers))


async def api_create(request: Request) -> Response:
    """``POST /api/rooms``: a new room, its host seated (seat 0, with its token)."""
    lobby = lobby_of(request)
    try:
        settings = parse_room_request(await _posted(request, lobby), lobby.config.timers)
        room, token = await lobby.create_room(settings, client_address(request))
    except ProtocolError as exc:
        return error_response(exc)
    return JSONResponse(
        {"code": room.code, "seat": 0, "token": token, "invite": f"/r/{room.code}"},
        status_code=201,
    )


async def api_join(request: Request) -> Response:
    """``POST /api/rooms/{code}/join``: a seat for ``name``, with its token."""
    lobby = lobby_of(request)
    try:
        body = await _posted(request, lobby)
        if not isinstance(body, dict):
            raise ProtocolError(ErrorCode.BAD_REQUEST, "the body must be a JSON object")
        unknown = sorted(str(key)[:40] for key in body if key != "name")
        if unknown:  # as room creation does: a typo is not ignored
            raise ProtocolError(
                ErrorCode.BAD_REQUEST, f"unknown keys {unknown[:5]}; expected 'name'"
            )
        seat, token = await lobby.join(request.path_params["code"], body.get("name"))
    except ProtocolError as exc:
        return error_response(exc)
    return JSONResponse({"seat": seat, "token": token})


async def api_room(request: Request) -> Response:
    """``GET /api/rooms/{code}``: the room's summary."""
    room = await lobby_of(request).find(request.path_params["code"])
    if room is None:
        return error_response(ProtocolError(ErrorCode.UNKNOWN_ROOM, "no such room", 404))
    return JSONResponse(room.summary())


ROUTES: list[BaseRoute] = [
    Route("/api/meta", api_meta),
    Route("/api/rooms", api_create, methods=["POST"]),
    Route("/api/rooms/{code}", api_room),
    Route("/api/rooms/{code}/join", api_join, methods=["POST"]),
]
