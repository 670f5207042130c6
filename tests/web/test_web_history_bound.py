"""A room's memory is bounded however long its game runs (issue 43, point 5).

A room that never goes idle used to grow by every move's events (~0.5 KB a move). Its game
now lets go of its past (``Game.forget``) whenever it holds ``2 * EVENTS_HELD`` events or
actions; the record is in the database. These tests drive the same games twice, once with a
small ``EVENTS_HELD`` and once with one no game reaches, and check that the room held little
(object counts, not RSS) while everything a client sees is identical: every state, a
reconnecting seat's and a spectator's hello, every history page and the replay; and that bots
reading the hand's whole history (the colours a draw proves a seat lacks, NM-9) play the same
moves. The memory figure over 8,000+ moves is in benchmarks/README.md (bench_memory.py).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from longgames import BIG_DECK, long_actions
from webharness import Server, WsClient, run

from nomercy import new_game
from nomercy.web import gameflow
from nomercy.web import room as room_module

HELD = room_module.HELLO_HISTORY  # the least a room keeps
#: Events a single move adds at most, beyond the bound checked after each move.
PER_MOVE = 12


def _strip(message: dict[str, Any]) -> str:
    """A message without what differs between two runs of a game (its id, the room's code)."""
    data = {k: v for k, v in message.items() if k not in ("game_id", "room")}
    return json.dumps(data, sort_keys=True)


async def _pages(client: WsClient, before: int) -> list[dict[str, Any]]:
    """The hand's public events before ``before``, page by page (``history`` messages)."""
    events: list[dict[str, Any]] = []
    while before > 0:
        await client.send({"type": "history", "before": before})
        page = await client.expect("history")
        assert page["from"] == max(0, before - room_module.HISTORY_PAGE)
        events[:0] = page["events"]
        before = page["from"]
    return events


def _people_run(path: Path, actions: list[str]) -> dict[str, Any]:
    """Two people play ``actions`` (a long classic game); what their clients saw, and the most
    the room's game held after any move."""
    seen: dict[str, Any] = {"states": [], "held": 0, "forgotten": 0}

    async def main() -> None:
        async with Server(path) as server:
            created = await server.create(
                seats=2, preset="classic", options={"deck_counts": BIG_DECK}
            )
            code = created["code"]
            bob = (await server.join(code, "Bob"))["token"]
            ann = await server.ws(code)
            await ann.hello(created["token"])
            bobs = await server.ws(code)
            await bobs.hello(bob)
            game = new_game(2, rules="classic", options={"deck_counts": BIG_DECK}, seed=3)
            await server.rig(code, game)
            room = server.room(code)
            clients = (ann, bobs)
            for move, action in enumerate(actions):
                assert room.game is not None
                seat = room.game.to_act
                mover = clients[seat if seat is not None else int(action[1])]
                await mover.act(action)
                for client in clients:
                    state = await client.state(move + 1)
                    text = _strip(state).encode()
                    seen["states"].append(hashlib.sha256(text).hexdigest())
                game_now = room.game
                held = max(len(game_now.log), len(game_now.history))
                seen["held"] = max(seen["held"], held)
                seen["forgotten"] = max(seen["forgotten"], game_now.hand_forgotten)
                for client in clients:
                    client.log.clear()
            assert room.game is not None and room.game.is_over
            # Reconnecting: Bob on a new connection, and a spectator; then every page.
            again = await server.ws(code)
            await again.hello(bob)
            hello = await again.expect("state")
            watcher = await server.ws(code)
            await watcher.hello()
            seen["hellos"] = [_strip(hello), _strip(await watcher.expect("state"))]
            seen["pages"] = await _pages(again, hello["history_from"])
            replay = await server.http.get(f"/api/replays/{room.game_id}")
            assert replay.status_code == 200, replay.text
            data = replay.json()
            data.pop("id")
            data["record"]["result"].pop("room")
            seen["replay"] = _strip(data)

    run(main)
    return seen


def test_a_room_driven_for_many_moves_holds_a_bounded_past_and_shows_the_same_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    actions = long_actions(700, hand=40)
    assert len(actions) >= 700
    monkeypatch.setattr(gameflow, "EVENTS_HELD", HELD)
    lean = _people_run(tmp_path / "lean.sqlite", actions)
    monkeypatch.setattr(gameflow, "EVENTS_HELD", 10**9)
    whole = _people_run(tmp_path / "whole.sqlite", actions)
    # The lean room let go of most of the hand, and never held more than its bound.
    assert lean["forgotten"] > 500
    assert lean["held"] <= 2 * HELD + PER_MOVE
    assert whole["held"] > 700
    assert lean["states"] == whole["states"]
    assert lean["hellos"] == whole["hellos"]
    assert lean["pages"] == whole["pages"] and len(lean["pages"]) > 500
    assert lean["replay"] == whole["replay"]


def _after(move: int, message: dict[str, Any]) -> bool:
    """Whether a ``state`` message is of a move after ``move``."""
    return bool(message["move"] > move)


def _bots_run(path: Path, seed: int) -> tuple[list[str], int]:
    """A person (the first of its legal actions, on its turns only: the game does not depend
    on timing) and two heuristic bots play the game dealt from ``seed``; every action stored,
    and how many bot decisions the room took on a hand its game had partly let go of (so
    the bots read it from the game replayed)."""

    async def main() -> tuple[list[str], int]:
        async with Server(path, seed_source=lambda: seed) as server:
            created = await server.create(seats=3, bot="heuristic", hints=False)
            code = created["code"]
            ann = await server.ws(code)
            await ann.hello(created["token"])
            await ann.send({"type": "start"})
            await ann.state(0)
            room = server.room(code)
            replayed = 0
            while room.game is not None and not room.game.is_over:
                game = room.game
                move = game.moves
                if game.to_act == 0:
                    state = await ann.state(move)
                    await ann.act(state["legal"][0])
                elif game.hand_forgotten:
                    replayed += 1
                await ann.expect("state", functools.partial(_after, move))
            assert room.game_id is not None
            store = server.lobby.store
            row = await server.lobby.write(
                functools.partial(store.load_game, room.game_id), retry_for=5
            )
            assert row is not None and row.status == "finished"
            return row.record.actions, replayed

    return asyncio.run(main())


def test_bots_read_the_whole_hand_and_play_as_in_a_room_that_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gameflow, "EVENTS_HELD", HELD)
    lean, replayed = _bots_run(tmp_path / "lean.sqlite", 21)
    monkeypatch.setattr(gameflow, "EVENTS_HELD", 10**9)
    whole, _ = _bots_run(tmp_path / "whole.sqlite", 21)
    assert replayed > 10  # the bots decided from the replayed game, many times
    assert lean == whole and len(lean) > 40
