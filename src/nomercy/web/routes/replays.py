"""``GET /api/replays/{id}``: a finished game's replay, a page of steps at a time, or its record.

The lobby builds each replay once in a worker thread and keeps its bytes (web/replays.py);
each request spends one token of its address's replay budget first.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.routes.common import client_address, error_response, lobby_of

__all__ = ["ROUTES"]


async def api_replay(request: Request) -> Response:
    """The replay's head and first page (``from`` absent), the page of steps from ``from``, or
    (``format=record``) the game's record as a file to download."""
    lobby = lobby_of(request)
    game_id = request.path_params["game_id"]
    try:
        kind, start, count = _replay_query(request.query_params, lobby.config.replay_page)
        if not lobby.replay_allowed(client_address(request)):
            rate = lobby.config.replays_per_address
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
        return error_response(exc)
    if kind == "record":
        return Response(
            replay.record,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="nomercy-{game_id}.json"'},
        )
    body = replay.first() if start is None else replay.page(start, count)
    return Response(body, media_type="application/json")


def _replay_query(params: Mapping[str, str], page: int) -> tuple[str, int | None, int]:
    """The request's query: the format, ``from`` (``None``: the whole head and the first page)
    and ``count`` (at most ``page``, the default).

    Raises:
        ProtocolError: ``bad_request``, naming the parameter.
    """
    kind = params.get("format", "json")
    if kind not in ("json", "record"):
        raise ProtocolError(
            ErrorCode.BAD_REQUEST,
            f"format {kind[:20]!r} is not a replay format: json (default) or record",
        )
    start = _number(params, "from", None, 0, 10**9)
    count = _number(params, "count", page, 1, page)
    assert count is not None
    return kind, start, count


def _number(
    params: Mapping[str, str], name: str, default: int | None, low: int, high: int
) -> int | None:
    """The query's whole number ``name`` from ``low`` to ``high`` (``default`` when absent)."""
    text = params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 9) or not (low <= int(text) <= high):
        raise ProtocolError(
            ErrorCode.BAD_REQUEST, f"{name} must be a whole number from {low} to {high}"
        )
    return int(text)


ROUTES: list[BaseRoute] = [Route("/api/replays/{game_id}", api_replay)]
