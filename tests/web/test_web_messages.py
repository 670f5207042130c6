"""The wire format (web/messages.py): the protocol version and the view each seat gets."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from webharness import Server, run, table

import nomercy.web
from nomercy.web.messages import PROTOCOL_VERSION

WEB = Path(nomercy.web.__file__).resolve().parent
#: Typed dicts the web builds that are no message to a client: a request a server forwards to
#: the room's owner, which judges it as a client's (web/rooms.py: a ``join`` on another server).
_REQUESTS = {"join"}


def test_the_protocol_version_is_in_meta_and_every_welcome(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "web.sqlite") as server:
            meta = (await server.http.get("/api/meta")).json()
            assert meta["protocol"] == PROTOCOL_VERSION == 2
            created = await server.create(seats=2)
            host = await server.ws(created["code"])
            spectator = await server.ws(created["code"])
            assert (await host.hello(created["token"]))["protocol"] == PROTOCOL_VERSION
            assert (await spectator.hello())["protocol"] == PROTOCOL_VERSION

    run(main)


def test_each_seat_gets_its_player_view_as_json_without_the_engine_bookkeeping(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with Server(tmp_path / "web.sqlite") as server:
            code, clients = await table(server, seats=3)
            await clients[0].send({"type": "start"})
            states = [await c.state(0) for c in clients]
            game = server.room(code).game
            assert game is not None
            for seat, state in enumerate(states):
                view = state["view"]
                assert "engine" not in view
                expected = game.view(seat, history=False).to_json()
                assert {k: v for k, v in view.items() if k != "history"} == {
                    k: v for k, v in expected.items() if k != "history"
                }
                # The first state carries the hand's public history (the deal included).
                assert view["history"] == game.public_history()[-len(view["history"]) :]
                assert view["history"] and state["history_from"] == 0
                assert view["two_player"] is False and view["next_seat"] == game.view(0).next_seat

    run(main)


def _typed_dicts(path: Path) -> list[tuple[int, str]]:
    """Each dict display in ``path`` with a constant ``"type"`` key: (line, its value)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                is_type = isinstance(key, ast.Constant) and key.value == "type"
                if is_type and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.append((node.lineno, value.value))
    return found


@pytest.mark.no_store
def test_every_message_to_a_client_is_built_in_messages_py() -> None:
    # One module owns the wire format (issue 47): elsewhere a typed dict is an ASGI event
    # (a dotted type such as "websocket.close") or a forwarded request, never a message.
    assert any(kind == "error" for _, kind in _typed_dicts(WEB / "messages.py"))
    outside = [
        f"{path.relative_to(WEB)}:{line}: {kind!r}"
        for path in sorted(WEB.rglob("*.py"))
        if path.name != "messages.py"
        for line, kind in _typed_dicts(path)
        if "." not in kind and kind not in _REQUESTS
    ]
    assert outside == []
