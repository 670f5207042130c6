"""The operator's routes: liveness (``/healthz``), readiness (``/readyz``) and, for the
benchmarks, the server-side action times (``/api/timings``). docs/web-protocol.md describes
them."""

from __future__ import annotations

import statistics

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.routes.common import error_response, lobby_of

__all__ = ["ROUTES"]


async def healthz(request: Request) -> Response:
    """Liveness: the process answers (its event loop runs)."""
    return JSONResponse({"ok": True, "server": lobby_of(request).server_id})


async def readyz(request: Request) -> Response:
    """Readiness: open, and (several servers) its database heartbeat is current."""
    lobby = lobby_of(request)
    ready = lobby.ready
    body = {
        "ready": ready,
        "server": lobby.server_id,
        "rooms": sum(1 for r in lobby.rooms.values() if r.owned),
    }
    return JSONResponse(body, status_code=200 if ready else 503)


async def api_timings(request: Request) -> Response:
    """Only with ``ServerConfig.timings`` (benchmarks/): server-side action times in ms;
    ``?reset=1`` starts them over."""
    lobby = lobby_of(request)
    if not lobby.config.timings:
        return error_response(ProtocolError(ErrorCode.NOT_FOUND, "timings are off", 404))
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


ROUTES: list[BaseRoute] = [
    Route("/healthz", healthz),
    Route("/readyz", readyz),
    Route("/api/timings", api_timings),
]
