"""The web server's HTTP API and its basic WebSocket protocol, through Starlette's TestClient."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from nomercy.cli.main import main
from nomercy.core.records import GameRecord
from nomercy.core.rules import OPTIONS, PRESETS
from nomercy.web import ServerConfig, create_app
from nomercy.web.protocol import MAX_MESSAGE_BYTES


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    # A script acts much faster than a person: no rate limit here (tested on its own below).
    config = ServerConfig(
        database=tmp_path / "server.sqlite3", bot_delay=0.0, rate_capacity=1e6, rate_per_second=1e6
    )
    with TestClient(create_app(config)) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("host_name", "Ann")
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


# ---------------------------------------------------------------------- meta and pages
def test_meta_lists_presets_every_option_bots_and_timers(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert meta["presets"] == list(PRESETS)
    assert [o["name"] for o in meta["options"]] == [spec.name for spec in OPTIONS]
    stack = next(o for o in meta["options"] if o["name"] == "stack_threshold")
    assert stack["rule"] == "A04" and stack["kind"] == "choice"
    assert stack["values"] == ["last_card", "running_total"]
    assert stack["defaults"] == {"no-mercy": "last_card"}
    target = next(o for o in meta["options"] if o["name"] == "score_target")
    assert target["kind"] == "int" and target["minimum"] == 1
    assert {"greedy", "random"} <= set(meta["bots"])
    assert meta["timers"] == [0, 15, 30, 60]
    assert meta["languages"] == ["en", "fi", "ru", "de", "tr"]
    assert meta["min_seats"] == 2 and meta["max_seats_by_preset"] == {"no-mercy": 6, "classic": 10}


def test_bot_levels_are_offered_by_preset_and_a_room_seats_the_level_bot(
    client: TestClient,
) -> None:
    from nomercy.bots.levels import LEVELS, algorithm, level_bot

    meta = client.get("/api/meta").json()
    for preset in PRESETS:
        levels = meta["levels"][preset]
        assert list(levels) == list(LEVELS)
        assert levels == {lv: algorithm(level_bot(lv, preset), preset) for lv in LEVELS}
        assert set(levels.values()) <= set(meta["bots"])  # each a bot the picker also lists
    assert meta["levels"]["no-mercy"]["hard"] == "ismcts"
    # Expert is the table's best: puct in No Mercy, ismcts in classic (BEST_AT)
    assert meta["levels"]["no-mercy"]["expert"] == "puct"
    assert meta["levels"]["classic"]["expert"] == "ismcts"
    # A level is accepted (any case) and the room names the bot it plays here.
    for preset in PRESETS:
        room = create(client, preset=preset, bot="Hard")
        summary = client.get(f"/api/rooms/{room['code']}").json()
        assert summary["bot"] == level_bot("hard", preset)
    room = create(client, bot="easy")
    assert client.get(f"/api/rooms/{room['code']}").json()["bot"] == "greedy"
    # Algorithm names are still accepted as they are.
    room = create(client, bot="random")
    assert client.get(f"/api/rooms/{room['code']}").json()["bot"] == "random"
    r = client.post("/api/rooms", json={"host_name": "Ann", "bot": "grandmaster"})
    assert r.status_code == 400 and r.json()["error"] == "bad_bot"
    assert "a level: easy, medium, hard, expert" in r.json()["message"]


def test_pages_are_served_with_a_strict_content_security_policy(
    tmp_path: Path,
) -> None:
    static = tmp_path / "static"
    static.mkdir()
    for name in ("index.html", "room.html", "replay.html"):
        (static / name).write_text(f"<title>{name}</title>")
    (static / "app.js").write_text("export {};")
    config = ServerConfig(database=tmp_path / "db.sqlite3")
    with TestClient(create_app(config, static_dir=static)) as c:
        for path, name in (("/", "index"), ("/r/ABCDEF", "room"), ("/replay/xyz", "replay")):
            r = c.get(path)
            assert r.status_code == 200 and f"{name}.html" in r.text
            assert "default-src 'self'" in r.headers["content-security-policy"]
            assert r.headers["referrer-policy"] == "no-referrer"
        assert c.get("/static/app.js").text == "export {};"
        assert c.get("/static/nothing.js").status_code == 404


def test_a_missing_client_page_is_a_404_that_says_so(tmp_path: Path) -> None:
    config = ServerConfig(database=tmp_path / "db.sqlite3")
    with TestClient(create_app(config, static_dir=tmp_path / "none")) as c:
        r = c.get("/")
        assert r.status_code == 404 and "not installed" in r.text


# ---------------------------------------------------------------------- creating rooms
def test_create_room_gives_code_token_and_invite(client: TestClient) -> None:
    data = create(
        client,
        name="Friday",
        preset="classic",
        options={"classic_scoring": "lowest_wins", "score_target": 200},
        seats=5,
        bot="random",
        timer=30,
        mode="match",
    )
    assert data["seat"] == 0 and data["invite"] == f"/r/{data['code']}"
    assert len(data["code"]) == 10 and data["code"].isalnum()
    assert len(data["token"]) >= 30
    room = client.get(f"/api/rooms/{data['code']}").json()
    assert room["name"] == "Friday" and room["preset"] == "classic"
    assert room["options"] == {
        "classic_scoring": "lowest_wins",
        "score_target": 200,
        "scoring_enabled": True,
    }
    assert room["mode"] == "match" and room["timer"] == 30 and room["bot"] == "random"
    assert room["started"] is False and room["game_id"] is None
    assert [s["kind"] for s in room["seats"]] == ["human", "open", "open", "open", "open"]
    assert room["seats"][0]["name"] == "Ann" and room["seats"][0]["connected"] is False
    assert data["token"] not in str(room)


def test_codes_and_tokens_differ_between_rooms(client: TestClient) -> None:
    rooms = [create(client) for _ in range(5)]
    assert len({r["code"] for r in rooms}) == 5 and len({r["token"] for r in rooms}) == 5


@pytest.mark.parametrize(
    ("body", "reason", "needle"),
    [
        ([1, 2], "bad_request", "JSON object"),
        ({"host_name": "Ann", "colour": "red"}, "bad_request", "unknown keys"),
        ({}, "bad_name", "host name"),
        ({"host_name": ""}, "bad_name", "1 to 24"),
        ({"host_name": "x" * 25}, "bad_name", "1 to 24"),
        ({"host_name": "A\u0000b"}, "bad_name", "control"),
        ({"host_name": 7}, "bad_name", "string"),
        ({"host_name": "Ann", "name": "r" * 41}, "bad_name", "room name"),
        ({"host_name": "Ann", "preset": "chess"}, "bad_options", "unknown preset"),
        ({"host_name": "Ann", "options": {"nope": 1}}, "bad_options", "unknown option 'nope'"),
        ({"host_name": "Ann", "options": {"stack_threshold": "x"}}, "bad_options", "A04"),
        ({"host_name": "Ann", "options": {"hand_size": 0}}, "bad_options", "hand_size"),
        ({"host_name": "Ann", "options": [1]}, "bad_options", "JSON object"),
        (
            {"host_name": "Ann", "preset": "classic", "options": {"stack_threshold": "last_card"}},
            "bad_options",
            "belongs to preset 'no-mercy'",
        ),
        (
            {"host_name": "Ann", "mode": "hand", "options": {"scoring_enabled": True}},
            "bad_options",
            "scoring_enabled",
        ),
        (
            {"host_name": "Ann", "options": {"hand_size": 40}, "seats": 6},
            "bad_options",
            "cannot deal",
        ),
        ({"host_name": "Ann", "seats": 1}, "bad_seats", "outside 2-6"),
        ({"host_name": "Ann", "seats": 7}, "bad_seats", "outside 2-6"),
        ({"host_name": "Ann", "seats": "4"}, "bad_seats", "integer"),
        ({"host_name": "Ann", "bot": "deep-blue"}, "bad_bot", "valid bots"),
        ({"host_name": "Ann", "timer": 45}, "bad_timer", "[0, 15, 30, 60]"),
        ({"host_name": "Ann", "timer": True}, "bad_timer", "timer"),
        ({"host_name": "Ann", "timer": 30.0}, "bad_timer", "not 30.0"),  # as seats: 4.0
        ({"host_name": "Ann", "mode": "tournament"}, "bad_mode", "mode"),
    ],
)
def test_create_room_rejects_bad_input_naming_the_problem(
    client: TestClient, body: Any, reason: str, needle: str
) -> None:
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"] == reason
    assert needle in r.json()["message"]


def test_create_room_accepts_more_seats_when_max_players_allows(client: TestClient) -> None:
    data = create(client, seats=8, options={"max_players": 8})
    assert len(client.get(f"/api/rooms/{data['code']}").json()["seats"]) == 8


def test_create_room_rejects_a_body_that_is_not_json_or_too_big(client: TestClient) -> None:
    r = client.post("/api/rooms", content=b"{nope", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    r = client.post("/api/rooms", json={"host_name": "Ann", "name": "x" * 20000})
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert "at most" in r.json()["message"]


# ---------------------------------------------------------------------- joining
def test_join_takes_the_lowest_open_seat_until_full(client: TestClient) -> None:
    code = create(client, seats=3)["code"]
    first = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    second = client.post(f"/api/rooms/{code}/join", json={"name": "Cid"}).json()
    assert (first["seat"], second["seat"]) == (1, 2) and first["token"] != second["token"]
    r = client.post(f"/api/rooms/{code}/join", json={"name": "Dee"})
    assert r.status_code == 409 and r.json()["error"] == "room_full"
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [(s["name"], s["kind"]) for s in seats] == [
        ("Ann", "human"),
        ("Bob", "human"),
        ("Cid", "human"),
    ]


def test_join_errors(client: TestClient) -> None:
    r = client.post("/api/rooms/NOSUCHROOM/join", json={"name": "Bob"})
    assert r.status_code == 404 and r.json()["error"] == "unknown_room"
    code = create(client, seats=3)["code"]
    r = client.post(f"/api/rooms/{code}/join", json={"name": "  "})
    assert r.status_code == 400 and r.json()["error"] == "bad_name"
    r = client.post(f"/api/rooms/{code}/join", json=["Bob"])
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    assert client.get("/api/rooms/NOSUCHROOM").status_code == 404


def test_join_after_the_start_takes_a_bot_seat_unless_the_host_closed_it(
    client: TestClient,
) -> None:
    created = create(client, seats=3)
    code = created["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "hello", "token": created["token"]})
        assert ws.receive_json()["type"] == "welcome"
        ws.send_json({"type": "late_join", "on": False})
        # A room message sent for the hello may still be on its way (a loaded machine):
        # the change is seen when a room message carries it.
        while receive_until(ws, "room")["room"]["late_join"] is not False:
            pass
        ws.send_json({"type": "start"})
        receive_until(ws, "state")
        r = client.post(f"/api/rooms/{code}/join", json={"name": "Late"})
        assert r.status_code == 409 and r.json()["error"] == "already_started"
        ws.send_json({"type": "late_join", "on": True})
        while receive_until(ws, "room")["room"]["late_join"] is not True:
            pass
        r = client.post(f"/api/rooms/{code}/join", json={"name": "Late"})
        assert r.status_code == 200 and r.json()["seat"] == 1


# ---------------------------------------------------------------------- WebSocket basics
def receive_until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] == kind:
            return msg


def test_websocket_hello_start_and_play_a_whole_game_against_bots(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    created = create(client, seats=3, bot="random")
    code = created["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "hello", "token": created["token"]})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        assert welcome["room"]["seats"][0]["connected"] is True
        ws.send_json({"type": "start"})
        state = receive_until(ws, "state")
        assert state["move"] == 0 and state["last"] is None and state["events"] == []
        assert [e["kind"] for e in state["view"]["history"]][:1] == ["deal"]
        assert [s["kind"] for s in state["room"]["seats"]] == ["human", "bot", "bot"]
        assert state["room"]["started"] is True and len(state["view"]["hand"]) == 7
        moves = 0
        while state["view"]["phase"] != "over":
            if state["view"]["to_act"] == 0 and state["legal"]:
                # Send every legal action: the first is played, later ones are stale.
                ws.send_json({"type": "action", "action": state["legal"][-1]})
            state = receive_until(ws, "state")
            assert state["move"] > moves and state["view"]["history"] == []
            moves = state["move"]
        assert state["legal"] == [] and state["timer"] is None
        game_id = state["game_id"]
    room = client.get(f"/api/rooms/{code}").json()
    assert room["started"] is False and room["finished_games"] == [game_id]
    replay = client.get(f"/api/replays/{game_id}").json()
    assert replay["steps_total"] == moves and replay["seats"] == ["human", "random", "random"]
    # The first page comes with the head; the others a page at a time.
    steps = replay["steps"]
    assert replay["from"] == 0 and len(steps) == min(moves, replay["page"])
    while len(steps) < moves:
        page = client.get(f"/api/replays/{game_id}?from={len(steps)}").json()
        assert page["from"] == len(steps) and page["steps_total"] == moves
        assert 0 < len(page["steps"]) <= replay["page"]
        steps += page["steps"]
    assert len(steps) == moves and steps[-1]["frame"]["phase"] == "over"
    assert all(len(h) == n for h, n in zip(replay["start_frame"]["hands"], [7, 7, 7], strict=True))
    text = client.get(f"/api/replays/{game_id}?format=record").text
    record = GameRecord.loads(text)
    assert str(record.seed) == replay["seed"] and len(record.actions) == moves
    assert record.replay().is_over and record.replay().winner == replay["result"]["winner"]
    # `nomercy replay` narrates the exported record.
    path = tmp_path / "game.json"
    path.write_text(text)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"seed {record.seed}; {moves} actions" in out and "Result: " in out


def test_unknown_room_socket_gets_an_error_and_is_closed(client: TestClient) -> None:
    with client.websocket_connect("/ws/NOSUCHROOM") as ws:
        assert ws.receive_json()["code"] == "unknown_room"
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 4404


def test_a_socket_from_another_site_is_refused(client: TestClient) -> None:
    code = create(client)["code"]
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws/{code}", headers={"origin": "https://evil.example"}) as ws,
    ):
        ws.receive_json()


def test_join_and_replays_refuse_what_they_do_not_know(client: TestClient) -> None:
    code = create(client)["code"]
    r = client.post(f"/api/rooms/{code}/join", json={"name": "Bo", "nmae": "x"})
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    assert "unknown keys ['nmae']" in r.json()["message"]
    r = client.get("/api/replays/nosuchgame?format=xml")
    assert r.status_code == 400 and "not a replay format" in r.json()["message"]


def test_another_sites_page_may_not_create_or_join_rooms(client: TestClient) -> None:
    # A text/plain POST needs no preflight: the server itself refuses another site's page.
    code = create(client)["code"]
    for headers in (
        {"origin": "https://evil.example", "sec-fetch-site": "cross-site"},
        {"origin": "https://evil.example"},
        {"sec-fetch-site": "cross-site"},
    ):
        r = client.post("/api/rooms", content='{"host_name": "M"}', headers=headers)
        assert r.status_code == 403 and r.json()["error"] == "bad_request", headers
        r = client.post(f"/api/rooms/{code}/join", json={"name": "M"}, headers=headers)
        assert r.status_code == 403, headers
    # This server's pages (Origin null: they send no referrer) and non-browser clients may.
    ours = {"origin": "null", "sec-fetch-site": "same-origin"}
    assert client.post("/api/rooms", json={"host_name": "A"}, headers=ours).status_code == 201
    assert client.post("/api/rooms", json={"host_name": "B"}).status_code == 201
    host = {"origin": "http://testserver"}
    assert client.post("/api/rooms", json={"host_name": "C"}, headers=host).status_code == 201


def test_a_huge_value_is_not_quoted_back_in_full(client: TestClient) -> None:
    r = client.post("/api/rooms", json={"host_name": "A", "seats": int("9" * 4000)})
    assert r.status_code == 400 and len(r.json()["message"]) <= 300


def test_an_origin_that_is_not_a_url_is_another_site(client: TestClient) -> None:
    # "http://[" makes urlsplit raise: it is refused as a foreign page, not a server error.
    code = create(client)["code"]
    for origin in ("http://[", "http://[::1"):
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(f"/ws/{code}", headers={"origin": origin}) as ws,
        ):
            ws.receive_json()
        r = client.post(
            "/rooms",
            content="host_name=Ann",
            headers={"content-type": "application/x-www-form-urlencoded", "origin": origin},
        )
        assert r.status_code == 400 and "own page" in r.text


def test_protocol_errors_keep_the_connection_usable(client: TestClient) -> None:
    created = create(client, seats=2)
    code = created["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:

        def error_for(payload: Any) -> dict[str, Any]:
            if isinstance(payload, str):
                ws.send_text(payload)
            else:
                ws.send_json(payload)
            msg = receive_until(ws, "error")
            assert msg["message"]
            return msg

        assert error_for("{not json")["code"] == "malformed"
        assert error_for("[1, 2]")["code"] == "malformed"
        assert error_for({"kind": "hello"})["code"] == "malformed"
        assert error_for({"type": 3})["code"] == "malformed"
        assert error_for({"type": "dance"})["code"] == "unknown_type"
        assert error_for({"type": "next_hand"})["code"] == "unknown_type"
        assert error_for({"type": "start"})["code"] == "hello_first"
        assert error_for({"type": "action", "action": "draw"})["code"] == "hello_first"
        assert error_for({"type": "hello", "token": 12})["code"] == "malformed"
        assert error_for({"type": "hello", "token": "forged"})["code"] == "bad_token"
        big = {"type": "ping", "pad": "x" * MAX_MESSAGE_BYTES}
        assert error_for(big)["code"] == "too_large"
        # A spectator now:
        ws.send_json({"type": "hello"})
        assert receive_until(ws, "welcome")["seat"] is None
        assert error_for({"type": "start"})["code"] == "spectator"
        assert error_for({"type": "action", "action": "draw"})["code"] == "spectator"
        # ... then the host, on the same connection.
        ws.send_json({"type": "hello", "token": created["token"]})
        assert receive_until(ws, "welcome")["seat"] == 0
        assert error_for({"type": "action", "action": "draw"})["code"] == "not_started"
        assert error_for({"type": "action", "action": 7})["code"] == "malformed"
        ws.send_json({"type": "ping"})
        assert receive_until(ws, "pong") == {"type": "pong"}


def test_rate_limit_answers_then_closes_a_flood(tmp_path: Path) -> None:
    config = ServerConfig(
        database=tmp_path / "db.sqlite3", rate_capacity=3, rate_per_second=0.001, abuse_limit=5
    )
    with TestClient(create_app(config)) as c:
        code = create(c)["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            for _ in range(3):
                ws.send_json({"type": "ping"})
                assert ws.receive_json() == {"type": "pong"}
            for _ in range(4):
                ws.send_json({"type": "ping"})
                assert ws.receive_json()["code"] == "rate_limited"
            ws.send_json({"type": "ping"})  # the fifth in a row: abuse
            with pytest.raises(WebSocketDisconnect) as info:
                ws.receive_json()
            assert info.value.code == 1008


def test_a_huge_frame_closes_the_connection(client: TestClient) -> None:
    code = create(client)["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_text("x" * 70000)
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 1009


def test_replays_of_unknown_or_unfinished_games_are_404(client: TestClient) -> None:
    r = client.get("/api/replays/nope")
    assert r.status_code == 404 and r.json()["error"] == "unknown_game"
    created = create(client, seats=2)
    with client.websocket_connect(f"/ws/{created['code']}") as ws:
        ws.send_json({"type": "hello", "token": created["token"]})
        ws.send_json({"type": "start"})
        state = receive_until(ws, "state")
        r = client.get(f"/api/replays/{state['game_id']}")
        assert r.status_code == 404  # a game in progress shows no hands


def test_a_sandboxed_page_with_a_null_origin_is_refused(client: TestClient) -> None:
    code = create(client)["code"]
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws/{code}", headers={"origin": "null"}) as ws,
    ):
        ws.receive_json()


def test_a_page_of_this_host_may_connect(client: TestClient) -> None:
    code = create(client)["code"]
    with client.websocket_connect(f"/ws/{code}", headers={"origin": "http://testserver"}) as ws:
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
