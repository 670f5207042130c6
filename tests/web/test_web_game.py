"""Playing over the WebSocket: every action type, errors, timer, bots, take-over, spectators.

Games start from positions (``Server.rig``) so that each test reaches the decision it checks.
The app runs in the test's event loop (tests/web/webharness.py), with bots acting at once.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from clocks import ManualClock
from webharness import Server, WsClient, run, table

from nomercy.bots import BOTS
from nomercy.bots.greedy_bot import GreedyBot
from nomercy.core.actions import Action
from nomercy.core.game import Game
from nomercy.core.records import GameRecord
from nomercy.web.rooms import Connection, ServerConfig


def position(hands: list[list[str]], **extra: Any) -> Game:
    players = [{"name": name, "hand": hand} for name, hand in zip(NAMES, hands, strict=False)]
    for seat in extra.pop("out", ()):
        players[seat]["out"] = True
    return Game.from_position({"players": players, "turn": 0, **extra})


NAMES = ["Ann", "Bob", "Cid", "Dee"]


async def rigged(
    server: Server, game: Game, **room: Any
) -> tuple[str, list[WsClient], list[dict[str, Any]]]:
    """A room of people only, started from ``game``; returns each seat's first state."""
    code, clients = await table(server, seats=game.n, **room)
    await server.rig(code, game)
    firsts = [await c.expect("state") for c in clients]
    return code, clients, firsts


async def state_after(client: WsClient, move: int) -> dict[str, Any]:
    return await client.state(move)


