"""A frozen server is noticed (issue 43): three servers on PostgreSQL behind a real proxy
running a shipped configuration (deploy/nginx.conf, deploy/Caddyfile), two people in a room
whose sockets the proxy sends (by the room's code) to one server, which owns the room. That
server is stopped with SIGSTOP (a VM pause, a long stall): its lease lapses and another server
takes the room over; the proxy hears nothing from the frozen one for 3 s and closes the
people's sockets; they reconnect, as the page does, and the proxy sends their handshakes,
unanswered, on to another server. The game moves on while the owner is still frozen, and after
SIGCONT nothing is lost or doubled.

CI lets the owner go as soon as the game has moved on; ``--soak`` keeps it stopped for issue
43's 30 s whatever happens (a server thawed long after its leases lapsed). With ``-s`` the test
prints when the game moved on (issue 43: within 10 s of the stop); the time is printed, not
asserted beyond the 30 s (the suite runs under load).
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from caddyproxy import caddy_proxy
from realserver import RealServer, request
from test_web_cluster import GAME_LIMIT, record_of, servers
from test_web_outage import agrees_with_record
from test_web_proxy import proxy
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

pytestmark = pytest.mark.postgres

#: Seconds the owner stays frozen at most (the issue's figure); the test lets it go as soon as
#: the game has moved on without it.
FROZEN = 30.0


class Person:
    """A person whose page reconnects (as room.js does) whenever its socket closes."""

    def __init__(self, port: int, code: str, token: str, seat: int, go: asyncio.Event) -> None:
        self.url = f"ws://127.0.0.1:{port}/ws/{code}"
        self.token = token
        self.seat = seat
        self.states: list[dict[str, Any]] = []
        self.reconnects = 0
        # Cleared: the person thinks (does not act) past move 6, so that the game cannot end
        # before the owner is frozen, however slow the machine (bots alone cannot end it).
        self.go = go

    @property
    def last(self) -> dict[str, Any] | None:
        return self.states[-1] if self.states else None

    async def play(self, start: bool = False) -> None:
        """Play (first legal action on each turn) until the game is over."""
        while True:
            try:
                async with connect(self.url, open_timeout=20) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    if start:
                        await ws.send(json.dumps({"type": "start"}))
                        start = False
                    if await self._turns(ws):
                        return
            except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError):
                pass
            self.reconnects += 1
            await asyncio.sleep(0.5)  # the page's first retry

    async def _turns(self, ws: Any) -> bool:
        acted_at = -1
        while True:
            last = self.last
            if (
                last is not None
                and last["view"]["to_act"] == self.seat
                and last["legal"]
                and last["move"] != acted_at
                and (self.go.is_set() or last["move"] < 6)
            ):
                acted_at = last["move"]
                await ws.send(json.dumps({"type": "action", "action": last["legal"][0]}))
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
            except TimeoutError:
                continue  # the socket is alive (pings); look at the turn again
            if msg["type"] == "error":
                # A bot's catch, or the game's end, may make an action stale; an action sent
                # to a frozen server is sent again after the reconnection.
                assert msg["code"] in ("not_your_turn", "illegal", "not_started", "knocked_out")
                acted_at = -1
                await asyncio.sleep(0.2)  # then act again on the newest state
                continue
            if msg["type"] != "state":
                continue
            self.states.append(msg)
            if msg["view"]["phase"] == "over":
                return True


def _owner(srvs: list[RealServer]) -> RealServer | None:
    """The server playing the room (``None``: none now, e.g. in the moment of a handover)."""
    owners = [s for s in srvs if request(s.port, "/readyz").body["rooms"] == 1]
    assert len(owners) <= 1, [request(s.port, "/readyz").body for s in srvs]
    return owners[0] if owners else None


#: The shipped proxies: deploy/nginx.conf and deploy/Caddyfile.
PROXIES = {"nginx": proxy, "caddy": caddy_proxy}


@pytest.mark.parametrize("shipped", sorted(PROXIES))
def test_a_frozen_owner_is_left_and_the_game_goes_on(
    tmp_path: Path, pg_database: str, soak: int, shipped: str
) -> None:
    with (
        # Bots wait 0.25 s a move, so that the game outlasts the setting up below.
        servers(tmp_path, pg_database, 3, "--ws-ping", "1", "--bot-delay", "0.25") as srvs,
        PROXIES[shipped](*(s.port for s in srvs)) as port,
    ):
        created = request(port, "/api/rooms", {"host_name": "Ann", "seats": 4, "bot": "greedy"})
        assert created.status == 201, created.body
        code = created.body["code"]
        joined = request(port, f"/api/rooms/{code}/join", {"name": "Bob"})
        assert joined.status == 200, joined.body
        go = asyncio.Event()
        ann = Person(port, code, created.body["token"], 0, go)
        bob = Person(port, code, joined.body["token"], 1, go)

        async def main() -> tuple[float, str]:
            tasks = [asyncio.ensure_future(ann.play(start=True)), asyncio.ensure_future(bob.play())]
            deadline = time.monotonic() + GAME_LIMIT
            # Every client of the room on one server (the proxy's hash): the room moves there
            # (HANDOVER_DELAY, 1 s) and stays; wait until its owner has not changed for 3 s.
            owner, since = None, time.monotonic()
            while ann.last is None or ann.last["move"] < 6 or time.monotonic() - since < 3:
                assert time.monotonic() < deadline
                now_owner = _owner(srvs)
                if now_owner is not owner or owner is None:
                    owner, since = now_owner, time.monotonic()
                await asyncio.sleep(0.2)
            assert owner is not None and ann.last["view"]["phase"] != "over"
            before = ann.last["move"]
            owner.proc.send_signal(signal.SIGSTOP)
            frozen = time.monotonic()
            go.set()
            try:
                # The game moves on while the owner is frozen.
                while ann.last["move"] <= before + 1 and not all(t.done() for t in tasks):
                    assert time.monotonic() - frozen < FROZEN, "no move while the owner froze"
                    await asyncio.sleep(0.05)
                waited = time.monotonic() - frozen
                if soak > 1:  # the whole 30 s (the game may end meanwhile)
                    await asyncio.sleep(max(0.0, frozen + FROZEN - time.monotonic()))
            finally:
                owner.proc.send_signal(signal.SIGCONT)
            await asyncio.wait_for(asyncio.gather(*tasks), GAME_LIMIT)
            assert ann.reconnects >= 1 and bob.reconnects >= 1
            return waited, ann.last["game_id"]

        waited, game_id = asyncio.run(main())
        held = FROZEN if soak > 1 else waited
        # pytest -s
        print(f"\nthe game moved on {waited:.2f} s after the owner's SIGSTOP (held {held:.0f} s)")
        record = record_of(port, game_id)
        assert record.replay().is_over
        for person in (ann, bob):
            agrees_with_record(person, record, game_id)  # type: ignore[arg-type]
        logs = "".join(s.log_text() for s in srvs)
        assert "Traceback" not in logs, logs[-4000:]
        assert "the bot plays it" not in logs
