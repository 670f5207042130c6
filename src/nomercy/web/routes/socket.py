"""The game WebSocket ``/ws/{code}``: admission, then a reader and a worker per connection.

:func:`game_socket` admits a socket (same origin, a known room, the address's and the room's
socket caps); its reader (:func:`_receive_loop`) judges each message's rate on its arrival
and queues it, its worker (:func:`_work`) hands the messages to the room in order, each at its
turn. docs/web-protocol.md describes the messages, docs/web.md the limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from nomercy.web.connections import address_key
from nomercy.web.protocol import HARD_MAX_BYTES, ErrorCode, ProtocolError, parse_client_message
from nomercy.web.rooms import Connection, Lobby, Room, ServerConfig, StoreUnavailable
from nomercy.web.routes.common import lobby_of, same_origin

__all__ = ["INBOX", "ROUTES", "Inbound", "game_socket"]

log = logging.getLogger("nomercy.web")

#: Admitted messages one connection may have waiting for its worker; past that its reader
#: waits too (and that wait is the server's, credited to the client's rate).
INBOX = 64

#: Closes the connection's socket with a close code (bounded: :func:`_in_room`).
Close = Callable[[int], Awaitable[None]]


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


async def game_socket(ws: WebSocket) -> None:
    """Admit a game socket into its room, or refuse it with an ``error`` and a close code."""
    if not same_origin(ws.headers):
        # Another site's page may not drive a game from a visitor's browser.
        await ws.close(code=1008)
        return
    await ws.accept()
    lobby = lobby_of(ws)
    try:
        room = await lobby.find(ws.path_params["code"])
    except StoreUnavailable:
        error = ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable; try again")
        await _refuse(ws, error, 1013)
        return
    if room is None:
        await _refuse(ws, ProtocolError(ErrorCode.UNKNOWN_ROOM, "no such room"), 4404)
        return
    key = address_key(ws.client.host) if ws.client else None
    if not lobby.sockets.open(key):
        # One address holds at most sockets_per_address game sockets here (counted on
        # the forwarded address: behind a proxy whose sockets all come from one address).
        error = ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"your address has {lobby.config.sockets_per_address} game connections open here, "
            "the most it may; close one and try again",
        )
        await _refuse(ws, error, 1013)
        return
    try:
        await _in_room(ws, lobby, room)
    finally:
        lobby.sockets.close(key)


async def _refuse(ws: WebSocket, error: ProtocolError, code: int) -> None:
    """Send an accepted socket ``error`` and close it with ``code``."""
    await ws.send_text(json.dumps(error.to_message()))
    await ws.close(code=code)


async def _in_room(ws: WebSocket, lobby: Lobby, room: Room) -> None:
    """A greeted-or-not game socket in ``room``, counted against its address."""
    config = lobby.config
    if room.all_sockets() >= config.room_connections:
        error = ProtocolError(
            ErrorCode.ROOM_CROWDED,
            f"this room has {config.room_connections} connections already; try later",
        )
        await _refuse(ws, error, 1013)
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
        await _receive_loop(ws, room, conn, close, config)
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


async def _receive_loop(
    ws: WebSocket, room: Room, conn: Connection, close: Close, config: ServerConfig
) -> None:
    """Read a connection's messages as they arrive, judge its rate on their arrival times
    (``Connection.admit``) and hand them to its worker (:func:`_work`), which handles them
    in order, each in its turn: a client over its rate is throttled first, refused only
    past ``ServerConfig.throttle`` seconds of backlog, closed after ``abuse_limit``
    refusals. Reading never waits for the handling, so messages queued while a move waits
    for the room or the database are judged when they came, not when they were read."""
    clock = config.clock
    loop = asyncio.get_running_loop()
    hello_by = loop.time() + config.hello_timeout
    inbox: asyncio.Queue[Inbound | None] = asyncio.Queue(maxsize=INBOX)
    work = _Work()
    worker = loop.create_task(_work(inbox, room, conn, close, work, config))
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
    close: Close,
    work: _Work,
    config: ServerConfig,
) -> None:
    """Handle a connection's admitted messages in order, each at its turn."""
    clock = config.clock
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


ROUTES: list[BaseRoute] = [WebSocketRoute("/ws/{code}", game_socket)]