# ---------------------------------------------------------------------- action types
def test_seven_swaps_with_the_named_seat_and_only_the_two_learn_the_hands(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position([["R7", "W+6", "G1"], ["B1", "B2", "Y9"], ["Y5", "Y6"]], discard=["R5"])
            _, (ann, bob, cid), firsts = await rigged(server, game)
            assert "play R7 2" in firsts[0]["legal"] and firsts[1]["legal"] == []
            await ann.act("play R7 2")
            a, b, c = [await state_after(x, 1) for x in (ann, bob, cid)]
            assert sorted(a["view"]["hand"]) == ["Y5", "Y6"]
            assert sorted(c["view"]["hand"]) == ["G1", "W+6"]
            assert b["view"]["hand"] == ["B1", "B2", "Y9"]
            assert a["last"] == {"seat": 0, "action": "play R7 2"}
            swap = next(e for e in b["events"] if e["kind"] == "swap")
            assert swap["target"] == 2 and "cards" not in swap
            # The two who swapped know what the other now holds (NM-31); Bob does not.
            assert sorted(a["view"]["known"]["2"]) == ["G1", "W+6"]
            assert sorted(c["view"]["known"]["0"]) == ["Y5", "Y6"]
            assert b["view"]["known"] == {}
            assert b["view"]["to_act"] == 1 and b["legal"]

    run(main)


def test_wild_with_colour_then_the_penalty_is_absorbed_by_draw(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position(
                [["W+6", "G1", "G2"], ["B1", "B2"], ["Y5", "Y6"]],
                discard=["R5"],
                draw_pile=["R1", "R2", "R3", "R4", "G6", "G7"],
            )
            _, (ann, bob, cid), _ = await rigged(server, game)
            await ann.act("play W+6 green")  # any notation the engine reads
            b = await state_after(bob, 1)
            assert b["view"]["colour"] == "G" and b["view"]["pending"]["total"] == 6
            assert b["legal"] == ["draw"] and b["last"]["action"] == "play W+6 G"
            await bob.act("draw")
            b = await state_after(bob, 2)
            c = await state_after(cid, 2)
            absorb = next(e for e in b["events"] if e.get("count") == 6)
            assert absorb["cards"] == ["R1", "R2", "R3", "R4", "G6", "G7"]
            seen = next(e for e in c["events"] if e["kind"] == absorb["kind"])
            assert "cards" not in seen and "R1" not in seen["text"]
            assert len(b["view"]["hand"]) == 8 and c["view"]["to_act"] == 2

    run(main)


def test_draw_until_playable_then_play_the_drawn_card(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position(
                [["G4", "Y7"], ["B1", "B5"], ["Y5", "Y6"]], discard=["B8"], draw_pile=["R3", "B2"]
            )
            _, (ann, bob, _), firsts = await rigged(server, game)
            assert firsts[0]["legal"] == ["draw"]
            await ann.act("draw")
            a = await state_after(ann, 1)
            assert a["view"]["phase"] == "play_drawn" and a["view"]["drawn"] == "B2"
            assert a["legal"] == ["play B2"]
            b = await state_after(bob, 1)
            assert b["view"]["drawn"] is None and "B2" not in str(b["events"])
            await ann.act("play B2")
            assert (await state_after(bob, 2))["view"]["top"] == "B2"

    run(main)


def test_classic_draw_then_keep_with_pass(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = Game.from_position(
                {
                    "rules": "classic",
                    "players": [{"hand": ["G4", "Y7"]}, {"hand": ["B1"]}, {"hand": ["Y5"]}],
                    "turn": 0,
                    "discard": ["B8"],
                    "draw_pile": ["B7"],
                }
            )
            _, (ann, _, _), _ = await rigged(server, game, preset="classic")
            await ann.act("draw")
            a = await state_after(ann, 1)
            assert set(a["legal"]) >= {"pass", "play B7"}
            await ann.act("pass")
            a = await state_after(ann, 2)
            assert sorted(a["view"]["hand"]) == ["B7", "G4", "Y7"] and a["view"]["to_act"] == 1

    run(main)


def test_roulette_victim_names_the_colour_and_the_reveal_is_public(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position(
                [["WCR", "R9", "G1"], ["B1", "B2"], ["Y5", "Y6"]],
                discard=["R5"],
                draw_pile=["Y1", "B7", "G2"],
            )
            _, (ann, bob, cid), _ = await rigged(server, game)
            await ann.act("play WCR")
            b = await state_after(bob, 1)
            assert b["legal"] == ["colour R", "colour Y", "colour G", "colour B"]
            await cid.act("colour G")
            assert (await cid.error())["code"] == "not_your_turn"
            await bob.act("colour G")
            c = await state_after(cid, 2)
            reveal = next(e for e in c["events"] if e["kind"] == "reveal")
            assert reveal["cards"] == ["Y1", "B7", "G2"]  # NM-30: public
            assert c["view"]["known"]["1"] == ["Y1", "B7", "G2"]

    run(main)


def test_uno_with_the_play_out_of_turn_and_a_catch(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position(
                [["R9", "G1"], ["R1", "B2", "B3"], ["R2", "Y6", "Y7"]],
                discard=["R5"],
                draw_pile=["Y1", "B7", "G2", "G3"],
            )
            _, (ann, bob, cid), firsts = await rigged(server, game)
            assert firsts[0]["legal"] == ["play R9", "play R9 uno"]
            await ann.act("play R9")  # forgets UNO (NM-37)
            c = await state_after(cid, 1)
            assert c["legal"] == ["2:catch 0"]  # out of turn: Bob is to act
            a = await state_after(ann, 1)
            assert "0:uno" in a["legal"]
            await cid.act("2:catch 0")
            a = await state_after(ann, 2)
            b = await state_after(bob, 2)
            catch = next(e for e in a["events"] if e["kind"] == "catch")
            assert catch["cards"] == ["Y1", "B7"] and sorted(a["view"]["hand"]) == [
                "B7",
                "G1",
                "Y1",
            ]
            assert "cards" not in next(e for e in b["events"] if e["kind"] == "catch")
            await ann.act("0:uno")  # no longer on offer
            assert (await ann.error())["code"] == "illegal"
            # Play goes on: Bob, then Cid (three cards each, no UNO to call), then Ann.
            await bob.act("play R1")
            await state_after(cid, 3)
            await cid.act("play R2")
            a = await state_after(ann, 4)
            assert a["view"]["to_act"] == 0

    run(main)


def test_uno_called_out_of_turn_after_the_play(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position([["R9", "G1"], ["R1", "B2", "B3"], ["R2", "Y6", "Y7"]], discard=["R5"])
            _, (ann, bob, cid), _ = await rigged(server, game)
            await ann.act("play R9")
            await state_after(ann, 1)
            await ann.act("uno")  # without the prefix: the connection's seat
            c = await state_after(cid, 2)
            assert c["last"] == {"seat": 0, "action": "0:uno"}
            assert c["view"]["players"][0]["uno"] is True and c["legal"] == []
            b = await state_after(bob, 2)
            assert b["view"]["to_act"] == 1

    run(main)


def test_classic_challenge_shows_the_hand_to_the_challenger_only(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = Game.from_position(
                {
                    "rules": "classic",
                    "players": [
                        {"hand": ["W+4", "R2", "G5"]},
                        {"hand": ["B1", "B2"]},
                        {"hand": ["Y5", "Y6"]},
                    ],
                    "turn": 0,
                    "discard": ["R5"],
                }
            )
            _, (ann, bob, cid), _ = await rigged(server, game, preset="classic")
            await ann.act("play W+4 B")
            b = await state_after(bob, 1)
            assert b["legal"] == ["challenge", "draw"]
            await bob.act("challenge")
            b = await state_after(bob, 2)
            c = await state_after(cid, 2)
            shown = next(e for e in b["events"] if e["kind"] == "reveal_hand")
            assert shown["hand"] == ["R2", "G5"]
            hidden = next(e for e in c["events"] if e["kind"] == "reveal_hand")
            assert "hand" not in hidden and "R2" not in hidden["text"]
            assert b["view"]["players"][0]["hand_size"] == 6  # guilty (held red): drew 4

    run(main)


# ---------------------------------------------------------------------- refusals
def test_refused_actions_change_nothing_and_keep_the_connection(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position([["R9"], ["B1", "B2"], []], discard=["R5"], out=[2])
            code, (ann, bob, cid), firsts = await rigged(server, game)
            room = server.room(code)
            before = room.game.to_position() if room.game else None
            for client, action, reason, needle in [
                (bob, "draw", "not_your_turn", "Ann's turn"),
                (bob, "play B1", "not_your_turn", "turn"),
                (bob, "0:uno", "wrong_seat", "seat 1, not seat 0"),
                (ann, "play B1", "illegal", "[NM-7]"),
                (ann, "play R11", "illegal", "unknown card"),
                (ann, "fold", "illegal", ""),
                (ann, "1:catch 0", "wrong_seat", ""),
                (ann, "catch 1", "illegal", ""),
                (cid, "draw", "knocked_out", "NM-34"),
            ]:
                await client.act(action)
                error = await client.error()
                assert error["code"] == reason, (action, error)
                assert needle in error["message"]
            assert room.game is not None and room.game.to_position() == before
            assert firsts[2]["view"]["seat"] == 2 and firsts[2]["legal"] == []
            await ann.send({"type": "start"})
            assert (await ann.error())["code"] == "already_started"
            await bob.send({"type": "start"})
            assert (await bob.error())["code"] == "not_host"
            await ann.act("play R9")
            assert (await state_after(cid, 1))["view"]["phase"] == "over"
            await bob.act("draw")
            assert (await bob.error())["code"] == "game_over"

    run(main)


# ---------------------------------------------------------------------- timer
def test_turn_timer_draws_for_the_seat_then_lets_the_bot_finish_the_turn(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        async with Server(tmp_path / "db", timers=(0, 30), clock=clock) as server:
            game = position(
                [["G4", "Y7"], ["B1", "B5"], ["Y5", "Y6"]], discard=["B8"], draw_pile=["R3", "B2"]
            )
            _, (ann, bob, _), firsts = await rigged(server, game, timer=30)
            timer = firsts[1]["timer"]
            assert timer == {"seat": 0, "seconds": 30, "deadline": clock.time() + 30}
            await clock.advance_when_waiting(29.5)
            # Not yet: the timer still waits for its deadline on the clock, and nothing came
            # (after the loop's rounds, not a real-time pause a loaded machine could stretch).
            assert clock.wakes == [timer["deadline"]]
            assert not await ann.settled()
            clock.advance(0.5)
            a = await ann.expect("state", lambda m: m["move"] == 1)
            assert a["last"] == {"seat": 0, "action": "draw"}  # time-out: draw (NM-9)
            assert a["timer"] == {"seat": 0, "seconds": 30, "deadline": clock.time() + 30}
            await clock.advance_when_waiting(30)
            b = await bob.expect("state", lambda m: m["move"] == 2)
            assert b["last"] == {"seat": 0, "action": "play B2"}  # the forced play of NM-9
            assert b["timer"]["seat"] == 1

    run(main)


def test_a_penalty_timed_out_is_absorbed(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        async with Server(tmp_path / "db", timers=(0, 30), clock=clock) as server:
            game = position([["W+6", "G1"], ["B1", "W+10"], ["Y5", "Y6"]], discard=["R5"])
            _, (ann, bob, _), _ = await rigged(server, game, timer=30)
            await ann.act("play W+6 G")
            b = await state_after(bob, 1)
            assert "play W+10 R" in b["legal"] and "draw" in b["legal"]
            assert b["timer"]["seat"] == 1
            # Seat 0's timer ended with its move; seat 1's is the one running.
            await clock.advance_when_waiting(30)
            b = await bob.expect("state", lambda m: m["move"] == 2)
            assert b["last"] == {"seat": 1, "action": "draw"} and len(b["view"]["hand"]) == 8

    run(main)


def test_a_timed_out_move_the_database_refuses_is_retried_until_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        clock = ManualClock()
        async with Server(tmp_path / "db", timers=(0, 30), clock=clock) as server:
            game = position(
                [["G4", "Y7"], ["B1", "B5"], ["Y5", "Y6"]], discard=["B8"], draw_pile=["R3", "B2"]
            )
            code, (ann, _, _), _ = await rigged(server, game, timer=30)
            store = server.lobby.store
            real = store.append_action
            refused = []

            def locked(*args: Any, **kwargs: Any) -> None:
                # Another process holds the write lock through the first 7 attempts.
                refused.append(args)
                if len(refused) < 8:
                    raise type(store).retryable[0]("database is locked")
                real(*args, **kwargs)

            monkeypatch.setattr(store, "append_action", locked)
            await clock.advance_when_waiting(30)
            a = await ann.expect("state", lambda m: m["move"] == 1)
            assert a["last"] == {"seat": 0, "action": "draw"}  # the time-out, not lost
            assert len(refused) >= 8
            row = store.load_game(server.room(code).game_id or "")
            assert row is not None and row.record.actions[:1] == ["draw"]

    run(main)


# ---------------------------------------------------------------------- bots and people
def test_bots_fill_the_open_seats_and_play_with_the_host(tmp_path: Path) -> None:
    async def main() -> None:
        # Bob joins but never connects: after the grace period the bot plays his seat too.
        async with Server(tmp_path / "db", seed_source=lambda: 11, grace=0.05) as server:
            created = await server.create(seats=4, bot="greedy")
            code = created["code"]
            await server.join(code, "Bob")
            host = await server.ws(code)
            await host.hello(created["token"])
            await host.send({"type": "start"})
            state = await host.expect("state")
            seats = state["room"]["seats"]
            assert [(s["kind"], s["bot"]) for s in seats] == [
                ("human", None),
                ("human", None),
                ("bot", "greedy"),
                ("bot", "greedy"),
            ]
            assert seats[2]["name"] == "Bot 2"
            room = server.room(code)
            while state["view"]["phase"] != "over":
                if state["view"]["to_act"] == 0 and state["legal"]:
                    await host.act(state["legal"][0])
                state = await host.expect("state")
            record = server.lobby.store.load_game(state["game_id"])
            assert record is not None and record.status == "finished"
            assert record.record.replay().to_position() == room.game.to_position()  # type: ignore[union-attr]
            assert {a.seat for a in record.record.replay().history} == {0, 1, 2, 3}
            assert state["room"]["seats"][1]["away"] is True

    run(main)


def test_a_disconnected_seat_is_played_by_the_bot_until_its_owner_returns(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", grace=0.1) as server:
            created = await server.create(seats=2, bot="greedy")
            code = created["code"]
            joined = await server.join(code, "Bob")
            host = await server.ws(code)
            await host.hello(created["token"])
            bob = await server.ws(code)
            await bob.hello(joined["token"])
            await host.send({"type": "start"})
            await host.expect("state")
            await bob.close()
            room = await host.expect("room", lambda m: m["room"]["seats"][1]["away"])
            assert room["room"]["seats"][1]["connected"] is False
            # The host plays; Bob's seat moves without him.
            bob_moved = False
            state = [m for m in host.log if m["type"] == "state"][-1]
            while not bob_moved and state["view"]["phase"] != "over":
                if state["view"]["to_act"] == 0 and state["legal"]:
                    await host.act(state["legal"][0])
                state = await host.expect("state")
                bob_moved = state["last"] is not None and state["last"]["seat"] == 1
            assert bob_moved or state["view"]["phase"] == "over"
            again = await server.ws(code)
            welcome = await again.hello(joined["token"])
            assert welcome["seat"] == 1 and welcome["room"]["seats"][1]["away"] is False
            resumed = await again.expect("state")
            game = server.room(code).game
            assert game is not None
            assert resumed["view"]["hand"] == [c.code for c in game.hands[1]]
            assert resumed["view"]["history"]  # a returning client gets the hand's log

    run(main)


def test_every_connection_of_a_seat_gets_each_update(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position([["R9", "G1", "G2"], ["B1", "B2"]], discard=["R5"])
            code, (ann, _), _ = await rigged(server, game)
            tab = await server.ws(code)  # a second tab of Ann's: the same token
            await tab.send({"type": "hello", "token": "wrong"})
            assert (await tab.error())["code"] == "bad_token"
            await tab.hello(ann.token)
            assert (await tab.expect("state"))["view"]["hand"] == ["R9", "G1", "G2"]
            await tab.act("play R9")
            one = await state_after(ann, 1)
            two = await state_after(tab, 1)
            assert one == two and one["view"]["hand"] == ["G1", "G2"]
            assert len(server.room(code).seats[0].conns) == 2

    run(main)


def test_spectators_see_the_public_view_only(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            game = position(
                [["G4", "Y7"], ["B1", "B5"]], discard=["B8"], draw_pile=["R3", "Y5", "B2"]
            )
            code, (ann, _), _ = await rigged(server, game)
            fan = await server.ws(code)
            welcome = await fan.hello()
            assert welcome["seat"] is None and welcome["room"]["spectators"] == 1
            first = await fan.expect("state")
            assert first["seat"] is None and first["view"]["hand"] == [] and first["legal"] == []
            await ann.act("draw")
            seen = await state_after(fan, 1)
            draw = seen["events"][0]
            assert "cards" not in draw and "R3" not in draw["text"] and draw["count"] == 3
            assert seen["view"]["drawn"] is None and seen["view"]["players"][0]["hand_size"] == 5

    run(main)


def test_match_mode_deals_hands_until_the_target(tmp_path: Path) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", seed_source=lambda: 3) as server:
            created = await server.create(
                seats=2, bot="greedy", mode="match", options={"score_target": 150}
            )
            host = await server.ws(created["code"])
            await host.hello(created["token"])
            await host.send({"type": "start"})
            state = await host.expect("state")
            kinds: list[str] = []
            while state["view"]["phase"] != "over":
                if state["view"]["to_act"] == 0 and state["legal"]:
                    await host.act(state["legal"][0])
                state = await host.expect("state")
                kinds += [e["kind"] for e in state["events"]]
            assert kinds.count("hand_end") >= 1 and kinds[-1] == "match_end"
            assert max(state["view"]["scores"]) >= 150
            # A rematch: the host starts the next game in the same room.
            await host.send({"type": "start"})
            again = await host.expect("state", lambda m: m["game_id"] != state["game_id"])
            assert again["move"] == 0 and again["room"]["finished_games"] == [state["game_id"]]

    run(main)


def test_a_restarted_lobby_resumes_the_game_exactly(tmp_path: Path) -> None:
    async def main() -> None:
        db = tmp_path / "db"
        async with Server(db, seed_source=lambda: 8) as server:
            code, (ann, bob) = await table(server, seats=2)
            await ann.send({"type": "start"})
            state = await ann.expect("state")
            for _ in range(6):
                mover = ann if state["view"]["to_act"] == 0 else bob
                last = await mover.state(state["move"])
                await mover.act(last["legal"][0])
                state = await ann.state(state["move"] + 1)
            before = server.room(code).game
            assert before is not None
            position_before = before.to_position()
            game_id = state["game_id"]
        async with Server(db) as server:
            room = server.room(code)
            assert room.started and room.game_id == game_id
            assert room.game is not None and room.game.to_position() == position_before
            row = server.lobby.store.load_game(game_id)
            assert row is not None
            assert GameRecord.loads(row.record.dumps()).replay().to_position() == position_before

    run(main)


def test_bot_decisions_depend_only_on_seed_move_and_seat(tmp_path: Path) -> None:
    async def main() -> None:
        finals = []
        for attempt in range(2):
            async with Server(tmp_path / f"db{attempt}", seed_source=lambda: 21) as server:
                created = await server.create(seats=3, bot="random")
                host = await server.ws(created["code"])
                await host.hello(created["token"])
                server.room(created["code"]).config.grace = 0.0
                await host.close()
                await asyncio.sleep(0.05)
                room = server.room(created["code"])
                async with room.lock:
                    await room.start_game()
                # The bots play the game out, each move stored: wait for its end (the bound
                # only catches a hang; a loaded machine takes many times a second or two).
                end = asyncio.get_running_loop().time() + 120
                while room.game is None or not room.game.is_over:
                    assert asyncio.get_running_loop().time() < end, "the game did not end"
                    await asyncio.sleep(0.01)
                finals.append([str(a) for a in room.game.history])
        assert finals[0] == finals[1]

    run(main)


def test_a_thinking_bot_blocks_neither_its_room_nor_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot thinks in a worker thread: here it cannot finish until another room has played
    (if bots ran in the event loop, the other room's answer could never come)."""
    release = threading.Event()

    class Pondering(GreedyBot):
        name = "pondering"

        def choose_action(self, view: dict[str, Any], legal: list[Action]) -> Action:
            assert release.wait(10), "the other room never got its answer"
            return super().choose_action(view, legal)

    monkeypatch.setitem(BOTS, "pondering", Pondering)

    async def main() -> None:
        async with Server(tmp_path / "db") as server:
            slow = await server.create(seats=2, bot="pondering")
            host = await server.ws(slow["code"])
            await host.hello(slow["token"])
            game = position([["R3", "G2", "G3"], ["R1", "R2"]], discard=["R5"])
            await server.rig(slow["code"], game)  # seat 1 is the pondering bot's
            await host.act("play R3")
            assert (await host.state(1))["view"]["to_act"] == 1  # the bot is thinking now
            game = position([["R9", "G1", "G2"], ["B1", "B2"]], discard=["R5"])
            _, (ann, bob), _ = await rigged(server, game)
            await ann.act("play R9")
            assert (await bob.state(1))["view"]["to_act"] == 1
            release.set()
            assert (await host.state(2))["last"]["seat"] == 1

    run(main)


def test_a_move_that_cannot_be_stored_is_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", action_retry=0.3) as server:
            game = position([["R9", "G1", "G2"], ["B1", "B2"]], discard=["R5"])
            code, (ann, bob), _ = await rigged(server, game)
            store = server.lobby.store
            real = store.append_action

            def broken(*args: Any, **kwargs: Any) -> None:
                raise type(store).retryable[0]("disk I/O error")

            monkeypatch.setattr(store, "append_action", broken)
            await ann.act("play R9")
            error = await ann.error()
            assert error["code"] == "unavailable"  # after retrying for action_retry seconds
            room = server.room(code)
            assert room.game is not None and room.game.history == []  # undone: no move
            assert [c.code for c in room.game.hands[0]] == ["R9", "G1", "G2"]
            monkeypatch.setattr(store, "append_action", real)
            await ann.act("play R9")
            assert (await bob.state(1))["last"] == {"seat": 0, "action": "play R9"}

    run(main)


def test_the_timer_keeps_running_through_other_seats_out_of_turn_actions(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with Server(tmp_path / "db", timers=(0, 60)) as server:
            game = position([["R9", "G1"], ["R1", "B2", "B3"], ["R2", "Y6", "Y7"]], discard=["R5"])
            _, (ann, bob, cid), firsts = await rigged(server, game, timer=60)
            assert firsts[0]["timer"]["seat"] == 0
            await ann.act("play R9")  # one card left, no UNO call
            b = await state_after(bob, 1)
            deadline = b["timer"]["deadline"]
            assert b["timer"]["seat"] == 1 and deadline > firsts[0]["timer"]["deadline"] - 1
            await cid.act("2:catch 0")  # out of turn: Bob's clock is not reset
            b = await state_after(bob, 2)
            assert b["timer"] == {"seat": 1, "deadline": deadline, "seconds": 60}
            await bob.act("play R1")  # Bob's in-turn action: Cid's clock starts
            c = await state_after(cid, 3)
            assert c["timer"]["seat"] == 2 and c["timer"]["deadline"] >= deadline

    run(main)


def test_a_connection_that_does_not_read_is_closed_not_buffered(tmp_path: Path) -> None:
    async def main() -> None:
        closed: list[int] = []
        stuck = asyncio.Event()

        async def send_text(text: str) -> None:
            await stuck.wait()  # the peer never reads

        async def close(code: int) -> None:
            closed.append(code)

        config = ServerConfig(database=tmp_path / "db", send_queue=5)
        conn = Connection(send_text, close, config)
        conn.start()
        for n in range(7):
            conn.send({"type": "pong", "n": n})
        await asyncio.sleep(0.01)
        assert closed == [1013] and conn.closed
        conn.send({"type": "pong"})  # ignored once closed
        assert conn.queue.qsize() <= 5
        await conn.stop()

    run(main)


@pytest.mark.sqlite_only
def test_a_stored_room_whose_bot_is_gone_still_loads(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlite3

    database = tmp_path / "db.sqlite3"

    async def first() -> str:
        async with Server(database) as server:
            created = await server.create(seats=3, bot="greedy")
            host = await server.ws(created["code"])
            await host.hello(created["token"])
            await host.send({"type": "start"})
            await host.state(0)
            return str(created["code"])

    code = asyncio.run(first())
    # A version that no longer has the room's bot (its name, as an older one stored it).
    with sqlite3.connect(database) as db:
        db.execute("UPDATE rooms SET bot = 'retired' WHERE code = ?", (code,))
        db.execute("UPDATE seats SET bot = 'retired' WHERE room = ? AND kind = 'bot'", (code,))
    db.close()

    async def second() -> None:
        async with Server(database) as server:
            r = await server.http.get(f"/api/rooms/{code}")
            assert r.status_code == 200 and r.json()["started"] is True
            room = server.room(code)
            assert room.game is not None and room.bot_questions() == []

    asyncio.run(second())
    assert f"room {code}: its bots cannot play" in caplog.text
