"""Presence survives a database outage (issue 43): PostgreSQL stopped in immediate mode (as if
it crashed) during games whose people are spread over three servers, and started again after
the servers' leases have run out. Whichever server takes a room over, it hands nobody
connected to any server to the bot: it waits until every live server has said again who it has
in the room. No move is lost or doubled, and each game plays to its end.

CI runs 3 games and a 5 s outage; ``--soak`` runs issue 43's figure: 20 games spread over the
3 servers, PostgreSQL down for 20 s. With ``-s`` it prints how long each game took to make its
next move after PostgreSQL was back (issue 43: within 5 s); the time is printed, not asserted
(the suite runs under load). A private cluster (not the session's: this test stops it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pgcluster import PgCluster, find_bin_dir
from realserver import request
from test_web_cluster import (
    GAME_LIMIT,
    Player,
    record_of,
    room_with_two_people,
    servers,
)
from websockets.exceptions import ConnectionClosed

from nomercy.core.records import GameRecord

pytestmark = pytest.mark.postgres

#: Seconds the database is down: past the servers' lease (3 s), so every room is orphaned and
#: taken over when it comes back; ``--soak``: issue 43's 20 s.
OUTAGE = 5.0
SOAK_OUTAGE = 20.0
#: Games at once, spread over the three servers (``--soak``: issue 43's 20).
GAMES = 3
SOAK_GAMES = 20
#: The grace period the servers run with: a person wrongly thought away would be handed to the
#: bot this soon after a takeover.
GRACE = "1"


@pytest.fixture
def private_cluster() -> Any:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        message = "PostgreSQL's server (initdb, pg_ctl) is not installed"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    # Durable commits: a crash loses no move the servers were told was stored.
    cluster = PgCluster(bin_dir, durable=True)
    try:
        yield cluster
    finally:
        cluster.stop()


class Resumed:
    """When the database came back, the move each game under way had reached then, and how
    long after it each showed its next move (seconds, by game id)."""

    def __init__(self) -> None:
        self.at: float | None = None
        self.moves: dict[str, int] = {}
        self.after: dict[str, float] = {}
        self.over: set[str] = set()  # games seen over

    def saw(self, state: dict[str, Any]) -> None:
        game = state["game_id"]
        if state["view"]["phase"] == "over":
            self.over.add(game)
        if self.at is None or game in self.after or game not in self.moves:
            return
        if state["move"] > self.moves[game]:
            self.after[game] = time.monotonic() - self.at


async def _play(
    player: Player, paused: asyncio.Event, moved: dict[str, int], resumed: Resumed
) -> None:
    """Act whenever it is this seat's turn (not while ``paused``) until the game is over;
    ``moved`` keeps the latest move seen, by game; ``resumed`` when play went on."""
    acted_at = -1
    while True:
        state = player.last
        if state is not None:
            moved[state["game_id"]] = state["move"]
            resumed.saw(state)
            if state["view"]["phase"] == "over":
                return
            mine = state["view"]["to_act"] == player.seat and state["legal"]
            if mine and not paused.is_set() and state["move"] != acted_at:
                acted_at = state["move"]
                await player.ws.send(json.dumps({"type": "action", "action": state["legal"][0]}))
        try:
            msg = await player.recv(0.5)
        except TimeoutError:
            if not paused.is_set():
                acted_at = -1  # an action lost with the database: send it again
            continue
        if msg["type"] == "error":
            # While the database is down a move is refused (nothing changed: sent again);
            # a bot's catch, or the game's end, may make an action stale. Nothing else is.
            assert msg["code"] in (
                "unavailable",
                "not_your_turn",
                "illegal",
                "not_started",
                "knocked_out",
            ), msg
            acted_at = -1


def agrees_with_record(player: Player, record: GameRecord, game_id: str) -> None:
    """No move doubled or lost: the moves the player saw go up one at a time, each as the
    record has it, except where a state reloaded from the database (a server that missed
    notices while the database was down: ``last`` is null) carries it past several; and the
    hand in every state is the one the record gives the seat at that move."""
    states = [s for s in player.states if s["game_id"] == game_id]
    previous, reloaded = 0, False
    for state in states:
        move = state["move"]
        if state["last"] is None:
            assert move >= previous, (move, previous)
        else:
            assert move == previous + 1 or (reloaded and move > previous), (move, previous)
            assert record.actions[move - 1] == state["last"]["action"], move
        previous, reloaded = move, state["last"] is None
    game = record.start_game()
    by_move = {s["move"]: s for s in states}
    for index, text in enumerate([*record.actions, None]):
        state = by_move.get(index)
        if state is not None:
            assert state["view"]["hand"] == [c.code for c in game.hands[player.seat]], index
        if text is not None:
            game.apply(text)


def _away_seen(player: Player) -> list[int]:
    """Seats a person holds that any summary this player saw called away."""
    return [
        s["seat"]
        for state in player.states
        for s in (state.get("room") or {}).get("seats", [])
        if s["kind"] == "human" and s["away"]
    ]


def test_a_database_outage_hands_no_connected_person_to_the_bot(
    tmp_path: Path, private_cluster: PgCluster, soak: int
) -> None:
    count, outage = (SOAK_GAMES, SOAK_OUTAGE) if soak > 1 else (GAMES, OUTAGE)
    limit = GAME_LIMIT * max(1, count // GAMES)  # more games share the same two CPUs
    url = private_cluster.database()
    resumed = Resumed()
    # At info level: "the bot plays it" (checked below) and the takeovers are logged.
    with servers(tmp_path, url, 3, "--grace", GRACE, "--log-level", "info") as srvs:
        rooms = [
            room_with_two_people(srvs[i % 3], srvs[(i + 1) % 3], srvs[(i + 2) % 3])
            for i in range(count)
        ]

        async def main() -> list[tuple[list[Player], str]]:
            people: list[list[Player]] = []
            for i, room in enumerate(rooms):
                ann = await Player.join(srvs[(i + 1) % 3].port, room["code"], room["tokens"][0], 0)
                bob = await Player.join(srvs[(i + 2) % 3].port, room["code"], room["tokens"][1], 1)
                await ann.ws.send(json.dumps({"type": "start"}))
                people.append([ann, bob])
            paused = asyncio.Event()
            moved: dict[str, int] = {}
            tasks = [
                asyncio.ensure_future(_play(p, paused, moved, resumed))
                for pair in people
                for p in pair
            ]
            # Some moves in every game, then the database crashes mid-game.
            deadline = time.monotonic() + limit
            while len(moved) < count or min(moved.values()) < 6:
                assert time.monotonic() < deadline, moved
                await asyncio.sleep(0.05)
            paused.set()
            await asyncio.to_thread(private_cluster.halt)
            await asyncio.sleep(outage)
            await asyncio.to_thread(private_cluster.resume)
            resumed.moves = {g: m for g, m in moved.items() if g not in resumed.over}
            resumed.at = time.monotonic()
            paused.clear()
            try:
                await asyncio.wait_for(asyncio.gather(*tasks), limit)
            except TimeoutError:
                stalled = {
                    (p.seat, last["game_id"], last["move"], last["view"]["to_act"]): p.errors[-3:]
                    for pair in people
                    for p in pair
                    if (last := p.last) is not None and last["view"]["phase"] != "over"
                }
                raise AssertionError(f"games stalled: {moved}; {stalled}") from None
            games = []
            for pair in people:
                last = pair[0].last
                assert last is not None and last["view"]["phase"] == "over"
                games.append((pair, last["game_id"]))
                for p in pair:
                    with contextlib.suppress(ConnectionClosed):
                        await p.ws.close()
            return games

        games = asyncio.run(main())
        after = sorted(resumed.after.values())
        print(
            f"\n{count} games, PostgreSQL down {outage:g} s; the next move after it was back: "
            f"max {after[-1]:.2f} s, median {after[len(after) // 2]:.2f} s "
            f"({len(resumed.moves)} games under way at the outage)"
        )
        # Every game under way moved on after the outage (one may have ended before it).
        assert len(after) == len(resumed.moves) > 0
        logs = "".join(s.log_text() for s in srvs)
        assert "the bot plays it" not in logs, logs[-4000:]
        assert "Traceback" not in logs, logs[-4000:]
        # Every server is ready again once its heartbeat is current (on a loaded machine a
        # heartbeat can be a moment late after the outage: wait for it, boundedly).
        deadline = time.monotonic() + 30
        ready = [request(s.port, "/readyz").status for s in srvs]
        while ready != [200, 200, 200] and time.monotonic() < deadline:
            time.sleep(0.2)
            ready = [request(s.port, "/readyz").status for s in srvs]
        assert ready == [200, 200, 200]
        for players, game_id in games:
            record = record_of(srvs[0].port, game_id)
            assert record.replay().is_over
            for p in players:
                assert _away_seen(p) == [], p.seat
                agrees_with_record(p, record, game_id)


def test_a_server_late_to_renew_its_lease_keeps_its_people(
    tmp_path: Path, pg_database: str
) -> None:
    # A server whose lease lapsed is not gone: after an outage, or under load, its heartbeat is
    # merely late. Ann plays on the room's owner, Bob through the other server, whose lease is
    # made to lapse again and again for 2 s (less than a lease's time, 3 s). The owner keeps
    # Bob's presence all along: with --grace 1 it would otherwise hand him to the bot.
    with servers(tmp_path, pg_database, 2, "--grace", GRACE, "--log-level", "info") as srvs:
        one, two = srvs
        room = room_with_two_people(one, one, two)
        late = request(two.port, "/readyz").body["server"]

        async def main() -> None:
            ann = await Player.join(one.port, room["code"], room["tokens"][0], 0)
            bob = await Player.join(two.port, room["code"], room["tokens"][1], 1)
            await ann.ws.send(json.dumps({"type": "start"}))
            await ann.drain(1.0)  # the game started; everyone announced who is here
            await bob.drain(0.2)
            async with await psycopg.AsyncConnection.connect(pg_database, autocommit=True) as db:
                end = time.monotonic() + 2.0
                while time.monotonic() < end:
                    await db.execute("UPDATE servers SET alive_until = 0 WHERE id = %s", (late,))
                    await asyncio.sleep(0.05)
            await ann.drain(2.0)  # past the grace period, had Bob been taken as gone
            seats = (ann.states[-1].get("room") or {}).get("seats", [])
            assert [s["away"] for s in seats[:2]] == [False, False], seats
            for p in (ann, bob):
                await p.ws.close()

        asyncio.run(main())
        logs = "".join(s.log_text() for s in srvs)
        assert "the bot plays it" not in logs, logs[-4000:]
        assert "Traceback" not in logs, logs[-4000:]


def test_a_room_whose_lease_a_server_holds_without_playing_it_is_played(
    tmp_path: Path, pg_database: str
) -> None:
    # A takeover whose load and release both failed in an outage leaves the room's lease with
    # a live server that never loaded it; no other server claims a live owner's room. Made
    # here by giving the lease to the other server behind its back: its heartbeat must take
    # the room over, and the game goes on.
    with servers(tmp_path, pg_database, 2, "--grace", "30", "--log-level", "info") as srvs:
        one, two = srvs
        room = room_with_two_people(one, one, one)
        other = request(two.port, "/readyz").body["server"]

        async def main() -> None:
            ann = await Player.join(one.port, room["code"], room["tokens"][0], 0)
            bob = await Player.join(one.port, room["code"], room["tokens"][1], 1)
            await ann.ws.send(json.dumps({"type": "start"}))
            await ann.drain(1.0)
            await bob.drain(0.2)
            async with await psycopg.AsyncConnection.connect(pg_database, autocommit=True) as db:
                await db.execute(
                    "UPDATE rooms SET owner = %s WHERE code = %s", (other, room["code"])
                )
            paused, moved = asyncio.Event(), {}  # type: ignore[var-annotated]
            await asyncio.wait_for(
                asyncio.gather(*(_play(p, paused, moved, Resumed()) for p in (ann, bob))),
                GAME_LIMIT,
            )
            for p in (ann, bob):
                await p.ws.close()

        asyncio.run(main())
        logs = two.log_text()
        assert "holds its lease: taking it over" in logs, logs[-4000:]
        assert "Traceback" not in one.log_text() + logs
