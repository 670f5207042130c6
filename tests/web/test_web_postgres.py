"""The PostgreSQL store's own checks: migrations, ``nomercy db migrate`` and ``db copy`` (a LAN
server's rooms and replays moved over), bad URLs and unreachable servers (exit 2, one line),
a database of another program, and the budgets that hold across servers."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import psycopg
import pytest
from webharness import Server, run

import nomercy
from nomercy.cli.main import main
from nomercy.core.records import GameRecord
from nomercy.web.postgres import MIGRATIONS, SCHEMA_VERSION, PgStore, migrate_postgres
from nomercy.web.sqlcore import LeaseLost, RoomRow, SeatRow, StoreError

pytestmark = pytest.mark.postgres


def test_migrate_makes_the_schema_once(
    pg_database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "migrate", pg_database]) == 0
    assert capsys.readouterr().out.strip().endswith(f"empty -> schema {SCHEMA_VERSION}")
    assert main(["db", "migrate", pg_database]) == 0
    assert f"schema {SCHEMA_VERSION} -> schema {SCHEMA_VERSION}" in capsys.readouterr().out
    assert migrate_postgres(pg_database) == (SCHEMA_VERSION, SCHEMA_VERSION)


def test_migrate_a_sqlite_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nomercy.web import store
    from nomercy.web.store import Store

    path = tmp_path / "db.sqlite3"
    Store(path).close()
    assert main(["db", "migrate", str(path)]) == 0
    version = store.SCHEMA_VERSION  # SQLite's own: no cluster tables
    assert f"schema {version} -> schema {version}" in capsys.readouterr().out
    assert main(["db", "migrate", str(tmp_path / "none.sqlite3")]) == 2
    assert "no database" in capsys.readouterr().err


def test_a_newer_or_foreign_database_is_refused(pg_database: str) -> None:
    with psycopg.connect(pg_database, autocommit=True) as db:
        db.execute("CREATE TABLE orders (id INTEGER)")
    with pytest.raises(StoreError, match="not a nomercy server database"):
        PgStore(pg_database)


def test_bad_urls_and_unreachable_servers_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], pg_cluster: object
) -> None:
    from ports import free_port

    dead = free_port()
    cases = [
        (f"postgresql://nomercy@127.0.0.1:{dead}/x", "cannot connect"),
        ("postgresql://nomercy@127.0.0.1:notaport/x", 'invalid integer value "notaport"'),
        ("mysql://x@y/z", "SQLite file or a postgresql:// URL"),
    ]
    for url, text in cases:
        assert main(["serve", "--database", url]) == 2
        err = capsys.readouterr().err
        assert text in err and err.count("\n") == 1, err
    assert main(["db", "migrate", cases[0][0]]) == 2
    err = capsys.readouterr().err
    assert "cannot connect" in err and err.count("\n") == 1


def test_db_copy_moves_rooms_and_replays_over(
    tmp_path: Path, pg_database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lan.sqlite3"

    async def lan() -> tuple[str, str, list[str]]:
        async with Server(path, seed_source=lambda: 5) as server:
            created = await server.create(seats=2, bot="greedy")
            code = created["code"]
            room = server.room(code)
            async with room.lock:
                room.seats[0].kind, room.seats[0].bot = "bot", "greedy"  # bots play it out
                await room.start_game()
            # The bots play it out, each move stored: the bound only catches a hang (a
            # loaded machine takes many times the second or two it takes alone).
            end = asyncio.get_running_loop().time() + 120
            while not room.finished:
                assert asyncio.get_running_loop().time() < end, "the game did not end"
                await asyncio.sleep(0.02)
            game_id = room.finished[0]
            row = server.lobby.store.load_game(game_id)
            assert row is not None
            return code, game_id, row.record.actions

    code, game_id, actions = asyncio.run(lan())
    assert main(["db", "copy", str(path), pg_database]) == 0
    out = capsys.readouterr().out
    assert "1 rooms" in out and f"{len(actions)} actions" in out

    async def cloud() -> None:
        async with Server(pg_database) as server:
            room = await server.lobby.find(code)
            assert room is not None and list(room.finished) == [game_id]
            r = await server.http.get(f"/api/replays/{game_id}?format=record")
            assert r.status_code == 200 and r.json()["actions"] == actions

    run(cloud)
    # A second copy would duplicate the rooms: refused, nothing copied.
    assert main(["db", "copy", str(path), pg_database]) == 2
    assert "holds rooms of" in capsys.readouterr().err


def test_room_budgets_hold_across_servers(pg_database: str) -> None:
    async def main_() -> None:
        async with (
            Server(pg_database, rooms_per_hour=3, max_rooms=5) as one,
            Server(pg_database, rooms_per_hour=3, max_rooms=5) as two,
        ):
            statuses = []
            for server in (one, two, one, two):
                r = await server.http.post("/api/rooms", json={"host_name": "Ann"})
                statuses.append(r.status_code)
            assert statuses == [201, 201, 201, 429]  # one address, both servers: 3 an hour
            one.lobby.config.rooms_per_hour = two.lobby.config.rooms_per_hour = 0
            for server in (one, two):
                assert (
                    await server.http.post("/api/rooms", json={"host_name": "B"})
                ).status_code == 201
            r = await two.http.post("/api/rooms", json={"host_name": "C"})
            assert r.status_code == 503 and r.json()["error"] == "server_full"  # 5 open in all

    run(main_)


# ---------------------------------------------------------------------- leases per server
def _room(code: str) -> RoomRow:
    seats = [SeatRow(0, "Ann", "person", None, "h0"), SeatRow(1, None, "bot", "greedy", None)]
    return RoomRow(code, "t", "no_mercy", {}, 2, "greedy", 0, "casual", time.time(), None, seats)


def _game(store: PgStore, code: str) -> str:
    game_id = f"{code}-1"
    record = GameRecord.from_game(nomercy.new_game(2, seed=3))
    store.start_game(code, game_id, 1, record, _room(code).seat_rows)
    return game_id


def test_a_lapsed_server_cannot_write_a_room_another_claimed(pg_database: str) -> None:
    one = PgStore(pg_database, server_id="one")
    two = PgStore(pg_database, server_id="two")
    try:
        alive, owned = one.heartbeat(30.0)
        assert alive == {"one"} and owned == set()
        one.create_room(_room("AAAA"))
        one.create_room(_room("BBBB"))
        game = _game(one, "AAAA")
        one.append_action(game, 0, "s0 draw", room="AAAA")
        assert one.heartbeat(30.0)[1] == {"AAAA", "BBBB"}
        # While the owner's lease runs, nobody else may take its rooms.
        assert two.heartbeat(30.0)[0] == {"one", "two"}
        assert two.claim(10) == [] and two.owner("AAAA") == "one"
        one.heartbeat(0.5)  # its last heartbeat; then it is paused past that lease
        time.sleep(0.6)
        # A server whose own lease ran out claims nothing, its own dead rooms neither (they
        # would be a dead server's to the others: issue 43); its heartbeat comes first.
        assert one.claim(10) == []
        assert two.heartbeat(5.0)[0] == {"two"} and two.owner("AAAA") is None
        assert sorted(two.claim(10)) == ["AAAA", "BBBB"]
        # one comes back and renews its lease: every write of the claimed rooms is refused,
        # whatever its path (one statement, a batch, a seat), and nothing was written.
        alive, owned = one.heartbeat(5.0)
        assert alive == {"one", "two"} and owned == set()
        with pytest.raises(LeaseLost):
            one.append_action(game, 1, "s1 draw", room="AAAA")
        lone = one.run_batch(  # a move alone: one statement
            [lambda: one.append_action(game, 1, "s1 draw", room="AAAA", notice="{}")]
        )
        batch = one.run_batch(  # queued together: one transaction
            [
                lambda: one.append_action(game, 1, "s1 draw", room="AAAA", notice="{}"),
                lambda: one.update_seat("BBBB", SeatRow(1, "Bo", "person", None, "h1")),
            ]
        )
        for ok, error in lone + batch:
            assert not ok and isinstance(error, LeaseLost)
        with pytest.raises(LeaseLost):
            one.update_seat("BBBB", SeatRow(1, "Bo", "person", None, "h1"))
        row = two.load_game(game)
        assert row is not None and row.record.actions == ["s0 draw"]
        assert two.load_room("BBBB").seat_rows[1].name is None  # type: ignore[union-attr]
        # The new owner writes; a move index stored twice is refused, never a second copy.
        two.append_action(game, 1, "s1 draw", room="AAAA")
        with pytest.raises(LeaseLost, match="stored already"):
            two.append_action(game, 1, "s1 play", room="AAAA")
        ((ok, error),) = two.run_batch(
            [lambda: two.append_action(game, 1, "s1 play", room="AAAA", notice="{}")]
        )
        assert not ok and isinstance(error, LeaseLost) and "stored already" in str(error)
        # The same move again (an attempt whose commit committed though its answer was lost,
        # issue 43) is stored: no error, whatever the path, and one copy.
        two.append_action(game, 1, "s1 draw", room="AAAA")
        again = two.run_batch(
            [lambda: two.append_action(game, 1, "s1 draw", room="AAAA", notice="{}")]
        ) + two.run_batch(
            [
                lambda: two.append_action(game, 1, "s1 draw", room="AAAA", notice="{}"),
                lambda: two.update_seat("BBBB", SeatRow(1, None, "open", None, None)),
            ]
        )
        assert [ok for ok, _ in again] == [True, True, True]
        assert two.load_game(game).record.actions == ["s0 draw", "s1 draw"]  # type: ignore[union-attr]
        # Giving one room up keeps the server's lease (its row) for the others.
        assert two.release(["BBBB"]) == ["BBBB"]
        assert one.owner("AAAA") == "two" and one.claim(10) == ["BBBB"]
        assert one.claim(10, "AAAA") == []
        # Stopping ends the lease: the rooms go at once.
        assert two.release() == ["AAAA"]
        assert one.claim(10) == ["AAAA"]
    finally:
        one.close()
        two.close()


def test_a_heartbeat_renews_one_row_whatever_the_rooms(pg_database: str) -> None:
    store = PgStore(pg_database, server_id="one")
    codes = {f"R{i:03d}" for i in range(30)}
    try:
        for code in sorted(codes):
            store.create_room(_room(code))
        with psycopg.connect(pg_database, autocommit=True) as db:

            def versions(table: str) -> list[tuple[str, str]]:
                # xmin: the transaction that wrote the row's current version.
                return db.execute(
                    f"SELECT xmin::text, ctid::text FROM {table} ORDER BY 1, 2"
                ).fetchall()

            store.heartbeat(3.0)
            rooms, servers = versions("rooms"), versions("servers")
            for _ in range(3):
                assert store.heartbeat(3.0)[1] == codes
            assert versions("rooms") == rooms  # no room's row was written
            assert versions("servers") != servers
    finally:
        store.close()


def test_migrating_from_schema_3_keeps_the_old_servers_rooms(pg_database: str) -> None:
    # A schema-3 database with a room owned by a server of that version, still running.
    with psycopg.connect(pg_database, autocommit=True) as db:
        for statement in MIGRATIONS[3].split(";"):
            if statement.strip():
                db.execute(statement.encode())
        db.execute("INSERT INTO meta VALUES ('schema', '3')")
        db.execute(
            "INSERT INTO rooms (code, name, preset, options, seats, bot, timer, mode, created, "
            "hints, owner, lease) VALUES ('OLD1', 't', 'no_mercy', '{}', 2, 'greedy', 0, "
            "'casual', 1.0, 1, 'old', extract(epoch from now()) + 3)"
        )
        db.execute("INSERT INTO servers VALUES ('old', 1.0, extract(epoch from now()))")
    assert main(["db", "migrate", pg_database]) == 0
    assert migrate_postgres(pg_database) == (SCHEMA_VERSION, SCHEMA_VERSION)
    new = PgStore(pg_database, server_id="new")
    try:
        # The old server heartbeats ``beat`` only: alive while that is recent.
        assert new.heartbeat(30.0)[0] == {"old", "new"}
        assert new.claim(10) == [] and new.owner("OLD1") == "old"
        new.create_room(_room("NEW1"))
        # An old server reads ``rooms.lease``: the new owner's lease runs forever for it, so
        # it forwards to the owner and never claims the room.
        lease = new.db.execute("SELECT lease FROM rooms WHERE code='NEW1'").fetchone()
        assert lease is not None and lease[0] == float("inf")
        new.db.execute("UPDATE servers SET beat = beat - 10 WHERE id='old'")  # it died
        assert new.claim(10) == ["OLD1"]
    finally:
        new.close()
