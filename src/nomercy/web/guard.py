"""Connection guards for ``nomercy serve``: caps and a header timeout on uvicorn's HTTP protocol,
and a log filter that keeps a flood of alike lines from filling the disk.

uvicorn bounds neither the time a client may take to send its request headers nor the sockets
one address may hold, and its ``limit_concurrency`` answers 503 only once headers are complete,
so sockets that trickle a partial header pile up until the process runs out of file
descriptors. :func:`guarded_protocol` builds uvicorn's h11 protocol with those limits:

- more than ``max_connections`` open connections (HTTP and WebSocket): a new one is closed at
  once, before anything is read;
- more than ``per_address`` from one client address: the oldest of that address's idle
  connections (half-open, or kept alive between requests) is closed to make room; when none
  is idle (each has a request or a WebSocket going), the new one is closed;
- request headers not complete ``header_timeout`` seconds after the connection opened (or after
  the previous response, on a kept-alive connection): the connection is closed.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AllowedHosts",
    "Limits",
    "RateLimitFilter",
    "guarded_protocol",
    "raise_open_files_limit",
]


@dataclass(frozen=True)
class Limits:
    """Connection limits (``nomercy serve`` flags); 0 turns ``per_address`` off."""

    max_connections: int = 1000
    per_address: int = 100
    header_timeout: float = 10.0


#: Names that always reach this machine's own loopback: never another site's.
_LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
_WILDCARDS = ("0.0.0.0", "::", "")


def _hostname(host: str) -> str:
    """The name part of a ``Host`` header (no port, no brackets, lower case, no final dot)."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class AllowedHosts:
    """The ``Host`` names this server answers to (DNS rebinding: a page on
    ``http://evil.example`` whose name is made to resolve to this server would otherwise be
    "same origin" with it, its ``Origin`` matching its ``Host``).

    ``names``: exact host names (``"*"``: any); ``any_ip``: any IP address literal too, for a
    server listening on every interface (an address typed in the browser is no rebinding: the
    page's origin is that address).

    >>> hosts = AllowedHosts.for_listening("127.0.0.1", ["cards.example"])
    >>> [hosts.allows(h) for h in ("localhost:8000", "cards.example", "evil.example", "10.0.0.7")]
    [True, True, False, False]
    >>> AllowedHosts.for_listening("0.0.0.0").allows("[fe80::1]:80")
    True
    """

    names: frozenset[str]
    any_ip: bool = False

    @classmethod
    def for_listening(cls, listen: str, extra: Iterable[str] = ()) -> AllowedHosts:
        """The listening address, ``localhost`` and its loopback addresses, and ``extra``; with a
        wildcard listening address (``0.0.0.0``, ``::``) any IP address literal."""
        names = {_hostname(n) if n != "*" else "*" for n in (*_LOCAL_NAMES, *extra)}
        wildcard = listen in _WILDCARDS
        if not wildcard:
            names.add(_hostname(listen if ":" not in listen else f"[{listen}]"))
        return cls(frozenset(names), any_ip=wildcard)

    def allows(self, host: str | None) -> bool:
        """Whether a request with this ``Host`` header is answered (no header: a client that is
        not a browser, which rebinding cannot drive)."""
        if host is None or "*" in self.names:
            return True
        name = _hostname(host)
        return name in self.names or (self.any_ip and _is_ip(name))


def guarded_protocol(limits: Limits) -> type[Any]:
    """uvicorn's h11 HTTP protocol class with ``limits`` applied (pass it as ``http=``)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _header_timer: Any = None

        _since = 0.0  # when it opened or last finished a response: its idle time

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._since = time.monotonic()
            host = self.client[0] if self.client else None
            crowded = len(self.connections) > limits.max_connections
            if not crowded and limits.per_address and host is not None:
                same = [
                    c
                    for c in self.connections
                    if c is not self and (getattr(c, "client", None) or (None,))[0] == host
                ]
                if len(same) >= limits.per_address:
                    # Fair to a household behind one address: its oldest connection that is
                    # doing nothing (half-open, or kept alive between requests) makes room;
                    # only when every one is busy (a request, a game) is the new one refused.
                    idle = [c for c in same if isinstance(c, GuardedH11Protocol) and c._idle()]
                    if idle:
                        min(idle, key=lambda c: c._since).transport.close()
                    else:
                        crowded = True
            if crowded:
                transport.close()
                return
            self._arm()

        def _idle(self) -> bool:
            """Waiting for a request's headers, none being answered."""
            return (
                self.conn.their_state is h11.IDLE
                and (self.cycle is None or self.cycle.response_complete)
                and not self.transport.is_closing()
            )

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(limits.header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            # Still waiting for (the rest of) a request's headers.
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # headers complete (a request, or the WebSocket upgrade)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._since = time.monotonic()
                self._arm()  # the next request's headers get the same time

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol


def raise_open_files_limit() -> int | None:
    """Raise this process's open-files limit to its hard limit; the new soft limit (``None``
    where the platform has no such limit)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return None if soft == resource.RLIM_INFINITY else int(soft)


class RateLimitFilter(logging.Filter):
    """Let at most ``burst`` alike log lines through per ``window`` seconds.

    Lines are alike when they share a logger, a level and a message template (access lines:
    also the client address, so one abusive client does not hide the others). The first line
    let through after a quiet spell says how many were dropped.
    """

    def __init__(self, burst: int = 20, window: float = 10.0) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self._seen: dict[tuple[Any, ...], list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key: tuple[Any, ...] = (record.name, record.levelno, str(record.msg)[:200])
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and record.args:
            key += (str(record.args[0]).rsplit(":", 1)[0],)
        now = time.monotonic()
        entry = self._seen.get(key)
        if entry is None or now - entry[0] >= self.window:
            dropped = int(entry[2]) if entry is not None else 0
            if len(self._seen) > 10_000:
                self._seen.clear()
            self._seen[key] = [now, 1, 0]
            if dropped:
                note = f" ({dropped} alike lines were not logged)"
                record.msg = f"{record.msg}{note.replace('%', '%%') if record.args else note}"
            return True
        if entry[1] < self.burst:
            entry[1] += 1
            return True
        entry[2] += 1
        return False
