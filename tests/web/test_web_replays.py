"""Replays of long games (issue 43): nothing a game's length can grow runs on the event loop.

A finished game's replay is built once in a worker thread and kept as bytes; an answer carries
one page of steps; each address has a budget of replay requests. In-process tests check the
pages against the engine, the shared build, the cache's budget and the rate limit (on a clock
the test moves); a real server shows another room playing on while eight addresses download
a 1,500-move replay over and over.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from clocks import ManualClock
from longgames import store_long_game
from realserver import real_server, request
from webharness import Server, run
from websockets.asyncio.client import connect

from nomercy.core.records import GameRecord


def test_a_long_replay_comes_a_page_at_a_time_and_matches_the_engine(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    game_id, moves = store_long_game(database, 300)

    async def main() -> None:
        async with Server(database, replay_page=40) as server:
            http = server.http
            head = (await http.get(f"/api/replays/{game_id}")).json()
            assert head["steps_total"] == moves and head["page"] == 40 and head["from"] == 0
            assert len(head["steps"]) == 40 and head["names"] == ["Ann", "Bob"]
            steps = head["steps"]
            while len(steps) < moves:
                page = (await http.get(f"/api/replays/{game_id}?from={len(steps)}")).json()
                assert page == {
                    "id": game_id,
                    "from": len(steps),
                    "steps_total": moves,
                    "steps": page["steps"],
                }
                assert 0 < len(page["steps"]) <= 40
                steps += page["steps"]
            # Every step is the engine's: the action, and each hand after it.
            text = (await http.get(f"/api/replays/{game_id}?format=record")).text
            record = GameRecord.loads(text)
            game = record.start_game()
            assert head["start_frame"]["hands"] == [[c.code for c in h] for h in game.hands]
            for step, action in zip(steps, record.actions, strict=True):
                game.apply(action)
                assert step["action"] == str(game.history[-1])
                assert step["frame"]["hands"] == [[c.code for c in h] for h in game.hands]
            assert game.is_over and head["result"]["winner"] == game.winner
            # The end, a short count, and what is refused (nothing past the end, no big page).
            end = (await http.get(f"/api/replays/{game_id}?from={moves}")).json()
            assert end["steps"] == []
            few = (await http.get(f"/api/replays/{game_id}?from=5&count=3")).json()
            assert few["steps"] == steps[5:8]
            for query in (f"from={moves + 1}", "from=-1", "from=x", "count=0", "count=41"):
                r = await http.get(f"/api/replays/{game_id}?{query}")
                assert r.status_code == 400 and r.json()["error"] == "bad_request", query
            # All of that built the replay once: the rest were its kept bytes.
            assert server.lobby.replays.builds == 1

    run(main)


def test_one_build_serves_every_request_and_the_cache_is_bounded(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    first, _ = store_long_game(database, 200, seed=1)
    second, _ = store_long_game(database, 200, seed=2)

    async def main() -> None:
        async with Server(database) as server:
            # Ten requests at once for a game not built yet: one build, ten same answers.
            answers = await asyncio.gather(
                *(server.http.get(f"/api/replays/{first}") for _ in range(10))
            )
            assert {r.status_code for r in answers} == {200}
            assert len({r.content for r in answers}) == 1
            assert server.lobby.replays.builds == 1
        # A budget that holds one replay: the other one pushes it out.
        async with Server(database) as server:
            replays = server.lobby.replays
            await server.http.get(f"/api/replays/{first}")
            replays.budget = replays.kept_bytes
            await server.http.get(f"/api/replays/{second}")
            assert replays.kept_bytes <= replays.budget
            await server.http.get(f"/api/replays/{first}")
            assert replays.builds == 3
            # An unknown game is not kept (nor built).
            r = await server.http.get("/api/replays/nosuchgame")
            assert r.status_code == 404 and replays.builds == 3

    run(main)


def test_replay_requests_are_budgeted_per_address(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    game_id, _ = store_long_game(database, 100)

    async def main() -> None:
        clock = ManualClock()
        config = {"replays_per_address": 2.0, "replay_burst": 3.0, "clock": clock}
        async with Server(database, **config) as server:
            attacker = server.http_from("127.0.0.3")
            codes = [(await attacker.get(f"/api/replays/{game_id}")).status_code for _ in range(5)]
            assert codes == [200, 200, 200, 429, 429]
            r = await attacker.get(f"/api/replays/{game_id}?format=record")
            assert r.status_code == 429 and r.json()["error"] == "rate_limited"
            assert r.headers["retry-after"] == "1"
            # Another address has its own budget; the attacker's refills at 2 a second.
            victim = server.http_from("127.0.0.4")
            assert (await victim.get(f"/api/replays/{game_id}")).status_code == 200
            clock.advance(0.5)
            assert (await attacker.get(f"/api/replays/{game_id}")).status_code == 200
            assert (await attacker.get(f"/api/replays/{game_id}")).status_code == 429

    run(main)


#: Loopback addresses of the eight clients downloading the replay.
FETCHERS = [f"127.0.0.{n}" for n in range(2, 10)]


def _download(port: int, game_id: str, source: str, rounds: int, answers: list[int]) -> None:
    """Download the whole replay (head, then every page) ``rounds`` times from ``source``,
    waiting out each 429 as its Retry-After says; ``answers`` counts the 200s."""
    for _ in range(rounds):
        start: int | None = None
        total = 1
        while start is None or start < total:
            path = f"/api/replays/{game_id}" + ("" if start is None else f"?from={start}")
            r = request(port, path, source=source, timeout=60)
            if r.status == 429:
                time.sleep(float(r.headers["retry-after"]))
                continue
            assert r.status == 200, r.body
            answers.append(1)
            total = r.body["steps_total"]
            start = r.body["from"] + len(r.body["steps"])


def test_another_room_plays_on_while_a_long_replay_is_downloaded(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    game_id, moves = store_long_game(database, 1500)
    assert moves >= 1500
    with real_server(database) as srv:
        answers: dict[str, list[int]] = {a: [] for a in FETCHERS}
        threads = [
            threading.Thread(target=_download, args=(srv.port, game_id, a, 2, answers[a]))
            for a in FETCHERS
        ]

        async def victim() -> int:
            """Play a room against a bot while the downloads run: the room's moves."""
            created = srv.create(preset="classic", seats=2, bot="greedy")
            played = 0
            async with connect(srv.ws_url(created["code"]), max_size=None) as ws:
                await ws.send(json.dumps({"type": "hello", "token": created["token"]}))
                await ws.send(json.dumps({"type": "start"}))
                for thread in threads:
                    thread.start()
                while any(t.is_alive() for t in threads):
                    msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    if msg["type"] != "state":
                        continue
                    if msg["last"] is not None:
                        played += 1
                    view = msg["view"]
                    if view["phase"] == "over":
                        await ws.send(json.dumps({"type": "start"}))
                    elif view["to_act"] == 0 and msg["legal"]:
                        await ws.send(json.dumps({"type": "action", "action": msg["legal"][0]}))
            return played

        played = asyncio.run(victim())
        for thread in threads:
            thread.join(120)
            assert not thread.is_alive()
        pages = -(-moves // 100)
        # Each address downloaded the whole replay twice, every page of it ...
        assert all(len(a) == 2 * pages for a in answers.values()), answers
        # ... and meanwhile the other room kept moving: the downloads (over 150 answers, each
        # at most a page) cost the event loop little, so moves went on between them.
        assert played >= 20, played
        assert "Traceback" not in srv.log_text()
