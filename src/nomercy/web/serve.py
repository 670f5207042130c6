"""``nomercy serve``: the command line of the web server.

This module imports only the standard library at import time, so the CLI can list the
subcommand on an install without the ``web`` extra; the server is imported when it runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

__all__ = ["add_db_parser", "add_serve_parser", "db_command", "default_database", "serve"]

_EPILOG = """\
examples:
  nomercy serve                                  # http://127.0.0.1:8000/
  nomercy serve --host 0.0.0.0 --port 8080       # friends on your LAN join at http://YOUR-IP:8080/
  nomercy serve --database /tmp/cards.sqlite3 --bot-delay 0.3

Create a room on the page, send the invite link (/r/CODE) to your friends, start when ready:
bots fill the empty seats. Every room, seat and move is stored in the database, so a
restarted server carries on where it stopped. Finished games are replays at /replay/ID, and
/api/replays/ID?format=record is a record that `nomercy replay FILE` narrates.
Protocol and security notes: docs/web.md, docs/web-protocol.md.
"""


def _install(extra: str) -> str:
    """How to install an extra (the package is not on PyPI: from a checkout)."""
    return f"pip install '.[{extra}]' in a checkout of the repository (the package is not on PyPI)"


def default_database() -> Path:
    """``$XDG_DATA_HOME/nomercy/server.sqlite3`` (``~/.local/share/nomercy/server.sqlite3``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nomercy" / "server.sqlite3"


def add_serve_parser(sub: Any, formatter_class: type[argparse.HelpFormatter]) -> None:
    """Add the ``serve`` subcommand to the CLI's subparsers."""
    parser = sub.add_parser(
        "serve",
        help="serve the game to browsers over WebSockets (needs the web extra)",
        description=(
            "Run the web server: rooms for friends and bots, played in the browser. "
            f"Install it with: {_install('web')}."
        ),
        epilog=_EPILOG,
        formatter_class=formatter_class,
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on; 0.0.0.0 for every interface (default: %(default)s)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="TCP port, 1-65535 (default: %(default)s)"
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides its listening address and localhost "
        "(any IP address too when listening on 0.0.0.0 or ::); repeat for more; '*': any "
        "name (turns off the DNS-rebinding check; for a reverse proxy that checks names)",
    )
    parser.add_argument(
        "--database",
        metavar="PATH|URL",
        help=f"SQLite file for rooms and games (default: {default_database()}), or a "
        "postgresql://USER@HOST/DB URL: any number of servers on one PostgreSQL database serve "
        "every room together (needs the web-pg extra)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help="pause before each bot action, so people can follow (default: %(default)s)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long a disconnected player's seat waits before the room's bot plays it "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=10.0,
        metavar="PER_SECOND",
        help="messages a connection may send per second, with bursts of twice as many "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--room-idle",
        type=float,
        default=7 * 86400.0,
        metavar="SECONDS",
        help="close a room after this long with no connection and no move; its finished "
        "games stay as replays; 0: keep rooms for ever (default: %(default)s, a week)",
    )
    parser.add_argument(
        "--unjoined-room-idle",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="close a room that nobody but its host ever joined (and that never started a "
        "game) after this long with no connection; 0: like any room (default: %(default)s)",
    )
    limits = parser.add_argument_group("connection limits")
    limits.add_argument(
        "--rooms-per-hour",
        type=int,
        default=60,
        metavar="N",
        help="rooms one client address (an IPv6 /64) may create per hour; 0: no limit "
        "(default: %(default)s)",
    )
    limits.add_argument(
        "--max-rooms",
        type=int,
        default=2000,
        metavar="N",
        help="open rooms on the server at most; creating more is refused until some close; "
        "0: no limit (default: %(default)s)",
    )
    limits.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        metavar="N",
        help="open connections (HTTP and WebSocket) at most; more are closed at once "
        "(default: %(default)s, lowered to fit the open-files limit)",
    )
    limits.add_argument(
        "--max-per-address",
        type=int,
        default=100,
        metavar="N",
        help="open connections from one client address at most; 0: no limit (default: %(default)s)",
    )
    limits.add_argument(
        "--sockets-per-address",
        type=int,
        default=0,
        metavar="N",
        help="game WebSockets one client address may hold at once, counted on the address a "
        "trusted proxy forwards (X-Forwarded-For); for a proxy that does not limit clients "
        "itself; 0: no limit (default: %(default)s)",
    )
    limits.add_argument(
        "--room-connections",
        type=int,
        default=64,
        metavar="N",
        help="WebSockets (seats and spectators) one room holds at most (default: %(default)s)",
    )
    limits.add_argument(
        "--hellos-per-address",
        type=float,
        default=10.0,
        metavar="PER_SECOND",
        help="hello messages (each answered with a whole state) one client address may send "
        "across its connections, with bursts of six times as many; 0: no limit "
        "(default: %(default)s)",
    )
    limits.add_argument(
        "--send-budget",
        type=int,
        default=1 << 20,
        metavar="BYTES",
        help="bytes waiting to be sent to one WebSocket at most; a connection that reads too "
        "slowly for that is closed (1013), so its backlog does not fill the server's memory "
        "(default: %(default)s)",
    )
    limits.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="close a connection that has not sent a request's headers within this time, "
        "and answer 408 to a request whose body takes longer again (default: %(default)s)",
    )
    limits.add_argument(
        "--hello-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="close a WebSocket that has not said hello within this time (default: %(default)s)",
    )
    limits.add_argument(
        "--ws-ping",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="ping each WebSocket this often (a client that does not answer within 20 s is "
        "closed); behind deploy/nginx.conf give 1, so that the proxy notices a frozen server "
        "by its silence (default: %(default)s)",
    )
    coach = parser.add_argument_group("the coach (hints)")
    coach.add_argument(
        "--hint-workers",
        type=int,
        default=2,
        metavar="N",
        help="hints the server computes at once, each in a thread for up to 0.5 s; one more "
        "request is refused with hint_busy (default: %(default)s)",
    )
    coach.add_argument(
        "--hint-iterations",
        type=int,
        default=1500,
        metavar="N",
        help="search iterations per hint (default: %(default)s; hosts turn hints off per room)",
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="record the server-side time of each action (GET /api/timings; for benchmarks)",
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="info",
        help="server log level (default: %(default)s)",
    )
    parser.set_defaults(handler=serve)


