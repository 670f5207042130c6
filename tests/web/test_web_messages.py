"""The wire format (web/messages.py): the protocol version and the view each seat gets."""

from __future__ import annotations

from pathlib import Path

from webharness import Server, run, table

from nomercy.web.messages import PROTOCOL_VERSION


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
