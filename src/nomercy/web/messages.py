"""The web's wire format: every server -> client message, under one ``PROTOCOL_VERSION``.

The web owns what it sends. A seat's :class:`~nomercy.core.views.PlayerView` goes out as
:meth:`PlayerView.to_json` (cards as codes; the engine's bookkeeping never leaves the server),
with the web's own fields around it (legal actions, advice, the timer, the room summary).
docs/web-protocol.md is the prose version of this module; a change to the shape of any message
here is a change of ``PROTOCOL_VERSION`` (see "Protocol version" there).

>>> from nomercy import new_game
>>> view = new_game(3, seed=1).view(0, history=False)
>>> welcome(0, {"code": "K7QX2M9PAD"})["protocol"] == PROTOCOL_VERSION
True
>>> "engine" in view_json(view, [])
False
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from nomercy.core.events import Event

if TYPE_CHECKING:
    from nomercy.core.actions import Action
    from nomercy.core.game import Game
    from nomercy.core.records import GameRecord
    from nomercy.core.views import PlayerView

__all__ = [
    "PROTOCOL_VERSION",
    "dumps",
    "error",
    "frame",
    "hint",
    "history",
    "pong",
    "reaction",
    "replay_head",
    "replay_step",
    "room",
    "seat_taken",
    "state",
    "view_json",
    "welcome",
]

#: The version of the messages this server sends and accepts (``GET /api/meta`` ``protocol``,
#: and every ``welcome``). Version 2: the view is the engine's typed ``PlayerView`` (no
#: ``engine`` block; ``two_player``, ``next_seat`` and ``stack_floor`` added).
PROTOCOL_VERSION: Final = 2


def dumps(message: Mapping[str, Any]) -> str:
    """Compact JSON for the wire."""
    return json.dumps(message, separators=(",", ":"))


def view_json(view: PlayerView, history: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A view's wire form: :meth:`PlayerView.to_json` with ``history`` (public event dicts,
    :meth:`Game.public_history`'s slice the message carries; ``[]`` in later states)."""
    data = view.to_json()
    data["history"] = list(history)
    return data


def state(
    *,
    seat: int | None,
    game_id: str | None,
    move: int,
    view: Mapping[str, Any],
    legal: Sequence[Action],
    advice: Mapping[str, Sequence[Any]],
    events: Sequence[Event],
    last: Action | None,
    timer: Mapping[str, Any] | None,
    history_from: int | None = None,
    room: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``state`` message (docs/web-protocol.md "Server -> client"): ``view`` from
    :func:`view_json`, ``events`` censored here for ``seat``, ``advice`` by action notation."""
    message: dict[str, Any] = {
        "type": "state",
        "seat": seat,
        "game_id": game_id,
        "move": move,
        "view": view,
        "legal": [str(a) for a in legal],
        "advice": {k: [a.to_json() for a in v] for k, v in advice.items()},
        "events": [e.for_seat(seat).to_dict() for e in events],
        "last": None if last is None else {"seat": last.seat, "action": str(last)},
        "timer": None if timer is None else dict(timer),
    }
    if history_from is not None:
        message["history_from"] = history_from
    if room is not None:
        message["room"] = dict(room)
    return message


def welcome(seat: int | None, room: Mapping[str, Any]) -> dict[str, Any]:
    """The answer to ``hello``: the connection's seat (``None``: a spectator), the protocol
    version and the room summary."""
    return {"type": "welcome", "seat": seat, "protocol": PROTOCOL_VERSION, "room": dict(room)}


def room(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A ``room`` message: the room summary changed."""
    return {"type": "room", "room": dict(summary)}


def history(
    game_id: str | None, hand: int, start: int, events: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """A ``history`` message: public events ``start`` onwards of hand ``hand``."""
    return {"type": "history", "game_id": game_id, "hand": hand, "from": start, "events": events}


def hint(game_id: str | None, move: int, seat: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """A ``hint`` message: the coach's hint for ``seat`` at ``move``."""
    return {"type": "hint", "game_id": game_id, "move": move, "seat": seat, "hint": dict(data)}


def seat_taken(seat: int, name: str, was: str | None, playing: bool) -> dict[str, Any]:
    """A ``seat_taken`` message, to the whole table: ``name`` takes over ``seat`` from its bot
    (``was``: the bot's name at the table); ``playing``: during a game, from the seat's next
    decision on (otherwise from the next game)."""
    return {"type": "seat_taken", "seat": seat, "name": name, "was": was, "playing": playing}


def pong() -> dict[str, Any]:
    """The answer to ``ping``."""
    return {"type": "pong"}


def error(code: str, message: str) -> dict[str, Any]:
    """An ``error`` message: a refused request's ``code`` (an ``ErrorCode`` value of
    web/protocol.py) and a message naming the problem."""
    return {"type": "error", "code": code, "message": message}


def reaction(seat: int, key: str) -> dict[str, Any]:
    """A ``reaction`` message, to the whole room: ``seat`` sent the quick reaction ``key``
    (one of web/reactions.py's ``REACTIONS``)."""
    return {"type": "reaction", "seat": seat, "reaction": key}


# ---------------------------------------------------------------------- replays
#: The view's keys a replay frame leaves out: the frame shows every hand instead.
_FRAME_DROPS = ("rules", "history", "hand", "known", "seat")


def frame(game: Game) -> dict[str, Any]:
    """A replay frame: the spectator view without ``rules``, ``history``, ``hand``, ``known``
    and ``seat``, plus ``hands``: every seat's hand as card codes."""
    data = game.view(None, history=False).to_json()
    for key in _FRAME_DROPS:
        data.pop(key, None)
    data["hands"] = [[c.code for c in hand] for hand in game.hands]
    return data


def replay_step(game: Game, events: Sequence[Event]) -> dict[str, Any]:
    """One step of a replay: the action ``game`` just applied, its uncensored events and the
    frame after it."""
    action = game.history[-1]
    return {
        "action": str(action),
        "seat": action.seat,
        "events": [e.to_dict() for e in events],
        "frame": frame(game),
    }


def replay_head(
    game_id: str,
    room_code: str,
    record: GameRecord,
    game: Game,
    opening: Sequence[Mapping[str, Any]],
    start_frame: Mapping[str, Any],
    page: int,
) -> dict[str, Any]:
    """``GET /api/replays/{id}`` without its steps: ``game`` is the finished game (after every
    action of ``record``), ``page`` the most steps one answer carries."""
    table = record.result.get("table") if isinstance(record.result, dict) else None
    return {
        "id": game_id,
        "room": room_code,
        # A string: a 64-bit seed does not survive JavaScript's numbers.
        "seed": str(record.seed),
        "record": record.to_dict(),
        "rules": game.rules.to_json(),
        "names": list(game.names),
        "seats": table.get("seats") if isinstance(table, dict) else None,
        "opening": list(opening),
        "start_frame": dict(start_frame),
        "steps_total": len(record.actions),
        "page": page,
        "result": {"winner": game.winner, "scores": list(game.scores), "over": game.is_over},
    }
