"""The PostgreSQL store's own checks: migrations, ``nomercy db migrate`` and ``db copy`` (a LAN
server's rooms and replays moved over), bad URLs and unreachable servers (exit 2, one line),
a database of another program, and the budgets that hold across servers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psycopg
import pytest
from webharness import Server, run

from nomercy.cli.main import main
from nomercy.web.postgres import PgStore, migrate_postgres
from nomercy.web.store import SCHEMA_VERSION, StoreError

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
    from nomercy.web.store import Store

    path = tmp_path / "db.sqlite3"
    Store(path).close()
    assert main(["db", "migrate", str(path)]) == 0
    assert f"schema {SCHEMA_VERSION} -> schema {SCHEMA_VERSION}" in capsys.readouterr().out
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
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
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
            for _ in range(400):
                if room.finished:
                    break
                await asyncio.sleep(0.02)
            assert room.finished
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
            assert room is not None and room.finished == [game_id]
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
