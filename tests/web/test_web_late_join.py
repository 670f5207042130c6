"""Late friends (issue 45, point 2): once the game has started, a person with the invite link
takes over a bot's seat at that seat's next decision, announced to the table; the host opens
or closes that (the room's ``late_join``, open by default); the same in a match.

The app runs in the test's event loop (tests/web/webharness.py). A bot that cannot finish its
move until the test lets it shows that a move the bot was working out when the seat changed
hands is dropped: the newcomer makes the seat's decision.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from test_web_game import position
from webharness import Server, run

from nomercy.bots import BOTS
from nomercy.bots.greedy_bot import GreedyBot
from nomercy.core.actions import Action


def test_a_late_friend_takes_over_a_bot_at_its_next_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    class Pondering(GreedyBot):
        name = "pondering"

        def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
            release.wait(10)
            return super().choose_action(view, legal)

    monkeypatch.setitem(BOTS, "pondering", Pondering)

    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            created = await server.create(seats=3, bot="pondering")
            code = created["code"]
            host = await server.ws(code)
            await host.hello(created["token"])
            game = position([["R3", "G2", "G3"], ["R1", "R2", "Y7"], ["B1", "B2"]], discard=["R5"])
            await server.rig(code, game)
            await host.act("play R3")
            assert (await host.state(1))["view"]["to_act"] == 1  # Bot 1 is thinking now
            # Carol comes late: she takes the lowest bot seat still in the hand.
            joined = await server.join(code, "Carol")
            assert joined["seat"] == 1
            taken = await host.expect("seat_taken")
            assert taken == {
                "type": "seat_taken",
                "seat": 1,
                "name": "Carol",
                "was": "Bot 1",
                "playing": True,
            }
            carol = await server.ws(code)
            await carol.hello(joined["token"])
            state = await carol.expect("state")
            assert state["seat"] == 1 and state["view"]["to_act"] == 1
            assert sorted(state["view"]["hand"]) == ["R1", "R2", "Y7"]
            assert "play R1" in state["legal"]
            seats = state["room"]["seats"]
            assert (seats[1]["kind"], seats[1]["name"]) == ("human", "Carol")
            # The bot's move for the seat, worked out meanwhile, is dropped: Carol decides.
            release.set()
            await carol.act("play R2")
            after = await host.state(2)
            assert after["last"] == {"seat": 1, "action": "play R2"}
            room = server.room(code)
            assert room.table is not None and not room.table.robot(1)
            assert room.table.robot(2)  # the other bot plays on

        # The seat is stored as Carol's: a restarted server seats her again.
        async with Server(tmp_path / "db") as server:
            seats = (await server.http.get(f"/api/rooms/{code}")).json()["seats"]
            assert (seats[1]["kind"], seats[1]["name"]) == ("human", "Carol")

    run(main)


def test_the_host_opens_and_closes_the_door_to_late_friends(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            created = await server.create(seats=3, bot="greedy")
            code = created["code"]
            bob = await server.join(code, "Bob")
            host = await server.ws(code)
            welcome = await host.hello(created["token"])
            assert welcome["room"]["late_join"] is True  # open by default
            other = await server.ws(code)
            await other.hello(bob["token"])
            await other.send({"type": "late_join", "on": False})
            assert (await other.error())["code"] == "not_host"
            await host.send({"type": "late_join", "on": "no"})
            assert (await host.error())["code"] == "malformed"
            await host.send({"type": "late_join", "on": False})
            assert (await host.expect("room"))["room"]["late_join"] is False
            await host.send({"type": "start"})
            await host.expect("state")
            r = await server.http.post(f"/api/rooms/{code}/join", json={"name": "Late"})
            assert r.status_code == 409 and r.json()["error"] == "already_started"
            assert "keeps late joiners out" in r.json()["message"]
            await host.send({"type": "late_join", "on": True})
            assert (await host.expect("room"))["room"]["late_join"] is True
            assert (await server.join(code, "Late"))["seat"] == 2
            # No bot left: the next one finds every seat a person's.
            r = await server.http.post(f"/api/rooms/{code}/join", json={"name": "Later"})
            assert r.status_code == 409 and r.json()["error"] == "room_full"
            r = await server.http.post(f"/api/rooms/{code}/join", json={"name": "bob"})
            assert r.status_code == 409

    run(main)


def test_a_late_friend_joins_a_match_and_plays_its_next_hands(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            created = await server.create(
                seats=2, bot="greedy", mode="match", options={"score_target": 500}
            )
            code = created["code"]
            host = await server.ws(code)
            await host.hello(created["token"])
            await host.send({"type": "start"})
            first = await host.expect("state")
            assert first["room"]["mode"] == "match"
            joined = await server.join(code, "Carol")
            assert joined["seat"] == 1
            assert (await host.expect("seat_taken"))["playing"] is True
            room = server.room(code)
            assert room.table is not None and not room.table.robot(1)
            carol = await server.ws(code)
            await carol.hello(joined["token"])
            state = await carol.expect("state")
            assert state["seat"] == 1 and state["view"]["hand"]
            # The match's record still replays: the take-over changed who decides, not the game.
            assert room.game is not None and room.game.n == 2

    run(main)


def test_between_games_a_late_friend_takes_a_bot_seat_for_the_next_game(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            created = await server.create(seats=2, bot="greedy")
            code = created["code"]
            host = await server.ws(code)
            await host.hello(created["token"])
            # Ann goes out with her only card: the game is over, the room waits for the host.
            await server.rig(code, position([["R1"], ["B1", "B2"]], discard=["R5"]))
            await host.act("play R1")
            assert (await host.state(1))["view"]["phase"] == "over"
            joined = await server.join(code, "Carol")
            assert joined["seat"] == 1
            taken = await host.expect("seat_taken")
            assert taken["playing"] is False  # from the next game
            await host.send({"type": "start"})
            state = await host.expect("state")
            assert state["room"]["seats"][1]["kind"] == "human"
            room = server.room(code)
            assert room.table is not None and not room.table.robot(1)

    run(main)
