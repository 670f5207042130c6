"""The tests' free ports (tests/ports.py) stay out of the kernel's range for client sockets
and never hand out one port twice, so a server started seconds later still finds it free."""

from __future__ import annotations

import socket

import pytest

import ports

pytestmark = pytest.mark.skipif(
    len(ports._BAND) < ports._MIN_BAND + 3,
    reason="this kernel leaves no ports outside its client range (ports falls back to bind(0))",
)


def test_ports_are_outside_the_client_range_and_distinct() -> None:
    low, high = ports._kernel_range()
    handed: list[int] = []
    for span in (1, 2, 1, 3, 1):
        first = ports.free_port(span)
        handed.extend(range(first, first + span))
    assert len(set(handed)) == len(handed), handed
    assert all(not low <= p <= high for p in handed), (handed, low, high)
    assert all(p in ports._BAND for p in handed)


def test_a_bound_port_is_not_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        port = ports.free_port()
        s.bind(("127.0.0.1", port))
        # The next probe starts at the bound port (the cursor is put back after the test).
        monkeypatch.setattr(ports, "_cursor", port - ports._BAND.start)
        assert ports.free_port() != port