def lan_address() -> str | None:
    """This machine's address on its default route (no packet is sent), or ``None``."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))  # UDP connect only picks the interface
            address: str = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def _fail(message: str) -> int:
    print(f"nomercy serve: error: {message}", file=sys.stderr)
    return 2


def serve(args: argparse.Namespace, out: TextIO) -> int:  # noqa: C901 (measured in tests/test_complexity.py)
    """Run the server until interrupted; 2 on bad flags or a missing extra."""
    if not 1 <= args.port <= 65535:
        return _fail(f"--port must be 1-65535, got {args.port}")
    if args.bot_delay < 0:
        return _fail(f"--bot-delay must be >= 0, got {args.bot_delay}")
    if args.grace < 0:
        return _fail(f"--grace must be >= 0, got {args.grace}")
    if args.rate_limit <= 0:
        return _fail(f"--rate-limit must be > 0, got {args.rate_limit}")
    try:  # a host that names no address fails here, in words, not in uvicorn's log
        if args.host:  # "" is every interface, as 0.0.0.0
            socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return _fail(f"--host {args.host}: not an address to listen on ({exc})")
    for name in args.allowed_host:
        if not name.strip() or any(c in name for c in "/ \t@"):
            return _fail(f"--allowed-host takes a host name (no scheme or path), not {name!r}")
    for flag, value in (
        ("--room-idle", args.room_idle),
        ("--unjoined-room-idle", args.unjoined_room_idle),
        ("--rooms-per-hour", args.rooms_per_hour),
        ("--max-rooms", args.max_rooms),
        ("--hellos-per-address", args.hellos_per_address),
    ):
        if value < 0:
            return _fail(f"{flag} must be >= 0, got {value}")
    if args.send_budget < 4096:
        return _fail(f"--send-budget must be >= 4096, got {args.send_budget}")
    for flag, value in (
        ("--max-connections", args.max_connections),
        ("--room-connections", args.room_connections),
    ):
        if value < 1:
            return _fail(f"{flag} must be >= 1, got {value}")
    for flag, value in (
        ("--hint-workers", args.hint_workers),
        ("--hint-iterations", args.hint_iterations),
    ):
        if value < 1:
            return _fail(f"{flag} must be >= 1, got {value}")
    for flag, value in (
        ("--max-per-address", args.max_per_address),
        ("--sockets-per-address", args.sockets_per_address),
    ):
        if value < 0:
            return _fail(f"{flag} must be >= 0, got {value}")
    for flag, seconds in (
        ("--header-timeout", args.header_timeout),
        ("--hello-timeout", args.hello_timeout),
        ("--ws-ping", args.ws_ping),
    ):
        if seconds <= 0:
            return _fail(f"{flag} must be > 0, got {seconds}")
    try:
        import uvicorn
        import uvicorn.config

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
    except ImportError as exc:
        return _fail(f"the web server needs the web extra: {_install('web')} ({exc})")
    database: Path | str = Path(args.database) if args.database else default_database()
    lock: DatabaseLock | None = None
    shown_database = str(database)
    if args.database and is_postgres_url(args.database):
        database = args.database
        try:
            import psycopg  # noqa: F401
        except ImportError:
            return _fail(f"a PostgreSQL database needs the web-pg extra: {_install('web-pg')}")
        from nomercy.web.postgres import redact

        shown_database = redact(args.database)
    elif args.database and "://" in args.database:
        return _fail(
            f"--database takes a SQLite file or a postgresql:// URL, not {args.database!r}"
        )
    else:
        try:
            # Held until the process ends: a second server on this file refuses to start.
            lock = DatabaseLock(database)
        except StoreError as exc:
            return _fail(str(exc))
    try:  # a clear error now rather than a traceback from the server's startup
        open_store(database).close()
    except StoreError as exc:
        if lock is not None:
            lock.release()
        return _fail(str(exc))
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RateLimitFilter())
    max_connections = args.max_connections
    open_files = raise_open_files_limit()
    if open_files is not None and max_connections > open_files - 64:
        # Past the open-files limit every accept fails; keep room for the database and logs.
        max_connections = max(16, open_files - 64)
        logging.getLogger("nomercy.web").warning(
            "--max-connections lowered to %d to fit the open-files limit (%d)",
            max_connections,
            open_files,
        )
    limits = Limits(max_connections, args.max_per_address, args.header_timeout)
    config = ServerConfig(
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
    app = create_app(config)
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    print(f"nomercy serve: http://{shown}:{args.port}/  (database {shown_database})", file=out)
    if args.host in ("0.0.0.0", "::"):
        where = lan_address() or "YOUR-LAN-IP"
        print(
            f"listening on every interface: friends join at http://{where}:{args.port}/", file=out
        )
    out.flush()
    ws = "websockets-sansio" if "websockets-sansio" in uvicorn.config.WS_PROTOCOLS else "auto"
    try:
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
    finally:
        if lock is not None:
            lock.release()
    return 0


_DB_EPILOG = """\
examples:
  nomercy db migrate postgresql://nomercy@db/nomercy     # create or upgrade the tables
  nomercy db migrate ~/.local/share/nomercy/server.sqlite3
  nomercy db copy ~/.local/share/nomercy/server.sqlite3 postgresql://nomercy@db/nomercy

