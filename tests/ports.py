"""Free TCP ports for the servers the tests start, chosen where no client socket lands.

A port from ``bind(("127.0.0.1", 0))`` comes from the kernel's ephemeral range, the same range
it draws the local ports of outgoing connections from. Between the probe and the server's own
``bind`` (seconds when PostgreSQL starts first) any connection on the machine may take it: CI
saw a server of the deployment recipe fail with "address already in use" because one of its
own database connections had been given that port. So the ports here come from below (or,
where the range starts too low, above) ``/proc/sys/net/ipv4/ip_local_port_range``, which the
kernel never hands out unasked, and each pytest-xdist worker probes its own band of them, so
two workers never pick the same port either.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

#: Ports below this are left alone: well-known and registered services, and Ray's, whose
#: workers listen on 10002-19999 by default (a Ray head refuses a port in that range).
_LOWEST = 20_000
#: Linux's default ephemeral range, when /proc does not say.
_DEFAULT_RANGE = (32_768, 60_999)
#: A band narrower than this is not worth using: ``bind(0)`` then.
_MIN_BAND = 64


def _kernel_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return _DEFAULT_RANGE


def _band() -> range:
    """This process's ports: outside the ephemeral range, one slice per xdist worker."""
    low, high = _kernel_range()
    below, above = range(_LOWEST, low), range(high + 1, 65_536)
    space = below if len(below) >= len(above) else above
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(worker) if worker.isdigit() else 0
    size = len(space) // max(workers, index + 1)
    return range(space.start + index * size, space.start + (index + 1) * size)


_BAND = _band()
# Where the next probe starts: successive calls hand out different ports (a caller binds them
# later), and the process id spreads the starting points of successive runs.
_cursor = os.getpid()


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(span: int = 1) -> int:
    """A port ``p`` such that ``p`` to ``p + span - 1`` are free now (nobody bound to them)."""
    if len(_BAND) < _MIN_BAND + span:
        for _ in range(50):  # no room outside the ephemeral range: the kernel's choice
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port: int = s.getsockname()[1]
            if all(_is_free(port + i) for i in range(1, span)):
                return port
        raise AssertionError(f"no {span} consecutive free ports")
    global _cursor
    for _ in range(len(_BAND)):
        port = _BAND.start + _cursor % len(_BAND)
        _cursor += 1
        if port + span <= _BAND.stop and all(_is_free(port + i) for i in range(span)):
            _cursor += span - 1  # the next call starts past every port handed out
            return port
    raise AssertionError(f"no {span} consecutive free ports in {_BAND}")
