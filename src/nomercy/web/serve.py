"""``nomercy serve``: the command line of the web server.

This module imports only the standard library at import time, so the CLI can list the
subcommand on an install without the ``web`` extra; the server is imported when it runs.
"""

from __future__ import annotations

import argparse
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
    _add_listen_flags(parser)
    _add_room_flags(parser)
    limits = parser.add_argument_group("connection limits")
    _add_connection_limits(limits)
    _add_traffic_limits(limits)
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


def _add_listen_flags(parser: argparse.ArgumentParser) -> None:
    """Where the server listens, the names it answers to, and its database."""
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


def _add_room_flags(parser: argparse.ArgumentParser) -> None:
    """How rooms play: bot pace, the grace of a lost connection, the message rate, expiry."""
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


def _add_connection_limits(limits: argparse._ArgumentGroup) -> None:
    """How many rooms and connections, in all and per client address."""
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


def _add_traffic_limits(limits: argparse._ArgumentGroup) -> None:
    """What one connection may cost: hellos, unsent bytes, and how long it may stay silent."""
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


def _fail(message: str) -> int:
    print(f"nomercy serve: error: {message}", file=sys.stderr)
    return 2


#: Each number flag's bound, as (flag, comparison, bound), in the order they are checked.
_BOUNDS_FIRST = (("--bot-delay", ">=", 0), ("--grace", ">=", 0), ("--rate-limit", ">", 0))
_BOUNDS_THEN = (
    ("--room-idle", ">=", 0),
    ("--unjoined-room-idle", ">=", 0),
    ("--rooms-per-hour", ">=", 0),
    ("--max-rooms", ">=", 0),
    ("--hellos-per-address", ">=", 0),
    ("--send-budget", ">=", 4096),
    ("--max-connections", ">=", 1),
    ("--room-connections", ">=", 1),
    ("--hint-workers", ">=", 1),
    ("--hint-iterations", ">=", 1),
    ("--max-per-address", ">=", 0),
    ("--sockets-per-address", ">=", 0),
    ("--header-timeout", ">", 0),
    ("--hello-timeout", ">", 0),
    ("--ws-ping", ">", 0),
)


def _out_of_bounds(
    args: argparse.Namespace, bounds: tuple[tuple[str, str, int], ...]
) -> str | None:
    """The first flag of ``bounds`` whose value is past its bound, said as a usage error."""
    for flag, comparison, bound in bounds:
        value = getattr(args, flag[2:].replace("-", "_"))
        if value < bound or (comparison == ">" and value == bound):
            return f"{flag} must be {comparison} {bound}, got {value}"
    return None


def _flag_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with ``nomercy serve``'s flags (the first problem found), or ``None``."""
    if not 1 <= args.port <= 65535:
        return f"--port must be 1-65535, got {args.port}"
    problem = _out_of_bounds(args, _BOUNDS_FIRST)
    if problem is not None:
        return problem
    try:  # a host that names no address fails here, in words, not in uvicorn's log
        if args.host:  # "" is every interface, as 0.0.0.0
            socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return f"--host {args.host}: not an address to listen on ({exc})"
    for name in args.allowed_host:
        if not name.strip() or any(c in name for c in "/ \t@"):
            return f"--allowed-host takes a host name (no scheme or path), not {name!r}"
    return _out_of_bounds(args, _BOUNDS_THEN)


def serve(args: argparse.Namespace, out: TextIO) -> int:
    """Run the server until interrupted; 2 on bad flags, an unusable database or a missing
    extra."""
    problem = _flag_problem(args)
    if problem is not None:
        return _fail(problem)
    try:
        # The web extra, imported only to run: the CLI lists this command without it.
        from nomercy.web.launch import ExtraMissing, LaunchError, launch
    except ImportError as exc:
        return _fail(f"the web server needs the web extra: {_install('web')} ({exc})")
    try:
        return launch(args, out, args.database or default_database())
    except ExtraMissing as exc:
        return _fail(f"{exc.what} needs the {exc.extra} extra: {_install(exc.extra)}")
    except LaunchError as exc:
        return _fail(str(exc))


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
