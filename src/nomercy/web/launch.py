"""Run the server ``nomercy serve`` asked for: claim its database, build its config, run uvicorn.

web/serve.py checks the flags with the standard library alone and imports this module (which
needs the ``web`` extra) only to run the server; a problem here is a :class:`LaunchError`,
which it prints as a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import logging
import socket
from pathlib import Path
from typing import TextIO

import uvicorn
import uvicorn.config
from starlette.applications import Starlette

from nomercy.web.app import create_app
from nomercy.web.database import open_store
from nomercy.web.guard import (
    AllowedHosts,
    Limits,
    RateLimitFilter,
    guarded_protocol,
    raise_open_files_limit,
)
from nomercy.web.protocol import HARD_MAX_BYTES
from nomercy.web.rooms import ServerConfig
from nomercy.web.sqlcore import StoreError
from nomercy.web.store import DatabaseLock, is_postgres_url

__all__ = ["ExtraMissing", "LaunchError", "lan_address", "launch", "server_config"]


class LaunchError(Exception):
    """The server cannot start; the message says why, in the user's terms."""


class ExtraMissing(LaunchError):
    """``what`` needs the package's extra ``extra``, which is not installed."""

    def __init__(self, what: str, extra: str) -> None:
        super().__init__(f"{what} needs the {extra} extra")
        self.what = what
        self.extra = extra


def launch(args: argparse.Namespace, out: TextIO, database: Path | str) -> int:
    """Serve until interrupted, as ``args`` (checked flags) say, on ``database``: a SQLite
    file, or the ``--database`` text as given (a ``postgresql://`` URL).

    Raises:
        LaunchError: the database cannot be used (before anything is served).
    """
    database, lock, shown = _claim_database(database)
    try:
        _log_through_the_rate_limit(args.log_level)
        limits = Limits(
            _connection_cap(args.max_connections), args.max_per_address, args.header_timeout
        )
        app = create_app(server_config(args, database))
        _announce(args, shown, out)
        _run(app, args, limits)
    finally:
        if lock is not None:
            lock.release()
    return 0


def _claim_database(given: Path | str) -> tuple[Path | str, DatabaseLock | None, str]:
    """The database, the lock held on a SQLite file (``None``: PostgreSQL) and its name as
    shown (a URL without its password), once it opens."""
    database, lock, shown = _lock_database(given)
    try:  # a clear error now rather than a traceback from the server's startup
        open_store(database).close()
    except StoreError as exc:
        if lock is not None:
            lock.release()
        raise LaunchError(str(exc)) from None
    return database, lock, shown


def _lock_database(given: Path | str) -> tuple[Path | str, DatabaseLock | None, str]:
    if isinstance(given, str) and is_postgres_url(given):
        try:
            import psycopg  # noqa: F401  (the web-pg extra: imported only for a URL)
        except ImportError:
            raise ExtraMissing("a PostgreSQL database", "web-pg") from None
        from nomercy.web.postgres import redact  # needs psycopg, checked just above

        return given, None, redact(given)
    if isinstance(given, str) and "://" in given:
        raise LaunchError(f"--database takes a SQLite file or a postgresql:// URL, not {given!r}")
    path = Path(given)
    try:
        # Held until the process ends: a second server on this file refuses to start.
        return path, DatabaseLock(path), str(path)
    except StoreError as exc:
        raise LaunchError(str(exc)) from None


def _log_through_the_rate_limit(level: str) -> None:
    logging.basicConfig(
        level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RateLimitFilter())


def _connection_cap(wanted: int) -> int:
    """``--max-connections``, lowered to fit the open-files limit (raised first if it may)."""
    open_files = raise_open_files_limit()
    if open_files is not None and wanted > open_files - 64:
        # Past the open-files limit every accept fails; keep room for the database and logs.
        lowered = max(16, open_files - 64)
        logging.getLogger("nomercy.web").warning(
            "--max-connections lowered to %d to fit the open-files limit (%d)",
            lowered,
            open_files,
        )
        return lowered
    return wanted


def server_config(args: argparse.Namespace, database: Path | str) -> ServerConfig:
    """The server's config from ``nomercy serve``'s checked flags."""
    return ServerConfig(
        database=database,
        bot_delay=args.bot_delay,
        grace=args.grace,
        rate_per_second=args.rate_limit,
        rate_capacity=2 * args.rate_limit,
        hello_timeout=args.hello_timeout,
        body_timeout=args.header_timeout,
        room_connections=args.room_connections,
        sockets_per_address=args.sockets_per_address,
        room_idle=args.room_idle,
        unjoined_idle=args.unjoined_room_idle,
        rooms_per_hour=args.rooms_per_hour,
        max_rooms=args.max_rooms,
        hellos_per_address=args.hellos_per_address,
        hello_burst=6 * args.hellos_per_address,
        send_bytes=args.send_budget,
        timings=args.timings,
        hint_workers=args.hint_workers,
        hint_iterations=args.hint_iterations,
        allowed_hosts=AllowedHosts.for_listening(args.host, args.allowed_host),
    )


def _announce(args: argparse.Namespace, database: str, out: TextIO) -> None:
    """Where the server answers (and, on every interface, where friends join)."""
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    print(f"nomercy serve: http://{shown}:{args.port}/  (database {database})", file=out)
    if args.host in ("0.0.0.0", "::"):
        where = lan_address() or "YOUR-LAN-IP"
        print(
            f"listening on every interface: friends join at http://{where}:{args.port}/", file=out
        )
    out.flush()


def lan_address() -> str | None:
    """This machine's address on its default route (no packet is sent), or ``None``."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))  # UDP connect only picks the interface
            address: str = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def _run(app: Starlette, args: argparse.Namespace, limits: Limits) -> None:
    ws = "websockets-sansio" if "websockets-sansio" in uvicorn.config.WS_PROTOCOLS else "auto"
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        http=guarded_protocol(limits),
        ws=ws,
        ws_max_size=HARD_MAX_BYTES,
        # Idle kept-alive HTTP connections and the close handshake of a WebSocket whose
        # peer has gone quiet are bounded too.
        timeout_keep_alive=5,
        ws_ping_interval=args.ws_ping,
        ws_ping_timeout=20.0,
        # No limit_concurrency: the guarded protocol closes surplus connections before
        # they are read (uvicorn's own limit answers a plain-text 503 once headers are in).
        log_level=args.log_level,
        # uvicorn's loggers go through the root handler and its rate limit.
        log_config=None,
        lifespan="on",
    )