`nomercy serve` migrates its database by itself; `db migrate` does it ahead of an upgrade.
`db copy` moves a LAN server's rooms, seats, games and replays into PostgreSQL (stop the
SQLite server first: the copy takes its lock), so several servers can serve them together.
"""


def add_db_parser(sub: Any, formatter_class: type[argparse.HelpFormatter]) -> None:
    """Add the ``db`` subcommand (``migrate``, ``copy``) to the CLI's subparsers."""
    parser = sub.add_parser(
        "db",
        help="migrate the web server's database, or copy a SQLite one into PostgreSQL",
        description="The web server's database: migrate its schema, or copy SQLite into "
        "PostgreSQL (needs the web-pg extra for PostgreSQL).",
        epilog=_DB_EPILOG,
        formatter_class=formatter_class,
    )
    actions = parser.add_subparsers(dest="db_action", metavar="ACTION", required=True)
    migrate = actions.add_parser("migrate", help="create or upgrade the database's tables")
    migrate.add_argument("database", metavar="PATH|URL", help="a SQLite file or postgresql:// URL")
    copy = actions.add_parser("copy", help="copy a SQLite database into PostgreSQL")
    copy.add_argument("source", metavar="SQLITE", help="the SQLite file of a nomercy server")
    copy.add_argument("target", metavar="POSTGRES", help="a postgresql:// URL")
    parser.set_defaults(handler=db_command)


def _db_fail(message: str) -> int:
    print(f"nomercy db: error: {message}", file=sys.stderr)
    return 2


def db_command(args: argparse.Namespace, out: TextIO) -> int:
    """``nomercy db migrate|copy``; 2 with one line on any error."""
    from nomercy.web.sqlcore import StoreError
    from nomercy.web.store import DatabaseLock, Store, is_postgres_url

    try:
        if args.db_action == "migrate":
            if is_postgres_url(args.database):
                try:
                    from nomercy.web.postgres import migrate_postgres, redact
                except ImportError:
                    return _db_fail(f"PostgreSQL needs the web-pg extra: {_install('web-pg')}")
                before, after = migrate_postgres(args.database)
                where = redact(args.database)
            else:
                path = Path(args.database)
                if not path.exists():
                    return _db_fail(f"no database {path}")
                lock = DatabaseLock(path)
                try:
                    store = Store(path)
                    before, after = store.migrated_from, int(store.version)
                    store.close()
                finally:
                    lock.release()
                where = str(path)
            was = "empty" if before is None else f"schema {before}"
            print(f"{where}: {was} -> schema {after}", file=out)
            return 0
        if not is_postgres_url(args.target):
            return _db_fail(f"the target must be a postgresql:// URL, not {args.target!r}")
        source = Path(args.source)
        if not source.is_file():
            return _db_fail(f"no SQLite database {source}")
        try:
            from nomercy.web.postgres import copy_sqlite, redact
        except ImportError:
            return _db_fail(f"PostgreSQL needs the web-pg extra: {_install('web-pg')}")
        lock = DatabaseLock(source)  # no server may write it during the copy
        try:
            counts = copy_sqlite(str(source), args.target)
        finally:
            lock.release()
        shown = ", ".join(f"{n} {table}" for table, n in counts.items())
        print(f"copied {source} into {redact(args.target)}: {shown}", file=out)
        return 0
    except StoreError as exc:
        return _db_fail(str(exc))
