"""Long finished games stored straight into a server's SQLite database, for the replay tests and
benchmarks/bench_replays.py (issue 43).

An attacker makes such a game in its own room by driving every seat (classic with a large
custom deck: a game of thousands of moves, each replay frame holding hands of hundreds of
cards). Here the engine plays it in a fraction of a second and the store's own calls record it,
exactly as a room would have: the room, the game's start, each action, the result.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import realserver

from nomercy import new_game
from nomercy.core.deck import CLASSIC108_COUNTS
from nomercy.core.records import GameRecord
from nomercy.tables.table import Table
from nomercy.web.database import open_store
from nomercy.web.sqlcore import RoomRow, SeatRow

#: Nine classic decks: 972 cards, under the server's 1,000-card limit for a custom deck.
BIG_DECK = {code: copies * 9 for code, copies in CLASSIC108_COUNTS.items()}


def long_actions(moves: int, *, hand: int = 300, seed: int = 3) -> list[str]:
    """The actions of a finished two-seat classic game on ``BIG_DECK`` of at least ``moves``
    actions: both seats draw until they hold ``hand`` cards and keep that size (draw, pass,
    play) until the end is near, then play out."""
    game = new_game(2, rules="classic", options={"deck_counts": BIG_DECK}, seed=seed)
    stall = max(0, moves - 2 * hand - 50)
    while not game.is_over or len(game.history) < moves:
        if game.is_over:  # shorter than asked: a longer stall
            stall += moves - len(game.history) + 10
            game = new_game(2, rules="classic", options={"deck_counts": BIG_DECK}, seed=seed)
        seat = game.to_act
        assert seat is not None
        legal = [str(a) for a in game.legal_actions(seat)]
        plays = [a for a in legal if a.startswith("play")]
        holding = len(game.hands[seat])
        if len(game.history) < stall and (holding < hand or not plays):
            waits = [a for a in legal if a.startswith(("draw", "pass"))]
            game.apply(waits[0] if waits else legal[0])
        else:
            game.apply(plays[0] if plays else legal[0])
    return [str(a) for a in game.history]


def store_long_game(database: Path, moves: int, *, seed: int = 3) -> tuple[str, int]:
    """Store a finished long game (``long_actions``) in a new room of ``database``; returns the
    game's id and its number of actions."""
    actions = long_actions(moves, seed=seed)
    code = "LONG" + secrets.token_hex(3).upper()
    game_id = secrets.token_urlsafe(9)
    record = GameRecord(
        rules="classic",
        options={"deck_counts": BIG_DECK},
        players=2,
        seed=seed,
        names=["Ann", "Bob"],
    )
    seats = [SeatRow(0, "Ann", "human", None, None), SeatRow(1, "Bob", "human", None, None)]
    # The suite's PostgreSQL runs map the path to their database (tests/web/conftest.py).
    store = open_store(realserver.database_for(database))
    try:
        store.create_room(
            RoomRow(
                code,
                "long",
                "classic",
                {"deck_counts": BIG_DECK},
                2,
                "greedy",
                0,
                "single",
                time.time(),
                None,
                seats,
            )
        )
        store.start_game(code, game_id, 1, record, seats)
        game = record.start_game()
        for index, action in enumerate(actions):
            game.apply(action)
            finished = None
            if index == len(actions) - 1:
                assert game.is_over
                seating = Table.seating(["human", "human"], 0.0)
                finished = {
                    "winner": game.winner,
                    "scores": list(game.scores),
                    "over": True,
                    "room": code,
                    "table": seating,
                    "bots": seating["seats"],
                }
            store.append_action(game_id, index, action, finished=finished, room=code)
    finally:
        store.close()
    return game_id, len(actions)
